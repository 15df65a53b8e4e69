"""Stateless random ops: deterministic functions of a ``seed`` of shape ``[2]``.

The same seed (and shape, dtype, parameters) gives the same numbers on every
call, in every process and on every device. ``stateless_uniform`` (float32,
float64 and the integer dtypes), ``stateless_normal``,
``stateless_truncated_normal`` (float32, float64) and ``stateless_categorical``
give exactly TensorFlow's numbers: they run TF's Philox algorithm
(``philox.py``).

In a traced ``tf.function`` an op whose seed is a tensor (``Generator.make_seeds``,
a dataset element's seed) is one pure host node: each replay draws from that call's
seed, where reading the seed into the trace's Python would make the function eager.

Differences from TensorFlow 2.4: the other stateless ops (binomial, poisson, gamma, parameterized truncated normal, half-precision
dtypes) draw from torch
generators seeded by the seed: deterministic, but not TF's numbers, and CPU
and GPU results differ.
"""

from __future__ import annotations

import functools
import inspect
import zlib

import numpy as np
import torch

from torchflow._src.core import context, dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError, invalid_argument, translate
from torchflow._src.ops import philox
from torchflow._src.ops import random_ops as _r
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.util.api import public


def seed_pair(op: str, seed) -> tuple[int, int]:
    """Validates a stateless ``seed`` (shape [2], int32/int64) and returns it."""
    if type(seed) in (list, tuple) and len(seed) == 2 and type(seed[0]) is int \
            and type(seed[1]) is int:
        return seed[0], seed[1]  # the common case, without making a tensor
    t = tensor_arg(seed)
    if t._dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None, None, f"Value for attr 'Tseed' of {t._dtype.name} is not in the list of "
            f"allowed values: int32, int64 [Op:{op}]")
    if tuple(t._t.shape) != (2,):
        raise invalid_argument(op, f"seed must have shape [2], not {list(t._t.shape)}")
    a = t._t.tolist()
    return int(a[0]), int(a[1])


_SALT: dict = {}


def _seeded_node(fn):
    """``fn`` (a stateless op with a ``seed`` parameter) as one pure host node of a
    traced function when its seed is a tensor; as itself otherwise."""
    pos = list(inspect.signature(fn).parameters).index("seed")
    node = graph_trace.host_op(fn, dry=graph_trace.RUN, pure=True)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if graph_trace._ACTIVE is not None:
            seed = args[pos] if len(args) > pos else kwargs.get("seed")
            if isinstance(seed, Tensor) or hasattr(seed, "_tf_value"):
                return node(*args, **kwargs)
        return fn(*args, **kwargs)

    return call


def _gen(op: str, seed, device) -> torch.Generator:
    s0, s1 = seed_pair(op, seed)
    salt = _SALT.get(op)
    if salt is None:
        salt = _SALT[op] = zlib.crc32(op.encode())
    return _r.make_generator(_r.mix_seeds(s0, s1, salt), device)


@public("torchflow.random")
@_seeded_node
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                     name=None) -> Tensor:
    """Outputs deterministic pseudorandom values from a normal distribution.

    Args:
      shape: A 1-D integer Tensor or Python list: the output shape.
      seed: A shape ``[2]`` int32/int64 Tensor.
      mean: The mean (scalar or broadcastable Tensor).
      stddev: The standard deviation.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``; the same for the same ``seed``.

    float32/float64 values are exactly TF's for the same seed (TF's Philox).

    >>> import torchflow as tf
    >>> a = tf.random.stateless_normal([3], seed=[1, 2])
    >>> b = tf.random.stateless_normal([3], seed=[1, 2])
    >>> bool((a.numpy() == b.numpy()).all())
    True
    """
    d = _r.check_dtype(dtype, _r._FLOATS)
    dims = _r.shape_arg("StatelessRandomNormalV2", shape)
    dev = context.default_device()
    m, s = _r.param(mean, d, dev), _r.param(stddev, d, dev)
    try:
        if d is dtypes.float32 or d is dtypes.float64:  # TF's own numbers
            n = _numel(dims)
            kc = philox.key_counter(*seed_pair("StatelessRandomNormalV2", seed))
            x = philox.normal(kc, n, d._torch, dev)
            return wrap(_affine(x.reshape(dims), s, m), d)
        gen = _gen("StatelessRandomNormalV2", seed, dev)
        return wrap(_r.sample_normal(dims, d, dev, gen, m, s), d)
    except Exception as e:  # noqa: BLE001
        raise translate("StatelessRandomNormalV2", e) from None


@public("torchflow.random")
@_seeded_node
def stateless_uniform(shape, seed, minval: float | Tensor = 0, maxval=None, dtype=dtypes.float32,
                      name=None, alg="auto_select") -> Tensor:
    """Outputs deterministic pseudorandom values from a uniform distribution.

    Floats are in ``[minval, maxval)`` (default ``[0, 1)``). For integers,
    ``minval`` and ``maxval`` must both be given, or both be None for the
    dtype's full range.

    Args:
      shape: A 1-D integer Tensor or Python list: the output shape.
      seed: A shape ``[2]`` int32/int64 Tensor.
      minval: Lower bound (inclusive).
      maxval: Upper bound (exclusive).
      dtype: float16, bfloat16, float32, float64, int32, int64, uint32 or uint64.
      name: Unused (eager).
      alg: Accepted for the newer signature; ignored.

    Returns:
      A Tensor of ``shape`` and ``dtype``.

    Raises:
      ValueError: If exactly one of ``minval``/``maxval`` is None for an integer dtype.
    """
    d = _r.check_dtype(dtype, _r._UNIFORM_DTYPES + (dtypes.uint32, dtypes.uint64))
    op = "StatelessRandomUniformIntV2" if d.is_integer else "StatelessRandomUniformV2"
    if d.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(
                f"For integer `dtype` argument {d}, argument `minval` and `maxval` must be "
                f"both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
    elif maxval is None:
        maxval = 1
    if minval is None and not d.is_integer:
        minval = 0
    dims = _r.shape_arg(op, shape)
    dev = context.default_device()
    sp = philox.key_counter(*seed_pair(op, seed))
    n = _numel(dims)
    bits64 = d.size == 8
    try:
        if d.is_integer and minval is None:
            words = philox.full_int(sp, n, bits64, dev)
            return wrap(torch.from_numpy(words.view(d.as_numpy_dtype).reshape(dims).copy())
                        .to(dev), d)
        if d.is_integer:
            lo = _r._int_bound(op, _r.param(minval, d, dev), "minval")
            hi = _r._int_bound(op, _r.param(maxval, d, dev), "maxval")
            if lo >= hi:
                raise invalid_argument(op, f"Need minval < maxval, got {lo} >= {hi}")
            x = philox.uniform_int(sp, n, lo, hi, bits64, dev)
            return wrap(x.reshape(dims).to(d._torch), d)
        lo, hi = _r.param(minval, d, dev), _r.param(maxval, d, dev)
        if d is dtypes.float32 or d is dtypes.float64:  # TF's own numbers
            x = philox.uniform(sp, n, d._torch, dev).reshape(dims)
            if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float))
                    and lo == 0 and hi == 1):
                x = x * (hi - lo) + lo  # pyright: ignore[reportOperatorIssue] - params are numbers or tensors, never None here
            return wrap(x, d)
        return wrap(_r.sample_uniform(op, dims, d, dev, _gen(op, seed, dev), lo, hi), d)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


def _numel(dims) -> int:
    n = 1
    for k in dims:
        n *= k
    return n


def _affine(x, scale, shift):
    if not (isinstance(scale, (int, float)) and scale == 1):
        x = x * scale
    if not (isinstance(shift, (int, float)) and shift == 0):
        x = x + shift
    return x


@public("torchflow.random")
@_seeded_node
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None) -> Tensor:
    """Deterministic truncated normal values (within two standard deviations).

    Args:
      shape: The output shape.
      seed: A shape ``[2]`` int32/int64 Tensor.
      mean: The mean of the untruncated normal.
      stddev: Its standard deviation.
      dtype: A floating dtype.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``.
    """
    d = _r.check_dtype(dtype, _r._FLOATS)
    dims = _r.shape_arg("StatelessTruncatedNormalV2", shape)
    dev = context.default_device()
    m, s = _r.param(mean, d, dev), _r.param(stddev, d, dev)
    try:
        if d is dtypes.float32 or d is dtypes.float64:  # TF's own numbers
            kc = philox.key_counter(*seed_pair("StatelessTruncatedNormalV2", seed))
            x = philox.truncated_normal(kc, _numel(dims), d._torch, dev).reshape(dims)
            return wrap(_affine(x, s, m), d)
        gen = _gen("StatelessTruncatedNormalV2", seed, dev)
        return wrap(_r.sample_truncated_normal(dims, d, dev, gen, m, s), d)
    except Exception as e:  # noqa: BLE001
        raise translate("StatelessTruncatedNormalV2", e) from None


@public("torchflow.random")
@_seeded_node
def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None) -> Tensor:
    """Deterministic samples from categorical distributions.

    Args:
      logits: A 2-D ``[batch_size, num_classes]`` float Tensor.
      num_samples: Samples per row.
      seed: A shape ``[2]`` int32/int64 Tensor.
      dtype: int32 or int64 (default).
      name: Unused (eager).

    Returns:
      A ``[batch_size, num_samples]`` Tensor of ``dtype``.
    """
    od = _r.check_dtype(dtype, (dtypes.int32, dtypes.int64))
    lg = _r._logits_arg(logits)
    n = int(num_samples)
    if lg.ndim == 2 and lg.shape[1] > 0 and n > 0 and lg.shape[0] > 0:  # TF's own numbers
        kc = philox.key_counter(*seed_pair("StatelessMultinomial", seed))
        x = philox.categorical(kc, lg.detach().cpu().numpy(), n)
        return wrap(torch.from_numpy(x).to(lg.device).to(od._torch), od)
    gen = _gen("StatelessMultinomial", seed, lg.device)
    try:
        return wrap(_r.sample_categorical("StatelessMultinomial", lg, int(num_samples), od,
                                          gen), od)
    except Exception as e:  # noqa: BLE001
        raise translate("StatelessMultinomial", e) from None


@public("torchflow.random")
@_seeded_node
def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32,
                       name=None) -> Tensor:
    """Deterministic samples from binomial distributions.

    Args:
      shape: The output shape; ``counts`` and ``probs`` broadcast to it.
      seed: A shape ``[2]`` int32/int64 Tensor.
      counts: Numbers of trials (float or int).
      probs: Success probabilities.
      output_dtype: Output dtype (int32 default, int64, or a float dtype).
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``output_dtype``.
    """
    od = _r.check_dtype(output_dtype, _r._FLOATS + (dtypes.int32, dtypes.int64),
                        "output_dtype")
    dims = _r.shape_arg("StatelessRandomBinomial", shape)
    dev = context.default_device()
    gen = _gen("StatelessRandomBinomial", seed, dev)
    try:
        c = tensor_arg(counts)._t.to(dev).double()
        p = tensor_arg(probs)._t.to(dev).double()
        c, p = torch.broadcast_to(c, dims), torch.broadcast_to(p, dims)
        x = torch.binomial(c.contiguous(), p.contiguous(), generator=gen)
        return wrap(x.to(od._torch), od)
    except Exception as e:  # noqa: BLE001
        raise translate("StatelessRandomBinomial", e) from None


@public("torchflow.random")
@_seeded_node
def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None) -> Tensor:
    """Deterministic samples from Poisson distributions.

    Args:
      shape: The output shape; ``lam`` broadcasts to it.
      seed: A shape ``[2]`` int32/int64 Tensor.
      lam: Rates.
      dtype: Output dtype (float16/32/64, int32 default, int64).
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``.
    """
    d = _r.check_dtype(dtype, (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32,
                               dtypes.int64))
    dims = _r.shape_arg("StatelessRandomPoisson", shape)
    dev = context.default_device()
    gen = _gen("StatelessRandomPoisson", seed, dev)
    try:
        lam_t = torch.broadcast_to(tensor_arg(lam)._t.to(dev).double(), dims).contiguous()
        return wrap(torch.poisson(lam_t, generator=gen).to(d._torch), d)
    except Exception as e:  # noqa: BLE001
        raise translate("StatelessRandomPoisson", e) from None


@public("torchflow.random")
@_seeded_node
def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None) -> Tensor:
    """Deterministic samples from Gamma distributions.

    Args:
      shape: The output shape; ``alpha`` (and ``beta``) broadcast to it.
      seed: A shape ``[2]`` int32/int64 Tensor.
      alpha: Concentrations.
      beta: Optional rates (default 1).
      dtype: float16, float32 or float64.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and ``dtype``.
    """
    d = _r.check_dtype(dtype, (dtypes.float16, dtypes.float32, dtypes.float64))
    dims = _r.shape_arg("StatelessRandomGammaV2", shape)
    dev = context.default_device()
    gen = _gen("StatelessRandomGammaV2", seed, dev)
    try:
        a = torch.broadcast_to(tensor_arg(alpha, d)._t.to(dev), dims)
        b = None if beta is None else tensor_arg(beta, d)._t.to(dev)
        return wrap(_r.sample_gamma(a, b, [], d, dev, gen), d)
    except Exception as e:  # noqa: BLE001
        raise translate("StatelessRandomGammaV2", e) from None


@public("torchflow.random")
@_seeded_node
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0, name=None) -> Tensor:
    """Deterministic normal samples truncated to ``[minvals, maxvals]``.

    Args:
      shape: The output shape; the parameters broadcast to it.
      seed: A shape ``[2]`` int32/int64 Tensor.
      means: Means of the untruncated normals.
      stddevs: Their standard deviations.
      minvals: Lower bounds.
      maxvals: Upper bounds.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` and the parameters' dtype (float32 for Python numbers).
    """
    op = "StatelessParameterizedTruncatedNormal"
    ps = [tensor_arg(v) for v in (means, stddevs, minvals, maxvals)]
    d = ps[0]._dtype
    if not d.is_floating:
        raise TypeError(f"{op}: means must be floating, got {d.name}")
    dims = _r.shape_arg(op, shape)
    dev = context.default_device()
    gen = _gen(op, seed, dev)
    try:
        m, s, lo, hi = (torch.broadcast_to(p._t.to(dev).double(), dims) for p in ps)
        a = torch.special.ndtr((lo - m) / s)
        b = torch.special.ndtr((hi - m) / s)
        u = torch.rand(dims, dtype=torch.float64, device=dev, generator=gen)
        z = torch.special.ndtri((a + u * (b - a)).clamp(1e-300, 1 - 1e-16))
        x = torch.minimum(torch.maximum(m + s * z, lo), hi)
        return wrap(x.to(d._torch), d)
    except Exception as e:  # noqa: BLE001
        raise translate(op, e) from None


@public("torchflow.random.experimental")
@_seeded_node
def stateless_split(seed, num=2) -> Tensor:
    """Splits a stateless seed into ``num`` new seeds (shape ``[num, 2]``).

    Args:
      seed: A ``[2]`` int32/int64 tensor: a stateless seed.
      num: int, default 2: the number of new seeds.

    Returns:
      A ``[num, 2]`` tensor of ``seed``'s dtype.

    Differences from TensorFlow 2.4: the new seeds differ from TF's.
    """
    s0, s1 = seed_pair("StatelessSplit", seed)
    d = tensor_arg(seed)._dtype
    out = []
    for i in range(int(num)):
        h = _r.mix_seeds(s0, s1, 0x5EED, i)
        out.append([(h >> 32) & 0x7FFFFFFF, h & 0x7FFFFFFF])
    return wrap(torch.tensor(np.array(out, dtype=np.int64), dtype=d._torch,
                             device=context.default_device()), d)


@public("torchflow.random.experimental")
@_seeded_node
def stateless_fold_in(seed, data) -> Tensor:
    """Folds ``data`` (an integer) into a stateless seed, giving a new seed.

    Args:
      seed: A ``[2]`` int32/int64 tensor: a stateless seed.
      data: An int scalar to fold in.

    Returns:
      A ``[2]`` tensor of ``seed``'s dtype.

    Differences from TensorFlow 2.4: the new seed differs from TF's.
    """
    s0, s1 = seed_pair("StatelessFoldIn", seed)
    d = tensor_arg(seed)._dtype
    h = _r.mix_seeds(s0, s1, 0xF01D, int(data))
    return wrap(torch.tensor([(h >> 32) & 0x7FFFFFFF, h & 0x7FFFFFFF], dtype=d._torch,
                             device=context.default_device()), d)
