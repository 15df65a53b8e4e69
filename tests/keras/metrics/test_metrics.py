"""Every metric's update/result/reset over several batches, against real tf.keras."""

import re

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

rng = np.random.RandomState(0)
B = 3  # batches
PROBS = [rng.uniform(0, 1, (6, 3)).astype("float32") for _ in range(B)]
SOFT = [(p / p.sum(-1, keepdims=True)).astype("float32") for p in PROBS]
ONEHOT = [np.eye(3, dtype="float32")[rng.randint(0, 3, 6)] for _ in range(B)]
SPARSE = [rng.randint(0, 3, (6,)).astype("int64") for _ in range(B)]
BIN = [(rng.uniform(size=(6, 3)) > 0.5).astype("float32") for _ in range(B)]
REG_T = [rng.randn(6, 3).astype("float32") for _ in range(B)]
REG_P = [rng.randn(6, 3).astype("float32") for _ in range(B)]
POS_T = [rng.uniform(0.1, 2, (6, 3)).astype("float32") for _ in range(B)]
POS_P = [rng.uniform(0.1, 2, (6, 3)).astype("float32") for _ in range(B)]
CLS_T = [rng.randint(0, 4, (6,)).astype("int64") for _ in range(B)]
CLS_P = [rng.randint(0, 4, (6,)).astype("int64") for _ in range(B)]
LOGITS = [rng.randn(6, 3).astype("float32") for _ in range(B)]
SW = [rng.uniform(0, 2, (6,)).astype("float32") for _ in range(B)]

CASES = [
    ("Accuracy", {}, CLS_T, CLS_P),
    ("BinaryAccuracy", {}, BIN, PROBS),
    ("BinaryAccuracy", {"threshold": 0.7}, BIN, PROBS),
    ("CategoricalAccuracy", {}, ONEHOT, PROBS),
    ("SparseCategoricalAccuracy", {}, SPARSE, PROBS),
    ("TopKCategoricalAccuracy", {"k": 2}, ONEHOT, PROBS),
    ("SparseTopKCategoricalAccuracy", {"k": 2}, SPARSE, PROBS),
    ("MeanSquaredError", {}, REG_T, REG_P),
    ("MeanAbsoluteError", {}, REG_T, REG_P),
    ("RootMeanSquaredError", {}, REG_T, REG_P),
    ("MeanAbsolutePercentageError", {}, REG_T, REG_P),
    ("MeanSquaredLogarithmicError", {}, POS_T, POS_P),
    ("CosineSimilarity", {}, REG_T, REG_P),
    ("LogCoshError", {}, REG_T, REG_P),
    ("Hinge", {}, BIN, REG_P),
    ("SquaredHinge", {}, BIN, REG_P),
    ("CategoricalHinge", {}, ONEHOT, REG_P),
    ("KLDivergence", {}, SOFT, PROBS),
    ("Poisson", {}, POS_T, POS_P),
    ("BinaryCrossentropy", {}, BIN, PROBS),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, BIN, LOGITS),
    ("CategoricalCrossentropy", {}, ONEHOT, SOFT),
    ("CategoricalCrossentropy", {"from_logits": True}, ONEHOT, LOGITS),
    ("SparseCategoricalCrossentropy", {}, SPARSE, SOFT),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, SPARSE, LOGITS),
    ("TruePositives", {}, BIN, PROBS),
    ("TrueNegatives", {"thresholds": [0.2, 0.6]}, BIN, PROBS),
    ("FalsePositives", {}, BIN, PROBS),
    ("FalseNegatives", {"thresholds": 0.3}, BIN, PROBS),
    ("Precision", {}, BIN, PROBS),
    ("Precision", {"thresholds": [0.3, 0.7]}, BIN, PROBS),
    ("Precision", {"top_k": 2}, BIN, PROBS),
    ("Precision", {"class_id": 1}, BIN, PROBS),
    ("Recall", {}, BIN, PROBS),
    ("Recall", {"top_k": 1, "class_id": 2}, BIN, PROBS),
    ("AUC", {}, BIN, PROBS),
    ("AUC", {"num_thresholds": 7, "curve": "PR"}, BIN, PROBS),
    ("AUC", {"summation_method": "minoring"}, BIN, PROBS),
    ("AUC", {"summation_method": "majoring", "curve": "PR"}, BIN, PROBS),
    ("AUC", {"multi_label": True}, BIN, PROBS),
    ("AUC", {"multi_label": True, "label_weights": [0.2, 0.5, 1.0], "curve": "PR"}, BIN,
     PROBS),
    ("AUC", {"thresholds": [0.25, 0.5, 0.75]}, BIN, PROBS),
    ("PrecisionAtRecall", {"recall": 0.5}, BIN, PROBS),
    ("RecallAtPrecision", {"precision": 0.6}, BIN, PROBS),
    ("SensitivityAtSpecificity", {"specificity": 0.5, "num_thresholds": 50}, BIN, PROBS),
    ("SpecificityAtSensitivity", {"sensitivity": 0.4}, BIN, PROBS),
    ("PrecisionAtRecall", {"recall": 0.3, "class_id": 0}, BIN, PROBS),
    ("MeanIoU", {"num_classes": 4}, CLS_T, CLS_P),
]


def _drive(metric, y_true, y_pred, weighted):
    out = []
    for i in range(B):
        sw = SW[i] if weighted else None
        metric.update_state(y_true[i], y_pred[i], sample_weight=sw)
        out.append(np.asarray(metric.result().numpy(), "float64"))
    metric.reset_states()
    out.append(np.asarray(metric.result().numpy(), "float64"))
    return out


@pytest.mark.parametrize("cls,kwargs,y_true,y_pred", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_metric_matches_tf_keras(cls, kwargs, y_true, y_pred):
    tf_ref = real_tf()
    for weighted in (False, True):
        ours = getattr(tf.keras.metrics, cls)(**kwargs)
        ref = getattr(tf_ref.keras.metrics, cls)(**kwargs)
        got = _drive(ours, y_true, y_pred, weighted)
        want = _drive(ref, y_true, y_pred, weighted)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=3e-5, atol=1e-6, err_msg=f"w={weighted}")
    assert re.sub(r"_\d+$", "", ours.name) == re.sub(r"_\d+$", "", ref.name)
    assert [v.name.split("/")[-1] for v in ours.variables] == \
        [v.name.split("/")[-1] for v in ref.variables]
    cfg, want_cfg = ours.get_config(), ref.get_config()
    for k, v in cfg.items():
        if k in want_cfg and k != "name":
            np.testing.assert_array_equal(np.asarray(v, dtype=object if v is None else None),
                                          np.asarray(want_cfg[k],
                                                     dtype=object if v is None else None))
    again = tf.keras.metrics.deserialize(tf.keras.metrics.serialize(ours))
    assert type(again) is type(ours)


def test_mean_sum_and_mean_tensor_with_weights():
    tf_ref = real_tf()
    vals = rng.randn(4, 3).astype("float32")
    for name in ("Mean", "Sum", "MeanTensor"):
        for sw in (None, np.array([1.0, 0.0, 2.0, 0.5], "float32"),
                   rng.uniform(size=(4, 3)).astype("float32")):
            ours, ref = getattr(tf.keras.metrics, name)(), getattr(tf_ref.keras.metrics, name)()
            for _ in range(2):
                ours.update_state(vals, sample_weight=sw)
                ref.update_state(vals, sample_weight=sw)
            np.testing.assert_allclose(ours.result().numpy(), ref.result().numpy(), rtol=1e-5)
    with pytest.raises(ValueError):
        m = tf.keras.metrics.MeanTensor()
        m.update_state([1.0, 2.0])
        m.update_state([1.0, 2.0, 3.0])


def test_mean_relative_error_and_call():
    tf_ref = real_tf()
    norm = np.array([1.0, 2.0, 4.0], "float32")
    ours, ref = tf.keras.metrics.MeanRelativeError(norm), tf_ref.keras.metrics.MeanRelativeError(
        norm)
    np.testing.assert_allclose(ours(REG_T[0], REG_P[0]).numpy(), ref(REG_T[0], REG_P[0]).numpy(),
                               rtol=1e-5)


def test_state_variables_are_on_read_sum_and_untrainable():
    m = tf.keras.metrics.Mean()
    for v in m.variables:
        assert v.synchronization == tf.VariableSynchronization.ON_READ
        assert v.aggregation == tf.VariableAggregation.SUM
        assert not v.trainable
    assert m.trainable_weights == [] and len(m.non_trainable_weights) == 2


def test_no_update_during_symbolic_pass():
    from torchflow._src.keras.engine.functional_utils import _symbolic_pass

    m = tf.keras.metrics.Mean()
    with _symbolic_pass():
        m.update_state([1.0, 2.0])
    assert float(m.count.numpy()) == 0.0
    m.update_state([1.0, 2.0])
    m.reset_state()
    assert float(m.result().numpy()) == 0.0


def test_get_and_errors():
    M = tf.keras.metrics
    assert M.get("accuracy") is M.accuracy and M.get("mse") is M.mean_squared_error
    assert isinstance(M.get("AUC"), M.AUC)
    assert M.get(M.binary_accuracy) is M.binary_accuracy
    with pytest.raises(ValueError):
        M.get("nope")
    with pytest.raises(ValueError):
        M.AUC(num_thresholds=1)
    with pytest.raises(ValueError):
        M.AUC(curve="XY")
    with pytest.raises(ValueError):
        M.PrecisionAtRecall(1.5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        M.Precision().update_state([1.0], [1.5])
