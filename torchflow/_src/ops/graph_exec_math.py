"""TF array and math graph ops for ``graph_exec`` that have no ``tf.raw_ops`` entry
here: ``Roll``, the sorted segment reductions other than ``SegmentSum``
(``SegmentMean``/``Max``/``Min``/``Prod``), ``MatrixBandPart``, ``InTopKV2`` and the
fused softmax cross-entropies (their loss output; the backprop output is the
softmax minus the labels, as TF's kernel gives it), ``HistogramFixedWidth``,
``Bitcast``, ``SpaceToBatchND``, ``DynamicPartition``, ``DynamicStitch``,
``AdjustContrastv2``, ``Bincount``, ``RGBToHSV``/``HSVToRGB``, ``ExtractImagePatches``,
``LRN``, ``RandomGamma``, ``RandomPoissonV2`` and ``BroadcastArgs``. Each handler runs torchflow's op on its
inputs."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.convert import to_tensor
from torchflow._src.ops import (
    array_ops,
    creation_ops,
    histogram_ops,
    image_color_ops,
    image_ops,
    image_patch_ops,
    linalg_ops,
    loss_ops,
    math_ops,
    nn_ops,
    normalization_ops,
    partition_ops,
    random_ops,
    ranking_ops,
    segment_ops,
    space_batch_ops,
)


def _roll(library, attrs, inputs):
    x, shift, axis = inputs
    return [array_ops.roll(x, shift, axis)]


def _segment(fn):
    def run(library, attrs, inputs):
        return [fn(inputs[0], inputs[1])]

    return run


def _band_part(library, attrs, inputs):
    return [linalg_ops.band_part(*inputs)]


def _in_top_k(library, attrs, inputs):
    predictions, targets, k = inputs
    return [ranking_ops.in_top_k(targets, predictions, k)]


def _softmax_ce(sparse: bool):
    def run(library, attrs, inputs):
        features, labels = inputs
        if sparse:
            loss = loss_ops.sparse_softmax_cross_entropy_with_logits(labels, features)
            dense = creation_ops.one_hot(labels, features.shape[-1], dtype=features.dtype)
        else:
            loss = loss_ops.softmax_cross_entropy_with_logits(labels, features)
            dense = labels
        return [loss, math_ops.subtract(nn_ops.softmax(features), dense)]

    return run


def _histogram(library, attrs, inputs):
    values, value_range, nbins = inputs
    return [histogram_ops.histogram_fixed_width(values, value_range, nbins,
                                                dtype=attrs.get("dtype", dtypes.int32))]


def _bitcast(library, attrs, inputs):
    return [creation_ops.bitcast(inputs[0], attrs["type"])]


def _space_to_batch(library, attrs, inputs):
    return [space_batch_ops.space_to_batch_nd(*inputs)]


def _dynamic_partition(library, attrs, inputs):
    return list(partition_ops.dynamic_partition(inputs[0], inputs[1],
                                                attrs["num_partitions"]))


def _dynamic_stitch(library, attrs, inputs):
    n = attrs["N"]
    return [partition_ops.dynamic_stitch(list(inputs[:n]), list(inputs[n:]))]


def _adjust_contrast(library, attrs, inputs):
    return [image_ops.adjust_contrast(*inputs)]


def _bincount(library, attrs, inputs):
    """``Bincount(arr, size, weights)``: counts (or summed weights) of the values below
    ``size`` in ``size`` bins; empty ``weights`` count each value once."""
    arr, size, weights = inputs
    w = weights if int(weights.shape.num_elements() or 0) else None
    return [ranking_ops.bincount(arr, w, minlength=size, maxlength=size, dtype=attrs["T"])]


def _extract_patches(library, attrs, inputs):
    return [image_patch_ops.extract_patches(inputs[0], attrs["ksizes"], attrs["strides"],
                                            attrs["rates"], attrs["padding"])]


def _lrn(library, attrs, inputs):
    return [normalization_ops.local_response_normalization(
        inputs[0], attrs.get("depth_radius", 5), attrs.get("bias", 1.0),
        attrs.get("alpha", 1.0), attrs.get("beta", 0.5))]


def _random_gamma(library, attrs, inputs):
    shape, alpha = inputs
    return [random_ops.gamma(shape, alpha, dtype=alpha.dtype)]


def _random_poisson(library, attrs, inputs):
    shape, rate = inputs
    return [random_ops.poisson(shape, rate, dtype=attrs.get("dtype", dtypes.int64))]


def _broadcast_args(library, attrs, inputs):
    """The broadcast shape of two shape vectors (TF's error where they do not)."""
    s0, s1 = (tuple(int(v) for v in np.asarray(t).reshape(-1)) for t in inputs)
    try:
        out = np.broadcast_shapes(s0, s1)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: [{','.join(map(str, s0))}] vs. "
            f"[{','.join(map(str, s1))}] [Op:BroadcastArgs]") from None
    d = inputs[0].dtype
    return [to_tensor(np.asarray(out, dtype=d.as_numpy_dtype), d)]


HANDLERS = {
    "BroadcastArgs": _broadcast_args,
    "RGBToHSV": lambda library, attrs, inputs: [image_color_ops.rgb_to_hsv(inputs[0])],
    "HSVToRGB": lambda library, attrs, inputs: [image_color_ops.hsv_to_rgb(inputs[0])],
    "ExtractImagePatches": _extract_patches,
    "LRN": _lrn,
    "RandomGamma": _random_gamma,
    "RandomPoissonV2": _random_poisson,
    "HistogramFixedWidth": _histogram,
    "Bitcast": _bitcast,
    "SpaceToBatchND": _space_to_batch,
    "DynamicPartition": _dynamic_partition,
    "DynamicStitch": _dynamic_stitch,
    "AdjustContrastv2": _adjust_contrast,
    "Bincount": _bincount,
    "Roll": _roll,
    "SegmentMean": _segment(segment_ops.segment_mean),
    "SegmentMax": _segment(segment_ops.segment_max),
    "SegmentMin": _segment(segment_ops.segment_min),
    "SegmentProd": _segment(segment_ops.segment_prod),
    "MatrixBandPart": _band_part,
    "InTopKV2": _in_top_k,
    "SparseSoftmaxCrossEntropyWithLogits": _softmax_ce(True),
    "SoftmaxCrossEntropyWithLogits": _softmax_ce(False),
}
