"""``tf.keras.utils.get_source_inputs``: the Input tensors a symbolic tensor comes from."""

from __future__ import annotations

from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.keras.utils")
def get_source_inputs(tensor, layer=None, node_index=None) -> list:
    """The list of input tensors (``tf.keras.Input``s) needed to compute ``tensor``.

    Args:
      tensor: A symbolic Keras tensor (a layer's output).
      layer: Origin layer of the tensor (taken from the tensor's history if None).
      node_index: Origin node index of the tensor in that layer.

    Returns:
      The source Keras tensors, in the order they are first reached.
    """
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return [tensor]
    if layer is None or node_index is None:
        layer, node_index = history[0], history[1]
    if not layer._inbound_nodes:
        return [tensor]
    node = layer._inbound_nodes[node_index]
    if node.is_input:
        return nest.flatten(node.outputs)
    sources = []
    for x in node.keras_inputs:
        for s in get_source_inputs(x):
            if not any(s is t for t in sources):
                sources.append(s)
    return sources
