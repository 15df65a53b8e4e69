"""TF array and math graph ops for ``graph_exec`` that have no ``tf.raw_ops`` entry
here: ``Roll``, the sorted segment reductions other than ``SegmentSum``
(``SegmentMean``/``Max``/``Min``/``Prod``), ``MatrixBandPart``, ``InTopKV2`` and the
fused softmax cross-entropies (their loss output; the backprop output is the
softmax minus the labels, as TF's kernel gives it). Each handler runs torchflow's op
on its inputs."""

from __future__ import annotations

from torchflow._src.ops import (
    array_ops,
    creation_ops,
    linalg_ops,
    loss_ops,
    math_ops,
    nn_ops,
    ranking_ops,
    segment_ops,
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


HANDLERS = {
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
