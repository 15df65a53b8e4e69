"""``tf.train.experimental.LossScale``, ``FixedLossScale`` and ``DynamicLossScale``
(TF 2.4's deprecated loss-scale objects, which ``LossScaleOptimizer`` superseded)."""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.variables import Variable
from torchflow._src.util.api import public


def _all_finite(grads) -> bool:
    for g in grads:
        if g is None:
            continue
        a = g.values.numpy() if hasattr(g, "values") and hasattr(g, "indices") else \
            (g.numpy() if hasattr(g, "numpy") else np.asarray(g))
        if not np.all(np.isfinite(a)):
            return False
    return True


@public("torchflow.train.experimental")
class LossScale:
    """The base class: ``loss_scale()`` is the current scale, ``update(grads)``
    adjusts it and returns ``(update_op, should_apply_gradients)``."""

    def __call__(self):
        raise NotImplementedError

    def update(self, grads):
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@public("torchflow.train.experimental")
class FixedLossScale(LossScale):
    """A constant loss scale.

    Args:
      loss_scale_value: The scale, a Python number >= 1.

    Raises:
      ValueError: If the value is below 1.
    """

    def __init__(self, loss_scale_value):
        if not isinstance(loss_scale_value, (int, float)) or isinstance(loss_scale_value,
                                                                        bool):
            raise ValueError(f"loss_scale_value must be a Python int or float, but got "
                             f"{loss_scale_value!r}")
        if loss_scale_value < 1:
            raise ValueError(f"loss_scale_value must be at least 1, but was "
                             f"{loss_scale_value}")
        self._value = float(loss_scale_value)

    def __call__(self):
        return convert_to_tensor(self._value, dtypes.float32)

    def update(self, grads):
        return None, convert_to_tensor(True)

    def get_config(self) -> dict:
        return {"loss_scale_value": self._value}

    def __repr__(self) -> str:
        return f"FixedLossScale({self._value})"


@public("torchflow.train.experimental")
class DynamicLossScale(LossScale):
    """A loss scale that halves on non-finite gradients and doubles after
    ``increment_period`` finite steps in a row.

    Args:
      initial_loss_scale: The starting scale (default 2**15).
      increment_period: Finite steps before the scale is multiplied.
      multiplier: The factor (default 2).
    """

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.0):
        self._initial = float(initial_loss_scale)
        self._period = int(increment_period)
        self._multiplier = float(multiplier)
        self._scale = Variable(self._initial, trainable=False, name="current_loss_scale")
        self._good = Variable(0, dtype=dtypes.int64, trainable=False, name="good_steps")

    @property
    def initial_loss_scale(self) -> float:
        return self._initial

    @property
    def increment_period(self) -> int:
        return self._period

    @property
    def multiplier(self) -> float:
        return self._multiplier

    def __call__(self):
        return self._scale.read_value()

    def update(self, grads):
        finite = _all_finite(list(grads))
        if finite:
            good = int(self._good.numpy()) + 1
            if good >= self._period:
                scale = float(self._scale.numpy()) * self._multiplier
                if np.isfinite(np.float32(scale)):
                    self._scale.assign(scale)
                good = 0
            self._good.assign(good)
        else:
            self._scale.assign(max(float(self._scale.numpy()) / self._multiplier, 1.0))
            self._good.assign(0)
        return None, convert_to_tensor(finite)

    def get_config(self) -> dict:
        return {"initial_loss_scale": self._initial, "increment_period": self._period,
                "multiplier": self._multiplier}

    def _checkpoint_dependencies(self) -> list:
        return [("current_loss_scale", self._scale), ("good_steps", self._good)]
