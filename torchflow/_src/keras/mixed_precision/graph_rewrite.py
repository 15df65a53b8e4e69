"""``tf.train.experimental.enable/disable_mixed_precision_graph_rewrite`` (TF 2.4).

Enabling wraps the optimizer in TF 2.4's ``LossScaleOptimizer(opt, loss_scale)``
and turns on the ``auto_mixed_precision`` graph-optimizer option. TF's rewrite
then converts float32 ops of ``tf.function`` graphs to float16 on Tensor Core
GPUs only, leaving CPU graphs untouched; torchflow has no graph rewriter, so
graphs keep float32 on every device (on CPU exactly what TF computes).
"""

from __future__ import annotations

import logging

from torchflow._src.core import config
from torchflow._src.keras.mixed_precision import policy as _policy
from torchflow._src.keras.mixed_precision.experimental import (
    LossScaleOptimizer as _LossScaleOptimizerV1,
)
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer
from torchflow._src.util.api import public

_log = logging.getLogger("tensorflow")

_POLICY_SET = (
    "The mixed precision graph rewrite cannot be enabled, because the global Keras dtype "
    "Policy has been set to a mixed precision policy. At most, one of the following can be "
    "called:\n\n  1. tf.keras.mixed_precision.set_global_policy() with a mixed precision "
    "policy (You called this first)\n\n  2. "
    "tf.train.experimental.enable_mixed_precision_graph_rewrite() (You called this second)\n"
    "You called both functions, which is an error, because both functions enable you to use "
    "mixed precision. If in doubt which function to use, use the first, as it supports Eager "
    "execution and is more customizable.")


def is_enabled() -> bool:
    """Whether the mixed precision graph rewrite is on."""
    return bool(config.get_experimental_options().get("auto_mixed_precision", False))


@public("torchflow.train.experimental")
def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """Enables mixed precision through TF's graph rewrite, with loss scaling.

    Args:
      opt: A ``tf.keras.optimizers.Optimizer`` (not already loss-scaled).
      loss_scale: ``"dynamic"``, an int or float (a fixed scale) or a
        ``tf.train.experimental.LossScale``.

    Returns:
      ``opt`` wrapped in a ``tf.keras.mixed_precision.experimental.LossScaleOptimizer``.

    Raises:
      ValueError: If a mixed Keras policy is set globally, ``opt`` is already a
        LossScaleOptimizer, or ``opt`` is not an optimizer.

    Differences from TensorFlow 2.4: no graph is rewritten to float16 (TF does
    so on Tensor Core GPUs only).

    >>> import torchflow as tf
    >>> opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(
    ...     tf.keras.optimizers.SGD(0.1))
    >>> type(opt).__name__
    'LossScaleOptimizer'
    >>> tf.train.experimental.disable_mixed_precision_graph_rewrite()
    """
    if _policy.global_policy().name.startswith("mixed_"):
        raise ValueError(_POLICY_SET)
    if isinstance(opt, _LossScaleOptimizerV1):
        raise ValueError('"opt" must not already be an instance of a LossScaleOptimizer. '
                         '`enable_mixed_precision_graph_rewrite` will automatically wrap the '
                         'optimizer with a LossScaleOptimizer.')
    if not isinstance(opt, Optimizer):
        raise ValueError(f'"opt" must be an instance of a tf.train.Optimizer or a '
                         f'tf.keras.optimizers.Optimizer, but got: {opt}')
    wrapped = _LossScaleOptimizerV1(opt, loss_scale)
    config.set_experimental_options({"auto_mixed_precision": True})
    return wrapped


@public("torchflow.train.experimental")
def disable_mixed_precision_graph_rewrite():
    """Turns the mixed precision graph rewrite off again.

    Optimizers already wrapped keep their loss scaling. Logs a warning when the
    rewrite was not on.
    """
    if not is_enabled():
        _log.warning("disable_mixed_precision_graph_rewrite() called when mixed precision "
                     "is already disabled.")
    config.set_experimental_options({"auto_mixed_precision": False})
