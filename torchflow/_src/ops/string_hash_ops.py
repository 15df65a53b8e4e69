"""``tf.strings.to_hash_bucket_fast`` / ``to_hash_bucket_strong``.

``to_hash_bucket_fast`` uses FarmHash's 64-bit fingerprint (``farmhashna``'s
``Hash64``) and ``to_hash_bucket_strong`` keyed SipHash-2-4, the functions TF
uses, written here in Python, so bucket ids match TensorFlow's.
"""

from __future__ import annotations

import struct

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import invalid_argument
from torchflow._src.ops._dispatch import Tensor, tensor_arg
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.string_ops import _num, str_arg
from torchflow._src.util.api import public

_M = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _f64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _f32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rot(v: int, k: int) -> int:
    return v if k == 0 else ((v >> k) | (v << (64 - k))) & _M


def _smix(v: int) -> int:
    return v ^ (v >> 47)


def _h16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s: bytes, n: int) -> int:
    if n >= 8:
        mul = _K2 + n * 2
        a = (_f64(s, 0) + _K2) & _M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _h16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        a = _f32(s, 0)
        return _h16((n + (a << 3)) & _M, _f32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_smix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _len17to32(s: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K1) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * _K2) & _M
    return _h16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _len33to64(s: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K2) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _h16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_f64(s, 16) * mul) & _M
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _M
    h = ((z + _f64(s, n - 24)) * mul) & _M
    return _h16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s: bytes, i: int, a: int, b: int):
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(s: bytes) -> int:
    """FarmHash ``Fingerprint64`` of ``s`` (an unsigned 64-bit int)."""
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        return _len17to32(s, n)
    if n <= 64:
        return _len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_smix((y * _K2 + 113) & _M) * _K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _f64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v0 + _f64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v1 + _f64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w1
        y = (y + v0 + _f64(s, i + 40)) & _M
        z = (_rot((z + w0) & _M, 33) * _K1) & _M
        v0, v1 = _weak32(s, i, (v1 * _K1) & _M, (x + w0) & _M)
        w0, w1 = _weak32(s, i + 32, (z + w1) & _M, (y + _f64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _f64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _f64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _f64(s, i + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak32(s, i, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak32(s, i + 32, (z + w1) & _M, (y + _f64(s, i + 16)) & _M)
    z, x = x, z
    return _h16((_h16(v0, w0, mul) + _smix(y) * _K0 + z) & _M,
                (_h16(v1, w1, mul) + x) & _M, mul)


def siphash24(k0: int, k1: int, s: bytes) -> int:
    """SipHash-2-4 of ``s`` under the 128-bit key ``(k0, k1)``."""
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, n):
        for _ in range(n):
            v0 = (v0 + v1) & _M
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(s)
    full = n - n % 8
    for i in range(0, full, 8):
        m = _f64(s, i)
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = (n & 0xFF) << 56
    for j, byte in enumerate(s[full:]):
        last |= byte << (8 * j)
    v3 ^= last
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TF's own ``Hash64`` (MurmurHash64A with TF's default seed)."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(s)
    h = (seed ^ (n * m)) & _M
    full = n - n % 8
    for i in range(0, full, 8):
        k = (_f64(s, i) * m) & _M
        k ^= k >> r
        k = (k * m) & _M
        h = ((h ^ k) * m) & _M
    rest = s[full:]
    if rest:
        for j in range(len(rest) - 1, -1, -1):
            h ^= rest[j] << (8 * j)
        h = (h * m) & _M
    h ^= h >> r
    h = (h * m) & _M
    return h ^ (h >> r)


def _rotl(v: int, k: int) -> int:
    return ((v << k) | (v >> (64 - k))) & _M


def _buckets(op: str, num_buckets) -> int:
    n = int(num_buckets)
    if n <= 0:
        raise invalid_argument(op, f"Number of buckets must be positive, got {n}")
    return n


@public("torchflow.strings")
def to_hash_bucket_fast(input, num_buckets, name=None) -> Tensor | RaggedTensor:
    """Hashes each string to a bucket in ``[0, num_buckets)`` (FarmHash Fingerprint64).

    Args:
      input: A string Tensor.
      num_buckets: The number of buckets (positive).
      name: Unused (eager).

    Returns:
      An int64 Tensor of ``input``'s shape; the same ids TensorFlow computes.

    >>> import torchflow as tf
    >>> int(tf.strings.to_hash_bucket_fast(["hello"], 10)[0]) in range(10)
    True
    """
    if isinstance(input, RaggedTensor):  # elementwise on the flat values, as TF dispatches
        return input.with_flat_values(to_hash_bucket_fast(input.flat_values, num_buckets))
    a = str_arg("StringToHashBucketFast", input)
    n = _buckets("StringToHashBucketFast", num_buckets)
    out = np.fromiter((fingerprint64(s) % n for s in a.reshape(-1)), np.int64, a.size)
    return _num(out.reshape(a.shape), dtypes.int64)


@public("torchflow.strings")
def to_hash_bucket(string_tensor, num_buckets, name=None) -> Tensor | RaggedTensor:
    """Hashes each string to a bucket with TF's legacy ``Hash64`` (prefer ``_fast``).

    Args:
      string_tensor: A string Tensor.
      num_buckets: The number of buckets (positive).
      name: Unused (eager).

    Returns:
      An int64 Tensor of the input's shape; the same ids TensorFlow computes.
    """
    if isinstance(string_tensor, RaggedTensor):  # elementwise on the flat values
        return string_tensor.with_flat_values(to_hash_bucket(string_tensor.flat_values,
                                                             num_buckets))
    a = str_arg("StringToHashBucket", string_tensor)
    n = _buckets("StringToHashBucket", num_buckets)
    out = np.fromiter((hash64(s) % n for s in a.reshape(-1)), np.int64, a.size)
    return _num(out.reshape(a.shape), dtypes.int64)


@public("torchflow.strings")
def to_hash_bucket_strong(input, num_buckets, key, name=None) -> Tensor | RaggedTensor:
    """Hashes each string to a bucket with keyed SipHash-2-4.

    Args:
      input: A string Tensor.
      num_buckets: The number of buckets (positive).
      key: Two integers, the 128-bit hash key.
      name: Unused (eager).

    Returns:
      An int64 Tensor of ``input``'s shape.
    """
    if isinstance(input, RaggedTensor):  # elementwise on the flat values
        return input.with_flat_values(to_hash_bucket_strong(input.flat_values, num_buckets,
                                                            key))
    a = str_arg("StringToHashBucketStrong", input)
    n = _buckets("StringToHashBucketStrong", num_buckets)
    k = list(key)
    if len(k) != 2:
        raise invalid_argument("StringToHashBucketStrong",
                               f"Key must have 2 elements, got {len(k)}")
    k0, k1 = int(k[0]) & _M, int(k[1]) & _M
    out = np.fromiter((siphash24(k0, k1, s) % n for s in a.reshape(-1)), np.int64, a.size)
    return _num(out.reshape(a.shape), dtypes.int64)


@public("torchflow")
def fingerprint(data, method="farmhash64", name=None) -> Tensor:
    """A 64-bit FarmHash fingerprint of each row (``data[i]``) of ``data``.

    Numeric rows are hashed as their little-endian bytes. A row of one string
    is hashed as that string; a row of several strings as the concatenated
    fingerprints of its strings, as TF does.

    Args:
      data: A Tensor of rank >= 1.
      method: ``"farmhash64"`` (the only method TF has).
      name: Unused (eager).

    Returns:
      A uint8 Tensor of shape ``[data.shape[0], 8]`` (the fingerprints' bytes,
      little-endian); identical to TensorFlow's.
    """
    t = tensor_arg(data)
    m = method.numpy() if isinstance(method, Tensor) else method
    m = m.decode() if isinstance(m, bytes) else str(m)
    if m != "farmhash64":
        raise invalid_argument("Fingerprint", f"Unsupported fingerprint method: {m}")
    a = np.asarray(t.numpy())
    if a.ndim < 1:
        raise invalid_argument("Fingerprint", "`data` should have at least one dimension: "
                                              f"{list(a.shape)}")
    rows = a.reshape(a.shape[0], -1)
    out = bytearray()
    for r in rows:
        if t.dtype is dtypes.string:
            if r.size == 1:
                fp = fingerprint64(bytes(r[0]))
            else:
                fp = fingerprint64(b"".join(struct.pack("<Q", fingerprint64(bytes(x)))
                                            for x in r))
        else:
            fp = fingerprint64(np.ascontiguousarray(r).astype(r.dtype.newbyteorder("<"))
                               .tobytes())
        out += struct.pack("<Q", fp)
    res = np.frombuffer(bytes(out), dtype=np.uint8).reshape(a.shape[0], 8).copy()
    return _num(res, dtypes.uint8)
