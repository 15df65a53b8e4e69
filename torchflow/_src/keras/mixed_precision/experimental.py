"""``tf.keras.mixed_precision.experimental``: TF 2.4's deprecated mixed precision
API (a ``Policy`` with a ``loss_scale``, ``LossScaleOptimizer(optimizer,
loss_scale)``, ``set_policy``, ``get_layer_policy``) over the non-experimental
classes it wraps."""

from __future__ import annotations

import warnings

from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.mixed_precision import policy as _policy
from torchflow._src.keras.mixed_precision.loss_scale_optimizer import (
    LossScaleOptimizer as _LossScaleOptimizer,
)
from torchflow._src.train.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from torchflow._src.util.api import public

_NS = "torchflow.keras.mixed_precision.experimental"
_LS_CLASSES = {"FixedLossScale": FixedLossScale, "DynamicLossScale": DynamicLossScale}


def _check_removed_name(name) -> None:
    if isinstance(name, str) and name.endswith("_float32_vars"):
        msg = "Policies ending in '_float32_vars' have been removed from TensorFlow."
        if name in ("infer_float32_vars", "infer_with_float32_vars"):
            msg += " Please use the 'mixed_float16' or 'mixed_bfloat16' policy instead."
        elif name == "float16_with_float32_vars":
            msg += " Please use the 'mixed_float16' policy instead."
        elif name == "bfloat16_with_float32_vars":
            msg += " Please use the 'mixed_bfloat16' policy instead."
        raise ValueError(msg + f" Got policy name: '{name}'")


def _get_loss_scale(loss_scale):
    """A ``LossScale`` (or None) from TF 2.4's accepted ``loss_scale`` values."""
    if loss_scale is None or isinstance(loss_scale, LossScale):
        return loss_scale
    if isinstance(loss_scale, dict) and loss_scale.get("class_name") in _LS_CLASSES:
        return _LS_CLASSES[loss_scale["class_name"]](**loss_scale.get("config", {}))
    if isinstance(loss_scale, (int, float)) and not isinstance(loss_scale, bool):
        return FixedLossScale(loss_scale)
    if loss_scale == "dynamic":
        return DynamicLossScale()
    raise ValueError(f'Invalid argument for loss_scale: {loss_scale!r}')


def _serialize_loss_scale(ls):
    if ls is None:
        return None
    return {"class_name": type(ls).__name__, "config": ls.get_config()}


@public(_NS)
class Policy(_policy.Policy):
    """A deprecated dtype policy that also carries a loss scale.

    ``Model.compile`` wraps its optimizer in a ``LossScaleOptimizer`` using
    ``loss_scale``. Prefer ``tf.keras.mixed_precision.Policy``.

    Args:
      name: A policy name, as for ``tf.keras.mixed_precision.Policy``.
      loss_scale: A ``tf.mixed_precision.experimental.LossScale``, an int or
        float (a ``FixedLossScale``), ``"dynamic"`` (a ``DynamicLossScale``), None
        (no loss scaling), or ``"auto"`` (default): dynamic for
        ``"mixed_float16"``, else None.

    Raises:
      ValueError: For an unknown or removed policy name (the ``*_float32_vars``
        policies), or an invalid ``loss_scale``.

    >>> import torchflow as tf
    >>> p = tf.keras.mixed_precision.experimental.Policy("mixed_float16")
    >>> type(p.loss_scale).__name__
    'DynamicLossScale'
    """

    def __init__(self, name, loss_scale="auto"):
        _check_removed_name(name)
        super().__init__(name)
        if loss_scale == "auto":
            loss_scale = "dynamic" if name == "mixed_float16" else None
            self._using_default_loss_scale = True
        else:
            self._using_default_loss_scale = False
        if loss_scale is not None and self._compute is not None and \
                self._compute != "float16" and not self._using_default_loss_scale:
            warnings.warn(f'Creating a Policy with a loss scale is only useful for float16 '
                          f'policies. You passed loss_scale={loss_scale!r} for policy '
                          f'{name}. Consider not passing any loss_scale instead.',
                          stacklevel=2)
        self._loss_scale = _get_loss_scale(loss_scale)

    @property
    def loss_scale(self):
        """The ``LossScale`` ``Model.compile`` uses (None: no loss scaling)."""
        return self._loss_scale

    def __repr__(self) -> str:
        return f'<Policy "{self._name}", loss_scale={self._loss_scale}>'

    def get_config(self) -> dict:
        config = {"name": self._name}
        if not self._using_default_loss_scale:
            config["loss_scale"] = _serialize_loss_scale(self._loss_scale)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "loss_scale" in config and isinstance(config["loss_scale"], dict):
            config["loss_scale"] = _get_loss_scale(config["loss_scale"])
        return cls(**config)


@public(_NS)
def global_policy() -> _policy.Policy:
    """The global policy (``Policy(floatx())`` until ``set_policy`` is called).

    Returns:
      The ``Policy`` layers use when created without a ``dtype``.
    """
    return _policy.global_policy()


@public(_NS)
def set_policy(policy) -> None:
    """Deprecated alias of ``tf.keras.mixed_precision.set_global_policy``.

    Args:
      policy: A ``Policy`` (experimental or not), a policy name, or None.

    Raises:
      ValueError: If ``policy`` is not a floating-point policy.
    """
    _check_removed_name(policy)
    _policy.set_global_policy(policy)


@public(_NS)
def get_layer_policy(layer) -> _policy.Policy:
    """The dtype policy of ``layer``.

    Args:
      layer: A ``tf.keras.layers.Layer``.

    Returns:
      The layer's ``Policy``.

    Raises:
      ValueError: If ``layer`` is not a Layer.
    """
    if not isinstance(layer, Layer):
        raise ValueError(f"get_policy can only be called on a layer, but got: {layer}")
    return layer._dtype_policy


@public(_NS)
class LossScaleOptimizer(_LossScaleOptimizer):
    """Deprecated ``LossScaleOptimizer(optimizer, loss_scale)`` of TF 2.4.

    Args:
      optimizer: The ``tf.keras.optimizers.Optimizer`` to wrap.
      loss_scale: ``"dynamic"``, an int or float (fixed scale), a
        ``FixedLossScale``, a ``DynamicLossScale`` (its ``multiplier`` must be 2),
        or such a loss scale's serialized dict.

    Raises:
      TypeError: For a ``LossScale`` that is neither fixed nor dynamic.
      ValueError: For any other ``loss_scale``.
    """

    def __init__(self, optimizer, loss_scale):
        if isinstance(loss_scale, dict):
            loss_scale = _get_loss_scale(loss_scale)
        if isinstance(loss_scale, (int, float)) and not isinstance(loss_scale, bool):
            super().__init__(optimizer, dynamic=False, initial_scale=loss_scale)
        elif isinstance(loss_scale, FixedLossScale):
            super().__init__(optimizer, dynamic=False, initial_scale=loss_scale._value)
        elif isinstance(loss_scale, str) and loss_scale == "dynamic":
            super().__init__(optimizer)
        elif isinstance(loss_scale, DynamicLossScale):
            if loss_scale.multiplier != 2:
                raise ValueError(f'When passing a DynamicLossScale to "loss_scale", '
                                 f'DynamicLossScale.multiplier must be 2. Got: {loss_scale}')
            super().__init__(optimizer, initial_scale=loss_scale.initial_loss_scale,
                             dynamic_growth_steps=loss_scale.increment_period)
        elif isinstance(loss_scale, LossScale):
            raise TypeError(f"Passing a LossScale that is not a FixedLossScale or a "
                            f"DynamicLossScale is no longer supported. Got: {loss_scale}")
        else:
            raise ValueError(f'Invalid value passed to loss_scale. loss_scale must be the '
                             f'string "dynamic" (recommended), an int, a float, a '
                             f'FixedLossScale, or a DynamicLossScale. Got value: '
                             f'{loss_scale}')
