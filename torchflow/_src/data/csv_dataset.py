"""``tf.data.experimental.CsvDataset`` and ``make_csv_dataset``."""

from __future__ import annotations

import collections
import csv
import io

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data.dataset_ops import AUTOTUNE
from torchflow._src.data.readers import (
    TextLineDataset,
    _FileDataset,
    _open_text,
    io_ops,
    list_files,
)
from torchflow._src.data.transforms import IgnoreErrorsDataset
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public

_SUPPORTED = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)


def _default(d):
    """(dtype, default Tensor or None for a required column)."""
    if isinstance(d, dtypes.DType):
        return d, None
    t = data_ops.as_tensor(d)
    if t.shape.rank == 1 and t.shape[0] == 0:
        return t.dtype, None
    return t.dtype, t


def _convert(field: str, dtype, default, col, line_no):
    if field == "":
        if default is None:
            raise InvalidArgumentError(None, None, f"Field {col} is required but missing in "
                                       f"record {line_no}!")
        return np.asarray(default).reshape(()).item()
    try:
        if dtype in (dtypes.int32, dtypes.int64):
            return int(field)
        if dtype in (dtypes.float32, dtypes.float64):
            return float(field)
    except ValueError:
        raise InvalidArgumentError(None, None, f"Field {col} in record {line_no} is not a valid "
                                   f"{dtype.name}: {field}") from None
    return field.encode("utf-8")


@public("torchflow.data.experimental")
class CsvDataset(_FileDataset):
    """Rows of CSV files as tuples of scalars, one per (selected) column.

    Args:
      filenames: File name(s), a string Tensor, or a dataset of names.
      record_defaults: One per selected column: a dtype (required column) or a
        default value / one-element Tensor used for empty fields.
      header: Skip each file's first line.
      field_delim, use_quote_delim, na_value: CSV syntax.
      select_cols: Indices of the columns to keep.
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        super().__init__(filenames)
        self._defaults = [_default(d) for d in record_defaults]
        for dt, _ in self._defaults:
            if dt not in _SUPPORTED:
                raise TypeError(f"Unsupported CSV column type {dt!r}.")
        self._header = bool(header)
        self._delim = field_delim
        self._quote = use_quote_delim
        self._na = na_value
        self._select = list(select_cols) if select_cols is not None else None
        self._exclude = set(exclude_cols) if exclude_cols is not None else None
        self._compression = io_ops._compression(compression_type)

    def _compute_spec(self):
        return tuple(TensorSpec([], dt) for dt, _ in self._defaults)

    def _read(self, path):
        f = _open_text(path, self._compression)
        try:
            text = io.TextIOWrapper(f, encoding="utf-8", newline="")
            reader = csv.reader(text, delimiter=self._delim,
                                quoting=csv.QUOTE_MINIMAL if self._quote else csv.QUOTE_NONE)
            for line_no, row in enumerate(reader):
                if line_no == 0 and self._header:
                    continue
                if not row:
                    continue
                if self._select is not None:
                    row = [row[i] for i in self._select]
                elif self._exclude is not None:
                    row = [v for i, v in enumerate(row) if i not in self._exclude]
                if len(row) != len(self._defaults):
                    raise InvalidArgumentError(None, None, f"Expect {len(self._defaults)} fields "
                                               f"but have {len(row)} in record {line_no}")
                out = []
                for col, (field, (dt, dv)) in enumerate(zip(row, self._defaults)):
                    if field == self._na:
                        field = ""
                    out.append(data_ops.scalar(_convert(field, dt, dv, col, line_no), dt))
                yield tuple(out)
        finally:
            f.close()


def _infer(values) -> dtypes.DType:
    kind = dtypes.int32
    for v in values:
        if v == "":
            continue
        try:
            i = int(v)
            if kind is dtypes.int32 and not -(2**31) <= i < 2**31:
                kind = dtypes.int64
            continue
        except ValueError:
            pass
        try:
            float(v)
            if kind in (dtypes.int32, dtypes.int64):
                kind = dtypes.float32
            continue
        except ValueError:
            return dtypes.string
    return kind


@public("torchflow.data.experimental")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False):
    """Batches of CSV rows as ``(features_dict, label)`` (or a dict when no label).

    Column names come from the header (or ``column_names``); types from
    ``column_defaults`` or are inferred (int32, int64, float32, string) from the
    first ``num_rows_for_inference`` rows.

    Args:
      file_pattern: A file name or glob pattern (or a list of them) of the CSV
        files.
      batch_size: int, the number of rows in each batch.
      column_names: Optional list of str, the column names in file order;
        default: the header line's.
      column_defaults: Optional list, one item per selected column: a dtype
        (``tf.float32``, ``tf.float64``, ``tf.int32``, ``tf.int64``,
        ``tf.string``) or a default value of one, used for empty fields;
        default: inferred.
      label_name: Optional str, the column returned apart as the label.
      select_columns: Optional list of column names or indices to keep.
      field_delim: str, the one-character field separator (default ``","``).
      use_quote_delim: bool, whether double quotes enclose fields (default True).
      na_value: str, a field value read as missing (empty), default ``""``.
      header: bool, whether the first line of each file is a header (default
        True).
      num_epochs: int, times to read the files; None (default) repeats forever.
      shuffle: bool, shuffle the files and the rows (default True).
      shuffle_buffer_size: int, the rows' shuffle buffer (default 10000).
      shuffle_seed: Optional int seed of the shuffles.
      prefetch_buffer_size: int, batches to prefetch; default AUTOTUNE.
      num_parallel_reads: int, files to read at once; accepted (read in turn).
      sloppy: bool, TF's order relaxation for parallel reads; accepted.
      num_rows_for_inference: int, rows read to infer the types (0: all);
        default 100.
      compression_type: ``""``/None (none), ``"ZLIB"`` or ``"GZIP"``.
      ignore_errors: bool, skip rows that fail to parse instead of raising
        (default False).

    Returns:
      A ``tf.data.Dataset`` of ``(features, label)`` pairs, ``features`` a dict
      of column name to a batch of values; just ``features`` when
      ``label_name`` is None.

    Raises:
      ValueError: If ``header`` is False and ``column_names`` not given, or
        ``label_name`` is not a kept column.
      tf.errors.InvalidArgumentError: On iteration, for a row of the wrong
        field count or a value that does not parse as its column's type.
    """
    files = list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    names = [data_ops.to_python(n).decode() for n in files]
    first = names[0] if names else None
    with _open_text(first, io_ops._compression(compression_type)) as f:
        rows = list(csv.reader(io.TextIOWrapper(f, encoding="utf-8", newline=""),
                               delimiter=field_delim))
    if column_names is None:
        if not header:
            raise ValueError("Cannot infer column names without a header line or "
                             "`column_names`.")
        column_names = rows[0]
    body = rows[1:] if header else rows
    body = body[:num_rows_for_inference] if num_rows_for_inference else body
    idx = list(range(len(column_names)))
    if select_columns is not None:
        idx = [c if isinstance(c, int) else list(column_names).index(c) for c in select_columns]
    keep = [column_names[i] for i in idx]
    if label_name is not None and label_name not in keep:
        raise ValueError(f"`label_name` provided must be one of the columns: {keep}. Received: "
                         f"{label_name}")
    if column_defaults is None:
        column_defaults = [_infer_default(_infer([r[i] for r in body if len(r) > i]))
                           for i in idx]
    ds = CsvDataset(names, column_defaults, compression_type=compression_type, header=header,
                    field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                    select_cols=idx if select_columns is not None else None)
    if ignore_errors:
        ds = IgnoreErrorsDataset(ds)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)

    def to_dict(*cols):
        feats = collections.OrderedDict(zip(keep, cols))
        if label_name is None:
            return dict(feats)
        label = feats.pop(label_name)
        return dict(feats), label

    ds = ds.batch(batch_size).map(to_dict)
    return ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


def _infer_default(dt):
    if dt == dtypes.string:
        return data_ops.scalar(b"", dt)
    return data_ops.scalar(0, dt)


__all__ = ["CsvDataset", "make_csv_dataset", "TextLineDataset"]
