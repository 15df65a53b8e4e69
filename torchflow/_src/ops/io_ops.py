"""``tf.io`` file ops: ``read_file``/``write_file``, TFRecord writing and reading, and
a minimal ``tf.io.gfile``.

TFRecord files are TensorFlow's format: each record is
``uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)``
(little endian), optionally inside a GZIP or ZLIB stream, so files move both
ways between TensorFlow and torchflow. CRC32C comes from ``google-crc32c``.
"""

from __future__ import annotations

import base64
import glob as _glob
import gzip
import io
import os
import shutil
import struct
import zlib
from typing import Any, BinaryIO

import google_crc32c
import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import (
    AlreadyExistsError,
    DataLossError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variables import Variable
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public

_MASK_DELTA = 0xA282EAD8


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC32C of ``data``."""
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def _py_value(x) -> Any:
    """The Python value of a scalar Tensor (``bytes`` for a string); others as they are."""
    if isinstance(x, Tensor):
        v = x.numpy()
        return v.item() if hasattr(v, "item") else v
    return x


def _path(x) -> str:
    x = _py_value(x)
    if isinstance(x, bytes):
        return x.decode("utf-8")
    return os.fspath(x)


def _bytes(x) -> bytes:
    """A record's or a file's contents: ``bytes``, a ``str`` (UTF-8) or a string Tensor."""
    x = _py_value(x)
    if isinstance(x, str):
        return x.encode("utf-8")
    return x


def _compression(kind) -> str:
    if kind is None:
        return ""
    if isinstance(kind, TFRecordOptions):
        return kind.compression_type
    if isinstance(kind, Tensor):
        kind = _path(kind)
    kind = str(kind).upper()
    if kind not in ("", "GZIP", "ZLIB"):
        raise InvalidArgumentError(None, None, f"Unsupported compression_type: {kind}")
    return kind


@public("torchflow.io")
class TFRecordOptions:
    """Options for writing TFRecord files: the compression.

    Args:
      compression_type: ``None`` or ``""`` (no compression), ``"GZIP"`` or ``"ZLIB"``
        (or another ``TFRecordOptions``' type).
      flush_mode: Accepted for TF compatibility; ignored.
      input_buffer_size: Accepted for TF compatibility; ignored.
      output_buffer_size: Accepted for TF compatibility; ignored.
      window_bits: Accepted for TF compatibility; ignored.
      compression_level: None (zlib's default) or an int 0-9: the zlib/gzip level.
      compression_method: Accepted for TF compatibility; ignored.
      mem_level: Accepted for TF compatibility; ignored.
      compression_strategy: Accepted for TF compatibility; ignored.

    Raises:
      InvalidArgumentError: an unknown ``compression_type``.
    """

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = _compression(compression_type)
        self.compression_level = compression_level


class _ZlibWriter:
    """A file-like writer producing one zlib stream (TFRecord's ZLIB option)."""

    def __init__(self, f, level):
        self._f = f
        self._z = zlib.compressobj(level if level is not None else zlib.Z_DEFAULT_COMPRESSION)
        self.closed = False

    def write(self, b):
        self._f.write(self._z.compress(bytes(b)))
        return len(b)

    def flush(self):
        if not self.closed:
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
            self._f.flush()

    def close(self):
        if not self.closed:
            self._f.write(self._z.flush())
            self._f.close()
            self.closed = True


def _open_write(path: str, compression: str, level=None
                ) -> BinaryIO | gzip.GzipFile | _ZlibWriter:
    if compression == "GZIP":
        return gzip.open(path, "wb", compresslevel=9 if level is None else level)
    f = open(path, "wb")
    if compression == "ZLIB":
        return _ZlibWriter(f, level)
    return f


@public("torchflow.io")
class TFRecordWriter:
    """Writes records (``bytes``) to a TFRecord file.

    Each record is framed as TF frames it (length, masked CRC32C of the length, data,
    masked CRC32C of the data), so ``tf.data.TFRecordDataset`` and real TF read the file.

    >>> import tempfile, os, torchflow as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> with tf.io.TFRecordWriter(path) as w:
    ...     w.write(b"hello")
    >>> [r.numpy() for r in tf.data.TFRecordDataset(path)]
    [b'hello']

    Args:
      path: str, the file to create (replaced if it exists).
      options: None, a compression type string (``""``, ``"GZIP"``, ``"ZLIB"``) or a
        ``tf.io.TFRecordOptions``.
    """

    def __init__(self, path, options=None):
        opts = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        self._f = _open_write(_path(path), opts.compression_type, opts.compression_level)

    def write(self, record) -> None:
        """Appends one record (``bytes`` or a scalar string Tensor)."""
        record = _bytes(record)
        n = struct.pack("<Q", len(record))
        self._f.write(n + struct.pack("<I", masked_crc32c(n)) + record +
                      struct.pack("<I", masked_crc32c(record)))

    def flush(self) -> None:
        """Writes buffered records to the file."""
        self._f.flush()

    def close(self) -> None:
        """Flushes and closes the file."""
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _open_read(path: str, compression: str) -> BinaryIO | gzip.GzipFile:
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path}; No such file or directory")
    if compression == "GZIP":
        return gzip.open(path, "rb")
    if compression == "ZLIB":
        with open(path, "rb") as f:
            return io.BytesIO(zlib.decompress(f.read()))
    return open(path, "rb", buffering=1 << 20)


def tfrecord_records(path, compression_type=None):
    """Yields the records of one TFRecord file as ``bytes`` (checks both CRCs).

    Raises:
      NotFoundError: The file does not exist.
      DataLossError: A truncated record or a CRC mismatch.
    """
    path = _path(path)
    f = _open_read(path, _compression(compression_type))
    try:
        read = f.read
        while True:
            head = read(12)
            if not head:
                return
            if len(head) < 12:
                raise DataLossError(None, None, f"truncated record at {path}")
            n, crc = struct.unpack("<QI", head)
            if masked_crc32c(head[:8]) != crc:
                raise DataLossError(None, None, f"corrupted record at {path}: length CRC "
                                    "mismatch")
            data = read(n)
            tail = read(4)
            if len(data) < n or len(tail) < 4:
                raise DataLossError(None, None, f"truncated record at {path}")
            if masked_crc32c(data) != struct.unpack("<I", tail)[0]:
                raise DataLossError(None, None, f"corrupted record at {path}: data CRC "
                                    "mismatch")
            yield data
    finally:
        f.close()


@public("torchflow.io")
def read_file(filename, name=None) -> Tensor:
    """The contents of ``filename`` as a scalar string Tensor.

    Args:
      filename: A scalar string: the path.
      name: Unused (eager).

    Returns:
      A 0-D string tensor.

    Raises:
      NotFoundError: If the file does not exist.
    """
    path = _path(filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    return data_ops.scalar(data, dtypes.string)


@public("torchflow.io")
def write_file(filename, contents, name=None) -> None:
    """Writes ``contents`` (a scalar string) to ``filename``, creating directories.

    Args:
      filename: A scalar string: the path.
      contents: A scalar string: the bytes to write.
      name: Unused (eager).

    Returns:
      None.
    """
    path = _path(filename)
    contents = _bytes(contents)
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "wb") as f:
        f.write(contents)


# --- tf.io.gfile (local files only) ----------------------------------------------
@public("torchflow.io.gfile")
def exists(path) -> bool:
    """Whether a file or directory exists at ``path``.

    Args:
      path: str (or a scalar string Tensor), the path.

    Returns:
      True if ``path`` exists.
    """
    return os.path.exists(_path(path))


@public("torchflow.io.gfile")
def glob(pattern) -> list:
    """The paths matching a shell-style wildcard ``pattern``.

    Args:
      pattern: str, a path with ``*``, ``?`` and ``[...]`` wildcards.

    Returns:
      A sorted list of str paths (empty when nothing matches).
    """
    return sorted(_glob.glob(_path(pattern)))


@public("torchflow.io.gfile")
def makedirs(path) -> None:
    """Creates the directory ``path`` and any missing parents.

    An existing directory is not an error.

    Args:
      path: str, the directory to create.
    """
    os.makedirs(_path(path), exist_ok=True)


@public("torchflow.io.gfile")
def mkdir(path) -> None:
    """Creates the directory ``path``; its parent must exist.

    An existing path is not an error, even a file's (as in TF, which only checks the
    parent).

    Args:
      path: str, the directory to create.

    Raises:
      NotFoundError: the parent directory does not exist.
    """
    p = _path(path)
    if os.path.exists(p):
        return
    if not os.path.isdir(os.path.dirname(os.path.abspath(p))):
        raise NotFoundError(None, None, f"{p}; No such file or directory")
    os.mkdir(p)


@public("torchflow.io.gfile")
def isdir(path) -> bool:
    """Whether ``path`` is a directory.

    Args:
      path: str, the path.

    Returns:
      True for an existing directory; False otherwise (a missing path too).
    """
    return os.path.isdir(_path(path))


@public("torchflow.io.gfile")
def listdir(path) -> list:
    """The entries of the directory ``path`` (without ``.`` and ``..``).

    Args:
      path: str, the directory.

    Returns:
      A sorted list of the entry names (not full paths).

    Raises:
      NotFoundError: ``path`` is not a directory.
    """
    p = _path(path)
    if not os.path.isdir(p):
        raise NotFoundError(None, None, f"Could not find directory {p}")
    return sorted(os.listdir(p))


@public("torchflow.io.gfile")
def remove(path) -> None:
    """Deletes the file ``path``.

    Args:
      path: str, the file.

    Raises:
      NotFoundError: ``path`` does not exist.
      FailedPreconditionError: ``path`` is a directory (use ``rmtree``).
    """
    p = _path(path)
    if not os.path.exists(p):
        raise NotFoundError(None, None, f"{p}; No such file or directory")
    if os.path.isdir(p):
        raise FailedPreconditionError(None, None, f"{p}; Is a directory")
    os.remove(p)


@public("torchflow.io.gfile")
def rmtree(path) -> None:
    """Deletes the directory ``path`` and everything under it.

    Args:
      path: str, the directory.

    Raises:
      NotFoundError: ``path`` does not exist.
    """
    p = _path(path)
    if not os.path.exists(p):
        raise NotFoundError(None, None, f"{p} not found")
    shutil.rmtree(p)


@public("torchflow.io.gfile")
def rename(src, dst, overwrite=False) -> None:
    """Renames (moves) ``src`` to ``dst``.

    Args:
      src: str, the existing file or directory.
      dst: str, the new path.
      overwrite: bool, default False: whether an existing ``dst`` is replaced.

    Raises:
      NotFoundError: ``src`` does not exist.
      AlreadyExistsError: ``dst`` exists and ``overwrite`` is False.
    """
    s, d = _path(src), _path(dst)
    if not os.path.exists(s):
        raise NotFoundError(None, None, f"{s}; No such file or directory")
    if os.path.exists(d) and not overwrite:
        raise AlreadyExistsError(None, None, f"file already exists: {d}")
    os.replace(s, d)


@public("torchflow.io.gfile")
def copy(src, dst, overwrite=False) -> None:
    """Copies the file ``src`` to ``dst``.

    Args:
      src: str, the existing file.
      dst: str, the path of the copy.
      overwrite: bool, default False: whether an existing ``dst`` is replaced.

    Raises:
      NotFoundError: ``src`` does not exist.
      AlreadyExistsError: ``dst`` exists and ``overwrite`` is False.
    """
    s, d = _path(src), _path(dst)
    if not os.path.exists(s):
        raise NotFoundError(None, None, f"{s}; No such file or directory")
    if os.path.exists(d) and not overwrite:
        raise AlreadyExistsError(None, None, f"file already exists: {d}")
    shutil.copyfile(s, d)


@public("torchflow.io.gfile")
class GFile:
    """A file object over local files, like Python's ``open``.

    Reads and writes in text or binary mode (``"r"``, ``"w"``, ``"a"``, ``"rb"``, ...);
    the other methods (``read``, ``write``, ``readline``, ``seek``, ``tell``, ``flush``,
    ``close``) are the Python file's. Use it as a context manager to close the file.

    Args:
      name: str, the path of the file.
      mode: str, default ``"r"``: the open mode.

    Raises:
      NotFoundError: ``name`` does not exist and ``mode`` reads.
    """

    def __init__(self, name, mode="r"):
        p = _path(name)
        if "r" in mode and not os.path.exists(p):
            raise NotFoundError(None, None, f"{p}; No such file or directory")
        self._f = open(p, mode)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __iter__(self):
        return iter(self._f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def size(self) -> int:
        """The size of the file in bytes."""
        return os.fstat(self._f.fileno()).st_size


@public("torchflow.io")
def matching_files(pattern, name=None) -> Tensor:
    """The sorted file names matching ``pattern`` (a string or list of them).

    Args:
      pattern: A string glob pattern (or 1-D tensor of patterns).
      name: Unused (eager).

    Returns:
      A 1-D string tensor.
    """
    pats = pattern.numpy().reshape(-1).tolist() if isinstance(pattern, Tensor) and \
        hasattr(pattern.numpy(), "reshape") else ([pattern] if not isinstance(
            pattern, (list, tuple)) else list(pattern))
    names = sorted({n for p in pats for n in _glob.glob(_path(p))})
    return data_ops.bytes_tensor([n.encode("utf-8") for n in names])


def _bytes_array(x):
    t = x if isinstance(x, Tensor) else data_ops.as_tensor(x)
    return np.asarray(t.numpy(), dtype=object)


def _map_bytes(x, fn) -> Tensor:
    arr = _bytes_array(x)
    out = np.empty(arr.shape, dtype=object)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i in range(flat_in.size):
        flat_out[i] = fn(flat_in[i])
    return data_ops.from_numpy(out, dtypes.string)


@public("torchflow.io")
def encode_base64(input, pad=False, name=None) -> Tensor:
    """Encodes each string of ``input`` in web-safe base64 (``-`` and ``_`` for ``+`` and ``/``).

    Args:
      input: A string Tensor (or bytes / a list of them).
      pad: bool, default False: whether ``=`` padding ends each encoded string.
      name: A name for the operation (optional).

    Returns:
      A string Tensor of ``input``'s shape.
    """
    def enc(b):
        s = base64.urlsafe_b64encode(b)
        return s if pad else s.rstrip(b"=")
    return _map_bytes(input, enc)


@public("torchflow.io")
def decode_base64(input, name=None) -> Tensor:
    """Decodes web-safe base64 (``-`` and ``_``; ``=`` padding optional).

    Args:
      input: A string `Tensor` of web-safe base64 text.
      name: Ignored (eager).

    Returns:
      A string `Tensor` of the decoded bytes, shaped like `input`.

    Raises:
      InvalidArgumentError: a character outside the web-safe alphabet (``+``, ``/``,
        a space, ``=`` anywhere but the end of the last group of 4), or a length of
        1 modulo 4, as TF's DecodeBase64 kernel.
    """
    return _map_bytes(input, _b64_decode)


_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _b64_error(what: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{what} [Op:DecodeBase64]")


def _b64_decode(b: bytes) -> bytes:
    # TF's kernel: every group of 4 but the last is 4 alphabet characters; the last
    # may end in "=" or "==" only when it is a full group of 4.
    if not b:
        return b""
    body = 4 * ((len(b) - 1) // 4)
    head, tail = b[:body], b[body:]
    if not _B64_CHARS.issuperset(head):
        raise _b64_error("Invalid character found in base64.")
    if len(tail) == 4 and tail[3:] == b"=":
        tail = tail[:2] if tail[2:3] == b"=" else tail[:3]
    if len(tail) == 1:
        raise _b64_error("Base64 string length cannot be 1 modulo 4.")
    if not _B64_CHARS.issuperset(tail):
        raise _b64_error("Invalid character found in base64.")
    data = head + tail
    return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))


@public("torchflow.io")
def decode_compressed(bytes, compression_type="", name=None) -> Tensor:  # noqa: A002
    """Decompresses each string (``compression_type`` "", "ZLIB" or "GZIP").

    Args:
      bytes: A string tensor of compressed records.
      compression_type: ``''`` (default, no compression), ``'ZLIB'`` or ``'GZIP'``.
      name: Unused (eager).

    Returns:
      A string tensor of ``bytes``' shape.
    """
    kind = _compression(compression_type)
    if kind == "GZIP":
        return _map_bytes(bytes, gzip.decompress)
    if kind == "ZLIB":
        return _map_bytes(bytes, zlib.decompress)
    return _map_bytes(bytes, lambda b: b)


@public("torchflow.io.gfile")
def walk(top, topdown=True, onerror=None):
    """Walks the directory tree under ``top``, like ``os.walk``.

    Args:
      top: str, the root directory.
      topdown: bool, default True: whether a directory is yielded before (True) or
        after (False) its subdirectories.
      onerror: None (errors are ignored) or a callable given the ``OSError``.

    Yields:
      ``(dirname, subdirs, filenames)`` tuples, one per directory; nothing for a
      missing ``top``.
    """
    yield from os.walk(_path(top), topdown=topdown, onerror=onerror)


class _FileStat:
    def __init__(self, st, is_directory: bool):
        self.length = st.st_size
        self.mtime_nsec = st.st_mtime_ns
        self.is_directory = is_directory


@public("torchflow.io.gfile")
def stat(path):
    """The status of the file or directory ``path``.

    Args:
      path: str, the path.

    Returns:
      An object with ``length`` (bytes), ``mtime_nsec`` (modification time in
      nanoseconds) and ``is_directory``.

    Raises:
      NotFoundError: ``path`` does not exist.
    """
    p = _path(path)
    if not os.path.exists(p):
        raise NotFoundError(None, None, f"{p}; No such file or directory")
    st = os.stat(p)
    return _FileStat(st, os.path.isdir(p))


@public("torchflow.io")
def match_filenames_once(pattern, name=None):
    """A non-trainable string Variable holding the files matching ``pattern`` when it is
    made (``matching_files`` evaluated once).

    Args:
      pattern: A string glob pattern.
      name: Unused (eager).

    Returns:
      A non-trainable string variable.
    """
    return Variable(matching_files(pattern), trainable=False,
                    name=name or "matching_filenames", shape=None)
