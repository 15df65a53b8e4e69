"""Keras initializers (TF 2.4's ``tf.keras.initializers``).

With ``seed=None`` each call draws fresh values from torchflow's random ops
(so ``tf.random.set_seed`` makes them reproducible); with a ``seed`` every
call returns the same values (stateless random ops), as in TF 2.4.
"""

from __future__ import annotations

import math

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.keras import backend
from torchflow._src.ops import random_ops, stateless_random_ops
from torchflow._src.ops.array_ops import reshape, transpose
from torchflow._src.ops.creation_ops import eye, fill, ones, zeros
from torchflow._src.ops.linalg_decomp_ops import qr
from torchflow._src.ops.linalg_ops import diag_part
from torchflow._src.ops.math_ops import multiply
from torchflow._src.ops.unary_math_ops import sign
from torchflow._src.util.api import public

_NS = "torchflow.keras.initializers"


def _dtype(dtype, what="float"):
    d = dtypes.as_dtype(dtype or backend.floatx())
    if what == "float" and not d.is_floating:
        raise ValueError(f"Expected floating point type, got {d}.")
    return d


def _dims(shape):
    return [int(s) for s in shape]


@public(_NS)
class Initializer:
    """Initializer base class: ``__call__(shape, dtype=None)`` returns a tensor.

    Returns:
      Subclasses implement ``__call__(shape, dtype=None)`` and ``get_config()``.
    """

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        config.pop("dtype", None)
        return cls(**config)


@public(_NS)
class Zeros(Initializer):
    """Initializes to 0.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` filled with
      0.
    """

    def __call__(self, shape, dtype=None, **kwargs):
        return zeros(_dims(shape), dtype=_dtype(dtype, "any"))


@public(_NS)
class Ones(Initializer):
    """Initializes to 1.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` filled with
      1.
    """

    def __call__(self, shape, dtype=None, **kwargs):
        return ones(_dims(shape), dtype=_dtype(dtype, "any"))


@public(_NS)
class Constant(Initializer):
    """Initializes to a constant scalar ``value``.

    Args:
      value: A Python scalar (default 0): the fill value.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32 by
      default).
    """

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        d = _dtype(dtype, "any")
        v = np.asarray(self.value)
        if v.ndim == 0:
            return fill(_dims(shape), constant(v.item(), dtype=d))
        return constant(np.broadcast_to(v, _dims(shape)).astype(d.as_numpy_dtype), dtype=d)

    def get_config(self):
        return {"value": self.value}


def _sample(kind, shape, dtype, seed, **params):
    if seed is not None:
        s = [int(seed), 0]
        if kind == "normal":
            return stateless_random_ops.stateless_normal(shape, s, dtype=dtype, **params)
        if kind == "uniform":
            return stateless_random_ops.stateless_uniform(shape, s, dtype=dtype, **params)
        return stateless_random_ops.stateless_truncated_normal(shape, s, dtype=dtype, **params)
    if kind == "normal":
        return random_ops.normal(shape, dtype=dtype, **params)
    if kind == "uniform":
        return random_ops.uniform(shape, dtype=dtype, **params)
    return random_ops.truncated_normal(shape, dtype=dtype, **params)


@public(_NS)
class RandomNormal(Initializer):
    """Normal distribution (``mean=0.0, stddev=0.05``).

    Args:
      mean: float, default 0.0.
      stddev: float, default 0.05.
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32 by
      default).
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return _sample("normal", _dims(shape), _dtype(dtype), self.seed, mean=self.mean,
                       stddev=self.stddev)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@public(_NS)
class RandomUniform(Initializer):
    """Uniform distribution on ``[minval, maxval)`` (default ``[-0.05, 0.05)``).

    Args:
      minval: float, default -0.05: the lower bound (inclusive).
      maxval: float, default 0.05: the upper bound (exclusive).
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32 by
      default).
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None, **kwargs):
        d = _dtype(dtype, "any")
        if not (d.is_floating or d.is_integer):
            raise ValueError(f"Expected float or integer dtype, got {d}.")
        return _sample("uniform", _dims(shape), d, self.seed, minval=self.minval,
                       maxval=self.maxval)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


@public(_NS)
class TruncatedNormal(Initializer):
    """Normal distribution truncated at two standard deviations.

    Args:
      mean: float, default 0.0.
      stddev: float, default 0.05: of the normal before truncation.
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32 by
      default).
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return _sample("truncated", _dims(shape), _dtype(dtype), self.seed, mean=self.mean,
                       stddev=self.stddev)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


def compute_fans(shape):
    """``(fan_in, fan_out)`` of a weight shape, as Keras computes them."""
    shape = _dims(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


@public(_NS)
class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, ``n`` the fan in/out/average.

    Args:
      scale: Positive scaling factor.
      mode: ``"fan_in"``, ``"fan_out"`` or ``"fan_avg"``.
      distribution: ``"truncated_normal"``, ``"untruncated_normal"`` or ``"uniform"``.
      seed: Optional seed.

    Raises:
      ValueError: For a non-positive scale or an unknown mode/distribution.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if scale <= 0.0:
            raise ValueError(f"`scale` must be positive float. Received: scale={scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None, **kwargs):
        d = _dtype(dtype)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        dims = _dims(shape)
        if self.distribution == "truncated_normal":
            return _sample("truncated", dims, d, self.seed, mean=0.0,
                           stddev=math.sqrt(scale) / 0.87962566103423978)
        if self.distribution == "untruncated_normal":
            return _sample("normal", dims, d, self.seed, mean=0.0, stddev=math.sqrt(scale))
        limit = math.sqrt(3.0 * scale)
        return _sample("uniform", dims, d, self.seed, minval=-limit, maxval=limit)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}


def _vs(name, scale, mode, distribution, doc):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale=scale, mode=mode, distribution=distribution,
                                 seed=seed)

    def get_config(self):
        return {"seed": self.seed}

    cls = type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config,
                                          "__doc__": doc})
    return public(_NS)(cls)


GlorotUniform = _vs("GlorotUniform", 1.0, "fan_avg", "uniform",
    """Glorot (Xavier) uniform: limit sqrt(6 / (fan_in + fan_out)).

    Args:
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32
      by default).
    """)
GlorotNormal = _vs("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
    """Glorot (Xavier) normal: truncated, stddev sqrt(2 / (fan_in + fan_out)).

    Args:
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32
      by default).
    """)
LecunNormal = _vs("LecunNormal", 1.0, "fan_in", "truncated_normal",
    """LeCun normal: truncated, stddev sqrt(1 / fan_in).

    Args:
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32
      by default).
    """)
LecunUniform = _vs("LecunUniform", 1.0, "fan_in", "uniform",
    """LeCun uniform: limit sqrt(3 / fan_in).

    Args:
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32
      by default).
    """)
HeNormal = _vs("HeNormal", 2.0, "fan_in", "truncated_normal",
    """He normal: truncated, stddev sqrt(2 / fan_in).

    Args:
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32
      by default).
    """)
HeUniform = _vs("HeUniform", 2.0, "fan_in", "uniform",
    """He uniform: limit sqrt(6 / fan_in).

    Args:
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32
      by default).
    """)


@public(_NS)
class Orthogonal(Initializer):
    """An (semi-)orthogonal matrix (QR of a normal sample) times ``gain``.

    Args:
      gain: float, default 1.0: a factor applied to the matrix.
      seed: None (default) or a Python int: makes the values deterministic.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32 by
      default).

    Raises:
      ValueError: For shapes of rank < 2.
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None, **kwargs):
        d = _dtype(dtype)
        dims = _dims(shape)
        if len(dims) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. "
                             f"Received: shape={shape} of rank {len(dims)}.")
        rows = 1
        for s in dims[:-1]:
            rows *= s
        cols = dims[-1]
        flat = [max(rows, cols), min(rows, cols)]
        a = _sample("normal", flat, d, self.seed, mean=0.0, stddev=1.0)
        q, r = qr(a, full_matrices=False)
        q = multiply(q, sign(diag_part(r)))
        if rows < cols:
            q = transpose(q)
        return multiply(reshape(q, dims), self.gain)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


@public(_NS)
class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only).

    Args:
      gain: float, default 1.0: the diagonal value.

    Returns:
      An initializer; ``init(shape, dtype=None)`` returns a tensor of ``shape`` (float32 by
      default).

    Raises:
      ValueError: For shapes that are not 2-D.
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        dims = _dims(shape)
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return multiply(eye(dims[0], dims[1], dtype=_dtype(dtype)), self.gain)

    def get_config(self):
        return {"gain": self.gain}
