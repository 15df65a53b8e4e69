"""TF's Philox-4x32-10 counter-based generator, vectorized on torch tensors.

Stateless uniform and normal ops use it so that, for float32/float64 and the
integer dtypes, ``tf.random.stateless_uniform(shape, seed)`` and
``stateless_normal`` give exactly TensorFlow's numbers (TF's CPU algorithm:
the seed is scrambled into a key and counter, block ``i`` of output uses
counter + i, and each block of four 32-bit words feeds the distribution).

On the host the rounds run in NumPy uint64 (fewest passes); on a GPU in torch
int64, whose wrapping products keep the low 64 bits exact.
"""

from __future__ import annotations

import math

import numpy as np
import torch

_M32 = 0xFFFFFFFF
_MA, _MB = 0xD2511F53, 0xCD9E8D57
_WA, _WB = 0x9E3779B9, 0xBB67AE85


def _philox_scalar(counter, key):
    c, k = list(counter), list(key)
    for r in range(10):
        p0, p1 = _MA * c[0], _MB * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & _M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & _M32]
        if r < 9:
            k = [(k[0] + _WA) & _M32, (k[1] + _WB) & _M32]
    return c


def key_counter(seed0: int, seed1: int):
    """TF's seed scrambling: the Philox key and counter for a stateless seed."""
    s0, s1 = seed0 & (2**64 - 1), seed1 & (2**64 - 1)
    mix = _philox_scalar([s0 & _M32, s0 >> 32, s1 & _M32, s1 >> 32], [0x3EC8F720, 0x02461E29])
    return (mix[0], mix[1]), (0, 0, mix[2], mix[3])


def _blocks_np(key, counter, n, idx=None) -> np.ndarray:
    # uint64 holds each 32x32-bit product exactly; NumPy is quickest on the host.
    i = np.arange(n, dtype=np.uint64) if idx is None else idx.astype(np.uint64)
    c0 = np.uint64(counter[0]) + i
    c1 = np.uint64(counter[1]) + (c0 >> np.uint64(32))
    c2 = np.uint64(counter[2]) + (c1 >> np.uint64(32))
    m = np.uint64(_M32)
    c3 = (np.uint64(counter[3]) + (c2 >> np.uint64(32))) & m
    c0, c1, c2 = c0 & m, c1 & m, c2 & m
    k0, k1 = key
    ma, mb, s32 = np.uint64(_MA), np.uint64(_MB), np.uint64(32)
    for r in range(10):
        p0, p1 = c0 * ma, c2 * mb
        c0, c1, c2, c3 = ((p1 >> s32) ^ c1 ^ np.uint64(k0), p1 & m,
                          (p0 >> s32) ^ c3 ^ np.uint64(k1), p0 & m)
        if r < 9:
            k0, k1 = (k0 + _WA) & _M32, (k1 + _WB) & _M32
    return np.stack([c0, c1, c2, c3], axis=1).view(np.int64)  # values < 2**32: same bits


def _blocks_torch(key, counter, n, device, idx=None) -> torch.Tensor:
    # int64 products wrap modulo 2**64, which keeps the low 64 bits exact.
    i = torch.arange(n, dtype=torch.int64, device=device) if idx is None else \
        torch.as_tensor(idx, dtype=torch.int64, device=device)
    c0 = counter[0] + i
    c1 = counter[1] + (c0 >> 32)
    c2 = counter[2] + (c1 >> 32)
    c3 = (counter[3] + (c2 >> 32)) & _M32
    c0, c1, c2 = c0 & _M32, c1 & _M32, c2 & _M32
    k0, k1 = key
    for r in range(10):
        p0, p1 = c0 * _MA, c2 * _MB
        c0, c1, c2, c3 = ((p1 >> 32) & _M32) ^ c1 ^ k0, p1 & _M32, \
            ((p0 >> 32) & _M32) ^ c3 ^ k1, p0 & _M32
        if r < 9:
            k0, k1 = (k0 + _WA) & _M32, (k1 + _WB) & _M32
    return torch.stack([c0, c1, c2, c3], dim=1)


def blocks(key, counter, n: int, device) -> torch.Tensor:
    """``n`` Philox outputs for counters ``counter + i``: int64 ``[n, 4]`` in [0, 2**32)."""
    if device.type == "cpu":
        if n <= 4:  # a few blocks: plain Python beats ~100 small NumPy calls
            out = []
            for i in range(n):
                c = counter[0] + i
                out.append(_philox_scalar([c & _M32, counter[1] + (c >> 32), counter[2],
                                           counter[3]], key))
            return torch.tensor(out, dtype=torch.int64).reshape(n, 4)
        return torch.from_numpy(_blocks_np(key, counter, n))
    return _blocks_torch(key, counter, n, device)


def stateful_key_counter(seed: int, seed2: int, skip: int = 0):
    """Key and counter of TF's stateful random kernels (``seed``/``seed2`` attributes,
    no scrambling) after ``skip`` blocks already used by earlier calls."""
    return ((seed & _M32, (seed >> 32) & _M32),
            (skip, 0, seed2 & _M32, (seed2 >> 32) & _M32))


def _words(kc, count: int, device) -> torch.Tensor:
    """The first ``count`` 32-bit words of the stream ``kc = (key, counter)``."""
    key, counter = kc
    return blocks(key, counter, (count + 3) // 4, device).reshape(-1)[:count]


def _to_f32(x: torch.Tensor) -> torch.Tensor:
    if x.device.type == "cpu":  # NumPy's integer ops are much quicker on the host
        a = x.numpy()
        return torch.from_numpy(((a & 0x7FFFFF) | 0x3F800000).astype(np.int32)
                                .view(np.float32) - np.float32(1.0))
    return ((x & 0x7FFFFF) | 0x3F800000).to(torch.int32).view(torch.float32) - 1.0


def _to_f64(hi: torch.Tensor, lo: torch.Tensor) -> torch.Tensor:
    if hi.device.type == "cpu":
        a = ((hi.numpy() & 0xFFFFF) << 32) | lo.numpy() | (1023 << 52)
        return torch.from_numpy(np.ascontiguousarray(a).view(np.float64) - 1.0)
    return (((hi & 0xFFFFF) << 32) | lo | (1023 << 52)).view(torch.float64) - 1.0


def uniform(kc, n: int, dtype: torch.dtype, device) -> torch.Tensor:
    """TF's stateless uniform [0, 1) floats (float32 or float64), flat ``[n]``."""
    if dtype is torch.float64:
        w = _words(kc, 2 * n, device).reshape(-1, 2)
        return _to_f64(w[:, 0], w[:, 1])
    return _to_f32(_words(kc, n, device))


def normal(kc, n: int, dtype: torch.dtype, device) -> torch.Tensor:
    """TF's stateless standard normals (Box-Muller on Philox words), flat ``[n]``."""
    if dtype is torch.float64:
        w = _words(kc, 4 * ((n + 1) // 2), device).reshape(-1, 4)
        u1 = _to_f64(w[:, 0], w[:, 1]).clamp_min(1e-7)
        v1 = 2.0 * math.pi * _to_f64(w[:, 2], w[:, 3])
    else:
        w = _words(kc, 2 * ((n + 1) // 2), device).reshape(-1, 2)
        u1 = _to_f32(w[:, 0]).clamp_min(1e-7)
        v1 = (2.0 * math.pi) * _to_f32(w[:, 1])
    u2 = torch.sqrt(-2.0 * torch.log(u1))
    return torch.stack([torch.sin(v1) * u2, torch.cos(v1) * u2], dim=1).reshape(-1)[:n]


def uniform_int(kc, n: int, lo: int, hi: int, bits64: bool, device) -> torch.Tensor:
    """TF's stateless integers in [lo, hi): ``lo + word % (hi - lo)`` (int64 tensor)."""
    rng = hi - lo
    if not bits64:
        return lo + _words(kc, n, device) % rng
    w = _words(kc, 2 * n, device).reshape(-1, 2).cpu().numpy().astype(np.uint64)
    bits = w[:, 0] | (w[:, 1] << np.uint64(32))
    vals = (bits % np.uint64(rng)).astype(np.int64) + lo  # wraps like TF's int64 sum
    return torch.from_numpy(vals).to(device)


def full_int(kc, n: int, bits64: bool, device) -> np.ndarray:
    """Every value of a 32/64-bit integer type equally likely: raw words (NumPy uint)."""
    if not bits64:
        return _words(kc, n, device).cpu().numpy().astype(np.uint32)
    w = _words(kc, 2 * n, device).reshape(-1, 2).cpu().numpy().astype(np.uint64)
    return w[:, 0] | (w[:, 1] << np.uint64(32))


def _box_muller(w: torch.Tensor, double: bool) -> torch.Tensor:
    """Normals from words ``w`` (``[..., 2k]`` or ``[..., 4k]`` for doubles), in TF's order."""
    if double:
        q = w.reshape(*w.shape[:-1], -1, 4)
        u1 = _to_f64(q[..., 0], q[..., 1]).clamp_min(1e-7)
        v1 = 2.0 * math.pi * _to_f64(q[..., 2], q[..., 3])
    else:
        q = w.reshape(*w.shape[:-1], -1, 2)
        u1 = _to_f32(q[..., 0]).clamp_min(1e-7)
        v1 = (2.0 * math.pi) * _to_f32(q[..., 1])
    u2 = torch.sqrt(-2.0 * torch.log(u1))
    return torch.stack([torch.sin(v1) * u2, torch.cos(v1) * u2], dim=-1).reshape(
        *w.shape[:-1], -1)


def truncated_normal(kc, n: int, dtype: torch.dtype, device) -> torch.Tensor:
    """TF's stateless truncated normals: per group of outputs (4 floats / 2 doubles),
    a fresh stream 256 words x group apart; normals with ``|x| >= 2`` are skipped."""
    double = dtype is torch.float64
    group = 2 if double else 4
    stride = group * 256 // 4  # Philox blocks reserved per group
    ngroups = (n + group - 1) // group
    key, counter = kc
    cpu = device.type == "cpu"

    def words(nblocks):
        idx = (np.arange(ngroups, dtype=np.int64)[:, None] * stride
               + np.arange(nblocks, dtype=np.int64)[None, :]).reshape(-1)
        b = torch.from_numpy(_blocks_np(key, counter, 0, idx)) if cpu else \
            _blocks_torch(key, counter, 0, device, idx)
        return b.reshape(ngroups, nblocks * 4)

    nblocks = 2
    while True:
        cand = _box_muller(words(nblocks), double)
        ok = cand.abs() < 2.0
        if bool((ok.sum(dim=1) >= group).all()) or nblocks >= 64:
            break
        nblocks *= 2  # rare: some group rejected too many; redo with more words
    # The first `group` accepted candidates of each row, in order.
    rank = torch.cumsum(ok.to(torch.int64), dim=1)
    take = ok & (rank <= group)
    out = cand[take].reshape(ngroups, group) if bool((rank[:, -1] >= group).all()) else \
        torch.stack([cand[i][ok[i]][:group] for i in range(ngroups)])
    return out.reshape(-1)[:n]


def categorical(kc, logits: np.ndarray, num_samples: int) -> np.ndarray:
    """TF's CPU Multinomial kernel: per row an unnormalized float64 CDF of
    ``exp(logit - max)``, searched with ``RandDouble() * total`` (two words per
    sample, rows consuming the stream in order)."""
    batch, classes = logits.shape
    nwords = batch * num_samples * 2
    key, counter = kc
    w = (_blocks_np(key, counter, (nwords + 3) // 4).reshape(-1)[:nwords]
         .astype(np.uint64).reshape(batch, num_samples, 2))
    man = ((w[..., 0] & np.uint64(0xFFFFF)) << np.uint64(32)) | w[..., 1]
    u = (man | np.uint64(1023 << 52)).view(np.float64) - 1.0
    out = np.empty((batch, num_samples), dtype=np.int64)
    lg = logits.astype(np.float64)
    for b in range(batch):
        row = lg[b]
        fin = np.isfinite(row)
        mx = row[fin].max() if fin.any() else np.finfo(np.float64).min
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.where(fin, np.exp(row - mx), 0.0)
        cdf = np.cumsum(e)
        out[b] = np.searchsorted(cdf, u[b] * cdf[-1], side="right")
    return out


def permutation(kc, n: int) -> np.ndarray:
    """TF's RandomShuffle: forward Fisher-Yates, ``j = i + word % (n - i)``."""
    key, counter = kc
    words = _blocks_np(key, counter, (n + 2) // 4).reshape(-1)[:n - 1]
    js = (np.arange(n - 1) + words % (n - np.arange(n - 1))).tolist()
    perm = list(range(n))
    for i, j in enumerate(js):
        perm[i], perm[j] = perm[j], perm[i]
    return np.asarray(perm, dtype=np.int64)
