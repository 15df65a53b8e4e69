"""TF's Unicode and string-joining graph ops for ``graph_exec``.

What TF's graphs of ``tf.strings.unicode_*``, ``unsorted_segment_join``,
``fingerprint`` and ``unicode_script`` hold: ``UnicodeDecode`` and
``UnicodeDecodeWithOffsets`` (the code points of a flat string tensor, as row splits
and values), ``UnicodeEncode`` (a ragged matrix of code points as its values and
splits), ``UnicodeTranscode``, ``UnsortedSegmentJoin``, ``Fingerprint`` and
``UnicodeScript``. Each handler runs torchflow's op on its inputs.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops import (
    array_ops,
    image_codec_ops,
    parsing_ops,
    string_hash_ops,
    string_ops,
    unicode_ops,
    unicode_script_ops,
)
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor


def _s(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _decode_args(attrs) -> dict:
    return {"input_encoding": _s(attrs["input_encoding"]),
            "errors": _s(attrs.get("errors", "replace")),
            "replacement_char": int(attrs.get("replacement_char", 65533)),
            "replace_control_characters": bool(attrs.get("replace_control_characters",
                                                         False))}


def _splits(rt: RaggedTensor, attrs):
    d = attrs.get("Tsplits", dtypes.int64)
    s = rt.row_splits
    return s if s.dtype == d else cast(s, d)


def _unicode_decode(library, attrs, inputs):
    flat = array_ops.reshape(inputs[0], [-1])
    rt = string_ops.unicode_decode(flat, **_decode_args(attrs))
    return [_splits(rt, attrs), rt.flat_values]


def _unicode_decode_with_offsets(library, attrs, inputs):
    flat = array_ops.reshape(inputs[0], [-1])
    cps, starts = unicode_ops.unicode_decode_with_offsets(flat, **_decode_args(attrs))
    return [_splits(cps, attrs), cps.flat_values, starts.flat_values]


def _unicode_encode(library, attrs, inputs):
    values, splits = inputs
    rt = RaggedTensor.from_row_splits(values, splits, validate=False)
    return [unicode_ops.unicode_encode(
        rt, _s(attrs["output_encoding"]), errors=_s(attrs.get("errors", "replace")),
        replacement_char=int(attrs.get("replacement_char", 65533)))]


def _unicode_transcode(library, attrs, inputs):
    a = _decode_args(attrs)
    return [unicode_ops.unicode_transcode(
        inputs[0], a["input_encoding"], _s(attrs["output_encoding"]), errors=a["errors"],
        replacement_char=a["replacement_char"],
        replace_control_characters=a["replace_control_characters"])]


def _unsorted_segment_join(library, attrs, inputs):
    x, ids, n = inputs
    return [unicode_ops.unsorted_segment_join(x, ids, n,
                                              separator=_s(attrs.get("separator", "")))]


def _fingerprint(library, attrs, inputs):
    data, method = inputs
    m = method.numpy()
    return [string_hash_ops.fingerprint(data, method=_s(m.item() if hasattr(m, "item")
                                                        else m))]


def _unicode_script(library, attrs, inputs):
    return [unicode_script_ops.unicode_script(inputs[0])]


def _decode_jpeg(library, attrs, inputs):
    return [image_codec_ops.decode_jpeg(inputs[0], attrs.get("channels", 0))]


def _decode_png(library, attrs, inputs):
    return [image_codec_ops.decode_png(inputs[0], attrs.get("channels", 0),
                                       attrs.get("dtype", dtypes.uint8))]


def _decode_image(library, attrs, inputs):
    return [image_codec_ops.decode_image(inputs[0], attrs.get("channels", 0),
                                         attrs.get("dtype", dtypes.uint8),
                                         expand_animations=attrs.get("expand_animations",
                                                                     True))]


def _parse_example_v2(library, attrs, inputs):
    """``ParseExampleV2`` of dense and sparse (``VarLenFeature``) keys: its outputs in
    OpDef order (sparse indices, values and shapes, then the dense values)."""
    serialized, _, sparse_keys, dense_keys, ragged_keys = inputs[:5]
    defaults = inputs[5:]
    if np.asarray(ragged_keys).size:
        raise errors.UnimplementedError(None, None, "ParseExampleV2 of ragged features is "
                                        "not supported by torchflow's graph executor")
    sk = [k.decode() for k in np.asarray(sparse_keys).reshape(-1)]
    dk = [k.decode() for k in np.asarray(dense_keys).reshape(-1)]
    features: dict = {}
    for k, d in zip(sk, attrs.get("sparse_types", [])):
        features[k] = parsing_ops.VarLenFeature(d)
    for k, d, shape, dv in zip(dk, attrs.get("Tdense", []), attrs.get("dense_shapes", []),
                               defaults):
        default = None if not int(dv.shape.num_elements() or 0) else dv
        features[k] = parsing_ops.FixedLenFeature(TensorShape(shape).as_list(), d, default)
    out = parsing_ops.parse_example(serialized, features)
    sparse = [out[k] for k in sk]
    return ([s.indices for s in sparse] + [s.values for s in sparse] +
            [s.dense_shape for s in sparse] + [out[k] for k in dk])


def _parse_example_offsets(attrs) -> dict:
    ns = int(attrs.get("num_sparse", 0))
    nd, nr = len(attrs.get("Tdense", [])), len(attrs.get("ragged_value_types", []))
    return {"sparse_indices": 0, "sparse_values": ns, "sparse_shapes": 2 * ns,
            "dense_values": 3 * ns, "ragged_values": 3 * ns + nd,
            "ragged_row_splits": 3 * ns + nd + nr}


LIST_OUTPUTS = {"ParseExampleV2": _parse_example_offsets}

HANDLERS = {
    "ParseExampleV2": _parse_example_v2,
    "DecodeJpeg": _decode_jpeg,
    "DecodePng": _decode_png,
    "DecodeImage": _decode_image,
    "UnicodeDecode": _unicode_decode,
    "UnicodeDecodeWithOffsets": _unicode_decode_with_offsets,
    "UnicodeEncode": _unicode_encode,
    "UnicodeTranscode": _unicode_transcode,
    "UnsortedSegmentJoin": _unsorted_segment_join,
    "Fingerprint": _fingerprint,
    "UnicodeScript": _unicode_script,
}

OUTPUT_ARGS = {
    "UnicodeDecode": ("row_splits", "char_values"),
    "UnicodeDecodeWithOffsets": ("row_splits", "char_values", "char_to_byte_starts"),
}
