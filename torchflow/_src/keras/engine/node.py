"""``Node``: one call of a layer on KerasTensors, an edge set of the layer graph."""

from __future__ import annotations

from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.util import nest


class Node:
    """Records ``layer(*call_args, **call_kwargs) -> outputs`` on symbolic tensors."""

    def __init__(self, layer, call_args, call_kwargs, outputs):
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.keras_inputs = [x for x in nest.flatten((call_args, call_kwargs))
                             if isinstance(x, KerasTensor)]
        self.is_input = not self.keras_inputs
        layer._inbound_nodes.append(self)
        self.index = len(layer._inbound_nodes) - 1
        for kt in self.keras_inputs:
            if kt._keras_history is not None:
                kt._keras_history[0]._outbound_nodes.append(self)
        for i, kt in enumerate(nest.flatten(outputs)):
            kt._keras_history = (layer, self.index, i)

    @property
    def input_tensors(self):
        return self.call_args[0] if self.call_args else None

    @property
    def output_tensors(self):
        return self.outputs

    @property
    def parent_nodes(self):
        out = []
        for kt in self.keras_inputs:
            layer, idx, _ = kt._keras_history
            out.append(layer._inbound_nodes[idx])
        return out

    def iterate_inbound(self):
        """``(layer, node_index, tensor_index, kt)`` for each symbolic input."""
        for kt in self.keras_inputs:
            layer, node_index, tensor_index = kt._keras_history
            yield layer, node_index, tensor_index, kt
