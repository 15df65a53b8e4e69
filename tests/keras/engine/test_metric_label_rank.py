"""Compiled metrics see rank-1 labels (and sample weights) of ``[batch, 1]``
predictions with a last axis, as TF's ``match_dtype_and_rank``: accuracy over
uneven batches is correct/total, not a mean of per-batch means. Compared with
real TF (the structured-data tutorial's labels are a rank-1 pandas column)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


def _program(m, weighted):
    x = np.linspace(-1, 1, 11).astype("float32").reshape(11, 1)
    y = np.array([1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1], "int64")
    sw = np.linspace(0.5, 2.0, 11).astype("float32")
    model = m.keras.Sequential([m.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile("sgd", m.keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=["accuracy"], weighted_metrics=["accuracy"] if weighted else None)
    ds = m.data.Dataset.from_tensor_slices((x, y, sw) if weighted else (x, y)).batch(4)
    hist = model.fit(ds, epochs=2, verbose=0).history
    return hist, model.evaluate(x, y, batch_size=4, verbose=0,
                                sample_weight=sw if weighted else None)


@pytest.mark.parametrize("weighted", [False, True])
def test_accuracy_over_uneven_batches_matches_tf(weighted):
    ours, theirs = _program(torchflow, weighted), _program(real_tf(), weighted)
    assert sorted(ours[0]) == sorted(theirs[0])
    for k in theirs[0]:
        np.testing.assert_allclose(ours[0][k], theirs[0][k], rtol=1e-5, err_msg=k)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
