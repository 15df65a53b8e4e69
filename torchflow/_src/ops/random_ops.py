"""Stateful random ops (``tf.random.normal``, ``uniform``, ...) and TF's seed rules.

Seed rules (as ``tf.random.set_seed`` documents for TF 2.4):

* no global seed, no op seed: every call draws fresh, non-reproducible numbers;
* global seed, no op seed: ``set_seed(s)`` starts a reproducible sequence; each
  op call takes the next op seed from ``random.Random(s)`` (as TF's eager
  context does), which ``set_seed`` restarts, so the same program prints the
  same numbers after ``set_seed(s)``;
* op seed (with or without a global seed; without one a default global seed
  is used): each ``(op, dtype, global seed, op seed)`` has its own stream, so
  repeated calls give different numbers that repeat after ``set_seed``.

Seeded ``normal``, ``uniform`` and ``truncated_normal`` (float32, float64; and
integer ``uniform``) run TF's Philox kernels (``philox.py``) with TF's seeds
and counters, so they give TensorFlow's exact numbers. The other ops draw from
``torch.Generator`` streams on the output's device, cached in
``context.GLOBAL.random_streams`` like TF's kernels.

Seeded ``categorical`` (for one shard of rows) and ``shuffle`` follow TF's CPU
kernels too.

Differences from TensorFlow 2.4: unseeded draws, half-precision dtypes,
``poisson`` and ``gamma`` give torch's numbers
(which also differ between CPU and GPU); only their reproducibility rules
match TF.
"""

from __future__ import annotations

import math
import random
import zlib

import numpy as np
import torch

from torchflow._src.core import context, dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError, invalid_argument, translate
from torchflow._src.ops import philox, random_nodes
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.util.api import public

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_MASK64 = (1 << 64) - 1

_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_UNIFORM_DTYPES = _FLOATS + (dtypes.int32, dtypes.int64)


# --- seeds -------------------------------------------------------------------
def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def mix_seeds(*parts: int) -> int:
    """A well-mixed 63-bit torch seed from integers (stable across processes)."""
    h = 0x243F6A8885A308D3
    for p in parts:
        h = _splitmix64(h ^ (int(p) & _MASK64))
    return h >> 1


def get_seed(op_seed):
    """TF's ``get_seed``: the ``(global_seed, op_seed)`` pair for an op.

    With a global seed and no op seed, the op seed is the next
    ``random.Random(global_seed).randint(0, 2**31 - 1)``, as TF's eager context
    draws it. Returns ``(None, None)`` when the op should draw non-reproducible
    numbers.
    """
    if context.GLOBAL.global_seed is None and op_seed is None:
        return None, None
    return _seed_pair(op_seed)


def _seed_pair(op_seed) -> tuple[int, int]:
    """``get_seed``'s pair when a global seed or ``op_seed`` is set."""
    g = context.GLOBAL
    if g.global_seed is not None:
        if op_seed is None:
            rng = g.random_streams.get("op_seed_rng")
            if rng is None:
                rng = g.random_streams["op_seed_rng"] = random.Random(g.global_seed)
            op_seed = rng.randint(0, _MAXINT32)
        seeds = (g.global_seed % _MAXINT32, int(op_seed) % _MAXINT32)
    else:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def philox_stream(op_name: str, dtype, op_seed, n: int, blocks: int | None = None):
    """Key/counter of TF's Philox stream for a seeded call of ``n`` outputs, or None.

    Like TF's eager kernels, each ``(op, dtype, seed, seed2)`` keeps a counter
    that every call advances by ``256 * n`` blocks; ``set_seed`` restarts them.
    """
    g = context.GLOBAL
    if g.global_seed is None and op_seed is None:
        return None
    s1, s2 = _seed_pair(op_seed)
    key = ("philox", op_name, dtype, s1, s2)
    skip = g.random_streams.get(key, 0)
    g.random_streams[key] = skip + (256 * n if blocks is None else blocks)
    return philox.stateful_key_counter(s1, s2, skip)


def make_generator(seed: int, device: torch.device) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def stream(op_name: str, dtype, op_seed, device: torch.device):
    """The torch generator an op call draws from (None: torch's default RNG)."""
    g = context.GLOBAL
    if g.global_seed is None and op_seed is None:
        return None
    if op_seed is None:
        gs, os_ = _seed_pair(None)
        return make_generator(mix_seeds(gs, os_), device)
    gs, os_ = _seed_pair(op_seed)
    key = (op_name, dtype, gs, os_, device)
    gen = g.random_streams.get(key)
    if gen is None:
        gen = g.random_streams[key] = make_generator(
            mix_seeds(gs, os_, zlib.crc32(op_name.encode())), device)
    return gen


def raw_stream(op_name: str, dtype, seed: int, seed2: int, device: torch.device):
    """The generator of a raw op's ``seed``/``seed2`` attributes (both 0: unseeded)."""
    if not seed and not seed2:
        return None
    g = context.GLOBAL
    key = ("raw:" + op_name, dtype, int(seed), int(seed2), device)
    gen = g.random_streams.get(key)
    if gen is None:
        gen = g.random_streams[key] = make_generator(
            mix_seeds(int(seed), int(seed2), zlib.crc32(op_name.encode())), device)
    return gen


def raw_philox(op_name: str, dtype, seed: int, seed2: int, n: int, blocks: int | None = None):
    """TF's Philox key/counter for a raw op's ``seed``/``seed2`` (None if both are 0)."""
    if not seed and not seed2:
        return None
    g = context.GLOBAL
    key = ("raw-philox", op_name, dtype, int(seed), int(seed2))
    skip = g.random_streams.get(key, 0)
    g.random_streams[key] = skip + (256 * n if blocks is None else blocks)
    return philox.stateful_key_counter(int(seed), int(seed2), skip)


@public("torchflow.random")
def set_seed(seed) -> None:
    """Sets the global random seed (TF's ``tf.random.set_seed``).

    After ``set_seed(s)`` the sequence of random ops in a program is
    reproducible; calling it again restarts that sequence (ops with an op-level
    ``seed`` restart their streams too). ``set_seed(None)`` goes back to
    non-reproducible numbers.

    Args:
      seed: An integer, or None.

    Seeded float32/float64 ``normal``, ``uniform`` and ``truncated_normal``
    then give TensorFlow's exact numbers.

    Differences from TensorFlow 2.4: the other random ops (``categorical``,
    ``shuffle``, ``poisson``, ``gamma``, half precision) draw torch's numbers;
    which of their calls repeat and which differ follows TF's rules exactly.

    >>> import torchflow as tf
    >>> tf.random.set_seed(5); a = tf.random.uniform([2])
    >>> tf.random.set_seed(5); b = tf.random.uniform([2])
    >>> bool((a.numpy() == b.numpy()).all())
    True
    """
    g = context.GLOBAL
    g.global_seed = None if seed is None else int(seed)
    g.op_seed_counter = 0
    g.random_streams.clear()


# --- argument helpers ------------------------------------------------------------
def shape_arg(op: str, shape) -> list[int]:
    if type(shape) in (list, tuple) and all(type(d) is int and d >= 0 for d in shape):
        return shape
    if isinstance(shape, Tensor) and isinstance(shape._t, torch.Tensor) and \
            shape._dtype.is_integer:
        # tolist: in a trace, sizes from tf.shape stay run-time sizes (graph_shapes).
        dims = shape._t.reshape(-1).tolist()
        for d in dims:
            if int.__lt__(d, 0):  # (int's own <: no guard on a run-time size)
                raise invalid_argument(op, f"Dimension {int.__int__(d)} must be >= 0")
        return dims
    if isinstance(shape, Tensor):
        dims = [int(d) for d in np.asarray(shape.numpy()).reshape(-1)]
    elif hasattr(shape, "as_list"):
        dims = shape.as_list()
    elif isinstance(shape, (int, np.integer)):
        dims = [int(shape)]
    else:
        dims = [int(d) if not isinstance(d, Tensor) else int(d) for d in shape]
    for d in dims:
        if d is None or d < 0:
            raise invalid_argument(op, f"Dimension {d} must be >= 0")
    return dims


def check_dtype(dtype, allowed, name="dtype") -> dtypes.DType:
    d = dtypes.as_dtype(dtype)
    if d not in allowed:
        raise ValueError(
            f"Argument `{name}` got invalid value {d}. Accepted dtypes are "
            f"({', '.join(repr(a) for a in allowed)})."
        )
    return d


# A distribution parameter as the samplers take it (see ``param``).
Param = int | float | torch.Tensor


def param(x, dtype: dtypes.DType, device) -> Param:
    """A distribution parameter: a Python number stays one, others become torch tensors."""
    tx = type(x)
    if tx is float or tx is int:
        if tx is float and dtype._kind in "iu":
            raise TypeError(f"Cannot convert {x!r} to EagerTensor of dtype {dtype.name}")
        return x
    t = tensor_arg(x, dtype)
    if t._dtype is not dtype:
        raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                         f"dtype {t._dtype.name}: {t!r}")
    a = t._t
    return a if a.device == device else a.to(device)


def _compute_dtype(d: dtypes.DType):
    # Half-precision samples are drawn in float32 and rounded, as TF's kernels do.
    return torch.float32 if (d is dtypes.float16 or d is dtypes.bfloat16) else d._torch


# --- samplers (shared by stateful, stateless and Generator ops) ------------------
def sample_normal(shape, dtype, device, gen, mean: Param = 0.0, stddev: Param = 1.0):
    x = torch.randn(shape, dtype=_compute_dtype(dtype), device=device, generator=gen)
    if not (isinstance(stddev, (int, float)) and stddev == 1):
        x = x * stddev
    if not (isinstance(mean, (int, float)) and mean == 0):
        x = x + mean
    return x.to(dtype._torch) if x.dtype is not dtype._torch else x


def sample_uniform(op, shape, dtype, device, gen, minval, maxval):
    if dtype.is_integer:
        lo, hi = _int_bound(op, minval, "minval"), _int_bound(op, maxval, "maxval")
        if lo >= hi:
            raise invalid_argument(op, f"Need minval < maxval, got {lo} >= {hi}")
        return torch.randint(lo, hi, shape, dtype=dtype._torch, device=device, generator=gen)
    x = torch.rand(shape, dtype=_compute_dtype(dtype), device=device, generator=gen)
    if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)):
        if not (minval == 0 and maxval == 1):
            x = x * (maxval - minval) + minval
    else:
        x = x * (maxval - minval) + minval
    return x.to(dtype._torch) if x.dtype is not dtype._torch else x


def _int_bound(op, v, name):
    if isinstance(v, torch.Tensor):
        if v.ndim != 0:
            raise invalid_argument(op, f"{name} must be 0-D, got shape {list(v.shape)}")
        return int(v.item())
    return int(v)


_TN_LO = 0.5 * math.erfc(2.0 / math.sqrt(2.0))  # Phi(-2)


def sample_truncated_normal(shape, dtype, device, gen, mean: Param = 0.0,
                            stddev: Param = 1.0):
    # Inverse-CDF sampling of N(0, 1) restricted to [-2, 2]: the same law as
    # TF's resampling of values beyond two standard deviations, in one pass.
    ct = torch.float64 if dtype is dtypes.float64 else torch.float32
    u = torch.rand(shape, dtype=ct, device=device, generator=gen)
    u = _TN_LO + u * (1.0 - 2.0 * _TN_LO)
    x = (torch.erfinv(2.0 * u - 1.0) * math.sqrt(2.0)).clamp_(-2.0, 2.0)
    if not (isinstance(stddev, (int, float)) and stddev == 1):
        x = x * stddev
    if not (isinstance(mean, (int, float)) and mean == 0):
        x = x + mean
    return x.to(dtype._torch)


def sample_categorical(op, logits: torch.Tensor, num_samples: int, out_dtype, gen):
    if logits.ndim != 2:
        raise invalid_argument(op, f"logits should be a matrix, got shape {list(logits.shape)}")
    if logits.shape[1] == 0 and num_samples > 0:
        raise invalid_argument(op, "num_classes should be positive, got 0")
    if num_samples == 0 or logits.shape[0] == 0:
        return torch.zeros((logits.shape[0], num_samples), dtype=out_dtype._torch,
                           device=logits.device)
    lg = logits.double() if logits.dtype is torch.float64 else logits.float()
    probs = torch.softmax(lg, dim=-1)
    out = torch.multinomial(probs, num_samples, replacement=True, generator=gen)
    return out.to(out_dtype._torch)


def sample_gamma(alpha, beta, shape, dtype, device, gen):
    """Marsaglia-Tsang gamma sampling with an explicit generator (torch's own
    ``_standard_gamma`` takes none, which would break op seeds)."""
    ct = torch.float64 if dtype is dtypes.float64 else torch.float32
    a = torch.as_tensor(alpha, dtype=ct, device=device)
    if beta is not None:
        b = torch.as_tensor(beta, dtype=ct, device=device)
        pshape = torch.broadcast_shapes(a.shape, b.shape)
    else:
        b, pshape = None, a.shape
    full = tuple(shape) + tuple(pshape)
    a = a.expand(full)
    boost = a < 1
    d = torch.where(boost, a + 1, a) - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * d)
    out = torch.empty(full, dtype=ct, device=device)
    todo = torch.ones(full, dtype=torch.bool, device=device)
    for _ in range(64):
        if not bool(todo.any()):
            break
        x = torch.randn(full, dtype=ct, device=device, generator=gen)
        u = torch.rand(full, dtype=ct, device=device, generator=gen)
        v = (1 + c * x) ** 3
        ok = (v > 0) & (torch.log(u.clamp_min(1e-300)) < 0.5 * x * x + d - d * v
                        + d * torch.log(v.clamp_min(1e-300)))
        take = ok & todo
        out = torch.where(take, d * v, out)
        todo = todo & ~take
    u = torch.rand(full, dtype=ct, device=device, generator=gen)
    out = torch.where(boost, out * u.pow(1.0 / a), out)
    out = torch.where(a == 0, torch.zeros_like(out), out)
    if b is not None:
        out = out / b
    return out.to(dtype._torch)


def sample_poisson(lam, shape, dtype, device, gen):
    lam_t = torch.as_tensor(lam, device=device)
    lam_t = lam_t.double() if lam_t.dtype is torch.float64 else lam_t.float()
    full = tuple(shape) + tuple(lam_t.shape)
    out = torch.poisson(lam_t.expand(full).contiguous(), generator=gen)
    return out.to(dtype._torch)


def _numel(dims) -> int:
    n = 1
    for k in dims:
        n *= k
    return n


def _seeded(op_name: str, dtype, op_seed, dims, fn, *params):
    """``fn(key_counter, dims, *params)`` for a seeded call (None if unseeded): TF's
    shared eager stream, or the traced node's own stream (``random_nodes``)."""
    g = context.GLOBAL
    if g.global_seed is None and op_seed is None:
        return None
    if graph_trace.active() is None:
        return fn(philox_stream(op_name, dtype, op_seed, _numel(dims)), dims, *params)
    s1, s2 = _seed_pair(op_seed)
    return random_nodes.traced_draw(("philox", op_name, dtype, s1, s2), s1, s2, dims, fn,
                                    *params)


def _draw_normal(kc, dims, d, dev, s, m):
    return wrap(_affine(philox.normal(kc, _numel(dims), d._torch, dev).reshape(dims), s, m), d)


def _draw_uniform(kc, dims, d, dev, lo, hi):
    n = _numel(dims)
    if d.is_integer:
        x = philox.uniform_int(kc, n, lo, hi, d.size == 8, dev)
        return wrap(x.reshape(dims).to(d._torch), d)
    x = philox.uniform(kc, n, d._torch, dev).reshape(dims)
    if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float))
            and lo == 0 and hi == 1):
        x = x * (hi - lo) + lo
    return wrap(x, d)


def _draw_truncated_normal(kc, dims, d, dev, s, m):
    x = philox.truncated_normal(kc, _numel(dims), d._torch, dev).reshape(dims)
    return wrap(_affine(x, s, m), d)


def _affine(x, scale, shift):
    if not (isinstance(scale, (int, float)) and scale == 1):
        x = x * scale
    if not (isinstance(shift, (int, float)) and shift == 0):
        x = x + shift
    return x


# --- public stateful ops ------------------------------------------------------------
def _device():
    return context.default_device()


@public("torchflow.random")
def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Outputs random values from a normal distribution.

    Args:
      shape: A 1-D integer Tensor or Python list: the output shape.
      mean: A scalar or broadcastable Tensor of ``dtype``: the mean.
      stddev: A scalar or broadcastable Tensor of ``dtype``: the standard deviation.
      dtype: A floating dtype.
      seed: Optional op-level seed (see ``tf.random.set_seed``).
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``.

    >>> import torchflow as tf
    >>> tf.random.normal([2, 3]).shape
    TensorShape([2, 3])
    """
    d = dtypes.as_dtype(dtype)
    if not d.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {d.name}")
    dims = shape_arg("RandomStandardNormal", shape)
    dev = _device()
    m, s = param(mean, d, dev), param(stddev, d, dev)
    try:
        if d is dtypes.float32 or d is dtypes.float64:
            out = _seeded("normal", d, seed, dims, _draw_normal, d, dev, s, m)
            if out is not None:  # seeded: TF's own numbers
                return out
        return wrap(sample_normal(dims, d, dev, stream("normal", d, seed, dev), m, s), d)
    except Exception as e:  # noqa: BLE001
        raise translate("RandomStandardNormal", e) from None


@public("torchflow.random")
def uniform(shape, minval: float | Tensor = 0, maxval=None, dtype=dtypes.float32, seed=None,
            name=None) -> Tensor:
    """Outputs random values from a uniform distribution in ``[minval, maxval)``.

    For floats the default range is ``[0, 1)``. For integers ``maxval`` is
    required and ``minval``/``maxval`` must be scalars.

    Args:
      shape: A 1-D integer Tensor or Python list: the output shape.
      minval: Lower bound (inclusive); a scalar or broadcastable Tensor for floats.
      maxval: Upper bound (exclusive); defaults to 1 for floats.
      dtype: One of float16, bfloat16, float32, float64, int32, int64.
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``.

    Raises:
      ValueError: If ``dtype`` is an integer type and ``maxval`` is not given,
        or ``dtype`` is not supported.
      InvalidArgumentError: If ``minval >= maxval`` for integers.

    >>> import torchflow as tf
    >>> tf.random.uniform([3], maxval=5, dtype=tf.int32).dtype
    tf.int32
    """
    d = check_dtype(dtype, _UNIFORM_DTYPES)
    if d.is_integer and maxval is None:
        raise ValueError(f"Must specify maxval for integer dtype {d!r}")
    if maxval is None:
        maxval = 1
    op = "RandomUniformInt" if d.is_integer else "RandomUniform"
    dims = shape_arg(op, shape)
    dev = _device()
    lo, hi = param(minval, d, dev), param(maxval, d, dev)
    try:
        if d._kind in "fi" and d is not dtypes.float16 and d is not dtypes.bfloat16:
            if d.is_integer:
                ilo, ihi = _int_bound(op, lo, "minval"), _int_bound(op, hi, "maxval")
                if ilo >= ihi:
                    raise invalid_argument(op, f"Need minval < maxval, got {ilo} >= {ihi}")
                lo, hi = ilo, ihi
            out = _seeded("uniform", d, seed, dims, _draw_uniform, d, dev, lo, hi)
            if out is not None:  # seeded: TF's own numbers
                return out
        gen = stream("uniform", d, seed, dev)
        return wrap(sample_uniform(op, dims, d, dev, gen, lo, hi), d)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


@public("torchflow.random")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                     name=None) -> Tensor:
    """Outputs random values from a truncated normal distribution.

    Values more than two standard deviations from the mean are dropped and
    re-picked, so every value lies in ``[mean - 2*stddev, mean + 2*stddev]``.

    Args:
      shape: A 1-D integer Tensor or Python list: the output shape.
      mean: The mean of the (untruncated) normal distribution.
      stddev: Its standard deviation.
      dtype: A floating dtype.
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``.
    """
    d = dtypes.as_dtype(dtype)
    if not d.is_floating:
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {d.name}")
    dims = shape_arg("TruncatedNormal", shape)
    dev = _device()
    m, s = param(mean, d, dev), param(stddev, d, dev)
    try:
        if d is dtypes.float32 or d is dtypes.float64:
            out = _seeded("truncated_normal", d, seed, dims, _draw_truncated_normal, d, dev,
                          s, m)
            if out is not None:  # seeded: TF's own numbers
                return out
        gen = stream("truncated_normal", d, seed, dev)
        return wrap(sample_truncated_normal(dims, d, dev, gen, m, s), d)
    except Exception as e:  # noqa: BLE001
        raise translate("TruncatedNormal", e) from None


def _logits_arg(logits):
    t = tensor_arg(logits)
    if not t._dtype.is_floating:
        raise InvalidArgumentError(
            None, None, f"Multinomial: logits must be a floating tensor, got {t._dtype.name} "
            "[Op:Multinomial]")
    return t._t


@public("torchflow.random")
def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """Draws samples from a categorical distribution.

    Args:
      logits: A 2-D Tensor ``[batch_size, num_classes]`` of unnormalized log-probabilities.
      num_samples: Number of independent samples to draw for each row.
      dtype: Integer output type, int64 (default) or int32.
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      A ``[batch_size, num_samples]`` Tensor of class indices.

    >>> import torchflow as tf
    >>> tf.random.categorical(tf.math.log([[0.5, 0.5]]), 5).shape
    TensorShape([1, 5])
    """
    od = check_dtype(dtypes.int64 if dtype is None else dtype, (dtypes.int32, dtypes.int64))
    lg = _logits_arg(logits)
    n = int(num_samples)
    if lg.ndim == 2 and lg.shape[1] > 0 and n > 0 and lg.shape[0] > 0:
        # TF reserves 2 * ceil4(num_samples) * 256 blocks per row and call.
        kc = philox_stream("categorical", od, seed, lg.shape[0] * ((n + 3) // 4 * 4) * 2)
        if kc is not None:  # seeded: TF's own numbers
            x = philox.categorical(kc, lg.detach().cpu().numpy(), n)
            return wrap(torch.from_numpy(x).to(lg.device).to(od._torch), od)
    try:
        gen = stream("categorical", od, seed, lg.device)
        return wrap(sample_categorical("Multinomial", lg, n, od, gen), od)
    except Exception as e:  # noqa: BLE001
        raise translate("Multinomial", e) from None


@public("torchflow.random")
def shuffle(value, seed=None, name=None) -> Tensor:
    """Randomly shuffles a tensor along its first dimension.

    Args:
      value: A Tensor to shuffle.
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      A Tensor of the same shape and dtype, its rows permuted.
    """
    t = tensor_arg(value)
    a = t._t
    if a.ndim == 0:
        return t
    n = a.shape[0]
    if 1 < n < 2**32:
        # TF's kernel reserves ceil((n - 1) / 4) blocks per call.
        kc = philox_stream("shuffle", t._dtype, seed, 0, blocks=(n + 2) // 4)
        if kc is not None:  # seeded: TF's own permutation
            perm = philox.permutation(kc, n)
            if isinstance(a, np.ndarray):
                return wrap(a[perm], t._dtype)
            return wrap(a.index_select(0, torch.from_numpy(perm).to(a.device)), t._dtype)
    if isinstance(a, np.ndarray):
        gen = stream("shuffle", t._dtype, seed, torch.device("cpu"))
        perm = torch.randperm(n, generator=gen).numpy()
        return wrap(a[perm], t._dtype)
    gen = stream("shuffle", t._dtype, seed, a.device)
    perm = torch.randperm(n, generator=gen, device=a.device)
    return wrap(a.index_select(0, perm), t._dtype)


@public("torchflow.random")
def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Draws samples from each of the Poisson distributions given by ``lam``.

    Args:
      shape: The shape of samples per distribution; the output shape is
        ``shape + lam.shape``.
      lam: The rate(s), a float Tensor.
      dtype: Output dtype (float16/32/64, int32, int64).
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      A Tensor of shape ``shape + lam.shape`` and ``dtype``.
    """
    d = check_dtype(dtype, (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32,
                            dtypes.int64))
    lt = tensor_arg(lam, dtypes.float32)
    dims = shape_arg("RandomPoissonV2", shape)
    dev = lt._t.device
    try:
        gen = stream("poisson", d, seed, dev)
        return wrap(sample_poisson(lt._t, dims, d, dev, gen), d)
    except Exception as e:  # noqa: BLE001
        raise translate("RandomPoissonV2", e) from None


@public("torchflow.random")
def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Draws samples from each of the Gamma distributions given by ``alpha``/``beta``.

    Args:
      shape: The shape of samples per distribution; the output shape is
        ``shape + broadcast(alpha, beta).shape``.
      alpha: Concentration (shape) parameter(s).
      beta: Optional inverse-scale (rate) parameter(s); default 1.
      dtype: float16, float32 or float64.
      seed: Optional op-level seed.
      name: Unused (eager).

    Returns:
      A Tensor of ``dtype``.
    """
    d = check_dtype(dtype, (dtypes.float16, dtypes.float32, dtypes.float64))
    at = tensor_arg(alpha, d)
    bt = None if beta is None else tensor_arg(beta, d)._t
    dims = shape_arg("RandomGamma", shape)
    dev = at._t.device
    try:
        gen = stream("gamma", d, seed, dev)
        return wrap(sample_gamma(at._t, bt, dims, d, dev, gen), d)
    except Exception as e:  # noqa: BLE001
        raise translate("RandomGamma", e) from None
