"""``tf.keras.optimizers.schedules``: learning rates as functions of the step.

The value is computed on the host from the (scalar) step, then returned as a
float32 tensor: a schedule is evaluated once per optimizer step, so a few
Python float operations are cheaper than a handful of tensor ops.
"""

from __future__ import annotations

import math

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras.engine.serialization import get_registered_object
from torchflow._src.ops.random_ops import normal
from torchflow._src.util.api import public

_PUB = "torchflow.keras.optimizers.schedules"


def _f(x) -> float:
    return float(x.numpy()) if hasattr(x, "numpy") else float(x)


def _out(value, like):
    dtype = getattr(like, "dtype", None) if hasattr(like, "numpy") else None
    return convert_to_tensor(value, dtype=dtype if dtype is not None and dtype.is_floating
                             else "float32")


@public(_PUB)
class LearningRateSchedule:
    """Base class of learning rate schedules: ``schedule(step)`` returns the rate at ``step``.

    Subclasses implement ``__call__(step)`` and ``get_config()``; an instance can be
    passed as an optimizer's ``learning_rate``, which calls it with the optimizer's
    ``iterations``.
    """

    def __call__(self, step):
        raise NotImplementedError("Learning rate schedule must override __call__")

    def get_config(self):
        raise NotImplementedError("Learning rate schedule must override get_config")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@public(_PUB)
class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (floored if staircase).

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      decay_steps: A positive number: the decay period in steps.
      decay_rate: A float: the factor applied every ``decay_steps``.
      staircase: bool, default False: decay at discrete intervals.
      name: str, default None.

    >>> import torchflow as tf
    >>> s = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    >>> round(float(s(10)), 6)
    0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        p = _f(step) / _f(self.decay_steps)
        if self.staircase:
            p = math.floor(p)
        return _out(_f(self.initial_learning_rate) * _f(self.decay_rate) ** p,
                    self.initial_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


@public(_PUB)
class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]``.

    Args:
      boundaries: A list of increasing step numbers.
      values: A list of ``len(boundaries) + 1`` rates, one per interval.
      name: str, default None.

    Raises:
      ValueError: If ``len(values) != len(boundaries) + 1``.
    """

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             "values")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        s = _f(step)
        for b, v in zip(self.boundaries, self.values):
            if s <= _f(b):
                return convert_to_tensor(v)
        return convert_to_tensor(self.values[-1])

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


@public(_PUB)
class PolynomialDecay(LearningRateSchedule):
    """Polynomial decay from ``initial_learning_rate`` to ``end_learning_rate``.

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      decay_steps: A positive number: the decay period in steps.
      end_learning_rate: float, default 0.0001: the rate reached at ``decay_steps``.
      power: float, default 1.0 (linear).
      cycle: bool, default False: restart the decay after ``decay_steps`` (with a longer
        period).
      name: str, default None.
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        s = _f(step)
        steps = _f(self.decay_steps)
        if self.cycle:
            mult = 1.0 if s == 0 else math.ceil(s / steps)
            steps = steps * mult
        else:
            s = min(s, steps)
        lr0, lr1 = _f(self.initial_learning_rate), _f(self.end_learning_rate)
        value = (lr0 - lr1) * (1.0 - s / steps) ** _f(self.power) + lr1
        return _out(value, self.initial_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


@public(_PUB)
class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``.

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      decay_steps: A positive number: the decay period in steps.
      decay_rate: A float: how fast the rate falls.
      staircase: bool, default False: floor ``step / decay_steps``.
      name: str, default None.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        p = _f(step) / _f(self.decay_steps)
        if self.staircase:
            p = math.floor(p)
        return _out(_f(self.initial_learning_rate) / (1.0 + _f(self.decay_rate) * p),
                    self.initial_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


@public(_PUB)
class CosineDecay(LearningRateSchedule):
    """Cosine decay to ``alpha * initial_learning_rate`` over ``decay_steps``.

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      decay_steps: A positive number: the decay period in steps.
      alpha: float, default 0.0: the final rate as a fraction of ``initial_learning_rate``.
      name: str, default None.
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        steps = _f(self.decay_steps)
        s = min(_f(step), steps)
        cosine = 0.5 * (1.0 + math.cos(math.pi * s / steps))
        a = _f(self.alpha)
        return _out(_f(self.initial_learning_rate) * ((1.0 - a) * cosine + a),
                    self.initial_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name}


@public(_PUB)
class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov and Hutter, 2017).

    The rate decays along a cosine from ``initial_learning_rate`` to
    ``alpha * initial_learning_rate`` over ``first_decay_steps`` steps, then restarts;
    each period is ``t_mul`` times longer and starts ``m_mul`` times lower.

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      first_decay_steps: A number: the length of the first period in steps.
      t_mul: float, default 2.0: how much longer each period is than the last.
      m_mul: float, default 1.0: how much lower each restart starts.
      alpha: float, default 0.0: the minimum rate, as a fraction of
        ``initial_learning_rate``.
      name: str, default None: the schedule's name.
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        frac = _f(step) / _f(self.first_decay_steps)
        t_mul, m_mul = _f(self._t_mul), _f(self._m_mul)
        if t_mul == 1.0:
            i = math.floor(frac)
            frac -= i
        else:
            i = math.floor(math.log(1.0 - frac * (1.0 - t_mul)) / math.log(t_mul))
            sum_r = (1.0 - t_mul ** i) / (1.0 - t_mul)
            frac = (frac - sum_r) / t_mul ** i
        cosine = 0.5 * m_mul ** i * (1.0 + math.cos(math.pi * frac))
        a = _f(self.alpha)
        return _out(_f(self.initial_learning_rate) * ((1.0 - a) * cosine + a),
                    self.initial_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


@public("torchflow.keras.experimental")
class LinearCosineDecay(LearningRateSchedule):
    """Linear cosine decay (Bello et al., 2017), TF 2.4's ``tf.keras.experimental`` schedule.

    With ``s = min(step, decay_steps)``: ``lr * ((alpha + (decay_steps - s) / decay_steps)
    * 0.5 * (1 + cos(pi * 2 * num_periods * s / decay_steps)) + beta)``.

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      decay_steps: A positive number: the decay period in steps.
      num_periods: float, default 0.5: the number of cosine periods in the decay.
      alpha: float, default 0.0: added to the linear part.
      beta: float, default 0.001: added to the product.
      name: str, default None.

    >>> import torchflow as tf
    >>> s = tf.keras.experimental.LinearCosineDecay(0.1, 10)
    >>> round(float(s(10)), 6)
    0.0001
    """

    def __init__(self, initial_learning_rate, decay_steps, num_periods=0.5, alpha=0.0,
                 beta=0.001, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.num_periods = num_periods
        self.alpha = alpha
        self.beta = beta
        self.name = name

    def _linear(self, s, steps):
        return (steps - s) / steps

    def __call__(self, step):
        steps = _f(self.decay_steps)
        s = min(_f(step), steps)
        cosine = 0.5 * (1.0 + math.cos(math.pi * 2.0 * _f(self.num_periods) * s / steps))
        value = (_f(self.alpha) + self._linear(s, steps)) * cosine + _f(self.beta)
        return _out(_f(self.initial_learning_rate) * value, self.initial_learning_rate)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "num_periods": self.num_periods,
                "alpha": self.alpha, "beta": self.beta, "name": self.name}


@public("torchflow.keras.experimental")
class NoisyLinearCosineDecay(LinearCosineDecay):
    """``LinearCosineDecay`` with Gaussian noise on the linear part, TF 2.4's schedule.

    The linear part ``(decay_steps - s) / decay_steps`` gets noise drawn from
    ``N(0, initial_variance / (1 + s) ** variance_decay)`` at every call (``tf.random``'s
    global seed applies).

    Args:
      initial_learning_rate: A float (or scalar tensor): the rate at step 0.
      decay_steps: A positive number: the decay period in steps.
      initial_variance: float, default 1.0: the noise variance at step 0.
      variance_decay: float, default 0.55: how fast the noise variance falls.
      num_periods: float, default 0.5: the number of cosine periods in the decay.
      alpha: float, default 0.0: added to the linear part.
      beta: float, default 0.001: added to the product.
      name: str, default None.

    >>> import torchflow as tf
    >>> s = tf.keras.experimental.NoisyLinearCosineDecay(0.1, 10, initial_variance=0.0)
    >>> round(float(s(0)), 6)
    0.1001
    """

    def __init__(self, initial_learning_rate, decay_steps, initial_variance=1.0,
                 variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001, name=None):
        super().__init__(initial_learning_rate, decay_steps, num_periods, alpha, beta, name)
        self.initial_variance = initial_variance
        self.variance_decay = variance_decay

    def _linear(self, s, steps):
        std = math.sqrt(_f(self.initial_variance) / (1.0 + s) ** _f(self.variance_decay))
        return (steps - s) / steps + _f(normal([], stddev=std))

    def get_config(self):
        config = super().get_config()
        config.update(initial_variance=self.initial_variance,
                      variance_decay=self.variance_decay)
        return {k: config[k] for k in ("initial_learning_rate", "decay_steps",
                                       "initial_variance", "variance_decay", "num_periods",
                                       "alpha", "beta", "name")}


_CLASSES = {c.__name__: c for c in (ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay,
                                     InverseTimeDecay, CosineDecay, CosineDecayRestarts,
                                     LinearCosineDecay, NoisyLinearCosineDecay)}


@public(_PUB)
def serialize(learning_rate_schedule):
    """``{"class_name", "config"}`` of a schedule.

    Args:
      learning_rate_schedule: A Keras learning-rate schedule instance.

    Returns:
      A ``{'class_name': ..., 'config': ...}`` dict (a function's name for functions).
    """
    return {"class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config()}


@public(_PUB)
def deserialize(config, custom_objects=None):
    """A schedule from ``serialize``'s output.

    Args:
      config: A ``{'class_name', 'config'}`` dict as ``serialize`` returns (or a name).
      custom_objects: None (default) or a dict mapping names to user classes/functions.

    Returns:
      A new learning-rate schedule.

    Raises:
      ValueError: For an unknown class name.
    """
    name = config["class_name"]
    cls = get_registered_object(name, custom_objects) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"Unknown decay: {name}")
    return cls.from_config(dict(config["config"]))
