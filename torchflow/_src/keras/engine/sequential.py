"""``tf.keras.Sequential``: a plain stack of layers."""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import backend
from torchflow._src.keras.engine import serialization
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.functional import Functional
from torchflow._src.keras.engine.input_layer import Input, InputLayer
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util.api import public


@public("torchflow.keras")
class Sequential(Functional):
    """A linear stack of layers.

    Args:
      layers: Optional list of layers to add.
      name: Model name.

    The model is built (and ``summary()`` works) as soon as the input shape is
    known: from an ``Input``/``InputLayer``, a first layer's ``input_shape``, an
    explicit ``build(input_shape)`` or the first call.

    >>> import torchflow as tf
    >>> m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    >>> m.output_shape
    (None, 2)
    """

    def __init__(self, layers=None, name=None):
        Layer.__init__(self, name=name or backend.unique_object_name("sequential", zero_based=True))
        self._is_graph_network = False
        self._seq_layers: list = []
        self._input_kt = None
        self._init_training_state()
        for layer in layers or ():
            self.add(layer)

    @property
    def layers(self):
        return [l for l in self._seq_layers if not isinstance(l, InputLayer)]

    def add(self, layer) -> None:
        """Appends a layer (or an ``Input`` KerasTensor) to the stack.

        Once the first layer knows its input shape (an ``input_shape`` argument or an
        ``Input``), each added layer is built and the model is a Functional graph.

        Args:
          layer: A ``tf.keras.layers.Layer`` (a model too), or a KerasTensor from
            ``tf.keras.Input``.

        Raises:
          TypeError: If ``layer`` is not a Layer.
          ValueError: If it does not fit the current output.
        """
        if isinstance(layer, KerasTensor):
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise TypeError(f"The added layer must be an instance of class Layer. Received: "
                            f"layer={layer} of type {type(layer)}.")
        for existing in self._seq_layers:
            if existing.name == layer.name and existing is not layer:
                raise ValueError(f"All layers added to a Sequential model should have unique "
                                 f"names. Name \"{layer.name}\" is already the name of a layer "
                                 f"in this model. Update the `name` argument to pass a unique "
                                 f"name.")
        self._seq_layers.append(layer)
        self._track(layer)
        if isinstance(layer, InputLayer):
            self._input_kt = layer._kt
        elif self._input_kt is None and len(self._seq_layers) == 1:
            bis, dtype = _input_shape_and_dtype(layer)
            if bis is not None:
                self._input_kt = Input(batch_size=bis[0], shape=bis[1:], dtype=dtype)
        if self._input_kt is not None:
            self._rebuild()

    def _rebuild(self):
        x = self._input_kt
        for layer in self._seq_layers:
            if isinstance(layer, InputLayer):
                continue
            x = layer(x)
        # TF tracks the stack's InputLayer first, whether it was added or made from
        # the first layer's input_shape: checkpoints key the layers `layer-N` alike.
        inputs = list(self._input_kt.values()) if isinstance(self._input_kt, dict) else \
            [self._input_kt]
        keep = [kt._keras_history[0] for kt in inputs] + self.layers
        self._init_graph_network(self._input_kt, x)
        self._self_tracked_layers[:] = []
        for l in keep:
            self._track(l)
        self._is_graph_network = True

    def pop(self) -> None:
        """Removes the last layer.

        Raises:
          TypeError: If there are no layers.
        """
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        removed = self._seq_layers.pop()
        self._self_tracked_layers[:] = [l for l in self._self_tracked_layers if l is not removed]
        if self._input_kt is not None and self.layers:
            self._rebuild()
        elif not self.layers:
            self._is_graph_network = False
            self.built = False

    def build(self, input_shape=None):
        """Builds the model for ``input_shape`` (batch dimension included).

        Args:
          input_shape: A shape tuple or ``TensorShape`` such as ``(None, 784)``; may be
            None when the model already knows its input.

        Raises:
          ValueError: ``input_shape`` is None and the model has no input.
        """
        if self._is_graph_network:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        shape = TensorShape(input_shape).as_list()
        self._input_kt = Input(batch_size=shape[0], shape=shape[1:])
        self._rebuild()

    def _eager_call(self, inputs, args, kwargs):
        if not self._is_graph_network and isinstance(inputs, dict):
            # A dict-input stack (DenseFeatures first, as in TF's structured-data
            # tutorial): TF runs it layer by layer; a graph over one Input per key
            # computes the same.
            self._input_kt = {k: _input_like(k, v) for k, v in inputs.items()}
            self._rebuild()
        if not self._is_graph_network:
            t = inputs if isinstance(inputs, Tensor) else convert_to_tensor(inputs)
            dtype = t.dtype
            self._input_kt = Input(shape=t.shape.as_list()[1:],
                                   dtype=dtype if (dtype.is_floating or dtype.is_integer)
                                   else None)
            self._rebuild()
        return Functional._eager_call(self, inputs, args, kwargs)

    def get_config(self) -> dict:
        """The model's config: its name and the serialized layers (an ``InputLayer`` first
        when the input is known).

        Returns:
          A dict that ``from_config`` turns back into the model.
        """
        layers = []
        if self._input_kt is not None:
            il = self._input_kt._keras_history[0]
            layers.append(serialization.serialize_layer(il))
        for layer in self.layers:
            layers.append(serialization.serialize_layer(layer))
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A ``Sequential`` model from ``get_config()``'s dict: its layers added in order.

        Args:
          config: The dict ``get_config`` returned.
          custom_objects: None or a dict of custom layer classes by name.

        Returns:
          A new model (without the original's weights).
        """
        model = cls(name=config.get("name"))
        for lc in config["layers"]:
            model.add(serialization.deserialize_layer(lc, custom_objects))
        return model


def _input_shape_and_dtype(layer):
    """The batch input shape and dtype a first layer defines (TF's
    ``get_input_shape_and_dtype``): its ``input_shape`` argument, or the input of a
    Functional model with one input; ``(None, None)`` when it has neither."""
    if getattr(layer, "_is_graph_network", False) and len(getattr(layer, "inputs", ())) == 1:
        kt = layer.inputs[0]
        return tuple(kt.shape.as_list()), kt.dtype
    if hasattr(layer, "_batch_input_shape"):
        return layer._batch_input_shape, (layer.dtype if layer.dtype else None)
    return None, None


def _input_like(name, value):
    """An ``Input`` for a batch of the value's type: dense, sparse or ragged."""
    t = value if isinstance(value, (Tensor, SparseTensor, RaggedTensor)) else \
        convert_to_tensor(value)
    return Input(shape=TensorShape(t.shape).as_list()[1:], name=name, dtype=t.dtype,
                 sparse=isinstance(t, SparseTensor), ragged=isinstance(t, RaggedTensor))
