"""Dictionary lookups behind Keras' lookup layers (``StringLookup``,
``IntegerLookup``, ``TextVectorization``, ``Hashing``).

Each call looks up the distinct keys once (``np.unique``) and scatters the
results back, so a batch costs one dict access per distinct key.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.ops.string_hash_ops import fingerprint64, siphash24


def as_key_array(a) -> np.ndarray:
    """Keys as an object array of bytes (strings) or an int64 array."""
    a = np.asarray(a)
    if a.dtype == object and (a.size == 0 or isinstance(a.flat[0], bytes)):
        return a  # a string tensor's value: already bytes
    if a.dtype.kind == "S":
        return a.astype(object)
    if a.dtype.kind in "OU":
        out = np.empty(a.shape, dtype=object)
        out.reshape(-1)[:] = [s.encode("utf-8") if isinstance(s, str) else bytes(s)
                              for s in a.reshape(-1)]
        return out
    return a.astype(np.int64)


def _key_bytes(k) -> bytes:
    # integer keys hash through their decimal string, as TF's as_string does
    return k if isinstance(k, bytes) else str(int(k)).encode()


def hash_bucket(keys: np.ndarray, num_buckets: int, key=None) -> np.ndarray:
    """``to_hash_bucket_fast`` (or ``_strong`` with a 2-int ``key``) of each key."""
    u, inv = np.unique(keys.reshape(-1), return_inverse=True)
    if key is None:
        h = [fingerprint64(_key_bytes(k)) % num_buckets for k in u]
    else:
        h = [siphash24(key[0], key[1], _key_bytes(k)) % num_buckets for k in u]
    return np.asarray(h, np.int64)[inv].reshape(keys.shape)


def _miss_index(k, num_oov: int, oov_start: int, mask_key) -> int:
    if mask_key is not None and k == mask_key:
        return 0
    if num_oov == 1:
        return oov_start
    if num_oov == 0:
        return -1
    if isinstance(k, bytes):
        return oov_start + fingerprint64(k) % num_oov
    return oov_start + int(k) % num_oov  # integer keys: TF's integer tables use modulo


def lookup(keys: np.ndarray, table: dict, num_oov: int, oov_start: int,
           mask_key=None) -> np.ndarray:
    """Indices of ``keys`` in ``table``; misses go to ``oov_start`` plus a bucket
    among ``num_oov`` (farmhash for strings, modulo for integers); ``mask_key``
    goes to 0."""
    flat = keys.reshape(-1)
    if flat.size == 0:
        return np.zeros(keys.shape, np.int64)
    if flat.dtype == object:
        # bytes keys: one dict probe each (sorting objects for np.unique is slower)
        get = table.get
        out = np.fromiter((get(k, -2) for k in flat), np.int64, flat.size)
        miss = np.nonzero(out == -2)[0]
        if miss.size:
            out[miss] = [_miss_index(flat[i], num_oov, oov_start, mask_key) for i in miss]
        return out.reshape(keys.shape)
    u, inv = np.unique(flat, return_inverse=True)
    vals = np.empty(len(u), np.int64)
    for i, k in enumerate(u.tolist()):
        v = table.get(k)
        vals[i] = _miss_index(k, num_oov, oov_start, mask_key) if v is None else v
    return vals[inv].reshape(keys.shape)


def invert(indices: np.ndarray, tokens: np.ndarray, default) -> np.ndarray:
    """``tokens[i]`` for each index, ``default`` out of range."""
    idx = np.asarray(indices, np.int64)
    ok = (idx >= 0) & (idx < len(tokens))
    out = np.asarray(tokens, dtype=tokens.dtype)[np.where(ok, idx, 0)] if len(tokens) else \
        np.full(idx.shape, default, dtype=tokens.dtype)
    out = np.array(out, dtype=tokens.dtype)
    out[~ok] = default
    return out


def count_tokens(keys: np.ndarray, counts: dict, doc_counts: dict | None = None) -> None:
    """Adds each key's frequency (and per-row document frequency) to the dicts."""
    u, c = np.unique(keys.reshape(-1), return_counts=True)
    for k, n in zip(u, c):
        k = k.item() if isinstance(k, np.generic) else k
        counts[k] = counts.get(k, 0) + int(n)
    if doc_counts is not None:
        rows = keys.reshape(keys.shape[0], -1) if keys.ndim > 1 else keys.reshape(-1, 1)
        for row in rows:
            for k in set(x.item() if isinstance(x, np.generic) else x for x in row):
                doc_counts[k] = doc_counts.get(k, 0) + 1
