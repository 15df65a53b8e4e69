"""tf.image NMS variants, draw_bounding_boxes, extract_glimpse, SSIM and
sample_distorted_bounding_box against real TensorFlow."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(5)


def _boxes(*shape):
    a = RNG.random(shape + (2,)).astype("float32") * 0.7
    return np.concatenate([a, a + RNG.random(shape + (2,)).astype("float32") * 0.4], -1)


@pytest.mark.parametrize("thr,score_thr", [(0.5, float("-inf")), (0.3, 0.4), (0.7, 0.1)])
def test_overlaps_matches_tf(thr, score_thr):
    t = real_tf()
    ov = RNG.random((12, 12)).astype("float32")
    s = RNG.random(12).astype("float32")
    got = tf.image.non_max_suppression_overlaps(ov, s, 6, thr, score_thr)
    want = t.image.non_max_suppression_overlaps(ov, s, 6, thr, score_thr)
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("max_out,thr,score_thr", [(5, 0.5, float("-inf")), (20, 0.3, 0.5)])
def test_padded_matches_tf(pad, max_out, thr, score_thr):
    t = real_tf()
    b, s = _boxes(15), RNG.random(15).astype("float32")
    got = tf.image.non_max_suppression_padded(b, s, max_out, thr, score_thr,
                                              pad_to_max_output_size=pad)
    want = t.image.non_max_suppression_padded(t.constant(b), t.constant(s), max_out, thr,
                                              score_thr,
                                              pad_to_max_output_size=pad)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    assert int(got[1]) == int(want[1])


def test_padded_batched_matches_tf():
    t = real_tf()
    b, s = _boxes(3, 10), RNG.random((3, 10)).astype("float32")
    got = tf.image.non_max_suppression_padded(b, s, 4, 0.4, pad_to_max_output_size=True)
    want = t.image.non_max_suppression_padded(b, s, 4, 0.4, pad_to_max_output_size=True)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    with pytest.raises(ValueError, match="must be True for batched input"):
        tf.image.non_max_suppression_padded(b, s, 4)


@pytest.mark.parametrize("q", [1, 3])
@pytest.mark.parametrize("pad_per_class,clip", [(False, True), (True, False)])
def test_combined_matches_tf(q, pad_per_class, clip):
    t = real_tf()
    b = _boxes(2, 8, q) * 1.2 - 0.1  # some coordinates outside [0, 1] to clip
    s = RNG.random((2, 8, 3)).astype("float32")
    args = (b, s, 3, 7, 0.4, 0.2, pad_per_class, clip)
    got = tf.image.combined_non_max_suppression(*args)
    want = t.image.combined_non_max_suppression(*args)
    for g, w in zip(got, want):
        assert g.dtype.name == w.dtype.name
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g.numpy(), w.numpy(), atol=1e-6)


def test_draw_bounding_boxes_matches_tf():
    t = real_tf()
    img = RNG.random((2, 9, 11, 3)).astype("float32")
    boxes = np.array([[[0.1, 0.2, 0.7, 0.9], [-0.2, 0.3, 0.5, 1.4], [0.6, 0.6, 0.2, 0.9]],
                      [[0.0, 0.0, 1.0, 1.0], [0.3, 0.3, 0.35, 0.4], [1.2, 0.1, 1.5, 0.2]]],
                     "float32")
    colors = np.array([[1, 0, 0, 1], [0, 1, 0.5, 1]], "float32")
    got = tf.image.draw_bounding_boxes(img, boxes, colors)
    want = t.image.draw_bounding_boxes(img, boxes, colors)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.draw_bounding_boxes(img.astype("uint8"), boxes, colors)


@pytest.mark.parametrize("centered,normalized", [(True, True), (False, False),
                                                 (False, True), (True, False)])
def test_extract_glimpse_zero_noise_matches_tf(centered, normalized):
    t = real_tf()
    x = RNG.random((3, 10, 12, 2)).astype("float32")
    if normalized:
        off = np.array([[0.0, 0.0], [-0.6, 0.3], [0.9, -0.95]], "float32")
        if not centered:
            off = (off + 1) / 2
    else:
        off = np.array([[0.0, 0.0], [-3.0, 2.0], [8.0, -5.0]], "float32")
        if not centered:
            off = off + np.array([5.0, 6.0], "float32")
    got = tf.image.extract_glimpse(x, [4, 5], off, centered, normalized, noise="zero")
    want = t.image.extract_glimpse(x, [4, 5], off, centered, normalized, noise="zero")
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)


def test_extract_glimpse_uniform_noise_inside_channel_range():
    x = RNG.random((1, 6, 6, 2)).astype("float32") * 0.5 + 0.25
    got = tf.image.extract_glimpse(x, [6, 6], [[0.9, 0.9]]).numpy()  # mostly outside
    lo, hi = x.min(axis=(0, 1, 2)), x.max(axis=(0, 1, 2))
    assert (got >= lo - 1e-6).all() and (got <= hi + 1e-6).all()


@pytest.mark.parametrize("dtype,max_val", [("float32", 1.0), ("uint8", 255)])
@pytest.mark.parametrize("shape", [(2, 16, 16, 3), (20, 18, 1)])
def test_ssim_matches_tf(dtype, max_val, shape):
    t = real_tf()
    a = RNG.random(shape).astype("float32")
    b = np.clip(a + RNG.normal(0, 0.1, shape), 0, 1).astype("float32")
    if dtype == "uint8":
        a, b = (a * 255).astype("uint8"), (b * 255).astype("uint8")
    got = tf.image.ssim(a, b, max_val)
    want = t.image.ssim(t.constant(a), t.constant(b), max_val)
    assert got.dtype == tf.float32 and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    got = tf.image.ssim(a, b, max_val, filter_size=5, filter_sigma=0.8, k1=0.02, k2=0.05)
    want = t.image.ssim(t.constant(a), t.constant(b), max_val, filter_size=5,
                        filter_sigma=0.8, k1=0.02, k2=0.05)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape,pf", [((2, 181, 177, 3), None),
                                      ((39, 45, 2), (0.5, 0.3, 0.2))])
def test_ssim_multiscale_matches_tf(shape, pf):
    t = real_tf()
    a = RNG.random(shape).astype("float32")
    b = np.clip(a + RNG.normal(0, 0.1, shape), 0, 1).astype("float32")
    kw = {} if pf is None else {"power_factors": pf, "filter_size": 7}
    got = tf.image.ssim_multiscale(a, b, 1.0, **kw)
    want = t.image.ssim_multiscale(t.constant(a), t.constant(b), 1.0, **kw)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)


def _check_crop(begin, size, bbox, h, w, boxes, cover, ar, area):
    y, x, _ = begin.numpy()
    hh, ww, c = size.numpy()
    assert c == -1 and 0 <= y <= h - hh and 0 <= x <= w - ww
    np.testing.assert_allclose(bbox.numpy()[0, 0], [y / h, x / w, (y + hh) / h, (x + ww) / w],
                               rtol=1e-6)
    if (hh, ww) == (h, w):
        return
    assert area[0] * h * w <= hh * ww <= area[1] * h * w
    px = boxes.reshape(-1, 4) * [h, w, h, w]
    iy = np.clip(np.minimum(px[:, 2], y + hh) - np.maximum(px[:, 0], y), 0, None)
    ix = np.clip(np.minimum(px[:, 3], x + ww) - np.maximum(px[:, 1], x), 0, None)
    area_b = (px[:, 2] - px[:, 0]) * (px[:, 3] - px[:, 1])
    assert (iy * ix / area_b >= cover).any()


def test_sample_distorted_bounding_box_properties():
    t = real_tf()
    boxes = np.array([[[0.1, 0.2, 0.5, 0.7], [0.3, 0.3, 0.9, 0.6]]], "float32")
    for seed in range(1, 15):
        begin, size, bbox = tf.image.sample_distorted_bounding_box(
            [60, 80, 3], boxes, seed=seed, min_object_covered=0.5, area_range=(0.1, 0.9))
        _check_crop(begin, size, bbox, 60, 80, boxes, 0.5, (0.75, 1.33), (0.1, 0.9))
        assert begin.dtype == tf.int32
        s1 = tf.image.stateless_sample_distorted_bounding_box(
            [60, 80, 3], boxes, seed=(seed, 3), min_object_covered=0.5)
        s2 = tf.image.stateless_sample_distorted_bounding_box(
            [60, 80, 3], boxes, seed=(seed, 3), min_object_covered=0.5)
        _check_crop(*s1, 60, 80, boxes, 0.5, (0.75, 1.33), (0.05, 1.0))
        np.testing.assert_array_equal(s1[0].numpy(), s2[0].numpy())
    # Same outputs structure as TF.
    want = t.image.sample_distorted_bounding_box([60, 80, 3], boxes, seed=1)
    got = tf.image.sample_distorted_bounding_box([60, 80, 3], boxes, seed=1)
    for g, w in zip(got, want):
        assert g.dtype.name == w.dtype.name and g.shape == tuple(w.shape)
    empty = np.zeros((1, 0, 4), "float32")
    with pytest.raises(tf.errors.InvalidArgumentError, match="use_image_if_no_bounding_boxes"):
        tf.image.sample_distorted_bounding_box([60, 80, 3], empty)
    _, size, _ = tf.image.sample_distorted_bounding_box(
        [60, 80, 3], empty, min_object_covered=1.0, use_image_if_no_bounding_boxes=True)
    np.testing.assert_array_equal(size.numpy(), [60, 80, -1])  # only the whole image covers it
