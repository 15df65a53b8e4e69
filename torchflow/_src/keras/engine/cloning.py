"""``tf.keras.models.clone_model``: the same architecture with new layers."""

from __future__ import annotations

from torchflow._src.keras.engine.functional import Functional
from torchflow._src.keras.engine.input_layer import InputLayer
from torchflow._src.keras.engine.sequential import Sequential
from torchflow._src.util.api import public


def _default_clone(layer):
    return type(layer).from_config(layer.get_config())


@public("torchflow.keras.models")
def clone_model(model, input_tensors=None, clone_function=None):
    """Clones a Sequential or Functional model: new layers, new weights.

    Args:
      model: The model (Sequential or Functional).
      input_tensors: Optional KerasTensors (from ``tf.keras.Input``) to build
        the clone on instead of new inputs.
      clone_function: ``layer -> new layer`` (default: ``from_config(get_config())``).

    Returns:
      The new model. Weights are freshly initialised (use ``set_weights`` to copy).

    Raises:
      ValueError: For a subclassed model, which has no config to clone from.
    """
    fn = clone_function or _default_clone
    if isinstance(model, Sequential):
        clone = Sequential(name=model.name)
        if input_tensors is not None:
            clone.add(input_tensors if not isinstance(input_tensors, (list, tuple))
                      else input_tensors[0])
        elif model._input_kt is not None:
            il = model._input_kt._keras_history[0]
            clone.add(InputLayer(batch_input_shape=il._batch_input_shape, dtype=il.dtype,
                                 name=il.name))
        for layer in model.layers:
            clone.add(fn(layer))
        return clone
    if not isinstance(model, Functional):
        raise ValueError(f"Expected `model` argument to be a functional `Model` instance, but "
                         f"got a subclassed model instead: {model}")
    by_name = {l.name: l for l in model.layers}
    inputs = list(input_tensors) if isinstance(input_tensors, (list, tuple)) else (
        [input_tensors] if input_tensors is not None else None)
    input_names = [l.name for l in model._input_layers]

    def make(lc):
        layer = by_name[lc["name"]]
        if isinstance(layer, InputLayer):
            if inputs is not None:
                return inputs[input_names.index(layer.name)]._keras_history[0]
            return InputLayer(batch_input_shape=layer._batch_input_shape, dtype=layer.dtype,
                              name=layer.name)
        return fn(layer)

    custom = {type(l).__name__: type(l) for l in model.layers}
    return Functional.from_config(model.get_config(), custom_objects=custom, _make_layer=make)
