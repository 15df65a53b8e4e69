"""torchflow's on-disk checkpoint format, written so a crash never corrupts.

A checkpoint with prefix ``P`` is two files:

* ``P.data-<id>-00000-of-00001`` — the raw bytes of every saved array, back to
  back (C order, little-endian, the array's own dtype; bfloat16 as its 2-byte
  words). ``<id>`` is unique per save, so a save never overwrites the data of
  the checkpoint it replaces.
* ``P.index`` — UTF-8 JSON: ``{"format": "torchflow-checkpoint", "version": 1,
  "nodes": [...]}``. Node 0 is the root object. Each node has ``children``
  (name -> node id) and a ``kind``: ``object``, ``list``, ``dict``,
  ``variable`` (``value``: offset, nbytes, dtype, shape, key), ``state``
  (``state``: JSON data whose arrays are ``{"__array__": value}`` entries) —
  plus, for optimizers, ``slots``: ``[{"slot", "original", "variable"}]``.

The index names its data file (``"data"``). Both are written to temporary
names and flushed to disk; the data file is renamed into place first, the
index last, then older data files of the same prefix are removed. A checkpoint
exists only once its index does, and an index only ever names a complete data
file, so a process killed mid-save leaves the previous checkpoint intact (even
when it is being overwritten under the same prefix).
"""

from __future__ import annotations

import json
import os
import time
import uuid

import ml_dtypes
import numpy as np

from torchflow._src.core import errors

FORMAT = "torchflow-checkpoint"
VERSION = 1
DATA_SHARD = "-00000-of-00001"
INDEX_SUFFIX = ".index"


def _np_dtype(name: str):
    if name == "bfloat16":
        return ml_dtypes.bfloat16
    return np.dtype(name)


class DataWriter:
    """Collects arrays into one byte stream and returns their index entries."""

    def __init__(self):
        self._chunks: list[bytes] = []
        self._offset = 0

    def add(self, array: np.ndarray) -> dict:
        a = np.asarray(array)
        if not a.flags.c_contiguous:
            a = a.copy(order="C")
        if a.dtype.kind == "O":
            raise errors.InvalidArgumentError(
                None, None, "tf.train.Checkpoint: object arrays cannot be saved as variables")
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        raw = a.tobytes()
        entry = {"offset": self._offset, "nbytes": len(raw), "dtype": str(a.dtype),
                 "shape": list(a.shape)}
        self._chunks.append(raw)
        self._offset += len(raw)
        return entry

    def encode_state(self, value):
        """JSON-able form of a state value; arrays go into the data stream."""
        if isinstance(value, np.ndarray) or isinstance(value, np.generic):
            return {"__array__": self.add(np.asarray(value))}
        if isinstance(value, bytes):
            return {"__bytes__": value.hex()}
        if isinstance(value, dict):
            return {"__dict__": [[self.encode_state(k), self.encode_state(v)]
                                 for k, v in value.items()]}
        if isinstance(value, (list, tuple)):
            return {"__list__": [self.encode_state(v) for v in value],
                    "tuple": isinstance(value, tuple)}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise TypeError(f"tf.train.Checkpoint: cannot save state value of type "
                        f"{type(value).__name__}")

    def payload(self) -> bytes:
        return b"".join(self._chunks)


class DataReader:
    """Reads arrays back from a checkpoint's data file."""

    def __init__(self, raw: bytes):
        self._raw = raw

    def array(self, entry: dict) -> np.ndarray:
        start, n = entry["offset"], entry["nbytes"]
        if start + n > len(self._raw):
            raise errors.DataLossError(None, None, "Checkpoint data file is truncated")
        dtype = np.dtype(_np_dtype(entry["dtype"]))
        # count bounds the read: the bytes after this entry need not be a whole number of
        # this dtype's elements (an int64 followed by a float32 ...).
        a = np.frombuffer(self._raw, dtype=dtype, count=n // dtype.itemsize,
                          offset=start) if n else np.zeros(0, dtype)
        a = a[: int(np.prod(entry["shape"], dtype=np.int64))] if n else a
        return a.reshape(entry["shape"]).copy()

    def decode_state(self, value):
        if isinstance(value, dict):
            if "__array__" in value:
                return self.array(value["__array__"])
            if "__bytes__" in value:
                return bytes.fromhex(value["__bytes__"])
            if "__dict__" in value:
                return {self._key(k): self.decode_state(v) for k, v in value["__dict__"]}
            if "__list__" in value:
                items = [self.decode_state(v) for v in value["__list__"]]
                return tuple(items) if value.get("tuple") else items
        return value

    def _key(self, k):
        k = self.decode_state(k)
        return tuple(k) if isinstance(k, list) else k


def _fsync_write(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write(prefix: str, nodes: list, data: DataWriter, meta: dict | None = None) -> None:
    """Atomically writes a checkpoint at ``prefix`` (see the module docstring)."""
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    tmp = f".tmp{os.getpid()}"
    data_name = f"{os.path.basename(prefix)}.data-{uuid.uuid4().hex[:12]}{DATA_SHARD}"
    data_path = os.path.join(directory, data_name)
    index = json.dumps({"format": FORMAT, "version": VERSION, "data": data_name,
                        "nodes": nodes, "meta": meta or {}}).encode("utf-8")
    _fsync_write(data_path + tmp, data.payload())
    _fsync_write(prefix + INDEX_SUFFIX + tmp, index)
    os.replace(data_path + tmp, data_path)
    _before_index_rename_hook()
    os.replace(prefix + INDEX_SUFFIX + tmp, prefix + INDEX_SUFFIX)
    _fsync_dir(directory)
    for old in _data_files(prefix):
        if os.path.basename(old) != data_name:
            _remove(old)


def _before_index_rename_hook() -> None:
    """Test seam: a crash test slows the save here to kill the process mid-save."""
    delay = os.environ.get("TORCHFLOW_TEST_CKPT_SAVE_DELAY")
    if delay:
        time.sleep(float(delay))


def exists(prefix: str) -> bool:
    return os.path.exists(prefix + INDEX_SUFFIX)


def read(prefix: str):
    """Returns ``(nodes, DataReader, meta)`` for the checkpoint at ``prefix``.

    Raises:
      NotFoundError: No checkpoint with that prefix.
      DataLossError: The files are not a torchflow checkpoint or are damaged.
    """
    if not exists(prefix):
        raise errors.NotFoundError(
            None, None, f"Failed to find any matching files for {prefix}")
    try:
        with open(prefix + INDEX_SUFFIX, "rb") as f:
            index = json.loads(f.read().decode("utf-8"))
        data_name = index.get("data") if isinstance(index, dict) else None
        if not isinstance(data_name, str) or os.sep in data_name:
            raise ValueError("no data file named in the index")
        with open(os.path.join(os.path.dirname(prefix), data_name), "rb") as f:
            raw = f.read()
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise errors.DataLossError(None, None, f"Unable to read checkpoint {prefix}: {e}") from None
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise errors.DataLossError(
            None, None, f"Unable to open table file {prefix}: not a torchflow checkpoint")
    return index["nodes"], DataReader(raw), index.get("meta", {})


def _data_files(prefix: str) -> list:
    directory = os.path.dirname(prefix) or "."
    start = os.path.basename(prefix) + ".data-"
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names
            if n.startswith(start) and n.endswith(DATA_SHARD)]


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def delete(prefix: str) -> None:
    """Removes the checkpoint at ``prefix`` (its index first, then its data)."""
    _remove(prefix + INDEX_SUFFIX)
    for path in _data_files(prefix):
        _remove(path)
