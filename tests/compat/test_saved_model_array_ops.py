"""Array, image and random ops with data-dependent or few-op TF forms in SavedModels,
both ways with real TF.

Each function takes a float tensor ``x`` and a second argument ``k`` (so no value the
trace saw can pass for the graph's). Saved by torchflow, the SavedModel serves TF's
values in real TF and in torchflow for inputs the trace never saw; saved by real TF,
it serves them in torchflow (its graph of LowerBound, HistogramFixedWidth, Bitcast,
Unique, DynamicPartition, Bincount, ... run by the graph executor). Random ops are
checked by what does not depend on the draw.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

X = np.array([[0.5, -2.0, 3.0, 1.0], [4.0, 0.25, -1.0, 2.5], [-3.0, 1.5, 0.0, 2.0]],
             np.float32)
X2 = np.array([[1.0, 7.0, -2.0, 0.5], [3.5, -4.0, 6.0, 2.0], [0.0, 9.0, -8.0, 1.0]],
              np.float32)


def _cases(m):
    i32, f32 = m.int32, m.float32
    img = lambda x, k: m.reshape(x * k, [1, 2, 2, 3])  # noqa: E731
    return {
        # name: (function, k's spec, k on the first call, k on the second)
        "searchsorted": (lambda x, k: m.searchsorted(m.sort(x), k), ([3, 2], f32),
                         [[0.0, 2.0], [1.0, 9.0], [-5.0, 0.0]], [[3.0, 3.0], [0.0, 0.1],
                                                                 [2.0, -1.0]]),
        "searchsorted_right": (lambda x, k: m.searchsorted(
            m.sort(x), k, side="right", out_type=m.int64), ([3, 1], f32),
            [[1.0], [2.5], [0.0]], [[-9.0], [9.0], [1.5]]),
        "histogram": (lambda x, k: m.histogram_fixed_width(x, k, nbins=5), ([2], f32),
                      [-2.0, 2.0], [0.0, 10.0]),
        "histogram_int64": (lambda x, k: m.histogram_fixed_width(
            x * k[0], [-4.0, 4.0], nbins=3, dtype=m.int64), ([1], f32), [1.0], [0.5]),
        "bitcast": (lambda x, k: m.bitcast(x * k, m.int32), ([], f32), 1.0, -2.0),
        "bitcast_wider": (lambda x, k: m.bitcast(m.reshape(m.cast(x, m.int16) * k,
                                                           [3, 2, 2]), m.int32),
                          ([], m.int16), 3, 1),
        "saturate_cast_uint8": (lambda x, k: m.dtypes.saturate_cast(x * k, m.uint8),
                                ([], f32), 100.0, -50.0),
        "saturate_cast_int8": (lambda x, k: m.dtypes.saturate_cast(
            m.cast(x, m.int32) * k, m.int8), ([], i32), 60, -1),
        "unique": (lambda x, k: m.unique(m.round(m.reshape(x, [-1]) * k)), ([], f32), 0.5,
                   0.0),
        "unique_int64_idx": (lambda x, k: m.unique(m.reshape(m.cast(x, m.int32), [-1]) + k,
                                                   out_idx=m.int64)[1], ([], i32), 1, 2),
        "space_to_batch": (lambda x, k: m.space_to_batch(
            m.reshape(x, [1, 3, 4, 1]), [1, 2], k), ([2, 2], i32), [[0, 1], [0, 0]],
            [[1, 0], [2, 2]]),
        "dynamic_partition": (lambda x, k: m.dynamic_partition(x, k, 3), ([3], i32),
                              [2, 0, 2], [1, 1, 0]),
        "dynamic_stitch": (lambda x, k: m.dynamic_stitch([k, [1]], [x[:2], x[2:]]),
                           ([2], i32), [0, 2], [3, 0]),
        "batch_normalization": (lambda x, k: m.nn.batch_normalization(
            x, k[0], k[1], 0.5, k[2], 1e-3), ([3, 4], f32), X2 / 4 + 1, X / 3 + 2),
        "batch_normalization_no_offset": (lambda x, k: m.nn.batch_normalization(
            x, k, 2.0, None, None, 0.1), ([4], f32), [1.0, 0.0, -1.0, 2.0],
            [0.5, 0.5, 0.5, 0.5]),
        "adjust_brightness": (lambda x, k: m.image.adjust_brightness(img(x, 1.0), k),
                              ([], f32), 0.25, -1.0),
        "adjust_contrast": (lambda x, k: m.image.adjust_contrast(img(x, 1.0), k),
                            ([], f32), 0.5, 2.0),
        "per_image_standardization": (lambda x, k: m.image.per_image_standardization(
            img(x, k)), ([], f32), 1.0, 0.0),
        "meshgrid": (lambda x, k: m.meshgrid(x[0], k), ([3], f32), [1.0, 2.0, 3.0],
                     [0.0, -1.0, 5.0]),
        "meshgrid_ij3": (lambda x, k: m.meshgrid(x[0], k, x[1, :2], indexing="ij"),
                         ([3], f32), [1.0, 2.0, 3.0], [0.0, -1.0, 5.0]),
        "invert_permutation": (lambda x, k: m.math.invert_permutation(k), ([4], i32),
                               [2, 0, 3, 1], [0, 1, 2, 3]),
        "tensordot": (lambda x, k: m.tensordot(x, k, 1), ([4, 2], f32), X2[:2].T.copy(),
                      X[1:3].T.copy()),
        "tensordot_pairs": (lambda x, k: m.tensordot(m.reshape(x, [3, 2, 2]), k, [[0, 2], [1, 0]]),
                            ([2, 3, 2], f32), np.reshape(X2, [2, 3, 2]),
                            np.reshape(X, [2, 3, 2])),
        "tensordot_outer": (lambda x, k: m.tensordot(x[0], k, 0), ([2], f32), [1.0, 2.0],
                            [-1.0, 0.5]),
        "boolean_mask": (lambda x, k: m.boolean_mask(x, k), ([3], m.bool),
                         [True, False, True], [False, False, False]),
        "boolean_mask_2d_axis": (lambda x, k: m.boolean_mask(m.reshape(x, [1, 3, 4]), k,
                                                             axis=1), ([3, 4], m.bool),
                                 X > 0, X2 > 1),
        "rgb_to_hsv": (lambda x, k: m.image.rgb_to_hsv(m.sigmoid(m.reshape(x, [2, 2, 3])) * k),
                       ([], f32), 1.0, 0.5),
        "hsv_to_rgb": (lambda x, k: m.image.hsv_to_rgb(m.sigmoid(m.reshape(x, [2, 2, 3])) * k),
                       ([], f32), 1.0, 0.5),
        "extract_patches": (lambda x, k: m.image.extract_patches(
            m.reshape(x * k, [1, 3, 4, 1]), [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"),
            ([], f32), 1.0, -2.0),
        "extract_patches_same": (lambda x, k: m.image.extract_patches(
            m.reshape(x * k, [1, 3, 4, 1]), [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
            ([], f32), 1.0, 3.0),
        "local_response_normalization": (lambda x, k: m.nn.local_response_normalization(
            m.reshape(x * k, [1, 1, 3, 4]), depth_radius=1, bias=2.0, alpha=0.5, beta=0.75),
            ([], f32), 1.0, 2.0),
        "clip_by_global_norm": (lambda x, k: m.clip_by_global_norm([x, x[0] * 2.0], k),
                                ([], f32), 3.0, 100.0),
        "bincount": (lambda x, k: m.math.bincount(k), ([5], i32), [1, 1, 4, 0, 1],
                     [2, 2, 2, 0, 7]),
        "bincount_bounded": (lambda x, k: m.math.bincount(k, minlength=3, maxlength=5,
                                                          dtype=m.float32),
                             ([4], i32), [0, 1, 1, 0], [6, 4, 1, 4]),
        "bincount_weights": (lambda x, k: m.math.bincount(k, weights=x[0]), ([4], i32),
                             [0, 3, 3, 1], [2, 2, 0, 0]),
    }


def _module(m, name):
    fn, (shape, dtype), _, _ = _cases(m)[name]
    mod = m.Module()
    mod.f = m.function(fn, input_signature=[m.TensorSpec([3, 4], m.float32),
                                            m.TensorSpec(shape, dtype)])
    return mod


def _calls(m, name):
    _, (_, dtype), k1, k2 = _cases(m)[name]
    return [(m.constant(X), m.constant(k1, dtype)), (m.constant(X2), m.constant(k2, dtype))]


def _expected(rtf, name):
    fn = _cases(rtf)[name][0]
    return [[o.numpy() for o in rtf.nest.flatten(fn(*args))] for args in _calls(rtf, name)]


def _assert_serves(lib, f, name, want):
    for args, w in zip(_calls(lib, name), want):
        got = [np.asarray(o) for o in lib.nest.flatten(f(*args))]
        assert len(got) == len(w)
        for g, e in zip(got, w):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(_cases(tf)))
def test_torchflow_saved_array_op_serves_tf_values(name, tmp_path):
    rtf = real_tf()
    tf.saved_model.save(_module(tf, name), str(tmp_path))
    want = _expected(rtf, name)
    for lib in (rtf, tf):
        _assert_serves(lib, lib.saved_model.load(str(tmp_path)).f, name, want)


@pytest.mark.parametrize("name", sorted(_cases(tf)))
def test_tf_saved_array_op_serves_tf_values_in_torchflow(name, tmp_path):
    rtf = real_tf()
    rtf.saved_model.save(_module(rtf, name), str(tmp_path))
    _assert_serves(tf, tf.saved_model.load(str(tmp_path)).f, name, _expected(rtf, name))


@pytest.mark.parametrize("saver", ["torchflow", "tf"])
def test_random_ops_draw_from_the_arguments(saver, tmp_path):
    rtf = real_tf()
    m = tf if saver == "torchflow" else rtf

    class M(m.Module):
        @m.function(input_signature=[m.TensorSpec([None], m.float32)])
        def shuffle(self, x):
            return m.random.shuffle(x)

        @m.function(input_signature=[m.TensorSpec([2, 3], m.float32),
                                     m.TensorSpec([], m.int32)])
        def categorical(self, logits, n):
            return m.random.categorical(logits, n)

        @m.function(input_signature=[m.TensorSpec([1], m.int32),
                                     m.TensorSpec([2], m.float32)])
        def gamma(self, shape, alpha):
            return m.random.gamma(shape, alpha, beta=2.0)

        @m.function(input_signature=[m.TensorSpec([1], m.int32), m.TensorSpec([], m.float32)])
        def poisson(self, shape, lam):
            return m.random.poisson(shape, lam, dtype=m.int64)

    m.saved_model.save(M(), str(tmp_path))
    values = np.arange(50, dtype=np.float32)
    logits = np.log(np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]], np.float32) + 1e-30)
    for lib in (rtf, tf):
        loaded = lib.saved_model.load(str(tmp_path))
        shuffled = np.asarray(loaded.shuffle(lib.constant(values)))
        assert sorted(shuffled.tolist()) == values.tolist()
        assert not np.array_equal(shuffled, values)
        draws = np.asarray(loaded.categorical(lib.constant(logits), lib.constant(200)))
        assert draws.shape == (2, 200) and draws.dtype == np.int64
        assert (draws[0] == 1).all() and set(draws[1].tolist()) == {0, 2}
        g = np.asarray(loaded.gamma(lib.constant([4000]), lib.constant([2.0, 9.0])))
        assert g.shape == (4000, 2) and g.dtype == np.float32 and g.min() > 0
        # Gamma(alpha, beta=2): mean alpha / 2.
        np.testing.assert_allclose(g.mean(0), [1.0, 4.5], rtol=0.06)
        p = np.asarray(loaded.poisson(lib.constant([3000]), lib.constant(4.0)))
        assert p.shape == (3000,) and p.dtype == np.int64 and p.min() >= 0
        assert abs(p.mean() - 4.0) < 0.25 and np.array_equal(p, np.round(p))


def test_tensordot_and_boolean_mask_of_unknown_batch_sizes(tmp_path):
    """Shapes the signature leaves unknown are read from the tensors when they run."""
    rtf = real_tf()
    mod = tf.Module()
    mod.dot = tf.function(lambda x, w: tf.tensordot(x, w, [[2], [0]]),
                          input_signature=[tf.TensorSpec([None, None, 3], tf.float32),
                                           tf.TensorSpec([3, 2], tf.float32)])
    mod.mask = tf.function(lambda x: tf.boolean_mask(x, x[:, 0] > 0),
                           input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    tf.saved_model.save(mod, str(tmp_path))
    rng = np.random.default_rng(3)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    for lib in (rtf, tf):
        loaded = lib.saved_model.load(str(tmp_path))
        for shape in ((2, 5, 3), (1, 1, 3)):
            x = rng.normal(size=shape).astype(np.float32)
            np.testing.assert_allclose(np.asarray(loaded.dot(x, w)),
                                       np.tensordot(x, w, [[2], [0]]), rtol=1e-5, atol=1e-6)
        for n in (4, 7):
            x = rng.normal(size=(n, 2)).astype(np.float32)
            np.testing.assert_array_equal(np.asarray(loaded.mask(x)), x[x[:, 0] > 0])
