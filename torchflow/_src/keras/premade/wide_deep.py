"""``tf.keras.experimental.WideDeepModel``: a linear and a deep model, outputs added.

``compile`` takes one optimizer or, as TF 2.4, a list of two: the first updates the
linear model's variables, the second the deep model's, from one loss and one tape.
"""

from __future__ import annotations

from torchflow._src.core.tape import GradientTape
from torchflow._src.keras import activations, optimizers
from torchflow._src.keras.engine import data_adapter
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.engine.serialization import deserialize_layer, serialize_layer
from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.keras.experimental")
class WideDeepModel(Model):
    """Wide & Deep (Cheng et al., 2016): ``activation(linear_model(x) + dnn_model(x))``.

    Args:
      linear_model: The wide part, usually a ``tf.keras.experimental.LinearModel``.
      dnn_model: The deep part: a Keras model whose output has the linear model's
        structure.
      activation: Activation applied to the sum (name or callable; default none).
      **kwargs: Base ``Model`` arguments (``name``, ...).

    Call arguments: ``inputs`` is one input fed to both models, or a pair
    ``(linear_inputs, dnn_inputs)``; ``training``.

    ``compile(optimizer=[linear_optimizer, dnn_optimizer], ...)`` trains each part with its
    own optimizer; a single optimizer trains both.

    >>> import torchflow as tf
    >>> wd = tf.keras.experimental.WideDeepModel(
    ...     tf.keras.experimental.LinearModel(),
    ...     tf.keras.Sequential([tf.keras.layers.Dense(1)]))
    >>> wd(tf.ones([2, 3])).shape
    TensorShape([2, 1])
    """

    def __init__(self, linear_model, dnn_model, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.linear_model = linear_model
        self.dnn_model = dnn_model
        self.activation = activations.get(activation) if activation is not None else None

    def call(self, inputs, training=None):
        if isinstance(inputs, (tuple, list)) and len(inputs) == 2:
            linear_inputs, dnn_inputs = inputs
        else:
            linear_inputs = dnn_inputs = inputs
        linear_output = self.linear_model(linear_inputs)
        kw = {} if training is None else {"training": training}
        dnn_output = self.dnn_model(dnn_inputs, **kw)
        output = nest.map_structure(lambda a, b: a + b, linear_output, dnn_output)
        if self.activation is not None:
            return nest.map_structure(self.activation, output)
        return output

    def compile(self, optimizer="rmsprop", *args, **kwargs):
        """``Model.compile``; ``optimizer`` may also be ``[linear_opt, dnn_opt]``.

        Args:
          optimizer: An optimizer (instance or name), or a list/tuple of two: the first
            for ``linear_model``'s variables, the second for ``dnn_model``'s.
          *args: The other ``Model.compile`` arguments (``loss``, ``metrics``, ...).
          **kwargs: The other ``Model.compile`` arguments.

        Raises:
          ValueError: For a list of optimizers that does not hold two.

        Differences from TensorFlow 2.4: TF's ``Model.compile`` takes any nest of
        optimizers and ``WideDeepModel`` uses the first two of a list; here a list of
        another length is refused.
        """
        if isinstance(optimizer, (list, tuple)):
            if len(optimizer) != 2:
                raise ValueError("WideDeepModel takes one optimizer or a list of two "
                                 f"(linear, dnn). Received: {len(optimizer)} optimizers.")
            opts = [optimizers.get(o) for o in optimizer]
            super().compile(opts[0], *args, **kwargs)
            self.optimizer = opts
            return
        super().compile(optimizer, *args, **kwargs)

    def train_step(self, data):
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, sample_weight,
                                      regularization_losses=self.losses)
        self.compiled_metrics.update_state(y, y_pred, sample_weight)
        if isinstance(self.optimizer, (list, tuple)):
            linear_vars = self.linear_model.trainable_variables
            dnn_vars = self.dnn_model.trainable_variables
            linear_grads, dnn_grads = tape.gradient(loss, (linear_vars, dnn_vars))
            self.optimizer[0].apply_gradients(zip(linear_grads, linear_vars))
            self.optimizer[1].apply_gradients(zip(dnn_grads, dnn_vars))
        else:
            variables = self.trainable_variables
            grads = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
        return {m.name: m.result() for m in self.metrics}

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable,
                "dtype": self._dtype_policy.name if self._dtype_policy else self.dtype,
                "linear_model": serialize_layer(self.linear_model),
                "dnn_model": serialize_layer(self.dnn_model),
                "activation": activations.serialize(self.activation)
                if self.activation is not None else None}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        linear_model = deserialize_layer(config.pop("linear_model"), custom_objects)
        dnn_model = deserialize_layer(config.pop("dnn_model"), custom_objects)
        act = config.pop("activation", None)
        activation = activations.deserialize(act, custom_objects) if act is not None else None
        return cls(linear_model=linear_model, dnn_model=dnn_model, activation=activation,
                   **config)
