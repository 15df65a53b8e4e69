"""TF array and math graph ops for ``graph_exec`` that have no ``tf.raw_ops`` entry
here: ``Roll``, the sorted segment reductions other than ``SegmentSum``
(``SegmentMean``/``Max``/``Min``/``Prod``), ``MatrixBandPart``, ``InTopKV2`` and the
fused softmax cross-entropies (their loss output; the backprop output is the
softmax minus the labels, as TF's kernel gives it), ``HistogramFixedWidth``,
``Bitcast``, ``SpaceToBatchND``, ``DynamicPartition``, ``DynamicStitch``,
``AdjustContrastv2`` and ``Bincount``. Each handler runs torchflow's op on its
inputs."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.ops import (
    array_ops,
    creation_ops,
    histogram_ops,
    image_ops,
    linalg_ops,
    loss_ops,
    math_ops,
    nn_ops,
    partition_ops,
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


HANDLERS = {
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
