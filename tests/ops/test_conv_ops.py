"""Convolutions against real TensorFlow: same random inputs, values and dtypes."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10),
       "float16": dict(rtol=1e-2, atol=2e-2)}


def _nchw(a, n):
    return np.moveaxis(a, -1, 1)


CONV2D_CASES = [
    # x shape, filter shape, strides, padding, dilations
    ((2, 7, 6, 3), (3, 3, 3, 4), 1, "SAME", 1),
    ((2, 7, 6, 3), (3, 3, 3, 4), 2, "SAME", 1),  # asymmetric SAME padding
    ((1, 8, 8, 2), (2, 2, 2, 3), 2, "SAME", 1),  # even kernel: all padding at the end
    ((1, 8, 9, 2), (4, 3, 2, 3), [2, 3], "SAME", 1),
    ((2, 7, 6, 3), (3, 3, 3, 4), [1, 2, 1, 1], "VALID", 1),
    ((1, 9, 9, 2), (3, 3, 2, 2), 1, "SAME", 2),
    ((1, 9, 9, 2), (3, 2, 2, 2), 1, "VALID", [1, 2, 3, 1]),
    ((1, 6, 5, 2), (3, 3, 2, 3), 1, [[0, 0], [1, 2], [0, 1], [0, 0]], 1),
    ((1, 5, 5, 6), (3, 3, 3, 4), 1, "SAME", 1),  # grouped (6 in, filter depth 3)
    ((1, 2, 2, 3), (3, 3, 3, 2), 1, "VALID", 1),  # empty output
]


@pytest.mark.parametrize("xs,ws,strides,padding,dil", CONV2D_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv2d_matches_tf(xs, ws, strides, padding, dil, dtype):
    rtf = real_tf()
    x, w = rand(xs, dtype, 1), rand(ws, dtype, 2)
    want = rtf.nn.conv2d(x, w, strides, padding, dilations=dil)
    got = tf.nn.conv2d(x, w, strides, padding, dilations=dil)
    assert_close(got, want, **TOL[dtype])


@pytest.mark.parametrize("xs,ws,strides,padding,dil", CONV2D_CASES[:4])
def test_conv2d_nchw_equals_nhwc_in_tf(xs, ws, strides, padding, dil):
    # TF's CPU has no NCHW conv, so NCHW is checked against TF's NHWC result.
    rtf = real_tf()
    x, w = rand(xs, "float32", 3), rand(ws, "float32", 4)
    want = rtf.nn.conv2d(x, w, strides, padding, dilations=dil).numpy()
    got = tf.nn.conv2d(np.ascontiguousarray(_nchw(x, 2)), w, strides, padding,
                       data_format="NCHW", dilations=dil)
    assert_close(got, _nchw(want, 2), rtol=1e-4, atol=1e-4)


def test_conv2d_float16_int32_and_extra_batch_dims():
    rtf = real_tf()
    x, w = rand((1, 5, 5, 2), "float16", 5, -1, 1), rand((3, 3, 2, 2), "float16", 6, -1, 1)
    assert_close(tf.nn.conv2d(x, w, 1, "SAME"), rtf.nn.conv2d(x, w, 1, "SAME"), **TOL["float16"])
    xi, wi = rand((1, 5, 5, 2), "int32", 7), rand((3, 3, 2, 2), "int32", 8)
    assert_close(tf.nn.conv2d(xi, wi, 2, "SAME"), rtf.nn.conv2d(xi, wi, 2, "SAME"))
    x5, w5 = rand((2, 3, 5, 5, 2), "float32", 9), rand((3, 3, 2, 2), "float32", 10)
    assert_close(tf.nn.conv2d(x5, w5, 1, "VALID"), rtf.nn.conv2d(x5, w5, 1, "VALID"),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("stride,padding,dil", [(1, "SAME", 1), (2, "SAME", 1), (3, "VALID", 1),
                                                (1, "SAME", 2), (2, "VALID", 2)])
def test_conv1d_matches_tf(stride, padding, dil):
    rtf = real_tf()
    x, w = rand((2, 11, 3), "float32", 1), rand((3, 3, 4), "float32", 2)
    want = rtf.nn.conv1d(x, w, stride, padding, dilations=dil)
    assert_close(tf.nn.conv1d(x, w, stride, padding, dilations=dil), want, rtol=1e-4, atol=1e-4)
    got_ncw = tf.nn.conv1d(np.ascontiguousarray(_nchw(x, 1)), w, stride, padding,
                           data_format="NCW", dilations=dil)
    assert_close(got_ncw, _nchw(want.numpy(), 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strides,padding", [([1, 1, 1, 1, 1], "SAME"), ([1, 2, 2, 1, 1], "SAME"),
                                             ([1, 1, 2, 1, 1], "VALID")])
def test_conv3d_matches_tf(strides, padding):
    rtf = real_tf()
    x, w = rand((1, 5, 6, 4, 2), "float32", 1), rand((2, 3, 2, 2, 3), "float32", 2)
    assert_close(tf.nn.conv3d(x, w, strides, padding), rtf.nn.conv3d(x, w, strides, padding),
                 rtol=1e-4, atol=1e-4)


def test_convolution_dispatches_by_rank():
    rtf = real_tf()
    x, w = rand((1, 6, 6, 2), "float32", 1), rand((3, 3, 2, 2), "float32", 2)
    assert_close(tf.nn.convolution(x, w, 2, "SAME"), rtf.nn.convolution(x, w, 2, "SAME"),
                 rtol=1e-4, atol=1e-4)


TRANSPOSE_CASES = [
    ((1, 4, 4, 3), (3, 3, 2, 3), (1, 8, 8, 2), 2, "SAME"),
    ((1, 4, 4, 3), (3, 3, 2, 3), (1, 7, 7, 2), 2, "SAME"),
    ((2, 3, 4, 3), (3, 3, 2, 3), (2, 7, 9, 2), 2, "VALID"),
    ((2, 3, 4, 3), (3, 3, 2, 3), (2, 8, 10, 2), 2, "VALID"),
    ((1, 5, 5, 3), (2, 2, 2, 3), (1, 5, 5, 2), 1, "SAME"),
]


@pytest.mark.parametrize("xs,ws,out,strides,padding", TRANSPOSE_CASES)
def test_conv2d_transpose_matches_tf(xs, ws, out, strides, padding):
    rtf = real_tf()
    x, w = rand(xs, "float32", 1), rand(ws, "float32", 2)
    want = rtf.nn.conv2d_transpose(x, w, out, strides, padding)
    assert_close(tf.nn.conv2d_transpose(x, w, out, strides, padding), want, rtol=1e-4, atol=1e-4)


def test_conv1d_and_conv3d_transpose_match_tf():
    rtf = real_tf()
    x, w = rand((2, 5, 3), "float32", 1), rand((3, 2, 3), "float32", 2)
    assert_close(tf.nn.conv1d_transpose(x, w, [2, 10, 2], 2, "SAME"),
                 rtf.nn.conv1d_transpose(x, w, [2, 10, 2], 2, "SAME"), rtol=1e-4, atol=1e-4)
    x3, w3 = rand((1, 3, 3, 3, 2), "float32", 3), rand((2, 2, 2, 2, 2), "float32", 4)
    assert_close(tf.nn.conv3d_transpose(x3, w3, [1, 6, 6, 6, 2], [1, 2, 2, 2, 1], "SAME"),
                 rtf.nn.conv3d_transpose(x3, w3, [1, 6, 6, 6, 2], [1, 2, 2, 2, 1], "SAME"),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strides,padding,dil", [([1, 1, 1, 1], "SAME", None),
                                                 ([1, 2, 2, 1], "SAME", None),
                                                 ([1, 1, 1, 1], "VALID", [2, 2])])
def test_depthwise_and_separable_match_tf(strides, padding, dil):
    rtf = real_tf()
    x = rand((2, 7, 7, 3), "float32", 1)
    dw = rand((3, 3, 3, 2), "float32", 2)
    pw = rand((1, 1, 6, 4), "float32", 3)
    assert_close(tf.nn.depthwise_conv2d(x, dw, strides, padding, dilations=dil),
                 rtf.nn.depthwise_conv2d(x, dw, strides, padding, dilations=dil),
                 rtol=1e-4, atol=1e-4)
    assert_close(tf.nn.separable_conv2d(x, dw, pw, strides, padding, dilations=dil),
                 rtf.nn.separable_conv2d(x, dw, pw, strides, padding, dilations=dil),
                 rtol=1e-4, atol=1e-4)


BAD = [
    ("rank 3 input", lambda m: m.nn.conv2d(np.ones((5, 5, 3), np.float32),
                                           np.ones((3, 3, 3, 2), np.float32), 1, "SAME")),
    ("channel mismatch", lambda m: m.nn.conv2d(np.ones((1, 5, 5, 4), np.float32),
                                               np.ones((3, 3, 3, 2), np.float32), 1, "SAME")),
    ("lower-case padding", lambda m: m.nn.conv2d(np.ones((1, 5, 5, 3), np.float32),
                                                 np.ones((3, 3, 3, 2), np.float32), 1, "same")),
    ("strides length 3", lambda m: m.nn.conv2d(np.ones((1, 5, 5, 3), np.float32),
                                               np.ones((3, 3, 3, 2), np.float32), [1, 1, 1],
                                               "SAME")),
    ("batch stride", lambda m: m.nn.conv2d(np.ones((1, 5, 5, 3), np.float32),
                                           np.ones((3, 3, 3, 2), np.float32), [2, 1, 1, 1],
                                           "SAME")),
    ("dtype mismatch", lambda m: m.nn.conv2d(m.constant(np.ones((1, 5, 5, 3), np.float32)),
                                             m.constant(np.ones((3, 3, 3, 2), np.float64)), 1,
                                             "SAME")),
    ("explicit batch pad", lambda m: m.nn.conv2d(np.ones((1, 5, 5, 3), np.float32),
                                                 np.ones((3, 3, 3, 2), np.float32), 1,
                                                 [[1, 0], [1, 1], [1, 1], [0, 0]])),
    ("transpose bad output_shape", lambda m: m.nn.conv2d_transpose(
        np.ones((1, 4, 4, 3), np.float32), np.ones((3, 3, 2, 3), np.float32), [1, 5, 5, 2], 2,
        "SAME")),
]


@pytest.mark.parametrize("case,fn", BAD, ids=[c for c, _ in BAD])
def test_bad_inputs_raise_tf_error_types(case, fn):
    rtf = real_tf()
    with pytest.raises(Exception) as want:
        fn(rtf)
    with pytest.raises(Exception) as got:
        fn(tf)
    assert type(got.value).__name__ == type(want.value).__name__, (got.value, want.value)
    assert isinstance(got.value, (ValueError, TypeError, tf.errors.OpError))


@pytest.mark.parametrize("rate,padding", [(2, "SAME"), (2, "VALID"), (3, "SAME")])
def test_atrous_conv2d_and_transpose_match_tf(rate, padding):
    rtf = real_tf()
    x, w = rand((1, 9, 8, 2), "float32", 1), rand((3, 3, 2, 3), "float32", 2)
    want = rtf.nn.atrous_conv2d(rtf.constant(x), w, rate, padding)
    assert_close(tf.nn.atrous_conv2d(x, w, rate, padding), want, rtol=1e-4, atol=1e-4)
    wt = rand((3, 3, 2, 3), "float32", 3)
    y = want.numpy()
    assert_close(tf.nn.atrous_conv2d_transpose(y, wt, [1, 9, 8, 2], rate, padding),
                 rtf.nn.atrous_conv2d_transpose(rtf.constant(y), wt, [1, 9, 8, 2], rate, padding),
                 rtol=1e-4, atol=1e-4)
