"""pandas columns as the structured-data tutorial feeds them: converted with
their NumPy dtypes, as TF does (int64 stays int64, float64 stays float64)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pd = pytest.importorskip("pandas")


def _frame():
    return pd.DataFrame({"a": np.array([1, 2, 3], np.int64), "f": [0.5, 1.0, 2.0],
                         "i32": np.array([4, 5, 6], np.int32), "s": ["x", "y", "z"]})


def test_series_keep_their_dtypes_like_tf():
    df = _frame()
    for col in df:
        ours, theirs = torchflow.convert_to_tensor(df[col]), real_tf().convert_to_tensor(df[col])
        assert ours.dtype.name == theirs.dtype.name, col
        assert ours.numpy().tolist() == theirs.numpy().tolist()


def test_from_tensor_slices_of_a_dataframe_dict_matches_tf():
    df = _frame()

    def run(m):
        labels = df["a"] * 2
        ds = m.data.Dataset.from_tensor_slices((dict(df), labels)).batch(2)
        return ({k: repr(v) for k, v in ds.element_spec[0].items()},
                [({k: v.numpy().tolist() for k, v in x.items()}, y.numpy().tolist())
                 for x, y in ds])

    assert run(torchflow) == run(real_tf())
