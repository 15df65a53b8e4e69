"""``tf.data.experimental.SqlDataset``: the rows of an SQL query (SQLite, as TF)."""

from __future__ import annotations

import sqlite3

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import _structure
from torchflow._src.data.dataset_ops import UNKNOWN, DatasetV2
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public


def _str(x) -> str:
    if hasattr(x, "numpy"):
        x = x.numpy()
        x = x.item() if hasattr(x, "item") else x
    return x.decode() if isinstance(x, bytes) else str(x)


@public("torchflow.data.experimental")
class SqlDataset(DatasetV2):
    """A dataset of the rows ``query`` returns from an SQLite database.

    Args:
      driver_name: ``"sqlite"`` (the only database TF supports).
      data_source_name: The database file.
      query: An SQL ``SELECT`` query.
      output_types: A tuple of dtypes, one per column (a single dtype for one column).

    Raises:
      InvalidArgumentError: At iteration, for another driver, a failing query, or a
        column count that differs from ``output_types``.
    """

    def __init__(self, driver_name, data_source_name, query, output_types):
        self._driver = _str(driver_name)
        self._source = _str(data_source_name)
        self._query = _str(query)
        self._types = _structure.map_structure(dtypes.as_dtype, output_types)

    def _cardinality(self):
        return UNKNOWN

    def _compute_spec(self):
        return _structure.map_structure(lambda d: TensorSpec([], d), self._types)

    def _make_iter(self, ctx):
        return _rows(self._driver, self._source, self._query, self._types)


def _rows(driver, source, query, types):
    if driver != "sqlite":
        raise InvalidArgumentError(None, None, f"The database type, {driver}, is not supported "
                                   "by SqlDataset. The set of supported databases is: "
                                   "{'sqlite'}.")
    flat = _structure.flatten(types)
    try:
        conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise InvalidArgumentError(None, None, f"Sqlite error: {e}") from None
    try:
        try:
            cur = conn.execute(query)
        except sqlite3.Error as e:
            raise InvalidArgumentError(None, None, f"Sqlite error: {e}") from None
        ncols = len(cur.description or ())
        if ncols != len(flat):
            raise InvalidArgumentError(None, None, f"The number of columns in query ({ncols}) "
                                       f"must be the same as the number of columns in "
                                       f"output_types ({len(flat)}).")
        for row in cur:
            vals = []
            for v, d in zip(row, flat):
                if d == dtypes.string:
                    v = v if isinstance(v, bytes) else str(v).encode()
                    vals.append(data_ops.scalar(v, d))
                else:
                    vals.append(data_ops.from_numpy(np.array(v, dtype=d.as_numpy_dtype), d))
            yield _structure.pack_as(types, vals)
    finally:
        conn.close()
