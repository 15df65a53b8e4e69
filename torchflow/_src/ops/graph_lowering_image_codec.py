"""TF lowerings of the image decoders: ``DecodeJpeg``, ``DecodePng`` and
``DecodeImage`` with TF's attributes (``decode_image`` of a float dtype other than
float32 is refused: TF writes a uint16 decode and a conversion). Their outputs'
sizes are the data's, read at run time; in the dry trace that writes the graph the
stand-in string decodes to a stand-in image (``image_codec_ops._dry_image``)."""

from __future__ import annotations

from torchflow._src.core import dtypes, op_graph
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import image_codec_ops


def _contents(b, call):
    x = call.args["contents"]
    if not isinstance(x, Tensor) or x.dtype != dtypes.string or \
            not isinstance(call.outputs, Tensor):
        return None
    return b.input(x)


def _node(b, op: str, x: str, attrs: dict, d) -> list:
    n = b.node(op, [x], attrs, name=op, out_dtypes=[d])
    return [f"{n}:0"]


def _decode_jpeg(b, call):
    x = _contents(b, call)
    if x is None:
        return None
    a = call.args
    return _node(b, "DecodeJpeg", x, {
        "channels": int(a.get("channels", 0)), "ratio": int(a.get("ratio", 1)),
        "fancy_upscaling": bool(a.get("fancy_upscaling", True)),
        "try_recover_truncated": bool(a.get("try_recover_truncated", False)),
        "acceptable_fraction": float(a.get("acceptable_fraction", 1)),
        "dct_method": str(a.get("dct_method", ""))}, dtypes.uint8)


def _decode_png(b, call):
    x = _contents(b, call)
    if x is None:
        return None
    a = call.args
    d = dtypes.as_dtype(a.get("dtype", dtypes.uint8))
    return _node(b, "DecodePng", x, {"channels": int(a.get("channels", 0)), "dtype": d}, d)


def _decode_image(b, call):
    x = _contents(b, call)
    if x is None:
        return None
    a = call.args
    d = dtypes.as_dtype(a.get("dtype", dtypes.uint8))
    if d not in (dtypes.uint8, dtypes.uint16, dtypes.float32):
        return None
    return _node(b, "DecodeImage", x, {"channels": int(a.get("channels") or 0), "dtype": d,
                                       "expand_animations": bool(a.get("expand_animations",
                                                                       True))}, d)


for _fn, _lower in ((image_codec_ops.decode_jpeg, _decode_jpeg),
                    (image_codec_ops.decode_png, _decode_png),
                    (image_codec_ops.decode_image, _decode_image)):
    op_graph.register(_fn, _lower)
del _fn, _lower
