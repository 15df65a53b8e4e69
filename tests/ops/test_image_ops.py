"""tf.image ops against real TensorFlow on the same random images."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.ops import image_ops
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 7, 9, 3)).astype("float32")
XU8 = (RNG.random((2, 7, 9, 3)) * 255).astype("uint8")


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("size", [(13, 5), (4, 20), (3, 3), (14, 18)])
def test_resize_matches_tf(method, size):
    t = real_tf()
    got = tf.image.resize(X, size, method=method)
    want = t.image.resize(X, size, method=method).numpy()
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want, atol=1e-5)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_resize_integer_and_single_image(method):
    t = real_tf()
    got = tf.image.resize(XU8[0], (5, 4), method=method)
    want = t.image.resize(XU8[0], (5, 4), method=method).numpy()
    assert got.dtype.name == want.dtype.name and got.shape == want.shape
    np.testing.assert_allclose(got.numpy().astype(float), want.astype(float), atol=1e-4)


def test_resize_preserve_aspect_ratio_and_errors():
    t = real_tf()
    got = tf.image.resize(X, (14, 14), preserve_aspect_ratio=True)
    assert got.shape == t.image.resize(X, (14, 14), preserve_aspect_ratio=True).shape
    with pytest.raises(ValueError):
        tf.image.resize(X, (3, 3), method="lanczos7")
    with pytest.raises(ValueError):
        tf.image.resize(X[0, 0], (3, 3))


@pytest.mark.parametrize("name,args", [
    ("flip_left_right", ()), ("flip_up_down", ()), ("rot90", (3,)), ("rot90", (1,)),
    ("central_crop", (0.5,)), ("crop_to_bounding_box", (1, 2, 3, 4)),
    ("pad_to_bounding_box", (1, 2, 10, 12)), ("resize_with_crop_or_pad", (5, 12)),
    ("resize_with_crop_or_pad", (9, 4)), ("adjust_contrast", (1.7,))])
def test_geometry_ops_match_tf(name, args):
    t = real_tf()
    for x in (X, X[0]):
        got = getattr(tf.image, name)(x, *args).numpy()
        want = getattr(t.image, name)(x, *args).numpy()
        np.testing.assert_allclose(got, want, atol=1e-6)


def test_crop_out_of_range_raises_like_tf():
    t = real_tf()
    with pytest.raises(ValueError):
        t.image.crop_to_bounding_box(X, 5, 5, 5, 5)
    with pytest.raises(ValueError):
        tf.image.crop_to_bounding_box(X, 5, 5, 5, 5)


@pytest.mark.parametrize("src,dst", [("uint8", "float32"), ("float32", "uint8"),
                                     ("uint8", "int32"), ("int32", "uint8"),
                                     ("float32", "float64"), ("uint8", "int16")])
def test_convert_image_dtype_matches_tf(src, dst):
    t = real_tf()
    v = {"uint8": XU8, "float32": np.abs(X) / 4, "int32": XU8.astype("int32") * 1000000}[src]
    v = v.astype(src)
    got = tf.image.convert_image_dtype(v, dst)
    want = t.image.convert_image_dtype(v, dst).numpy()
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy().astype(float), want.astype(float), atol=1e-6)


@pytest.mark.parametrize("fill_mode", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_projective_transform_matches_tf(fill_mode, interpolation):
    t = real_tf()
    m = np.array([[0.9, -0.3, 1.5, 0.4, 1.1, -2.0, 0.01, -0.02],
                  [1.0, 0.0, -4.0, 0.0, 1.0, 3.0, 0.0, 0.0]], "float32")
    got = image_ops.transform(X, m, interpolation, fill_mode, 0.5).numpy()
    want = t.raw_ops.ImageProjectiveTransformV3(
        images=X, transforms=m, output_shape=[7, 9], fill_value=0.5,
        interpolation=interpolation.upper(), fill_mode=fill_mode.upper()).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_resize_is_differentiable():
    x = tf.Variable(X)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.resize(x, (5, 5), method="bicubic"))
    g = tape.gradient(y, x)
    t = real_tf()
    xv = t.Variable(X)
    with t.GradientTape() as tt:
        yv = t.reduce_sum(t.image.resize(xv, (5, 5), method="bicubic"))
    np.testing.assert_allclose(g.numpy(), tt.gradient(yv, xv).numpy(), atol=1e-4)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint16", "int32", "float64"])
@pytest.mark.parametrize("factor", [2.0, -1.5, 0.3])
def test_adjust_contrast_saturates_integer_images_as_tf(dtype, factor):
    # TF converts non-float32 images to float32 and back with saturate=True: a
    # uint8 result above 255 clamps to 255 instead of wrapping.
    t = real_tf()
    x = (RNG.random((2, 4, 5, 3)) * 400 - 100).astype("int64").astype(dtype)
    got = tf.image.adjust_contrast(tf.constant(x), factor)
    want = t.image.adjust_contrast(t.constant(x), factor).numpy()
    assert got.dtype.name == want.dtype.name
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1)
    if dtype in ("uint8", "int8", "int16"):
        np.testing.assert_array_equal(got.numpy(), want)
