"""Layer wrappers: ``Bidirectional`` (an RNN both ways) and ``TimeDistributed``."""

from __future__ import annotations

import copy

from torchflow._src.core.tensor import executing_eagerly
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.serialization import deserialize_layer, serialize_layer
from torchflow._src.keras.layers.rnn.base_rnn import nest_scope
from torchflow._src.ops.array_ops import concat, reshape, reverse
from torchflow._src.ops.shape_ops import shape
from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class Wrapper(Layer):
    """Base of the layer wrappers: holds ``self.layer``.

    Args:
      layer: The ``tf.keras.layers.Layer`` instance to wrap.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `{type(self).__name__}` layer with a "
                             f"`tf.keras.layers.Layer` instance. You passed: {layer}")
        super().__init__(**kwargs)
        self.layer = layer

    def get_config(self):
        config = super().get_config()
        config["layer"] = serialize_layer(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects)
        return cls(layer, **config)


def _merged(x):
    """The shape of ``x`` with its first two dims merged, as a shape-reading tensor."""
    return concat([[-1], shape(x)[2:]], 0)


@public("torchflow.keras.layers")
class TimeDistributed(Wrapper):
    """Applies a layer to every temporal slice of an input ``[batch, time, ...]``.

    Args:
      layer: The ``tf.keras.layers.Layer`` instance to wrap.
      kwargs: Base ``Layer`` arguments (``name``, ``dtype``, ``trainable``, ``input_shape``,
        ...).

    >>> import torchflow as tf
    >>> tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))(tf.ones([4, 3, 5])).shape
    TensorShape([4, 3, 2])
    """

    def __init__(self, layer, **kwargs):
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        if shape.rank is not None and shape.rank < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape ` "
                             f"with at least 3 dimensions, received: {shape}")
        self.built = True

    def call(self, inputs, training=None, mask=None):
        dims = inputs.shape.as_list()
        b, t = dims[0], dims[1]
        kwargs = {}
        spec = self.layer._call_spec
        if spec.accepts_training and training is not None:
            kwargs["training"] = training
        if not executing_eagerly() and b != 0 and t != 0:
            # A trace sees its call's sizes, not the signature's: take them from
            # tf.shape (as TF does for unknown dims), so one recording serves all sizes.
            if mask is not None and spec.accepts_mask:
                kwargs["mask"] = reshape(mask, _merged(mask))
            y = self.layer(reshape(inputs, _merged(inputs)), **kwargs)
            steps = shape(inputs)[1:2]
            return nest.map_structure(
                lambda o: reshape(o, concat([[-1], steps, shape(o)[1:]], 0)), y)
        # With the inner sizes static, the batch stays out of the graph (-1), so a
        # SavedModel of the layer takes any batch.
        static = t is not None and None not in dims[2:]
        x = reshape(inputs, ([-1] if static else [b * t]) + dims[2:])
        if mask is not None and spec.accepts_mask:
            kwargs["mask"] = reshape(mask, [b * t] + mask.shape.as_list()[2:])
        y = self.layer(x, **kwargs)
        return nest.map_structure(
            lambda o: reshape(o, ([-1] if static and None not in o.shape.as_list()[1:]
                                  else [b]) + [t] + o.shape.as_list()[1:]), y)

    def compute_mask(self, inputs, mask=None):
        return mask


@public("torchflow.keras.layers")
class Bidirectional(Wrapper):
    """Runs an RNN forwards and backwards and merges both outputs.

    Args:
      layer: An ``RNN`` instance (``LSTM``, ``GRU``, ...).
      merge_mode: ``'concat'`` (default), ``'sum'``, ``'mul'``, ``'ave'`` or None (a list
        ``[forward, backward]``).
      backward_layer: Optional RNN for the backward direction (``go_backwards=True``).

    >>> import torchflow as tf
    >>> tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(3))(tf.ones([2, 4, 5])).shape
    TensorShape([2, 6])
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `Bidirectional` layer with a "
                             f"`tf.keras.layers.Layer` instance. You passed: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(f"`backward_layer` need to be a `tf.keras.layers.Layer` "
                             f"instance. You passed: {backward_layer}")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError("Invalid merge mode. Merge mode should be one of "
                             '{"sum", "mul", "ave", "concat", None}')
        if weights is not None:
            raise NotImplementedError("Bidirectional(weights=...) is not supported; call "
                                      "set_weights after the first call.")
        super().__init__(layer, **kwargs)
        self.forward_layer = _recreate(layer, "forward_", flip=False)
        if backward_layer is None:
            self.backward_layer = _recreate(layer, "backward_", flip=True)
        else:
            self.backward_layer = backward_layer
            if backward_layer.go_backwards == layer.go_backwards:
                raise ValueError("Forward layer and backward layer should have different "
                                 "`go_backwards` value.")
            for a in ("stateful", "return_sequences", "return_state"):
                if getattr(layer, a) != getattr(backward_layer, a):
                    raise ValueError(f"Forward layer and backward layer are expected to have "
                                     f"the same value for attribute {a}")
        self._backward_layer_config = (serialize_layer(backward_layer)
                                       if backward_layer is not None else None)
        for l in (self.forward_layer, self.backward_layer):
            if getattr(l, "zero_output_for_mask", None) is not None:
                l.zero_output_for_mask = l.return_sequences
        self.merge_mode = merge_mode
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True

    def build(self, input_shape):
        for layer in (self.forward_layer, self.backward_layer):
            if not layer.built:
                nest_scope(self, layer)
        self.built = True

    def call(self, inputs, training=None, mask=None, initial_state=None, constants=None):
        if constants is not None:
            raise NotImplementedError("Bidirectional(constants=...) is not supported by "
                                      "torchflow.")
        if isinstance(inputs, (list, tuple)) and len(inputs) > 1 and initial_state is None:
            initial_state = list(inputs[1:])
            inputs = inputs[0]
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        fw_state = bw_state = None
        if initial_state is not None:
            states = nest.flatten(initial_state)
            half = len(states) // 2
            fw_state, bw_state = states[:half], states[half:]
        kw = {}
        if training is not None:
            kw["training"] = training
        if mask is not None:
            kw["mask"] = mask
        y = self.forward_layer(inputs, initial_state=fw_state, **kw)
        y_rev = self.backward_layer(inputs, initial_state=bw_state, **kw)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            time_axis = 0 if getattr(self.forward_layer, "time_major", False) else 1
            y_rev = reverse(y_rev, [time_axis])
        if self.merge_mode == "concat":
            out = concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            out = y + y_rev
        elif self.merge_mode == "ave":
            out = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            out = y * y_rev
        else:
            out = [y, y_rev]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + states
        return out

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        out = [out, out] if self.merge_mode is None else out
        if self.return_state:
            n = len(self.forward_layer.states) * 2
            return (out if isinstance(out, list) else [out]) + [None] * n
        return out

    def reset_states(self):
        """Resets both directions' states (stateful layers only)."""
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def get_config(self):
        config = super().get_config()
        config["merge_mode"] = self.merge_mode
        if self._backward_layer_config is not None:
            config["backward_layer"] = self._backward_layer_config
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects)
        bw = config.pop("backward_layer", None)
        if bw is not None:
            bw = deserialize_layer(bw, custom_objects)
        return cls(layer, backward_layer=bw, **config)


def _recreate(layer, prefix, flip):
    config = copy.deepcopy(layer.get_config())
    config["name"] = prefix + config["name"]
    if flip:
        config["go_backwards"] = not config["go_backwards"]
    return type(layer).from_config(config)
