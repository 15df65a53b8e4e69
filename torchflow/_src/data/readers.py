"""File sources: ``list_files``, ``TextLineDataset``, ``TFRecordDataset``,
``FixedLengthRecordDataset``.

Each reader keeps its file names as a dataset (``_files``) so the
``FILE`` auto-shard policy can split files between workers.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, NotFoundError
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data._runtime import close_iter
from torchflow._src.data.dataset_ops import UNKNOWN, DatasetV2
from torchflow._src.data.interleave import InterleaveDataset
from torchflow._src.data.sources import TensorSliceDataset
from torchflow._src.ops import data_ops, io_ops
from torchflow._src.util.api import public

_STRING = dtypes.string


def _as_str(x) -> str:
    if isinstance(x, bytes):
        return x.decode("utf-8")
    return os.fspath(x)


def files_dataset(filenames) -> DatasetV2:
    """File names (str, list, string Tensor or dataset of strings) as a dataset."""
    if isinstance(filenames, DatasetV2):
        spec = filenames.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype != _STRING or spec.shape.rank not in (
                0, None):
            raise TypeError("`filenames` must be a `tf.data.Dataset` of scalar `tf.string` "
                            "elements.")
        return filenames
    if isinstance(filenames, Tensor):
        if filenames.dtype != _STRING:
            raise TypeError("`filenames` must be a `tf.Tensor` of `tf.string`.")
        names = np.asarray(filenames).reshape(-1).tolist()
    elif isinstance(filenames, (str, bytes, os.PathLike)):
        names = [filenames]
    else:
        names = list(filenames)
    names = [_as_str(data_ops.to_python(n) if isinstance(n, Tensor) else n).encode("utf-8")
             for n in names]
    return TensorSliceDataset(data_ops.bytes_tensor(names))


class _FileDataset(DatasetV2):
    """Reads each file of ``_files`` in turn (or ``num_parallel_reads`` at once)."""

    def __init__(self, filenames, num_parallel_reads=None):
        self._files = files_dataset(filenames)
        self._parallel = None if num_parallel_reads is None else int(num_parallel_reads)

    def _inputs(self):
        return [self._files]

    def _with_files(self, files):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._files = files
        new._spec_cache = None
        return new

    def _read(self, path: str):
        raise NotImplementedError

    def _make_iter(self, ctx):
        if self._parallel is None or self._parallel in (0, 1):
            return self._sequential(self._files._make_iter(ctx))
        # TF's order: block_length 1 across num_parallel_reads files, each read ahead
        # on its own thread.
        cycle = ctx.pool_size if self._parallel < 0 else self._parallel
        ds = InterleaveDataset(self._files, lambda name: _OneFile(self, name), cycle, 1,
                               cycle, None)
        return ds._make_iter(ctx)

    def _sequential(self, files):
        try:
            for name in files:
                it = self._read(_as_str(data_ops.to_python(name)))
                try:
                    yield from it
                finally:
                    close_iter(it)
        finally:
            close_iter(files)

    def _cardinality(self):
        return UNKNOWN

    def _compute_spec(self):
        return TensorSpec([], _STRING)


class _OneFile(DatasetV2):
    def __init__(self, reader, name):
        self._reader = reader
        self._name = _as_str(data_ops.to_python(name))

    def _make_iter(self, ctx):
        return self._reader._read(self._name)

    def _compute_spec(self):
        return self._reader.element_spec


def _open_text(path, compression):
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path}; No such file or directory")
    if compression == "GZIP":
        return gzip.open(path, "rb")
    if compression == "ZLIB":
        with open(path, "rb") as f:
            return io.BytesIO(zlib.decompress(f.read()))
    return open(path, "rb")


@public("torchflow.data")
class TextLineDataset(_FileDataset):
    """The lines of text files, without their line endings (``\\n`` or ``\\r\\n``).

    Args:
      filenames: A file name, list of names, string Tensor or dataset of names.
      compression_type: "" (none), "ZLIB" or "GZIP".
      buffer_size: Accepted (read buffering is the OS's).
      num_parallel_reads: Read this many files at once, interleaving their lines.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(filenames, num_parallel_reads)
        self._compression = io_ops._compression(compression_type)

    def _read(self, path):
        f = _open_text(path, self._compression)
        make = data_ops.scalar
        try:
            for line in f:
                if line.endswith(b"\n"):
                    line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
                yield make(line, _STRING)
        finally:
            f.close()


@public("torchflow.data")
class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (TensorFlow's format, CRC-checked).

    Args:
      filenames: A file name, list of names, string Tensor or dataset of names.
      compression_type: "" (none), "ZLIB" or "GZIP".
      buffer_size: Accepted.
      num_parallel_reads: Read this many files at once, interleaving records.

    Raises (while iterating):
      NotFoundError: A file does not exist.
      DataLossError: A corrupted or truncated record.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(filenames, num_parallel_reads)
        self._compression = io_ops._compression(compression_type)

    def _read(self, path):
        make = data_ops.scalar
        for rec in io_ops.tfrecord_records(path, self._compression):
            yield make(rec, _STRING)


@public("torchflow.data")
class FixedLengthRecordDataset(_FileDataset):
    """A dataset of the fixed-length records of one or more binary files.

    Each element is a scalar ``tf.string`` of ``record_bytes`` bytes. Each file is
    read from ``header_bytes`` on and up to ``footer_bytes`` before its end; bytes
    after the last whole record are dropped.

    Args:
      filenames: A ``tf.string`` tensor (or list of str) or a ``tf.data.Dataset``
        of file names.
      record_bytes: int, the number of bytes in each record.
      header_bytes: int, bytes to skip at the start of each file (default 0).
      footer_bytes: int, bytes to ignore at the end of each file (default 0).
      buffer_size: int, TF's read buffer size in bytes; accepted.
      compression_type: ``""`` (default, none), ``"ZLIB"`` or ``"GZIP"``.
      num_parallel_reads: int, the number of files to read at once (default:
        one after the other); with more than one, records of different files
        are interleaved.
      name: Optional name (TF 2.4 has none; accepted).

    Raises:
      InvalidArgumentError: If ``record_bytes`` is not positive.
    """

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, num_parallel_reads)
        self._record = int(record_bytes)
        if self._record <= 0:
            raise InvalidArgumentError(None, None, "record_bytes must be positive.")
        self._header = int(header_bytes or 0)
        self._footer = int(footer_bytes or 0)
        self._compression = io_ops._compression(compression_type)

    def _read(self, path):
        f = _open_text(path, self._compression)
        try:
            data = f.read()
        finally:
            f.close()
        body = data[self._header:len(data) - self._footer]
        n = len(body) // self._record
        for i in range(n):
            yield data_ops.scalar(body[i * self._record:(i + 1) * self._record], _STRING)


def list_files(file_pattern, shuffle=None, seed=None):
    """The sorted file names matching ``file_pattern`` (a pattern or list of them),
    shuffled unless ``shuffle=False``.

    Raises:
      InvalidArgumentError: If nothing matches.
    """
    if isinstance(file_pattern, Tensor):
        patterns = np.asarray(file_pattern).reshape(-1).tolist()
    elif isinstance(file_pattern, (str, bytes, os.PathLike)):
        patterns = [file_pattern]
    else:
        patterns = list(file_pattern)
    names: list = []
    for p in patterns:
        names.extend(io_ops.glob(_as_str(p)))
    names = sorted(set(names))
    if not names:
        raise InvalidArgumentError(None, None, "Expected 'tf.Tensor(False, shape=(), "
                                   "dtype=bool)' to be true. Summarized data: b'No files "
                                   f"matched pattern: {', '.join(_as_str(p) for p in patterns)}'")
    ds = TensorSliceDataset(data_ops.bytes_tensor([n.encode("utf-8") for n in names]))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(names), seed=seed)
    return ds

