"""tf.keras.preprocessing.image against real tf.keras (Pillow and SciPy installed)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

I = tf.keras.preprocessing.image


def _ref():
    return real_tf().keras.preprocessing.image


def _img(shape=(6, 5, 3), seed=0):
    return np.random.RandomState(seed).randint(0, 256, size=shape).astype("float32")


@pytest.mark.parametrize("shape, kwargs", [
    ((6, 5, 3), {}), ((6, 5, 4), {}), ((6, 5, 1), {}), ((3, 6, 5), {"data_format":
                                                                   "channels_first"}),
    ((6, 5, 3), {"scale": False}), ((4, 4, 1), {"scale": False, "dtype": "float64"}),
])
def test_array_to_img_and_back_match_tf(shape, kwargs):
    x = _img(shape)
    ours, theirs = I.array_to_img(x, **kwargs), _ref().array_to_img(x, **kwargs)
    assert ours.mode == theirs.mode and ours.size == theirs.size
    fmt = kwargs.get("data_format")
    np.testing.assert_array_equal(I.img_to_array(ours, data_format=fmt),
                                  _ref().img_to_array(theirs, data_format=fmt))
    assert I.img_to_array(ours).dtype == np.float32


def test_array_to_img_errors_match_tf():
    for bad, kw in ((np.zeros((2, 2)), {}), (np.zeros((2, 2, 2)), {}),
                    (np.zeros((2, 2, 3)), {"data_format": "nhwc"})):
        with pytest.raises(ValueError) as theirs:
            _ref().array_to_img(bad, **kw)
        with pytest.raises(ValueError) as ours:
            I.array_to_img(bad, **kw)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("color_mode", ["rgb", "grayscale", "rgba"])
@pytest.mark.parametrize("target_size, interpolation", [(None, "nearest"), ((4, 7), "nearest"),
                                                       ((3, 3), "bilinear")])
def test_save_and_load_img_match_tf(tmp_path, color_mode, target_size, interpolation):
    path = str(tmp_path / "a.png")
    I.save_img(path, _img((8, 6, 3)))
    ours = I.load_img(path, color_mode=color_mode, target_size=target_size,
                      interpolation=interpolation)
    theirs = _ref().load_img(path, color_mode=color_mode, target_size=target_size,
                             interpolation=interpolation)
    assert ours.mode == theirs.mode
    np.testing.assert_array_equal(I.img_to_array(ours), _ref().img_to_array(theirs))
    with pytest.raises(ValueError, match="color_mode must be"):
        I.load_img(path, color_mode="cmyk")
    with pytest.raises(ValueError, match="Invalid interpolation method"):
        I.load_img(path, target_size=(2, 2), interpolation="fancy")


def test_smart_resize_matches_tf():
    x = _img((9, 5, 3))
    for size in ((4, 4), (6, 2), (3, 8)):
        got = I.smart_resize(tf.constant(x), size)
        want = _ref().smart_resize(real_tf().constant(x), size)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-3)
    with pytest.raises(ValueError, match="Expected `size` to be a tuple of 2 integers"):
        I.smart_resize(x, (2,))


@pytest.mark.parametrize("kwargs", [
    {"theta": 30}, {"tx": 1.5, "ty": -1}, {"shear": 20}, {"zx": 0.8, "zy": 1.2},
    {"theta": 10, "tx": 1, "zx": 1.1, "fill_mode": "constant", "cval": 2.0},
    {"theta": 45, "fill_mode": "reflect", "order": 0},
])
def test_affine_transform_matches_tf(kwargs):
    x = _img((3, 6, 5))
    axes = {"row_axis": 1, "col_axis": 2, "channel_axis": 0}
    np.testing.assert_allclose(I.apply_affine_transform(x, **axes, **kwargs),
                               _ref().apply_affine_transform(x, **axes, **kwargs), atol=1e-4)
    xl = np.ascontiguousarray(x.transpose(1, 2, 0))
    axes = {"row_axis": 0, "col_axis": 1, "channel_axis": 2}
    np.testing.assert_allclose(I.apply_affine_transform(xl, **axes, **kwargs),
                               _ref().apply_affine_transform(xl, **axes, **kwargs), atol=1e-4)


@pytest.mark.parametrize("fn, args", [
    ("random_rotation", (40,)), ("random_shift", (0.2, 0.3)), ("random_shear", (15,)),
    ("random_zoom", ((0.7, 1.3),)), ("random_channel_shift", (20.0,)),
    ("random_brightness", ((0.5, 1.5),)),
])
def test_random_transforms_match_tf_with_the_same_numpy_seed(fn, args):
    x = _img((3, 6, 5)) if fn != "random_brightness" else _img((6, 5, 3))
    np.random.seed(3)
    got = getattr(I, fn)(x, *args)
    np.random.seed(3)
    want = getattr(_ref(), fn)(x, *args)
    np.testing.assert_allclose(got, want, atol=1e-4)


GENERATOR_CASES = [
    {"rescale": 1.0 / 255},
    {"horizontal_flip": True, "vertical_flip": True},
    {"width_shift_range": 0.2, "height_shift_range": 2, "fill_mode": "constant"},
    {"rotation_range": 20, "zoom_range": 0.1, "shear_range": 5, "channel_shift_range": 10.0},
    {"samplewise_center": True, "samplewise_std_normalization": True},
    # No brightness_range here: TF 2.4 (keras-preprocessing 1.1.2) rescales each image
    # to [0, 255] in the brightness shift, tf.keras 2.21 keeps its range.
    {"width_shift_range": [-1, 1]},
]


@pytest.mark.parametrize("kwargs", GENERATOR_CASES)
def test_image_data_generator_flow_matches_tf(kwargs):
    x = _img((10, 8, 6, 3), seed=1)
    y = np.arange(10)
    ours = I.ImageDataGenerator(**kwargs).flow(x, y, batch_size=4, seed=7)
    theirs = _ref().ImageDataGenerator(**kwargs).flow(x, y, batch_size=4, seed=7)
    assert len(ours) == len(theirs) == 3
    for _ in range(4):  # past the end of an epoch: reshuffled with seed + batches seen
        (a, b), (c, d) = next(ours), next(theirs)
        np.testing.assert_array_equal(b, d)
        np.testing.assert_allclose(a, c, atol=1e-3)
    (a, b), (c, d) = ours[1], theirs[1]
    np.testing.assert_array_equal(b, d)
    np.testing.assert_allclose(a, c, atol=1e-3)


def test_featurewise_fit_and_subsets_match_tf():
    x = _img((12, 5, 4, 3), seed=2)
    y = np.array([0, 1] * 6)
    kwargs = {"featurewise_center": True, "featurewise_std_normalization": True,
              "validation_split": 0.25}
    ours, theirs = I.ImageDataGenerator(**kwargs), _ref().ImageDataGenerator(**kwargs)
    ours.fit(x)
    theirs.fit(x)
    np.testing.assert_allclose(ours.mean, theirs.mean, rtol=1e-5)
    np.testing.assert_allclose(ours.std, theirs.std, rtol=1e-5)
    for subset in ("training", "validation"):
        a, b = next(ours.flow(x, y, batch_size=20, shuffle=False, subset=subset))
        c, d = next(theirs.flow(x, y, batch_size=20, shuffle=False, subset=subset))
        np.testing.assert_array_equal(b, d)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)


def test_generator_errors():
    with pytest.raises(ValueError, match="`validation_split` must be strictly between 0 and 1"):
        I.ImageDataGenerator(validation_split=1.5)
    with pytest.raises(ValueError, match="`zoom_range` should be a float or a tuple"):
        I.ImageDataGenerator(zoom_range=(1, 2, 3))
    with pytest.raises(ValueError, match="should have rank 4"):
        I.ImageDataGenerator().flow(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="should have the same length"):
        I.ImageDataGenerator().flow(np.zeros((2, 3, 3, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="Asked to retrieve element 5"):
        I.ImageDataGenerator().flow(np.zeros((2, 3, 3, 3)), batch_size=1)[5]


def test_flow_from_directory_matches_tf(tmp_path, capsys):
    for c, n in (("cats", 3), ("dogs", 2)):
        (tmp_path / c).mkdir()
        for i in range(n):
            I.save_img(str(tmp_path / c / f"{i}.png"), _img((10, 12, 3), seed=i + n))
    (tmp_path / "dogs" / "notes.txt").write_text("not an image")
    for mode in ("categorical", "sparse", "binary"):
        ours = I.ImageDataGenerator(rescale=1 / 255.).flow_from_directory(
            str(tmp_path), target_size=(6, 5), batch_size=5, shuffle=False, class_mode=mode)
        theirs = _ref().ImageDataGenerator(rescale=1 / 255.).flow_from_directory(
            str(tmp_path), target_size=(6, 5), batch_size=5, shuffle=False, class_mode=mode)
        assert ours.class_indices == theirs.class_indices
        assert ours.filenames == theirs.filenames
        (a, b), (c, d) = next(ours), next(theirs)
        np.testing.assert_allclose(a, c, atol=1e-6)
        np.testing.assert_array_equal(b, d)
    assert "Found 5 images belonging to 2 classes." in capsys.readouterr().out
