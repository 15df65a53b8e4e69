"""The payload codec of ``core/rpc.py``: nests of values with tensors as raw buffers.

A payload is ``b"TFR1"``, a little-endian uint32 header length, a JSON header (the
value's skeleton and the spans of its buffers) and the buffers, each 8-byte aligned.
Nothing here unpickles, so a payload from anyone is safe to decode. Use it as
``rpc.encode`` / ``rpc.decode`` (see rpc.py's module doc).

Fast paths (a step's payloads are small: per-value Python cost is what counts): the
common types are dispatched by exact type, dtype names are looked up once, tensors
are encoded from one NumPy view (no copy before the message is joined). A decoded
``tf.Tensor`` of at least ``ALIAS_MIN_BYTES`` whose payload is a ``bytes`` object shares
that object's memory (no copy: a ``tf.Tensor`` is immutable, and so is ``bytes``); a
large copy costs its page faults, ~1.7 us per 4 KB page here, more than gRPC's own
copies. Smaller tensors, torch tensors (handlers may update those in place) and
tensors of mutable payloads are decoded into a writable tensor of their own (one
copy). The header is padded with spaces so that the buffers start 8-byte aligned in
the payload.
"""

from __future__ import annotations

import json
import math
import struct
import warnings
from typing import Any

import numpy as np
import torch

from torchflow._src.core import dtypes, errors
from torchflow._src.core.tensor import Tensor, wrap

_MAGIC = b"TFR1"
_ALIGN = 8
ALIAS_MIN_BYTES = 64 * 1024

# torch warns once per process that a tensor over read-only memory may be written
# through; the tensors made so are tf.Tensors, which nothing writes. The warning is
# spent here, silenced, so that users never see it for them.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.frombuffer(b"\0" * _ALIGN, dtype=torch.uint8)


def _np_name(a: np.ndarray) -> str:
    return dtypes.as_dtype(a.dtype).name


# dtypes whose CPU tensors NumPy views directly (the common case: one view, no copy)
_NUMPY_VIEWABLE = frozenset({torch.float32, torch.float64, torch.float16, torch.int8,
                             torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool})


def _torch_bytes(t: torch.Tensor):
    if t.dtype in _NUMPY_VIEWABLE and t.is_cpu and t.is_contiguous():
        a = (t.detach() if t.requires_grad else t).numpy()
        return a.reshape(-1).view(np.uint8).data  # a view: no copy
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.resolve_conj().contiguous()
    if t.numel() == 0:
        return b""
    return t.reshape(-1).view(torch.uint8).numpy().data


# NumPy dtype -> TF dtype name, and the dtypes a writable torch tensor is made from a
# NumPy array for (torch.from_numpy: fewer torch calls than frombuffer + reshape)
_NP_NAMES: dict = {}
_FROM_NUMPY = frozenset(np.dtype(d) for d in (
    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
    np.bool_, np.complex64, np.complex128))


def _np_name_cached(dt: np.dtype) -> str:
    name = _NP_NAMES.get(dt)
    if name is None:
        name = _NP_NAMES[dt] = dtypes.as_dtype(dt).name
    return name


class _Encoder:
    def __init__(self):
        self.bufs: list = []

    def buf(self, b) -> int:
        self.bufs.append(b)
        return len(self.bufs) - 1

    def array(self, kind: str, name: str, shape, raw) -> dict:
        return {"~": "nd", "k": kind, "d": name, "s": list(shape), "b": self.buf(raw)}

    def strings(self, kind: str, a: np.ndarray) -> dict:
        items = [x if isinstance(x, bytes) else str(x).encode() for x in a.reshape(-1)]
        return {"~": "str", "k": kind, "s": list(a.shape), "l": [len(x) for x in items],
                "b": self.buf(b"".join(items))}

    def node(self, x):
        tx = type(x)  # the common types first, by exact type (no isinstance chain)
        if tx is str or tx is int or tx is float or tx is bool or x is None:
            return x
        if tx is Tensor:
            t = x._t
            if type(t) is not np.ndarray:
                return {"~": "nd", "k": "tf", "d": x._dtype._name, "s": list(t.shape),
                        "b": self.buf(_torch_bytes(t))}
        elif tx is np.ndarray and x.dtype.kind not in "OSU":
            a = x if x.flags.c_contiguous else np.ascontiguousarray(x)
            return {"~": "nd", "k": "np", "d": _np_name_cached(a.dtype), "s": list(a.shape),
                    "b": self.buf(a.reshape(-1).view(np.uint8).data)}
        elif tx is list:
            return [self.node(v) for v in x]
        elif tx is dict:
            return {"~": "dict", "v": [[self.node(k), self.node(v)] for k, v in x.items()]}
        elif tx is tuple:
            return {"~": "tuple", "v": [self.node(v) for v in x]}
        return self.other(x)

    def other(self, x):
        if isinstance(x, (bool, str)):
            return x
        if isinstance(x, (int, float)) and type(x) in (int, float):
            return x
        if isinstance(x, Tensor):
            t = x._t
            if isinstance(t, np.ndarray):
                return self.strings("tf", t)
            return self.array("tf", x._dtype.name, t.shape, _torch_bytes(t))
        if isinstance(x, torch.Tensor):
            return self.array("torch", dtypes.from_torch(x.dtype).name, x.shape,
                              _torch_bytes(x))
        if isinstance(x, (np.ndarray, np.generic)):
            kind = "np" if isinstance(x, np.ndarray) else "npscalar"
            a = np.asarray(x)
            if a.dtype.kind in "OSU":
                return self.strings(kind, a)
            flat = np.ascontiguousarray(a).reshape(-1)  # at least 1-d: keep a's shape
            return self.array(kind, _np_name(a), a.shape, flat.view(np.uint8).data)
        if isinstance(x, (bytes, bytearray, memoryview)):
            return {"~": "bytes", "b": self.buf(x)}
        if isinstance(x, tuple):
            return {"~": "tuple", "v": [self.node(v) for v in x]}
        if isinstance(x, list):
            return [self.node(v) for v in x]
        if isinstance(x, dict):
            return {"~": "dict", "v": [[self.node(k), self.node(v)] for k, v in x.items()]}
        if isinstance(x, (int, float)):  # bool/int/float subclasses (IntEnum ...)
            return int(x) if isinstance(x, int) else float(x)
        raise TypeError(f"rpc.encode cannot send a value of type {type(x).__name__}: {x!r}")


def encode(obj: Any) -> bytes:
    """Serializes ``obj`` (nests of dict/list/tuple, scalars, str, bytes, tf.Tensor,
    NumPy arrays, torch tensors) with tensors as raw buffers; no pickle."""
    enc = _Encoder()
    skeleton = enc.node(obj)
    spans = []
    parts = []
    off = 0
    for b in enc.bufs:
        n = memoryview(b).nbytes
        spans.append([off, n])
        parts.append(b)
        pad = -n % _ALIGN
        if pad:
            parts.append(b"\0" * pad)
        off += n + pad
    header = json.dumps({"v": skeleton, "b": spans}, separators=(",", ":")).encode()
    pad = -(len(header) + 8) % _ALIGN
    if pad:
        header += b" " * pad  # JSON allows it; the buffers start aligned
    return b"".join([_MAGIC, struct.pack("<I", len(header)), header, *parts])


class _Decoder:
    def __init__(self, data: memoryview, base: int, spans, immutable: bool):
        self.data = data
        self.base = base
        self.spans = spans
        self.immutable = immutable

    def raw(self, i) -> memoryview:
        off, n = self.spans[i]
        start = self.base + off
        if off < 0 or n < 0 or start + n > len(self.data):
            raise ValueError("buffer out of range")
        return self.data[start:start + n]

    def node(self, x):
        tx = type(x)
        if tx is list:
            return [self.node(v) for v in x]
        if tx is not dict:
            return x
        tag = x["~"]
        if tag == "tuple":
            return tuple(self.node(v) for v in x["v"])
        if tag == "dict":
            return {_hashable(self.node(k)): self.node(v) for k, v in x["v"]}
        if tag == "bytes":
            return bytes(self.raw(x["b"]))
        shape = tuple(map(int, x["s"]))
        if tag == "str":
            raw = bytes(self.raw(x["b"]))
            items, pos = [], 0
            for n in x["l"]:
                items.append(raw[pos:pos + n])
                pos += n
            a = np.empty(len(items), dtype=object)
            a[:] = items
            a = a.reshape(shape)
            if x["k"] == "tf":
                return wrap(a, dtypes.string)
            return a[()] if x["k"] == "npscalar" else a
        if tag != "nd":
            raise ValueError(f"unknown node tag {tag!r}")
        dt, npd = _dtype_by_name(x["d"])
        raw = self.raw(x["b"])
        count = math.prod(shape)
        if count * dt.size != raw.nbytes:
            raise ValueError(f"buffer of {raw.nbytes} bytes for {dt.name}{list(shape)}")
        kind = x["k"]
        if kind == "tf" and self.immutable and raw.nbytes >= ALIAS_MIN_BYTES:
            t = torch.frombuffer(raw, dtype=dt._torch)
            if t.data_ptr() % dt.size == 0:
                return wrap(t.reshape(shape), dt)
        if kind == "tf" or kind == "torch":
            # A writable tensor of its own (one copy of the bytes received).
            if npd in _FROM_NUMPY:
                t = torch.from_numpy(np.frombuffer(bytearray(raw), dtype=npd, count=count)
                                     .reshape(shape) if count else np.empty(shape, npd))
            else:
                t = (torch.frombuffer(bytearray(raw), dtype=dt._torch) if count
                     else torch.empty(0, dtype=dt._torch)).reshape(shape)
            return wrap(t, dt) if kind == "tf" else t
        a = np.frombuffer(raw, dtype=npd, count=count).reshape(shape)
        return a[()] if x["k"] == "npscalar" else a


_DTYPES_BY_NAME: dict = {}


def _dtype_by_name(name: str):
    """(DType, its NumPy dtype or None) of a dtype name from a payload (cached)."""
    entry = _DTYPES_BY_NAME.get(name)
    if entry is None:
        dt = dtypes.as_dtype(name)
        npd = None if dt.as_numpy_dtype is None else np.dtype(dt.as_numpy_dtype)
        entry = _DTYPES_BY_NAME[dt.name] = (dt, npd)
    return entry


def _hashable(k):
    return tuple(_hashable(v) for v in k) if isinstance(k, list) else k


def decode(payload) -> Any:
    """Inverse of :func:`encode`. Raises ``InvalidArgumentError`` on a malformed payload."""
    data = memoryview(payload)
    try:
        if bytes(data[:4]) != _MAGIC:
            raise ValueError("bad magic")
        (hlen,) = struct.unpack("<I", data[4:8])
        header = json.loads(bytes(data[8:8 + hlen]))
        return _Decoder(data, 8 + hlen, header["b"], type(payload) is bytes).node(header["v"])
    except errors.OpError:
        raise
    except Exception as e:  # noqa: BLE001 - any parse failure is the sender's fault
        raise errors.InvalidArgumentError(
            None, None, f"Malformed torchflow RPC payload: {type(e).__name__}: {e}") from None
