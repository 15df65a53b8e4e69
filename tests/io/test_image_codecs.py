"""tf.io image codecs against real TF: files one writes the other reads, same pixels,
TF's errors."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import torchflow as tf
from torchflow._src.testing import real_tf

_RNG = np.random.default_rng(0)
_IMG = _RNG.integers(0, 256, size=(9, 13, 3), dtype=np.uint8)
_SMOOTH = (np.add.outer(np.arange(16), np.arange(20))[..., None] * [3, 5, 7] % 256).astype(
    np.uint8)


def _pil_bytes(arr, fmt, **kw):
    buf = io.BytesIO()
    frames = arr if arr.ndim == 4 else None
    if frames is not None:
        imgs = [Image.fromarray(f) for f in frames]
        imgs[0].save(buf, fmt, save_all=True, append_images=imgs[1:], **kw)
    else:
        Image.fromarray(arr[..., 0] if arr.shape[-1] == 1 else arr).save(buf, fmt, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("channels", [0, 1, 3, 4])
@pytest.mark.parametrize("shape", [(9, 13, 3), (6, 5, 1), (4, 7, 4), (3, 3, 2)])
def test_png_round_trips_both_ways_with_tf(shape, channels):
    rtf = real_tf()
    img = _RNG.integers(0, 256, size=shape, dtype=np.uint8)
    ours = tf.io.encode_png(img).numpy()
    theirs = rtf.io.encode_png(img).numpy()
    for data in (ours, theirs):
        a = tf.io.decode_png(data, channels=channels).numpy()
        b = rtf.io.decode_png(data, channels=channels).numpy()
        if channels == 1 and shape[-1] >= 3:
            # RGB -> gray: libpng's and Pillow's weights differ by up to a level.
            assert a.shape == b.shape
            assert np.abs(a.astype(int) - b.astype(int)).max() <= 2
        else:
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(rtf.io.decode_png(ours).numpy(), img)


def test_png_uint16():
    rtf = real_tf()
    img = _RNG.integers(0, 65536, size=(5, 4, 1), dtype=np.uint16)
    data = rtf.io.encode_png(img).numpy()
    np.testing.assert_array_equal(tf.io.decode_png(data, dtype=tf.uint16).numpy(), img)
    np.testing.assert_array_equal(rtf.io.decode_png(tf.io.encode_png(img).numpy(),
                                                    dtype=rtf.uint16).numpy(), img)
    np.testing.assert_array_equal(tf.io.decode_png(data).numpy(),
                                  rtf.io.decode_png(data).numpy())


@pytest.mark.parametrize("channels", [0, 1, 3])
def test_jpeg_decodes_tf_files_as_tf(channels):
    rtf = real_tf()
    for img in (_IMG, _SMOOTH):
        data = rtf.io.encode_jpeg(img, quality=90).numpy()
        a = tf.io.decode_jpeg(data, channels=channels).numpy()
        # TF's default IDCT is the fast one; ours is libjpeg's accurate one.
        b = rtf.io.decode_jpeg(data, channels=channels, dct_method="INTEGER_ACCURATE").numpy()
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.abs(a.astype(int) - b.astype(int)).max() <= 1
        assert tf.io.extract_jpeg_shape(data).numpy().tolist() == \
            rtf.io.extract_jpeg_shape(data).numpy().tolist()


def test_jpeg_encoded_here_decodes_in_tf():
    rtf = real_tf()
    for img in (_SMOOTH, _SMOOTH[..., :1]):
        ours = tf.io.encode_jpeg(img, quality=95).numpy()
        theirs = rtf.io.encode_jpeg(img, quality=95).numpy()
        a = rtf.io.decode_jpeg(ours).numpy()
        b = rtf.io.decode_jpeg(theirs).numpy()
        assert a.shape == b.shape == img.shape
        # Same quality, same libjpeg tables: the reconstructions are close.
        assert np.abs(a.astype(int) - b.astype(int)).mean() < 1.0
        assert bool(tf.io.is_jpeg(ours)) and bool(rtf.io.is_jpeg(ours))


def test_gif_bmp_and_decode_image_match_tf():
    rtf = real_tf()
    frames = np.stack([_SMOOTH, _SMOOTH[::-1], 255 - _SMOOTH])
    gif = _pil_bytes(frames, "GIF")
    bmp = _pil_bytes(_IMG, "BMP")
    png = rtf.io.encode_png(_IMG).numpy()
    jpg = rtf.io.encode_jpeg(_SMOOTH).numpy()
    np.testing.assert_array_equal(tf.io.decode_gif(gif).numpy(), rtf.io.decode_gif(gif).numpy())
    np.testing.assert_array_equal(tf.io.decode_bmp(bmp).numpy(), rtf.io.decode_bmp(bmp).numpy())
    for data in (gif, bmp, png):
        for kw in ({}, {"expand_animations": False}, {"dtype": "float32"}, {"channels": 3}):
            if data is gif and "channels" in kw:
                continue
            ka = dict(kw)
            kb = dict(kw)
            if "dtype" in kw:
                ka["dtype"], kb["dtype"] = tf.float32, rtf.float32
            a = tf.io.decode_image(data, **ka).numpy()
            b = rtf.io.decode_image(data, **kb).numpy()
            assert a.dtype == b.dtype
            # float32: TF's kernel rounds some values to the neighbouring float.
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-7)
    a = tf.io.decode_image(jpg).numpy()
    ref = rtf.io.decode_jpeg(jpg, dct_method="INTEGER_ACCURATE").numpy()
    assert np.abs(a.astype(int) - ref.astype(int)).max() <= 1
    crop = tf.io.decode_and_crop_jpeg(jpg, [2, 3, 5, 6]).numpy()
    ref = rtf.io.decode_and_crop_jpeg(jpg, [2, 3, 5, 6], dct_method="INTEGER_ACCURATE").numpy()
    assert crop.shape == ref.shape == (5, 6, 3)
    assert np.abs(crop.astype(int) - ref.astype(int)).max() <= 1


@pytest.mark.parametrize("fn,data", [
    ("decode_image", b"abc"), ("decode_bmp", "png"), ("extract_jpeg_shape", "png"),
    ("decode_jpeg", b"\x00\x01"), ("decode_png", b"\x00\x01"),
])
def test_decode_errors_are_tf_errors(fn, data):
    rtf = real_tf()
    if data == "png":
        data = rtf.io.encode_png(_IMG).numpy()
    with pytest.raises(rtf.errors.InvalidArgumentError) as theirs:
        getattr(rtf.io, fn)(data)
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        getattr(tf.io, fn)(data)
    if fn in ("decode_bmp", "extract_jpeg_shape"):
        assert str(ours.value).split(" [Op:")[0] in str(theirs.value)
    if fn == "decode_image":
        # TF 2.4's message; 2.21 also lists JPEG XL and WebP.
        assert "Unknown image file format. One of JPEG, PNG, GIF, BMP required." in \
            str(ours.value)


@pytest.mark.parametrize("fn,img", [
    ("encode_png", _IMG.astype(np.float32)), ("encode_png", _IMG[0]),
    ("encode_jpeg", _IMG[..., :2]), ("encode_jpeg", _IMG.astype(np.uint16)),
])
def test_encode_errors_are_tf_errors(fn, img):
    rtf = real_tf()
    with pytest.raises((rtf.errors.InvalidArgumentError, TypeError)) as theirs:
        getattr(rtf.io, fn)(rtf.constant(img))
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        getattr(tf.io, fn)(tf.constant(img))
    assert str(ours.value).split(" [Op:")[0] in str(theirs.value)


def test_adjust_jpeg_quality_matches_tf_round_trip():
    rtf = real_tf()
    img = _SMOOTH.astype(np.float32) / 255.0
    a = tf.image.adjust_jpeg_quality(img, 40).numpy()
    b = rtf.image.adjust_jpeg_quality(img, 40).numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.abs(a - b).mean() < 2.0 / 255
    assert tf.image.decode_png is tf.io.decode_png
