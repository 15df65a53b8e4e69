"""TF array and math graph ops for ``graph_exec`` that have no ``tf.raw_ops`` entry
here: ``Roll``, the sorted segment reductions other than ``SegmentSum``
(``SegmentMean``/``Max``/``Min``/``Prod``) and ``MatrixBandPart``. Each handler runs
torchflow's op on its inputs."""

from __future__ import annotations

from torchflow._src.ops import array_ops, linalg_ops, segment_ops


def _roll(library, attrs, inputs):
    x, shift, axis = inputs
    return [array_ops.roll(x, shift, axis)]


def _segment(fn):
    def run(library, attrs, inputs):
        return [fn(inputs[0], inputs[1])]

    return run


def _band_part(library, attrs, inputs):
    return [linalg_ops.band_part(*inputs)]


HANDLERS = {
    "Roll": _roll,
    "SegmentMean": _segment(segment_ops.segment_mean),
    "SegmentMax": _segment(segment_ops.segment_max),
    "SegmentMin": _segment(segment_ops.segment_min),
    "SegmentProd": _segment(segment_ops.segment_prod),
    "MatrixBandPart": _band_part,
}
