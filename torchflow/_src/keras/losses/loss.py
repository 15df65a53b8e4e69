"""``tf.keras.losses.Loss`` and ``LossFunctionWrapper``."""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras.losses._utils import (
    Reduction,
    compute_weighted_loss,
    remove_squeezable_dimensions,
)
from torchflow._src.util.api import public


@public("torchflow.keras.losses")
class Loss:
    """Base class of Keras losses: ``call`` gives per-sample losses, ``__call__`` reduces.

    Args:
      reduction: A ``tf.keras.losses.Reduction`` value (default AUTO, which is
        SUM_OVER_BATCH_SIZE outside distribution strategies).
      name: The loss name.

    Raises:
      ValueError: For an unknown reduction.
    """

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        self.reduction = reduction
        self.name = name
        self._allow_sum_over_batch_size = False

    def __call__(self, y_true, y_pred, sample_weight=None):
        """Computes the weighted, reduced loss.

        >>> import torchflow as tf
        >>> float(tf.keras.losses.MeanSquaredError()([[0., 1.]], [[1., 1.]]))
        0.5
        """
        losses = self.call(y_true, y_pred)
        return compute_weighted_loss(losses, sample_weight, reduction=self._get_reduction())

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _get_reduction(self):
        if self.reduction == Reduction.AUTO:
            return Reduction.SUM_OVER_BATCH_SIZE
        return self.reduction

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@public("torchflow.keras.losses")
class LossFunctionWrapper(Loss):
    """A ``Loss`` that calls a loss function ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_pred = convert_to_tensor(y_pred)
        y_true = convert_to_tensor(y_true)
        y_true, y_pred = remove_squeezable_dimensions(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        config = dict(self._fn_kwargs)
        config.update(super().get_config())
        return config
