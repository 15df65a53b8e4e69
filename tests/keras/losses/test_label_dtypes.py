"""Labels of every dtype TF's Keras accepts (``keras.datasets`` gives ``uint8``):
each loss and metric, class and function, against real tf.keras 2.21 (Keras 2).

TF casts the labels (``sparse_categorical_crossentropy`` to int64, the accuracy
metrics to the predictions' or the labels' dtype), so nothing here may raise
where tf.keras computes a value, and the values agree.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

LABEL_DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "int64",
                "float16", "float32", "float64"]
SPARSE_DTYPES = [d for d in LABEL_DTYPES if d != "bool"]
# cosine_similarity does not cast its labels in TF (2.4 and 2.21): tf.keras raises
# for non-float32 labels, so it is left out of the sweep.
SKIP = {"Loss", "Metric", "Reduction", "LossFunctionWrapper", "MeanMetricWrapper", "Mean",
        "Sum", "MeanTensor", "MeanRelativeError", "get", "serialize", "deserialize",
        "CosineSimilarity", "cosine_similarity"}


def _names(sub, classes):
    ref = getattr(real_tf().keras, sub)
    ours = getattr(tf.keras, sub)
    out = []
    for name in sorted(dir(ours)):
        obj = getattr(ours, name)
        if name.startswith("_") or name in SKIP or not hasattr(ref, name) or \
                isinstance(obj, type) != classes or not callable(obj):
            continue
        out.append(name)
    return out


def _data(sparse, dtype, rank2=False):
    rng = np.random.RandomState(3)
    p = rng.rand(6, 4).astype("float32")
    p /= p.sum(-1, keepdims=True)
    if sparse:
        y = np.array([1, 2, 0, 3, 3, 1], dtype)
        return (y[:, None] if rank2 else y), p
    return rng.randint(0, 2, (6, 4)).astype(dtype), p


def _call(module, sub, name, classes, y, p):
    obj = getattr(getattr(module.keras, sub), name)
    out = obj()(y, p) if classes else obj(y, p)
    return np.asarray(out.numpy(), np.float64)


def _compare(sub, classes, dtypes, rank2=False):
    ref = real_tf()
    checked = 0
    for name in _names(sub, classes):
        sparse = "parse" in name
        if rank2 and not sparse:
            continue
        for dtype in (SPARSE_DTYPES if sparse else dtypes):
            y, p = _data(sparse, dtype, rank2)
            try:
                expected = _call(ref, sub, name, classes, y, p)
            except Exception:  # noqa: BLE001 - tf.keras rejects it: not a case to compare
                continue
            got = _call(tf, sub, name, classes, y, p)
            if name == "sparse_top_k_categorical_accuracy" and rank2:
                # TF 2.4 returns one value per row, shape (6,); 2.21 reshapes the
                # result back to the labels' shape (6, 1).
                expected = expected.reshape(-1)
            assert got.shape == expected.shape, (name, dtype)
            np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-5,
                                       err_msg=f"{sub}.{name} labels {dtype}")
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("classes", [True, False], ids=["classes", "functions"])
@pytest.mark.parametrize("sub", ["losses", "metrics"])
def test_every_label_dtype_tf_keras_accepts(sub, classes):
    _compare(sub, classes, LABEL_DTYPES)


@pytest.mark.parametrize("classes", [True, False], ids=["classes", "functions"])
@pytest.mark.parametrize("sub", ["losses", "metrics"])
def test_sparse_labels_with_a_trailing_unit_axis(sub, classes):
    _compare(sub, classes, SPARSE_DTYPES, rank2=True)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint16", "int64", "float32"])
def test_sparse_categorical_crossentropy_casts_labels(dtype):
    y = np.array([1, 2, 0], dtype)
    logits = np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0], [2.0, -1.0, 0.0]], np.float32)
    expected = -np.log(np.exp(logits) / np.exp(logits).sum(-1, keepdims=True))[
        np.arange(3), y.astype(np.int64)]
    got = tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)
    cls = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, logits)
    np.testing.assert_allclose(cls.numpy(), expected.mean(), rtol=1e-6)


def test_one_hot_of_uint8_indices():
    idx = np.array([0, 3, 1], np.uint8)
    np.testing.assert_array_equal(tf.one_hot(idx, 4).numpy(), np.eye(4, dtype=np.float32)[idx])
    ref = real_tf()
    np.testing.assert_array_equal(tf.one_hot(idx, 4).numpy(), ref.one_hot(idx, 4).numpy())


def _fit_logs(k, metric, y, seed_weights=None):
    x = np.random.RandomState(0).rand(64, 8).astype("float32")
    model = k.Sequential([k.layers.Dense(10, input_shape=(8,))])
    if seed_weights is not None:
        model.set_weights(seed_weights)
    model.compile(k.optimizers.SGD(0.1),
                  k.losses.SparseCategoricalCrossentropy(from_logits=True)
                  if y.ndim == 1 else "categorical_crossentropy", metrics=[metric])
    h = model.fit(x, y, epochs=2, verbose=0, batch_size=16, shuffle=False)
    return model, h.history


@pytest.mark.parametrize("metric", ["sparse_top_k_categorical_accuracy",
                                    "sparse_categorical_accuracy", "accuracy",
                                    "top_k_categorical_accuracy"])
def test_top_k_metrics_with_uint8_labels_in_fit(metric):
    ref = real_tf()
    y = (np.arange(64) % 10).astype("uint8")
    if metric == "top_k_categorical_accuracy":
        y = np.eye(10, dtype="float32")[y]
    rng = np.random.RandomState(1)
    weights = [rng.normal(size=(8, 10)).astype("float32"), np.zeros(10, "float32")]
    _, expected = _fit_logs(ref.keras, metric, y, weights)
    _, got = _fit_logs(tf.keras, metric, y, weights)
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-4, atol=1e-5, err_msg=key)


def test_top_k_metric_objects_with_rank1_labels_in_fit():
    ref = real_tf()
    y = (np.arange(64) % 10).astype("uint8")
    rng = np.random.RandomState(1)
    weights = [rng.normal(size=(8, 10)).astype("float32"), np.zeros(10, "float32")]
    _, expected = _fit_logs(ref.keras, ref.keras.metrics.SparseTopKCategoricalAccuracy(k=3),
                            y, weights)
    _, got = _fit_logs(tf.keras, tf.keras.metrics.SparseTopKCategoricalAccuracy(k=3), y, weights)
    np.testing.assert_allclose(got["sparse_top_k_categorical_accuracy"],
                               expected["sparse_top_k_categorical_accuracy"], rtol=1e-5)


@pytest.mark.parametrize("value", [np.array([1.7, -2.0, 2.0], np.float32),
                                   np.array([1, 2, 0], np.int16),
                                   np.array([1, 2, 0], np.uint16)])
def test_one_hot_of_numpy_indices_converts_them_as_tf(value):
    # TF converts a NumPy argument to the op's default index dtype, int64 (so the
    # Keras guides' float32 labels work); a tensor of another dtype is rejected.
    ref = real_tf()
    np.testing.assert_array_equal(tf.one_hot(value, 3).numpy(), ref.one_hot(value, 3).numpy())


@pytest.mark.parametrize("dtype", ["int16", "uint16", "float32"])
def test_one_hot_rejects_tensors_of_other_index_dtypes(dtype):
    ref = real_tf()
    with pytest.raises(ref.errors.InvalidArgumentError):
        ref.one_hot(ref.constant([1, 2], dtype), 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'TI'"):
        tf.one_hot(tf.constant([1, 2], dtype), 3)
