"""tf.image colour, statistics, random and NMS ops against real TensorFlow."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(1)
X = RNG.random((2, 5, 6, 3)).astype("float32")
XU = (X * 255).astype("uint8")

CASES = [("adjust_brightness", (0.2,)), ("adjust_brightness", (-0.3,)),
         ("adjust_gamma", (0.5, 2.0)), ("rgb_to_grayscale", ()),
         ("adjust_saturation", (1.7,)), ("adjust_saturation", (0.3,)),
         ("adjust_hue", (0.3,)), ("adjust_hue", (-0.45,)),
         ("per_image_standardization", ()), ("transpose", ()),
         ("resize_with_pad", (9, 4)), ("resize_with_pad", (3, 12))]


@pytest.mark.parametrize("name,args", CASES)
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_matches_tf(name, args, dtype):
    t = real_tf()
    if name == "per_image_standardization" and dtype == "uint8":
        pytest.skip("TF 2.4 keeps the dtype, 2.5+ returns float32: "
                    "test_per_image_standardization_keeps_the_dtype_as_tf24")
    v = X if dtype == "float32" else XU
    got = getattr(tf.image, name)(v, *args)
    want = getattr(t.image, name)(t.constant(v), *args)
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float),
                               atol=1e-4 if dtype == "uint8" else 1e-5)


@pytest.mark.parametrize("name", ["rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb",
                                  "rgb_to_hsv", "hsv_to_rgb", "total_variation",
                                  "sobel_edges"])
def test_float_only_ops_match_tf(name):
    t = real_tf()
    got = getattr(tf.image, name)(X)
    want = getattr(t.image, name)(t.constant(X))
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_integer_input_errors_like_tf():
    t = real_tf()
    with pytest.raises(TypeError):
        t.image.rgb_to_yiq(t.constant(XU))
    with pytest.raises(TypeError):
        tf.image.rgb_to_yiq(XU)
    with pytest.raises(t.errors.InvalidArgumentError):
        t.image.rgb_to_hsv(t.constant(XU))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.rgb_to_hsv(XU)


def test_gradients_grayscale_and_psnr():
    t = real_tf()
    for a, b in zip(tf.image.image_gradients(X), t.image.image_gradients(t.constant(X))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-6)
    g = X[..., :1]
    np.testing.assert_array_equal(tf.image.grayscale_to_rgb(g).numpy(),
                                  t.image.grayscale_to_rgb(t.constant(g)).numpy())
    np.testing.assert_allclose(tf.image.psnr(X, X * 0.9, 1.0).numpy(),
                               t.image.psnr(X, X * 0.9, 1.0).numpy(), rtol=1e-5)
    np.testing.assert_allclose(tf.image.psnr(XU, XU // 2, 255).numpy(),
                               t.image.psnr(XU, XU // 2, 255).numpy(), rtol=1e-5)
    with pytest.raises(ValueError):
        tf.image.grayscale_to_rgb(X)


@pytest.mark.parametrize("iou,score", [(0.5, -np.inf), (0.3, 0.2), (0.7, 0.5)])
def test_non_max_suppression_matches_tf(iou, score):
    t = real_tf()
    boxes = RNG.random((30, 4)).astype("float32")
    scores = RNG.random(30).astype("float32")
    got = tf.image.non_max_suppression(boxes, scores, 10, iou, score)
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(),
                                  t.image.non_max_suppression(boxes, scores, 10, iou,
                                                              score).numpy())
    idx, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 10, iou, score)
    ridx, rsc = t.image.non_max_suppression_with_scores(boxes, scores, 10, iou, score)
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    np.testing.assert_allclose(sc.numpy(), rsc.numpy())


def test_random_ops_statistics():
    imgs = np.tile(np.arange(4, dtype="float32").reshape(1, 1, 4, 1), (400, 2, 1, 1))
    out = tf.image.random_flip_left_right(imgs, seed=1).numpy()
    flipped = out[:, 0, 0, 0] == 3
    assert 0.4 < flipped.mean() < 0.6
    np.testing.assert_array_equal(out[flipped], imgs[flipped][:, :, ::-1])
    out = tf.image.random_flip_up_down(np.transpose(imgs, (0, 2, 1, 3)), seed=2).numpy()
    assert 0.4 < (out[:, 0, 0, 0] == 3).mean() < 0.6
    for _ in range(5):
        d = tf.image.random_brightness(X, 0.2).numpy() - X
        assert np.allclose(d, d.flat[0], atol=1e-6) and abs(d.flat[0]) <= 0.2
        c = tf.image.random_crop(X, [1, 3, 4, 3]).numpy()
        found = [(i, j, k) for i in range(2) for j in range(3) for k in range(3)
                 if np.array_equal(X[i, j:j + 3, k:k + 4], c[0])]
        assert len(found) == 1
    y = tf.image.random_contrast(X, 0.5, 0.9).numpy()
    m = X.mean(axis=(1, 2), keepdims=True)
    f = np.median((y - m) / (X - m))
    assert 0.5 <= f <= 0.9
    for fn, args in [(tf.image.random_saturation, (0.5, 1.5)), (tf.image.random_hue, (0.2,))]:
        assert fn(X, *args).shape == X.shape
    with pytest.raises(ValueError):
        tf.image.random_contrast(X, 0.9, 0.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.random_crop(X, [3, 3, 3, 3])
    assert tf.image.ResizeMethod.BICUBIC == "bicubic"


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float64"])
def test_per_image_standardization_keeps_the_dtype_as_tf24(dtype):
    # TF 2.4: images other than float16/float32 go through convert_image_dtype to
    # float32 and back with saturate=True (2.5+ answer float32 instead). The
    # reference: the standardization of the [0, 1]-scaled image in NumPy, scaled
    # back by (max + 0.5), clamped and truncated as TF's saturate_cast does.
    info = np.iinfo(dtype) if dtype != "float64" else None
    v = XU.astype(dtype) if info is not None else X.astype("float64")
    scale = 1.0 / float(info.max) if info is not None else 1.0
    f = v.astype("float32") * np.float32(scale)
    mean = f.mean(axis=(-3, -2, -1), keepdims=True)
    std = np.maximum(f.std(axis=(-3, -2, -1), keepdims=True), 1.0 / np.sqrt(f[0].size))
    z = (f - mean) / std
    if info is not None:
        want = np.clip(z * (float(info.max) + 0.5), info.min, info.max).astype(dtype)
    else:
        want = z.astype("float64")
    got = tf.image.per_image_standardization(v)
    assert got.dtype.name == dtype
    np.testing.assert_allclose(got.numpy().astype(float), want.astype(float), atol=1.0 if
                               info is not None else 1e-5)
    if info is not None:  # saturated, not wrapped: negative values clamp at the minimum
        assert got.numpy().min() == max(info.min, int(want.min()))

