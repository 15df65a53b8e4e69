"""TF 2.4 ``Layer`` members kept for older programs: node-indexed shapes and masks,
``add_update``, ``add_variable``, ``stateful``. Mixed into ``Layer``."""

from __future__ import annotations

import warnings

from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.util import nest

_INIT_ATTRS = frozenset(("_self_tracked_layers", "_trainable_weights", "_non_trainable_weights",
                         "_call_spec", "_inbound_nodes", "_outbound_nodes", "_dtype_policy",
                         "_name", "_built", "built", "_trainable", "_flat_cache", "_tw_cache"))


def _shape(t):
    return tuple(t.shape.as_list())


class LayerCompatMixin:
    """TF 2.4's node-indexed accessors and deprecated members of ``Layer``."""

    #: Whether the layer keeps state between batches (RNNs with ``stateful=True``).
    stateful = False

    def __getattr__(self, name):
        # Reached only when normal lookup fails: an attribute Layer.__init__ sets is
        # missing when a subclass forgot super().__init__() (TF's RuntimeError).
        if name in _INIT_ATTRS and "_call_spec" not in self.__dict__:
            if any(c.__name__ == "Model" for c in type(self).__mro__):
                raise RuntimeError("It looks like you are subclassing `Model` and you forgot "
                                   "to call `super().__init__()`. Always start with this "
                                   "line.")
            raise RuntimeError("You must call `super().__init__()` in the layer constructor.")
        prop = getattr(type(self), name, None)
        if isinstance(prop, property):
            # A property that raised AttributeError: raise its own error, not ours.
            return prop.fget(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _node_attribute_at(self, node_index, attr, what):
        nodes = self._inbound_nodes
        if not nodes:
            raise RuntimeError(f"The layer {self.name} has never been called and thus has no "
                               f"defined {what}.")
        if not len(nodes) > node_index:
            raise ValueError(f"Asked to get {what} at node {node_index}, but the layer has only "
                             f"{len(nodes)} inbound nodes.")
        return getattr(nodes[node_index], attr)

    def get_input_shape_at(self, node_index):
        """The input shape(s) of the layer's call number ``node_index``.

        Args:
          node_index: Which call (node) of the layer, 0 for the first.

        Returns:
          A shape tuple, or a list of them for several inputs.

        Raises:
          RuntimeError: If the layer was never called.
          ValueError: If there is no such node.
        """
        return nest.map_structure(
            _shape, self._node_attribute_at(node_index, "input_tensors", "input shape"))

    def get_output_shape_at(self, node_index):
        """The output shape(s) of the layer's call number ``node_index`` (see
        ``get_input_shape_at``)."""
        return nest.map_structure(
            _shape, self._node_attribute_at(node_index, "output_tensors", "output shape"))

    def get_input_mask_at(self, node_index):
        """The mask(s) of the inputs of the layer's call number ``node_index``
        (None for inputs without a mask)."""
        inputs = self._node_attribute_at(node_index, "input_tensors", "input mask")
        return nest.map_structure(lambda t: getattr(t, "_keras_mask", None), inputs)

    def get_output_mask_at(self, node_index):
        """The mask(s) of the outputs of the layer's call number ``node_index``."""
        outputs = self._node_attribute_at(node_index, "output_tensors", "output mask")
        return nest.map_structure(lambda t: getattr(t, "_keras_mask", None), outputs)

    @property
    def input_mask(self):
        """The mask of the layer's input (one call only; None without a mask).

        Raises:
          AttributeError: If the layer is not connected.
        """
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        return self.get_input_mask_at(0)

    @property
    def output_mask(self):
        """The mask of the layer's output (one call only; None without a mask).

        Raises:
          AttributeError: If the layer is not connected.
        """
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return self.get_output_mask_at(0)

    def add_update(self, updates, inputs=None):
        """Runs state updates: each callable in ``updates`` is called (eagerly, as TF 2
        does); tensors are updates that already ran. Nothing runs while a
        Functional model is being built, nor for a layer with ``trainable=False``.

        Args:
          updates: An update op, a zero-argument callable, or a list of them.
          inputs: Deprecated and ignored (as in TF 2.4).
        """
        if inputs is not None:
            warnings.warn("`add_update` `inputs` kwarg has been deprecated. You no longer "
                          "need to pass a value to `inputs` as it is being automatically "
                          "inferred.", stacklevel=2)
        if not getattr(self, "trainable", True):
            return
        for update in nest.flatten(updates):
            if callable(update) and not isinstance(update, KerasTensor):
                update()

    def add_variable(self, *args, **kwargs):
        """Deprecated alias of ``add_weight`` (TF 2.4 warns the same)."""
        warnings.warn("`layer.add_variable` is deprecated and will be removed in a future "
                      "version. Please use `layer.add_weight` method instead.", stacklevel=2)
        return self.add_weight(*args, **kwargs)

    @property
    def updates(self):
        """``[]``: in TF 2 updates run as they are made (TF 2.4 warns when it is read)."""
        warnings.warn("`layer.updates` will be removed in a future version. This property "
                      "should not be used in TensorFlow 2.0, as `updates` are applied "
                      "automatically.", stacklevel=2)
        return []
