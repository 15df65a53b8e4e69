"""``tf.random.Generator``: an explicit random-number-generator state object.

The state is three 64-bit integers, TF's Philox layout (a 128-bit counter and
a key). ``normal``, ``uniform`` (float32/float64 and integers),
``truncated_normal``, ``make_seeds`` and ``split`` run TF's Philox algorithm
and advance the counter as TF does (256 blocks per output), so they give
TensorFlow's exact numbers and states.

Differences from TensorFlow 2.4: ``binomial`` and half-precision draws use a
torch generator seeded from the state (deterministic, not TF's numbers);
``state`` is a read-only int64 Tensor, not a ``tf.Variable``.
"""

from __future__ import annotations

import enum
import os
import zlib

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.errors import invalid_argument, translate
from torchflow._src.ops import philox
from torchflow._src.ops import random_ops as _r
from torchflow._src.ops import stateless_random_ops as _sr
from torchflow._src.ops._dispatch import Tensor, wrap
from torchflow._src.util.api import public

_MASK64 = (1 << 64) - 1


@public("torchflow.random")
class Algorithm(enum.Enum):
    """The RNG algorithm names TF accepts (``tf.random.Algorithm``).

    ``PHILOX`` (1), ``THREEFRY`` (2) and ``AUTO_SELECT`` (3); ``Generator`` and the
    stateless ops take a member, its name or its int value.
    """

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
    """The int64 state ``[3]`` that ``Generator.from_seed(seed, alg)`` starts from.

    Args:
      seed: A Python int seed.
      alg: A ``tf.random.Algorithm`` (or its name / int value).

    Returns:
      An int64 NumPy array of shape ``[3]``.
    """
    _alg(alg)
    return np.array([_signed(int(seed)), 0, 0], dtype=np.int64)


@public("torchflow.random")
class Generator:
    """Random-number generator with explicit state.

    Args:
      copy_from: None (default) or a ``Generator`` to copy.
      state: None or an int64 state vector (as from ``create_rng_state``).
      alg: None or the ``tf.random.Algorithm`` of ``state``.

    Raises:
      ValueError: If ``copy_from`` comes with ``state`` or ``alg``, or no ``state`` is given
        (use a ``from_*`` constructor).

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
        """A generator whose state is derived from an integer ``seed``.

        Args:
          seed: int, the seed; the same seed gives the same sequence (and TF's numbers).
          alg: None (Philox), an ``tf.random.Algorithm`` or its int/str name.

        Returns:
          A new ``Generator``.
        """
        return cls(state=create_rng_state(seed, alg or 1), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> "Generator":
        """A generator seeded from the operating system's entropy.

        Args:
          alg: None (Philox), an ``tf.random.Algorithm`` or its int/str name.

        Returns:
          A new ``Generator`` whose sequence differs from run to run.
        """
        s = np.frombuffer(os.urandom(24), dtype=np.int64)
        return cls(state=s, alg=alg)

    @classmethod
    def from_state(cls, state, alg) -> "Generator":
        """A generator starting at ``state`` (int64 ``[3]``).

        Args:
          state: The state: an int64 Tensor or list ``[counter_low, counter_high, key]``.
          alg: None (Philox), an ``tf.random.Algorithm`` or its int/str name.

        Returns:
          A new ``Generator``.
        """
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg) -> "Generator":
        """A generator from a key (scalar) and counter (``[2]``).

        Args:
          key: An int (or scalar Tensor), the Philox key.
          counter: Two ints (or a ``[2]`` Tensor), the Philox counter.
          alg: None (Philox), an ``tf.random.Algorithm`` or its int/str name.

        Returns:
          A new ``Generator``.
        """
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
        """Resets the state to ``state``.

        Args:
          state: The new state, an int64 ``[3]`` Tensor or list.
        """
        self._set_state(state)

    def reset_from_seed(self, seed) -> None:
        """Resets the state as ``from_seed(seed)`` would create it.

        Args:
          seed: int, the seed.
        """
        self._set_state(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter) -> None:
        """Resets the state as ``from_key_counter(key, counter)`` would create it.

        Args:
          key: An int (or scalar Tensor), the Philox key.
          counter: Two ints (or a ``[2]`` Tensor), the Philox counter.
        """
        g = Generator.from_key_counter(key, counter, self._alg)
        self._state = g._state

    def skip(self, delta) -> None:
        """Advances the counter by ``delta`` draws, as if that many had been made.

        Args:
          delta: int, the number of draws to skip.
        """
        self._advance(int(delta))

    def _advance(self, n: int = 1) -> None:
        lo = self._state[0] + n
        self._state[0] = lo & _MASK64
        if lo >> 64:
            self._state[1] = (self._state[1] + (lo >> 64)) & _MASK64

    def _next(self, op: str, device) -> torch.Generator:
        gen = _r.make_generator(_r.mix_seeds(*self._state, zlib.crc32(op.encode())), device)
        self._advance(256)
        return gen

    def _take(self, n: int):
        """Philox key/counter at the current state; then skips what ``n`` outputs use."""
        s0, s1, s2 = self._state
        kc = ((s2 & 0xFFFFFFFF, s2 >> 32), (s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32))
        self._advance(256 * n)
        return kc

    def _stateless_seed(self) -> Tensor:
        seed = [_signed(_r.mix_seeds(self._state[0], self._state[1])), _signed(self._state[2])]
        self._advance(256)
        return wrap(torch.tensor(seed, dtype=torch.int64), dtypes.int64)

    # --- sampling ---------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None) -> Tensor:
        """Normal samples of ``shape`` and ``dtype`` (TF's numbers for float32/float64).

        Args:
          shape: The output shape (a list of ints or a 1-D int Tensor).
          mean: float or Tensor, default 0.0.
          stddev: float or Tensor, default 1.0.
          dtype: A floating dtype, default ``tf.float32``.
          name: A name for the operation (optional).

        Returns:
          A Tensor of ``shape`` and ``dtype``.
        """
        d = _r.check_dtype(dtype, _r._FLOATS)
        dims = _r.shape_arg("StatefulStandardNormalV2", shape)
        dev = context.default_device()
        m, s = _r.param(mean, d, dev), _r.param(stddev, d, dev)
        try:
            if d is dtypes.float32 or d is dtypes.float64:
                n = _r._numel(dims)
                x = philox.normal(self._take(n), n, d._torch, dev).reshape(dims)
                return wrap(_r._affine(x, s, m), d)
            gen = self._next("normal", dev)
            return wrap(_r.sample_normal(dims, d, dev, gen, m, s), d)
        except Exception as e:  # noqa: BLE001
            raise translate("StatefulStandardNormalV2", e) from None

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                         name=None) -> Tensor:
        """Truncated-normal samples (within two standard deviations, redrawn beyond).

        Args:
          shape: The output shape (a list of ints or a 1-D int Tensor).
          mean: float or Tensor, default 0.0.
          stddev: float or Tensor, default 1.0: before truncation.
          dtype: A floating dtype, default ``tf.float32``.
          name: A name for the operation (optional).

        Returns:
          A Tensor of ``shape`` and ``dtype``.
        """
        d = _r.check_dtype(dtype, _r._FLOATS)
        dims = _r.shape_arg("StatefulTruncatedNormal", shape)
        dev = context.default_device()
        m, s = _r.param(mean, d, dev), _r.param(stddev, d, dev)
        try:
            if d is dtypes.float32 or d is dtypes.float64:
                n = _r._numel(dims)
                x = philox.truncated_normal(self._take(n), n, d._torch, dev).reshape(dims)
                return wrap(_r._affine(x, s, m), d)
            gen = self._next("truncated_normal", dev)
            return wrap(_r.sample_truncated_normal(dims, d, dev, gen, m, s), d)
        except Exception as e:  # noqa: BLE001
            raise translate("StatefulTruncatedNormal", e) from None

    def uniform(self, shape, minval: object = 0, maxval: object = None, dtype=dtypes.float32,
                name=None) -> Tensor:
        """Uniform samples in ``[minval, maxval)``.

        For integer dtypes ``minval`` and ``maxval`` must both be given, or both
        be None for the dtype's full range.

        Args:
          shape: The output shape (a list of ints or a 1-D int Tensor).
          minval: The lower bound (inclusive), default 0.
          maxval: The upper bound (exclusive); None is 1 for floats.
          dtype: A float or int32/int64/uint32/uint64 dtype, default ``tf.float32``.
          name: A name for the operation (optional).

        Returns:
          A Tensor of ``shape`` and ``dtype``.

        Raises:
          ValueError: for an integer dtype, only one of ``minval``/``maxval`` is None.
        """
        d = _r.check_dtype(dtype, _r._UNIFORM_DTYPES + (dtypes.uint32, dtypes.uint64))
        op = "StatefulUniformInt" if d.is_integer else "StatefulUniform"
        if d.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"For integer dtype {d}, minval and maxval must be both `None` or both "
                    f"non-`None`; got minval={minval} and maxval={maxval}")
        elif maxval is None:
            maxval = 1
        dims = _r.shape_arg(op, shape)
        dev = context.default_device()
        n = _r._numel(dims)
        try:
            if d.is_integer and minval is None:
                words = philox.full_int(self._take(n), n, d.size == 8, dev)
                return wrap(torch.from_numpy(words.view(d.as_numpy_dtype).reshape(dims).copy())
                            .to(dev), d)
            lo, hi = _r.param(minval, d, dev), _r.param(maxval, d, dev)
            if d.is_integer:
                a, b = _r._int_bound(op, lo, "minval"), _r._int_bound(op, hi, "maxval")
                if a >= b:
                    raise invalid_argument(op, f"Need minval < maxval, got {a} >= {b}")
                x = philox.uniform_int(self._take(n), n, a, b, d.size == 8, dev)
                return wrap(x.reshape(dims).to(d._torch), d)
            if d is dtypes.float32 or d is dtypes.float64:
                x = philox.uniform(self._take(n), n, d._torch, dev).reshape(dims)
                if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float))
                        and lo == 0 and hi == 1):
                    x = x * (hi - lo) + lo
                return wrap(x, d)
            return wrap(_r.sample_uniform(op, dims, d, dev, self._next("uniform", dev), lo, hi),
                        d)
        except Exception as e:  # noqa: BLE001
            raise translate(op, e) from None

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None) -> Tensor:
        """Uniform integers over the whole range of ``dtype``.

        Args:
          shape: The output shape (a list of ints or a 1-D int Tensor).
          dtype: ``tf.int32``, ``tf.int64``, ``tf.uint32`` or ``tf.uint64`` (default).
          name: A name for the operation (optional).

        Returns:
          A Tensor of ``shape`` and ``dtype``.
        """
        return self.uniform(shape, minval=None, maxval=None, dtype=dtype)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None) -> Tensor:
        """Binomial samples with ``counts`` trials of success probability ``probs``.

        Args:
          shape: The output shape (a list of ints or a 1-D int Tensor).
          counts: A float Tensor broadcastable to ``shape``: the number of trials.
          probs: A float Tensor broadcastable to ``shape``: the success probabilities.
          dtype: The integer dtype of the result, default ``tf.int32``.
          name: A name for the operation (optional).

        Returns:
          A Tensor of ``shape`` and ``dtype``.
        """
        return _sr.stateless_binomial(shape, self._stateless_seed(), counts, probs,
                                      output_dtype=dtype)

    def make_seeds(self, count=1) -> Tensor:
        """``count`` seeds for stateless ops, as TF makes them.

        Args:
          count: int, default 1: the number of seeds.

        Returns:
          An int64 ``[2, count]`` Tensor whose first row is random keys and second row
          zeros; column ``i`` is a seed for ``tf.random.stateless_*``.
        """
        keys = self.uniform_full_int([int(count)], dtype=dtypes.int64)._t
        return wrap(torch.stack([keys, torch.zeros_like(keys)]), dtypes.int64)

    def split(self, count=1) -> list:
        """``count`` new, independent generators: state ``[0, 0, key]`` from fresh keys.

        Args:
          count: int, default 1: the number of generators.

        Returns:
          A list of ``Generator`` objects (this one advances).
        """
        keys = self.uniform_full_int([int(count)], dtype=dtypes.int64).numpy()
        return [Generator(state=[0, 0, int(k)], alg=self._alg) for k in keys.tolist()]

    def __repr__(self) -> str:
        return f"<tf.random.Generator state={[_signed(v) for v in self._state]}>"


@public("torchflow.random")
def get_global_generator() -> Generator:
    """The global generator (created from a non-deterministic state on first use).

    Returns:
      The global ``tf.random.Generator``.
    """
    g = context.GLOBAL
    gen = g.global_generator
    if gen is None:
        gen = Generator.from_non_deterministic_state()
        # context.py (the core layer, which cannot name this ops-level class) declares the
        # slot with its initial None only.
        g.global_generator = gen  # pyright: ignore[reportAttributeAccessIssue]
    return gen


@public("torchflow.random")
def set_global_generator(generator) -> None:
    """Replaces the global generator with ``generator``.

    Args:
      generator: A ``tf.random.Generator``; later global draws use it.
    """
    context.GLOBAL.global_generator = generator
