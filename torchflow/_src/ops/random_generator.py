"""``tf.random.Generator``: an explicit random-number-generator state object.

The state is three 64-bit integers (TF's Philox state layout: two counter words
and a key). Every draw derives a fresh ``torch.Generator`` from the state and
then advances the counter, so a generator rebuilt from the same state (or the
same seed) repeats its numbers.

Differences from TensorFlow 2.4: the numbers differ from TF's Philox numbers
and each draw advances the counter by 1 (TF advances it by the amount of
randomness used); ``state`` is a read-only int64 Tensor, not a ``tf.Variable``.
"""

from __future__ import annotations

import enum
import os
import zlib

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import translate
from torchflow._src.ops import random_ops as _r
from torchflow._src.ops import stateless_random_ops as _sr
from torchflow._src.ops._dispatch import Tensor, tensor_arg, wrap
from torchflow._src.util.api import public

_MASK64 = (1 << 64) - 1


@public("torchflow.random")
class Algorithm(enum.Enum):
    """The RNG algorithm names TF accepts (all map to torch's generators here)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg(alg) -> int:
    if alg is None:
        return 1
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        names = {"philox": 1, "threefry": 2, "auto_select": 3}
        if alg.lower() not in names:
            raise ValueError(f"Unsupported algorithm id: {alg}")
        return names[alg.lower()]
    return int(alg)


def _signed(x: int) -> int:
    x &= _MASK64
    return x - (1 << 64) if x >= 1 << 63 else x


@public("torchflow.random")
def create_rng_state(seed, alg) -> np.ndarray:
    """The int64 state ``[3]`` that ``Generator.from_seed(seed, alg)`` starts from."""
    _alg(alg)
    return np.array([_signed(int(seed)), 0, 0], dtype=np.int64)


@public("torchflow.random")
class Generator:
    """Random-number generator with explicit state.

    >>> import torchflow as tf
    >>> g1 = tf.random.Generator.from_seed(1)
    >>> g2 = tf.random.Generator.from_seed(1)
    >>> bool((g1.normal([3]).numpy() == g2.normal([3]).numpy()).all())
    True
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` "
                                 "can be provided.")
            self._state = list(copy_from._state)
            self._alg = copy_from._alg
            return
        if state is None:
            raise ValueError("`state` must be provided (or use a from_* constructor).")
        self._alg = _alg(alg)
        self._set_state(state)

    def _set_state(self, state) -> None:
        a = np.asarray(state.numpy() if hasattr(state, "numpy") else state).reshape(-1)
        if a.shape != (3,):
            raise ValueError(f"The size of the state must be 3, got {a.size}")
        self._state = [int(v) & _MASK64 for v in a.tolist()]

    # --- constructors -----------------------------------------------------------
    @classmethod
    def from_seed(cls, seed, alg=None) -> "Generator":
        """A generator whose state is derived from an integer ``seed``."""
        return cls(state=create_rng_state(seed, alg or 1), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> "Generator":
        """A generator seeded from the operating system's entropy."""
        s = np.frombuffer(os.urandom(24), dtype=np.int64)
        return cls(state=s, alg=alg)

    @classmethod
    def from_state(cls, state, alg) -> "Generator":
        """A generator starting at ``state`` (int64 ``[3]``)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg) -> "Generator":
        """A generator from a key (scalar) and counter (``[2]``)."""
        c = np.asarray(counter.numpy() if hasattr(counter, "numpy") else counter).reshape(-1)
        k = int(np.asarray(key.numpy() if hasattr(key, "numpy") else key).reshape(-1)[0])
        return cls(state=[int(c[0]), int(c[1]), k], alg=alg)

    # --- state ----------------------------------------------------------------------
    @property
    def state(self) -> Tensor:
        """The current state, an int64 Tensor of shape ``[3]``."""
        return wrap(torch.tensor([_signed(v) for v in self._state], dtype=torch.int64),
                    dtypes.int64)

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> Tensor:
        return wrap(torch.tensor(_signed(self._state[2]), dtype=torch.int64), dtypes.int64)

    def reset(self, state) -> None:
        """Resets the state to ``state``."""
        self._set_state(state)

    def reset_from_seed(self, seed) -> None:
        """Resets the state as ``from_seed(seed)`` would create it."""
        self._set_state(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter) -> None:
        g = Generator.from_key_counter(key, counter, self._alg)
        self._state = g._state

    def skip(self, delta) -> None:
        """Advances the counter by ``delta`` draws."""
        self._advance(int(delta))

    def _advance(self, n: int = 1) -> None:
        lo = self._state[0] + n
        self._state[0] = lo & _MASK64
        if lo >> 64:
            self._state[1] = (self._state[1] + (lo >> 64)) & _MASK64

    def _next(self, op: str, device) -> torch.Generator:
        gen = _r.make_generator(_r.mix_seeds(*self._state, zlib.crc32(op.encode())), device)
        self._advance()
        return gen

    def _stateless_seed(self) -> Tensor:
        seed = [_signed(_r.mix_seeds(self._state[0], self._state[1])), _signed(self._state[2])]
        self._advance()
        return wrap(torch.tensor(seed, dtype=torch.int64), dtypes.int64)

    # --- sampling ---------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None) -> Tensor:
        """Normal samples of ``shape`` and ``dtype``."""
        d = _r.check_dtype(dtype, _r._FLOATS)
        dims = _r.shape_arg("StatefulStandardNormalV2", shape)
        dev = context.default_device()
        m, s = _r.param(mean, d, dev), _r.param(stddev, d, dev)
        gen = self._next("normal", dev)
        try:
            return wrap(_r.sample_normal(dims, d, dev, gen, m, s), d)
        except Exception as e:  # noqa: BLE001
            raise translate("StatefulStandardNormalV2", e) from None

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                         name=None) -> Tensor:
        """Truncated-normal samples (within two standard deviations)."""
        d = _r.check_dtype(dtype, _r._FLOATS)
        dims = _r.shape_arg("StatefulTruncatedNormal", shape)
        dev = context.default_device()
        m, s = _r.param(mean, d, dev), _r.param(stddev, d, dev)
        gen = self._next("truncated_normal", dev)
        try:
            return wrap(_r.sample_truncated_normal(dims, d, dev, gen, m, s), d)
        except Exception as e:  # noqa: BLE001
            raise translate("StatefulTruncatedNormal", e) from None

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None) -> Tensor:
        """Uniform samples in ``[minval, maxval)``.

        For integer dtypes ``minval`` and ``maxval`` must both be given, or both
        be None for the dtype's full range.
        """
        d = _r.check_dtype(dtype, _r._UNIFORM_DTYPES + (dtypes.uint32, dtypes.uint64))
        if d.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"For integer dtype {d}, minval and maxval must be both `None` or both "
                    f"non-`None`; got minval={minval} and maxval={maxval}")
        return _sr.stateless_uniform(shape, self._stateless_seed(), minval=minval,
                                     maxval=maxval, dtype=d)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None) -> Tensor:
        """Uniform integers over the whole range of ``dtype``."""
        return self.uniform(shape, minval=None, maxval=None, dtype=dtype)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None) -> Tensor:
        """Binomial samples with ``counts`` trials of success probability ``probs``."""
        return _sr.stateless_binomial(shape, self._stateless_seed(), counts, probs,
                                      output_dtype=dtype)

    def make_seeds(self, count=1) -> Tensor:
        """``count`` seeds for stateless ops: an int64 Tensor of shape ``[2, count]``."""
        dev = context.default_device()
        gen = self._next("make_seeds", dev)
        try:
            x = torch.randint(-(2**63), 2**63 - 1, (2, int(count)), dtype=torch.int64,
                              device=dev, generator=gen)
        except Exception as e:  # noqa: BLE001
            raise translate("RngReadAndSkip", e) from None
        return wrap(x, dtypes.int64)

    def split(self, count=1) -> list:
        """``count`` new, independent generators derived from this one."""
        seeds = tensor_arg(self.make_seeds(count)).numpy()
        return [Generator(state=[int(seeds[0, i]), int(seeds[1, i]), self._state[2]],
                          alg=self._alg) for i in range(int(count))]

    def __repr__(self) -> str:
        return f"<tf.random.Generator state={[_signed(v) for v in self._state]}>"


@public("torchflow.random")
def get_global_generator() -> Generator:
    """The global generator (created from a non-deterministic state on first use)."""
    g = context.GLOBAL
    if g.global_generator is None:
        g.global_generator = Generator.from_non_deterministic_state()
    return g.global_generator


@public("torchflow.random")
def set_global_generator(generator) -> None:
    """Replaces the global generator with ``generator``."""
    context.GLOBAL.global_generator = generator
