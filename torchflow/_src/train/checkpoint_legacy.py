"""Reading checkpoints in torchflow's first format (before TF's tensor bundle).

torchflow 0.x wrote its own format; this module reads it for one release, as
a ``TrackableObjectGraph`` and a reader with ``BundleReader``'s interface, so
``tf.train.Checkpoint.restore``, ``load_checkpoint`` and Keras ``load_weights``
take old files unchanged (docs/checkpoints.md). Nothing writes it any more.

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

The index names its data file (``"data"``).
"""

from __future__ import annotations

import json
import os

import ml_dtypes
import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.proto import tf_trackable_object_graph_pb2 as graph_pb2

FORMAT = "torchflow-checkpoint"
VERSION = 1
DATA_SHARD = "-00000-of-00001"
INDEX_SUFFIX = ".index"


def _np_dtype(name: str):
    if name == "bfloat16":
        return ml_dtypes.bfloat16
    return np.dtype(name)


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


def is_legacy(prefix: str) -> bool:
    """Whether the index at ``prefix`` is torchflow's JSON (TF's sstable never starts
    with ``{``: its first entry's shared-prefix length is a zero byte)."""
    try:
        with open(prefix + INDEX_SUFFIX, "rb") as f:
            return f.read(1) == b"{"
    except OSError:
        return False


def read(prefix: str):
    """Returns ``(nodes, DataReader, meta)`` for the checkpoint at ``prefix``.

    Raises:
      NotFoundError: No checkpoint with that prefix.
      DataLossError: The files are not a torchflow checkpoint or are damaged.
    """
    if not os.path.exists(prefix + INDEX_SUFFIX):
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




class LegacyReader:
    """An old checkpoint behind ``BundleReader``'s interface, with the object graph
    rebuilt as TF's proto (``graph``) whose keys ``lookup`` answers."""

    def __init__(self, prefix: str):
        nodes, self._data, _ = read(prefix)
        self.prefix = prefix
        self._arrays: dict = {}  # key -> index entry, or a decoded value
        self.graph = graph_pb2.TrackableObjectGraph()
        for node in nodes:
            obj = self.graph.nodes.add()
            for name, child in node["children"].items():
                obj.children.add(node_id=int(child), local_name=name)
        paths = _paths(nodes)
        for i, node in enumerate(nodes):
            obj = self.graph.nodes[i]
            if node["kind"] == "variable":
                key = node["value"].get("key") or f"{paths[i]}/.ATTRIBUTES/VARIABLE_VALUE"
                self._arrays[key] = node["value"]
                obj.attributes.add(name="VARIABLE_VALUE", checkpoint_key=key)
            elif node["kind"] == "state":
                state = self._data.decode_state(node["state"])
                tensors = state.get("__tensors__") if isinstance(state, dict) else None
                items = tensors.items() if tensors is not None else [("py_state", state)]
                for name, value in items:
                    key = f"{paths[i]}/.ATTRIBUTES/{name}"
                    self._arrays[key] = np.asarray(value, dtype=object) \
                        if isinstance(value, (bytes, str)) else np.asarray(value)
                    obj.attributes.add(name=name, checkpoint_key=key)
            for rec in node.get("slots", ()):
                slot = self.graph.nodes.add()
                key = rec["value"]["key"]
                self._arrays[key] = rec["value"]
                slot.attributes.add(name="VARIABLE_VALUE", checkpoint_key=key)
                obj.slot_variables.add(original_variable_node_id=int(rec["original"]),
                                       slot_name=rec["slot"],
                                       slot_variable_node_id=len(self.graph.nodes) - 1)
        self.entries = dict.fromkeys(self._arrays)

    def contains(self, key: str) -> bool:
        return key in self._arrays

    def _entry(self, key: str):
        if key not in self._arrays:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        return self._arrays[key]

    def dtype(self, key: str):
        e = self._entry(key)
        if isinstance(e, dict):
            return dtypes.as_dtype(_np_dtype(e["dtype"]))
        return dtypes.string if e.dtype.kind == "O" else dtypes.as_dtype(e.dtype)

    def shape(self, key: str) -> list:
        e = self._entry(key)
        return list(e["shape"]) if isinstance(e, dict) else list(e.shape)

    def lookup(self, key: str) -> np.ndarray:
        e = self._entry(key)
        return self._data.array(e) if isinstance(e, dict) else e

    def close(self) -> None:
        return None


def _paths(nodes) -> list:
    paths = [""] + [None] * (len(nodes) - 1)
    queue = [0]
    while queue:
        i = queue.pop(0)
        for name, j in nodes[i]["children"].items():
            if paths[j] is None:
                paths[j] = f"{paths[i]}/{name}" if paths[i] else name
                queue.append(j)
    return [p or "" for p in paths]
