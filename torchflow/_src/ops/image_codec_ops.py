"""Image codecs of ``tf.io`` / ``tf.image``: decode and encode JPEG, PNG, GIF and BMP.

Decoding goes through Pillow (a dependency of ``tensorboard``), which uses
libjpeg(-turbo) as TF does; PNGs are written here (zlib). Decoded pixels are TF's
for PNG, GIF and BMP. For JPEG they are those of libjpeg's accurate integer IDCT,
TF's ``dct_method="INTEGER_ACCURATE"``: TF's default ("", the fast IDCT) differs
by a few levels per pixel, and Pillow cannot select it. Encoded files decode in
TF to the same pixels (PNG) or to a JPEG of the same quality; they are not
byte-identical to TF's.
"""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from PIL import Image

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor
from torchflow._src.ops import data_ops
from torchflow._src.ops.image_ops import convert_image_dtype
from torchflow._src.ops.tensor_proto_ops import tf_type_name
from torchflow._src.util.api import public

_JPEG, _PNG, _GIF, _BMP = "JPEG", "PNG", "GIF", "BMP"


def _bytes(contents, op) -> bytes:
    t = contents if isinstance(contents, Tensor) else data_ops.as_tensor(contents,
                                                                          dtypes.string)
    if t.dtype != dtypes.string:
        raise InvalidArgumentError(None, None, f"contents must be a string tensor, got "
                                   f"{t.dtype.name} [Op:{op}]")
    if t.shape.rank != 0:
        raise InvalidArgumentError(None, None, f"contents must be scalar, got shape "
                                   f"{t.shape} [Op:{op}]")
    v = data_ops.to_python(t)
    return v.encode() if isinstance(v, str) else bytes(v)


def _format(data: bytes):
    if data[:3] == b"\xff\xd8\xff":
        return _JPEG
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _PNG
    if data[:3] == b"GIF":
        return _GIF
    if data[:2] == b"BM":
        return _BMP
    return None


def _channels(channels, op, allowed=(0, 1, 3, 4)) -> int:
    c = 0 if channels is None else int(channels)
    if c not in allowed:
        raise InvalidArgumentError(None, None, f"channels must be 0, 1, 3 or 4, got {c} "
                                   f"[Op:{op}]")
    return c


def _to_channels(img: Image.Image, c: int, fmt: str) -> np.ndarray:
    """Pixels of ``img`` with ``c`` channels (0: the file's own)."""
    mode = img.mode
    if c == 0:
        if mode in ("L", "I;16", "I;16B", "I"):
            c = 1
        elif mode in ("LA",):
            c = 2
        elif mode in ("RGBA", "PA") or (mode == "P" and "transparency" in img.info):
            c = 4
        else:
            c = 3
        if fmt == _GIF:
            c = 3
    want = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[c]
    if mode.startswith("I;16") or mode == "I":
        a = np.asarray(img).astype(np.uint16)
        a = a[..., None]
        if c == 1:
            return a
        reps = {3: 3, 4: 3}[c]
        a = np.repeat(a, reps, axis=-1)
        if c == 4:
            a = np.concatenate([a, np.full(a.shape[:-1] + (1,), 65535, np.uint16)], -1)
        return a
    if mode != want:
        img = img.convert(want)
    a = np.asarray(img)
    return a.reshape(a.shape[0], a.shape[1], -1)


def _open(data: bytes, op: str, what: str, gray=False) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(data))
        if gray and img.mode != "L":
            img.draft("L", img.size)  # libjpeg's own conversion to grey, as TF's
        img.load()
    except Exception:  # noqa: BLE001 - any decoder failure is TF's InvalidArgumentError
        raise InvalidArgumentError(None, None, f"Invalid {what} data, size {len(data)} "
                                   f"[Op:{op}]") from None
    return img


def _dry_image(data: bytes, c: int, dtype=dtypes.uint8):
    """In a dry trace (``get_concrete_function``, SavedModel), the signature's stand-in
    (empty) string decodes to a ``[1, 1, c]`` image of zeros: the graph holds the decode
    op, not this value. None otherwise (the data is decoded, or rejected)."""
    r = graph_trace.active()
    if data or r is None or not r.dry:
        return None
    d = dtypes.as_dtype(dtype)
    r.stand_in_sizes.add(1)  # its height and width are the data's: unknown
    return data_ops.from_numpy(np.zeros((1, 1, c or 3), d.as_numpy_dtype), d)


def _decode(data: bytes, fmt, c: int, op: str, dtype=dtypes.uint8, animations=True):
    if fmt is None:
        raise InvalidArgumentError(None, None, "Unknown image file format. One of JPEG, PNG, "
                                   f"GIF, BMP required. [Op:{op}]")
    img = _open(data, op, fmt, gray=(fmt == _JPEG and c == 1))
    if fmt == _GIF:
        frames = []
        try:
            while True:
                frames.append(_to_channels(img.convert("RGB"), 3, _GIF))
                img.seek(img.tell() + 1)
        except EOFError:
            pass
        a = np.stack(frames)
        if not animations:
            a = a[0]
        out = data_ops.from_numpy(np.ascontiguousarray(a), dtypes.uint8)
    else:
        a = _to_channels(img, c, fmt)
        d = dtypes.uint16 if a.dtype == np.uint16 else dtypes.uint8
        if d == dtypes.uint16 and dtype == dtypes.uint8:
            a = (a >> 8).astype(np.uint8)  # libpng's png_set_strip_16, as TF
            d = dtypes.uint8
        elif d == dtypes.uint8 and dtype == dtypes.uint16:
            a = a.astype(np.uint16) * 257
            d = dtypes.uint16
        out = data_ops.from_numpy(np.ascontiguousarray(a), d)
    if dtype == dtypes.float32:
        # TF's kernel divides (convert_image_dtype multiplies by the reciprocal).
        a = out.numpy()
        return data_ops.from_numpy(a.astype(np.float32) / np.float32(np.iinfo(a.dtype).max),
                                   dtypes.float32)
    if dtype not in (dtypes.uint8, dtypes.uint16):
        out = convert_image_dtype(out, dtype)
    return out


@public("torchflow.io")
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                name=None) -> Tensor:
    """Decodes a JPEG (also a PNG or non-animated GIF, as TF) to a uint8 ``[h, w, c]``.

    Args:
      contents: A scalar string Tensor: the encoded image.
      channels: 0 (the file's), 1 (grayscale) or 3 (RGB).
      ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction,
        dct_method: TF's decoder options (libjpeg's defaults are used).

    Returns:
      A uint8 Tensor ``[height, width, channels]``.

    Raises:
      InvalidArgumentError: If ``contents`` is not a valid image.
    """
    data = _bytes(contents, "DecodeJpeg")
    dry = _dry_image(data, _channels(channels, "DecodeJpeg", (0, 1, 3)))
    if dry is not None:
        return dry
    fmt = _format(data)
    if fmt not in (_JPEG, _PNG, _GIF):
        raise InvalidArgumentError(None, None, f"Invalid JPEG data or crop window, data size "
                                   f"{len(data)} [Op:DecodeJpeg]")
    out = _decode(data, fmt, _channels(channels, "DecodeJpeg", (0, 1, 3)), "DecodeJpeg",
                  animations=False)
    return out


@public("torchflow.io")
def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None) -> Tensor:
    """Decodes a PNG (also a JPEG or GIF, as TF) to ``[h, w, c]`` uint8 or uint16.

    Args:
      contents: A scalar string Tensor.
      channels: 0 (the file's), 1, 3 or 4.
      dtype: ``tf.uint8`` or ``tf.uint16``.

    Raises:
      InvalidArgumentError: If ``contents`` is not a valid image.
    """
    c = _channels(channels, "DecodePng")  # an attr: checked before the data
    data = _bytes(contents, "DecodePng")
    dry = _dry_image(data, c, dtype)
    if dry is not None:
        return dry
    fmt = _format(data)
    if fmt not in (_JPEG, _PNG, _GIF):
        raise InvalidArgumentError(None, None, "Invalid PNG data, size "
                                   f"{len(data)} [Op:DecodePng]")
    return _decode(data, fmt, c, "DecodePng",
                   dtypes.as_dtype(dtype), animations=False)


@public("torchflow.io")
def decode_gif(contents, name=None) -> Tensor:
    """Decodes every frame of a GIF to a uint8 ``[num_frames, h, w, 3]``.

    Args:
      contents: A 0-D string tensor: the GIF bytes.
      name: Unused (eager).

    Raises:
      InvalidArgumentError: If ``contents`` is not a valid image.
    """
    data = _bytes(contents, "DecodeGif")
    fmt = _format(data)
    if fmt == _BMP or fmt is None:
        raise InvalidArgumentError(None, None, f"Invalid GIF data (size {len(data)}) "
                                   "[Op:DecodeGif]")
    out = _decode(data, fmt, 3, "DecodeGif")
    if fmt != _GIF:
        out = data_ops.from_numpy(out.numpy()[None], dtypes.uint8)
    return out


@public("torchflow.io")
def decode_bmp(contents, channels=0, name=None) -> Tensor:
    """Decodes a BMP to a uint8 ``[h, w, c]``.

    Args:
      contents: A 0-D string tensor: the BMP bytes.
      channels: int, default 0 (as stored), or 3 / 4.
      name: Unused (eager).

    Raises:
      InvalidArgumentError: If ``contents`` is not a BMP.
    """
    data = _bytes(contents, "DecodeBmp")
    fmt = _format(data)
    if fmt != _BMP:
        what = fmt if fmt is not None else "unknown"
        raise InvalidArgumentError(
            None, None, f"Trying to decode {what} format using DecodeBmp op. Use "
            "`decode_png` or `decode_image` instead. [Op:DecodeBmp]")
    return _decode(data, fmt, _channels(channels, "DecodeBmp", (0, 3, 4)), "DecodeBmp")


@public("torchflow.io")
def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True) -> Tensor:
    """Decodes a BMP, GIF, JPEG or PNG, whichever ``contents`` is.

    Args:
      contents: A scalar string Tensor.
      channels: None/0 (the file's), 1, 3 or 4.
      dtype: ``tf.uint8``, ``tf.uint16`` or a float type (scaled to [0, 1] as
        ``convert_image_dtype``).
      expand_animations: If False, a GIF gives its first frame ``[h, w, 3]``.

    Returns:
      ``[h, w, c]``, or ``[frames, h, w, 3]`` for a GIF when ``expand_animations``.

    Raises:
      InvalidArgumentError: If the format is not one of these.
    """
    data = _bytes(contents, "DecodeImage")
    dry = _dry_image(data, _channels(channels, "DecodeImage"), dtype)
    if dry is not None:
        return dry
    return _decode(data, _format(data), _channels(channels, "DecodeImage"), "DecodeImage",
                   dtypes.as_dtype(dtype), animations=expand_animations)


@public("torchflow.io")
def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None) -> Tensor:
    """``decode_jpeg`` then a crop to ``crop_window = [y, x, height, width]``.

    Args:
      contents: A 0-D string tensor: the JPEG bytes.
      crop_window: A 1-D int32 tensor ``[y, x, height, width]``.
      channels: int, default 0 (as stored); 1 (grayscale) or 3 (RGB).
      ratio: int, default 1: downscaling factor.
      fancy_upscaling: bool, default True.
      try_recover_truncated: bool, default False.
      acceptable_fraction: float, default 1.
      dct_method: str, default ``''``.
      name: Unused (eager).

    Returns:
      A uint8 tensor ``[height, width, channels]``.

    Raises:
      InvalidArgumentError: If the window is not inside the image.
    """
    img = decode_jpeg(contents, channels).numpy()
    y, x, h, w = (int(v) for v in np.asarray(
        crop_window.numpy() if isinstance(crop_window, Tensor) else crop_window).reshape(-1))
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > img.shape[0] or x + w > img.shape[1]:
        raise InvalidArgumentError(None, None, f"Invalid JPEG data or crop window, data size "
                                   f"{len(_bytes(contents, 'DecodeAndCropJpeg'))} "
                                   "[Op:DecodeAndCropJpeg]")
    return data_ops.from_numpy(np.ascontiguousarray(img[y:y + h, x:x + w]), dtypes.uint8)


@public("torchflow.io")
def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None) -> Tensor:
    """``[height, width, channels]`` of a JPEG, read from its header.

    Args:
      contents: A 0-D string tensor: the JPEG bytes.
      output_type: ``tf.int32`` (default) or ``tf.int64``.
      name: Unused (eager).

    Returns:
      A 1-D tensor of ``output_type`` with three entries.

    Raises:
      InvalidArgumentError: If ``contents`` is not a JPEG.
    """
    data = _bytes(contents, "ExtractJpegShape")
    if _format(data) != _JPEG:
        raise InvalidArgumentError(None, None, f"Invalid JPEG data, size {len(data)} "
                                   "[Op:ExtractJpegShape]")
    img = _open(data, "ExtractJpegShape", "JPEG")
    c = {"L": 1, "CMYK": 4}.get(img.mode, 3)
    return data_ops.from_numpy(np.array([img.height, img.width, c]),
                               dtypes.as_dtype(output_type))


@public("torchflow.io")
def is_jpeg(contents, name=None) -> Tensor:
    """A scalar bool: whether ``contents`` starts with JPEG's signature.

    Args:
      contents: A 0-D string tensor.
      name: Unused (eager).

    Returns:
      A 0-D bool tensor.
    """
    return data_ops.scalar(_format(_bytes(contents, "IsJpeg")) == _JPEG, dtypes.bool)


_PNG_COLOR = {1: 0, 2: 4, 3: 2, 4: 6}


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_bytes(a: np.ndarray, level: int = 6) -> bytes:
    """A PNG of a uint8 or uint16 ``[h, w, c]`` array (c 1-4), rows unfiltered."""
    h, w, c = a.shape
    depth = 16 if a.dtype == np.uint16 else 8
    body = a.astype(">u2").view(np.uint8) if depth == 16 else a
    rows = np.concatenate([np.zeros((h, 1), np.uint8), body.reshape(h, -1)], axis=1)
    header = struct.pack(">IIBBBBB", w, h, depth, _PNG_COLOR[c], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), level))
            + _png_chunk(b"IEND", b""))


def _image_array(image, op, allowed) -> np.ndarray:
    if not isinstance(image, Tensor) and len(allowed) == 1:
        # An op without a type attribute converts its input to that dtype first.
        arr = np.asarray(image)
        want = allowed[0].as_numpy_dtype
        if arr.dtype.kind in "iu" and arr.size and np.iinfo(want).min <= arr.min() and \
                arr.max() <= np.iinfo(want).max:
            arr = arr.astype(want)
        image = arr
    t = image if isinstance(image, Tensor) else data_ops.as_tensor(image)
    if t.dtype not in allowed and len(allowed) == 1:
        raise InvalidArgumentError(None, None, f"cannot compute {op} as input #0(zero-based) "
                                   f"was expected to be a {allowed[0].name} tensor but is a "
                                   f"{t.dtype.name} tensor [Op:{op}]")
    if t.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise InvalidArgumentError(None, None, f"Value for attr 'T' of {tf_type_name(t.dtype)} "
                                   "is not "
                                   f"in the list of allowed values: {names} [Op:{op}]")
    a = np.asarray(t.numpy())
    if a.ndim != 3:
        dims = ",".join(str(d) for d in a.shape)
        raise InvalidArgumentError(None, None, f"images must be at least rank 3[{dims}] "
                                   f"[Op:{op}]")
    return a


@public("torchflow.io")
def encode_png(image, compression=-1, name=None) -> Tensor:
    """PNG-encodes a uint8 or uint16 ``[h, w, c]`` image (c in 1-4).

    Args:
      image: The image.
      compression: zlib level 0-9, or -1 for the default.

    Returns:
      A scalar string Tensor.

    Raises:
      InvalidArgumentError: For another dtype, rank or channel count.
    """
    a = _image_array(image, "EncodePng", (dtypes.uint8, dtypes.uint16))
    c = a.shape[-1]
    if c not in (1, 2, 3, 4):
        raise InvalidArgumentError(None, None, f"image must have 1, 2, 3, or 4 channels, got "
                                   f"{c} [Op:EncodePng]")
    level = int(compression)
    return data_ops.scalar(png_bytes(a, 6 if level < 0 else min(level, 9)), dtypes.string)


@public("torchflow.io")
def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002 - TF's name
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None) -> Tensor:
    """JPEG-encodes a uint8 ``[h, w, c]`` image (c 1 or 3).

    Args:
      image: The image.
      format: "", "grayscale" or "rgb" (default: from the channel count).
      quality: 0-100.
      progressive, optimize_size, chroma_downsampling, density_unit, x_density,
        y_density, xmp_metadata: TF's encoder options.

    Returns:
      A scalar string Tensor.

    Raises:
      InvalidArgumentError: For another dtype, rank or channel count, or a quality
        outside [0, 100].
    """
    a = _image_array(image, "EncodeJpeg", (dtypes.uint8,))
    _check_quality("EncodeJpeg", int(quality))
    c = a.shape[-1]
    if c not in (1, 3):
        dims = ",".join(str(d) for d in a.shape)
        raise InvalidArgumentError(None, None, f"image must have 1 or 3 channels, got "
                                   f"[{dims}] [Op:EncodeJpeg]")
    fmt = format.decode() if isinstance(format, bytes) else str(format)
    if fmt == "grayscale" or (fmt == "" and c == 1):
        img = Image.fromarray(a[..., 0] if c == 1 else
                              np.asarray(Image.fromarray(a, "RGB").convert("L")), "L")
    else:
        img = Image.fromarray(np.repeat(a, 3, -1) if c == 1 else a, "RGB")
    buf = io.BytesIO()
    kw = {"quality": int(quality), "progressive": bool(progressive),
          "optimize": bool(optimize_size), "subsampling": 2 if chroma_downsampling else 0,
          "dpi": (int(x_density), int(y_density))}
    xmp = xmp_metadata.encode() if isinstance(xmp_metadata, str) else bytes(xmp_metadata)
    if xmp:
        kw["xmp"] = xmp
    img.save(buf, "JPEG", **kw)
    return data_ops.scalar(buf.getvalue(), dtypes.string)


def _check_quality(op: str, q: int) -> None:
    if not 0 <= q <= 100:
        raise InvalidArgumentError(None, None, f"quality must be in [0,100], got {q} "
                                               f"[Op:{op}]")


@public("torchflow.image")
def adjust_jpeg_quality(image, jpeg_quality, name=None) -> Tensor:
    """``image`` after a JPEG round trip at ``jpeg_quality`` (0-100), in its own dtype.

    Args:
      image: ``[h, w, c]`` (c 1 or 3), uint8 or float in [0, 1].
      jpeg_quality: The JPEG quality.

    Returns:
      A tensor of ``image``'s dtype and shape.

    Raises:
      InvalidArgumentError: For an image that is not 3-D or a quality outside [0, 100].
    """
    if graph_trace._ACTIVE is not None:  # (its round trip passes through a string)
        return _jpeg_round_trip_node(image, jpeg_quality)
    return _jpeg_round_trip(image, jpeg_quality)


def _jpeg_round_trip(image, jpeg_quality) -> Tensor:
    op = "EncodeJpegVariableQuality"
    t = image if isinstance(image, Tensor) else data_ops.as_tensor(image)
    orig = t.dtype
    u8 = convert_image_dtype(t, dtypes.uint8, saturate=True)
    if u8.shape.rank != 3:
        dims = ",".join(str(d) for d in u8.shape)
        raise InvalidArgumentError(None, None, f"image must be 3-dimensional[{dims}] [Op:{op}]")
    q = int(jpeg_quality.numpy() if isinstance(jpeg_quality, Tensor) else jpeg_quality)
    _check_quality(op, q)
    out = decode_jpeg(encode_jpeg(u8, quality=q))
    return convert_image_dtype(out, orig, saturate=True)


@graph_trace.host_op(dry=graph_trace.RUN, pure=True)
def _jpeg_round_trip_node(image, jpeg_quality) -> Tensor:
    """``adjust_jpeg_quality`` as one pure host node of a traced function: each replay
    re-encodes that call's image at that call's quality."""
    return _jpeg_round_trip(image, jpeg_quality)
