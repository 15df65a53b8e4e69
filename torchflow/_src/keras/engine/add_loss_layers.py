"""``AddLoss`` and ``AddMetric``: the layers a Functional model inserts for
``model.add_loss(symbolic_tensor)`` and ``model.add_metric(symbolic_tensor)``.

As in tf.keras, they join the model's graph (so ``model.layers``, ``summary()``
and ``get_config()`` show them, with the ``TFOpLambda`` layers that compute
their input); each call passes its input through and adds it to the layer's
losses or updates the layer's metric, which the model's ``losses`` and
``metrics`` collect.
"""

from __future__ import annotations

from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.functional_utils import in_symbolic_pass


class AddLoss(Layer):
    """Adds its input to the layer's losses and returns it unchanged.

    Args:
      unconditional: Whether the loss does not depend on the inputs (TF keys
        conditional losses on the inputs; kept for the config).
      **kwargs: Base ``Layer`` arguments.
    """

    def __init__(self, unconditional=False, **kwargs):
        kwargs["autocast"] = False
        super().__init__(**kwargs)
        self.unconditional = unconditional

    def call(self, inputs):
        if not in_symbolic_pass():
            self.add_loss(inputs)
        return inputs

    def get_config(self) -> dict:
        config = super().get_config()
        config["unconditional"] = self.unconditional
        return config


class AddMetric(Layer):
    """Updates the metric ``metric_name`` with its input and returns it unchanged.

    Args:
      aggregation: How the value is aggregated (kept for the config; the metric
        is a running mean as in ``Layer.add_metric``).
      metric_name: The metric's name.
      **kwargs: Base ``Layer`` arguments.
    """

    def __init__(self, aggregation=None, metric_name=None, **kwargs):
        kwargs["autocast"] = False
        super().__init__(**kwargs)
        self.aggregation = aggregation
        self.metric_name = metric_name

    def call(self, inputs):
        if not in_symbolic_pass():
            self.add_metric(inputs, aggregation=self.aggregation, name=self.metric_name)
        return inputs

    def get_config(self) -> dict:
        config = super().get_config()
        config["aggregation"] = self.aggregation
        config["metric_name"] = self.metric_name
        return config
