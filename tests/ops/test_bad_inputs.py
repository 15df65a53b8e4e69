"""Bad inputs across common ops, against real TF: where TF raises, torchflow raises
the same error type with TF's message (no value, no torch traceback); where TF
returns (an empty output), torchflow returns the same shape."""

import numpy as np
import pytest

import torchflow as tf
import torchflow.experimental.numpy as tnp
from torchflow._src.testing import real_tf

# name -> program(module, numpy module); each was a silent answer, a torch message or
# a wrong error type before issue 19, or guards the rule next to one that was.
PROGRAMS = {
    "conv2d_valid_negative": lambda m, n: m.nn.conv2d(m.ones((1, 3, 3, 1)),
                                                      m.ones((5, 5, 1, 2)), 1, "VALID"),
    "conv2d_valid_empty": lambda m, n: m.nn.conv2d(m.ones((1, 3, 3, 1)),
                                                   m.ones((3, 3, 1, 2)), 5, "VALID"),
    "conv2d_stride_truncates_to_0": lambda m, n: m.nn.conv2d(m.ones((1, 3, 3, 1)),
                                                             m.ones((9, 9, 1, 2)), 5, "VALID"),
    "conv2d_dilated_negative": lambda m, n: m.nn.conv2d(m.ones((1, 3, 3, 1)),
                                                        m.ones((3, 3, 1, 2)), 1, "VALID",
                                                        dilations=2),
    "conv2d_explicit_pad_empty": lambda m, n: m.nn.conv2d(
        m.ones((1, 3, 3, 1)), m.ones((5, 4, 1, 2)), 1, [[0, 0], [1, 0], [0, 0], [0, 0]]),
    "conv1d_negative": lambda m, n: m.nn.conv1d(m.ones((1, 3, 1)), m.ones((5, 1, 1)), 1,
                                                "VALID"),
    "conv3d_negative": lambda m, n: m.nn.conv3d(m.ones((1, 3, 3, 3, 1)),
                                                m.ones((5, 5, 5, 1, 1)), [1] * 5, "VALID"),
    "depthwise_negative": lambda m, n: m.nn.depthwise_conv2d(
        m.ones((1, 3, 3, 1)), m.ones((5, 5, 1, 1)), [1] * 4, "VALID"),
    "max_pool_negative": lambda m, n: m.nn.max_pool2d(m.ones((1, 3, 3, 1)), 5, 1, "VALID"),
    "avg_pool_negative": lambda m, n: m.nn.avg_pool2d(m.ones((1, 3, 3, 1)), 5, 1, "VALID"),
    "max_pool_empty": lambda m, n: m.nn.max_pool2d(m.ones((1, 3, 3, 1)), 5, 5, "VALID"),
    "avg_pool3d_negative": lambda m, n: m.nn.avg_pool3d(m.ones((1, 3, 3, 3, 1)), 5, 1,
                                                        "VALID"),
    "keras_max_pool_empty": lambda m, n: m.keras.layers.MaxPooling2D(5)(m.ones((1, 3, 3, 1))),
    "tnp_expand_dims_5": lambda m, n: n.expand_dims(n.ones((2, 3)), 5),
    "tnp_expand_dims_-5": lambda m, n: n.expand_dims(n.ones((2, 3)), -5),
    "tnp_expand_dims_-3": lambda m, n: n.expand_dims(n.ones((2, 3)), -3),
    "sequence_mask_negative": lambda m, n: m.sequence_mask([1, 2], -1),
    "sequence_mask_zero": lambda m, n: m.sequence_mask([1, 2], 0),
    "resize_negative": lambda m, n: m.image.resize(m.ones((4, 4, 1)), [-1, 2]),
    "resize_zero": lambda m, n: m.image.resize(m.ones((4, 4, 1)), [0, 2]),
    "where_not_broadcastable": lambda m, n: m.where(m.constant([True, False]), m.ones((3,)),
                                                    m.zeros((3,))),
    "to_number_abc": lambda m, n: m.strings.to_number("abc"),
    "slice_assign_bad_shape": lambda m, n: m.Variable(np.zeros((3, 4), np.float32))[
        1:].assign([1.0, 2.0]),
    "scatter_nd_out_of_range": lambda m, n: m.Variable(np.zeros((3, 4), np.float32))
    .scatter_nd_update([[5, 0]], [1.0]),
    # Shapes print as TF's TensorShape::DebugString, "[2,3]".
    "matmul_incompatible": lambda m, n: m.matmul(m.ones((2, 3)), m.ones((2, 3))),
    "add_incompatible": lambda m, n: m.ones((2, 3)) + m.ones((3, 2)),
    "softmax_xent_incompatible": lambda m, n: m.nn.softmax_cross_entropy_with_logits(
        m.ones((2, 3)), m.ones((2, 4))),
    "bias_add_mismatch": lambda m, n: m.nn.bias_add(m.ones((2, 3)), m.ones((4,))),
    "conv2d_rank": lambda m, n: m.nn.conv2d(m.ones((3, 3, 1)), m.ones((3, 3, 1, 2)), 1,
                                            "VALID"),
    "iterate_scalar": lambda m, n: list(m.constant(1.0)),
    "len_scalar": lambda m, n: len(m.constant(1.0)),
}


def _outcome(fn, mod, np_mod):
    try:
        r = fn(mod, np_mod)
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__, str(e)
    return "value", tuple(r.shape)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bad_input_matches_tf(name):
    rtf = real_tf()
    import tensorflow.experimental.numpy as rtnp

    theirs = _outcome(PROGRAMS[name], rtf, rtnp)
    ours = _outcome(PROGRAMS[name], tf, tnp)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "value":
        assert ours[1] == theirs[1]
    else:
        # TF appends its node details; our message up to the op suffix is TF's text.
        assert ours[1].split(" [Op:")[0].strip() in theirs[1]
