"""Every loss class and function against real tf.keras, with each reduction and sample weights."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

rng = np.random.RandomState(0)
PROBS = rng.uniform(0.0, 1.0, (4, 3)).astype("float32")
PROBS[0, 0], PROBS[1, 1] = 0.0, 1.0  # clipping at epsilon
SOFT = (PROBS / PROBS.sum(-1, keepdims=True)).astype("float32")
ONEHOT = np.eye(3, dtype="float32")[[0, 2, 1, 2]]
BINARY = (rng.uniform(size=(4, 3)) > 0.5).astype("float32")
LOGITS = rng.randn(4, 3).astype("float32") * 3
REG_T = rng.randn(4, 3).astype("float32")
REG_P = rng.randn(4, 3).astype("float32")
POS_T = rng.uniform(0.1, 2, (4, 3)).astype("float32")
POS_P = rng.uniform(0.1, 2, (4, 3)).astype("float32")
SPARSE = np.array([0, 2, 1, 2], "int64")

CASES = [
    ("BinaryCrossentropy", {}, BINARY, PROBS),
    ("BinaryCrossentropy", {"label_smoothing": 0.2}, BINARY, PROBS),
    ("BinaryCrossentropy", {"from_logits": True}, BINARY, LOGITS),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, BINARY, LOGITS),
    ("CategoricalCrossentropy", {}, ONEHOT, SOFT),
    ("CategoricalCrossentropy", {}, ONEHOT, PROBS),
    ("CategoricalCrossentropy", {"label_smoothing": 0.3}, ONEHOT, SOFT),
    ("CategoricalCrossentropy", {"from_logits": True}, ONEHOT, LOGITS),
    ("CategoricalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, ONEHOT, LOGITS),
    ("SparseCategoricalCrossentropy", {}, SPARSE, SOFT),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, SPARSE, LOGITS),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, SPARSE[:, None], LOGITS),
    ("MeanSquaredError", {}, REG_T, REG_P),
    ("MeanAbsoluteError", {}, REG_T, REG_P),
    ("MeanAbsolutePercentageError", {}, REG_T, REG_P),
    ("MeanSquaredLogarithmicError", {}, POS_T, POS_P),
    ("Huber", {}, REG_T, REG_P),
    ("Huber", {"delta": 0.5}, REG_T, REG_P),
    ("LogCosh", {}, REG_T, REG_P),
    ("Hinge", {}, BINARY, REG_P),
    ("Hinge", {}, REG_T, REG_P),
    ("SquaredHinge", {}, BINARY, REG_P),
    ("CategoricalHinge", {}, ONEHOT, REG_P),
    ("KLDivergence", {}, SOFT, PROBS),
    ("Poisson", {}, POS_T, POS_P),
    ("CosineSimilarity", {}, REG_T, REG_P),
    ("CosineSimilarity", {"axis": 0}, REG_T, REG_P),
]
REDUCTIONS = ["auto", "none", "sum", "sum_over_batch_size"]
WEIGHTS = [None, np.array([1.0, 0.0, 2.0, 0.5], "float32"),
           np.array([[1.0], [0.0], [2.0], [0.5]], "float32"), 0.3]


@pytest.mark.parametrize("cls,kwargs,y_true,y_pred", CASES)
def test_loss_class_matches_tf_keras(cls, kwargs, y_true, y_pred):
    tf_ref = real_tf()
    for reduction in REDUCTIONS:
        ours = getattr(tf.keras.losses, cls)(reduction=reduction, **kwargs)
        ref = getattr(tf_ref.keras.losses, cls)(reduction=reduction, **kwargs)
        for sw in (WEIGHTS if reduction == "auto" else WEIGHTS[:2]):
            if cls == "CosineSimilarity" and kwargs.get("axis") == 0 and sw is not None and \
                    np.ndim(sw) > 0:
                continue
            got = ours(y_true, y_pred, sample_weight=sw)
            want = ref(y_true, y_pred, sample_weight=sw)
            assert got.dtype.name == want.dtype.name
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=1e-6,
                                       err_msg=f"{reduction} {sw}")
    cfg = ours.get_config()
    want_cfg = ref.get_config()
    assert {k: v for k, v in cfg.items() if k in want_cfg} == \
        {k: want_cfg[k] for k in cfg if k in want_cfg}
    again = tf.keras.losses.deserialize(tf.keras.losses.serialize(ours))
    assert type(again) is type(ours) and again.get_config() == cfg


FUNCS = ["binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
         "mse", "mae", "mape", "msle", "kld", "kl_divergence", "huber", "log_cosh", "hinge",
         "squared_hinge", "categorical_hinge", "poisson", "cosine_similarity",
         "mean_squared_error", "logcosh"]


@pytest.mark.parametrize("name", FUNCS)
def test_loss_functions_match_tf_keras(name):
    tf_ref = real_tf()
    y_true = SPARSE if name.startswith("sparse") else (ONEHOT if "categorical" in name else
                                                        POS_T)
    y_pred = SOFT
    ours = getattr(tf.keras.losses, name, None) or tf.keras.losses.get(name)
    ref = getattr(tf_ref.keras.losses, name, None) or tf_ref.keras.losses.get(name)
    np.testing.assert_allclose(ours(y_true, y_pred).numpy(), ref(y_true, y_pred).numpy(),
                               rtol=2e-5, atol=1e-6)
    assert tf.keras.losses.get(name) is ours


def test_float64_and_gradient():
    tf_ref = real_tf()
    t, p = REG_T.astype("float64"), REG_P.astype("float64")
    got = tf.keras.losses.MeanSquaredError()(t, p)
    want = tf_ref.keras.losses.MeanSquaredError()(t, p)
    assert got.dtype == tf.float64
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    v = tf.Variable(LOGITS)
    with tf.GradientTape() as tape:
        loss = tf.keras.losses.CategoricalCrossentropy(from_logits=True)(ONEHOT, v)
    g = tape.gradient(loss, v).numpy()
    vr = tf_ref.Variable(LOGITS)
    with tf_ref.GradientTape() as tape:
        loss = tf_ref.keras.losses.CategoricalCrossentropy(from_logits=True)(ONEHOT, vr)
    np.testing.assert_allclose(g, tape.gradient(loss, vr).numpy(), rtol=1e-5, atol=1e-7)


def test_errors_and_get():
    with pytest.raises(ValueError):
        tf.keras.losses.MeanSquaredError(reduction="bad")
    with pytest.raises(ValueError):
        tf.keras.losses.get("nope")
    assert isinstance(tf.keras.losses.get("MeanSquaredError"), tf.keras.losses.MeanSquaredError)
    cfg = {"class_name": "Huber", "config": {"delta": 2.0, "reduction": "sum", "name": "h"}}
    h = tf.keras.losses.get(cfg)
    assert isinstance(h, tf.keras.losses.Huber) and h.get_config()["delta"] == 2.0
    assert tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE == "sum_over_batch_size"


def _outcome(fn, *args):
    try:
        return "ok", np.asarray(fn(*args))
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)
    except Exception as e:  # noqa: BLE001 - the error class is compared by name
        return type(e).__name__, None


@pytest.mark.parametrize("label_dtype", ["int32", "uint8", "int64", "float64", "float32"])
@pytest.mark.parametrize("kind", ["function", "class", "metric"])
def test_cosine_similarity_label_dtypes_as_tf(label_dtype, kind):
    # The loss does not cast y_true (integer labels raise TypeError from
    # l2_normalize, float64 against float32 an InvalidArgumentError); the metric
    # casts both to its dtype.
    rtf = real_tf()
    y_true = ONEHOT.astype(label_dtype)

    def make(mod):
        return {"function": mod.keras.losses.cosine_similarity,
                "class": mod.keras.losses.CosineSimilarity(),
                "metric": mod.keras.metrics.CosineSimilarity()}[kind]

    got = _outcome(make(tf), y_true, SOFT)
    want = _outcome(make(rtf), y_true, SOFT)
    assert got[0] == want[0]
    if got[0] == "ok":
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    elif want[1] is not None:
        assert got[1] == want[1]
