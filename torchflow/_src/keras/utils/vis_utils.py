"""``tf.keras.utils.model_to_dot`` / ``plot_model``: a model's layer graph via pydot.

pydot (and graphviz's ``dot`` program, for images) are optional: without them both
functions raise TF 2.4's ``ImportError`` (inside IPython they print the message and
return None instead, as TF does, so notebooks go on).
"""

from __future__ import annotations

import os
import sys

from torchflow._src.keras.engine.sequential import Sequential
from torchflow._src.util.api import public

# TF 2.4's message (TF builds it as a 2-tuple by a stray comma; here it is one string).
_MISSING = ("You must install pydot (`pip install pydot`) and install graphviz (see instructions "
            "at https://graphviz.gitlab.io/download/) for plot_model/model_to_dot to work.")


def _pydot():
    """The pydot module when it and graphviz work, else None (optional dependency)."""
    try:
        import pydot
    except ImportError:
        return None
    try:
        pydot.Dot.create(pydot.Dot())
    except (OSError, getattr(pydot, "InvocationException", OSError)):
        return None
    return pydot


def _shape_text(shape) -> str:
    if isinstance(shape, list):
        return ", ".join(str(tuple(s)) if isinstance(s, list) else str(s) for s in shape)
    return str(shape)


def _layer_shapes(layer) -> tuple[str, str]:
    def get(attr):
        try:
            return _shape_text(getattr(layer, attr))
        except (AttributeError, RuntimeError, ValueError):
            return "multiple"

    return get("input_shape"), get("output_shape")


def _model_layers(model):
    if isinstance(model, Sequential):
        if not model.built:
            model.build()
        return list(getattr(model, "_self_tracked_layers", None) or model.layers)
    return list(model.layers)


@public("torchflow.keras.utils")
def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=96, subgraph=False):
    """Converts a Keras model to a ``pydot.Dot`` graph (one record node per layer).

    Args:
      model: A Keras model.
      show_shapes: Whether to show each layer's input and output shapes.
      show_dtype: Whether to show each layer's dtype.
      show_layer_names: Whether to show layer names.
      rankdir: Graphviz ``rankdir``: ``"TB"`` (vertical) or ``"LR"`` (horizontal).
      expand_nested: Accepted; nested models are drawn as one node.
      dpi: Dots per inch.
      subgraph: Whether to return a ``pydot.Cluster`` instead of a ``pydot.Dot``.

    Returns:
      A ``pydot.Dot`` (or ``pydot.Cluster``), or None inside IPython when pydot or
      graphviz is missing.

    Raises:
      ImportError: If pydot or graphviz is missing (outside IPython).
    """
    pydot = _pydot()
    if pydot is None:
        if "IPython.core.magics.namespace" in sys.modules:
            print(_MISSING)
            return None
        raise ImportError(_MISSING)
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set_node_defaults(shape="record")
    if not getattr(model, "_is_graph_network", True) and not model.layers:
        dot.add_node(pydot.Node(str(id(model)), label=model.name))
        return dot
    layers = _model_layers(model)
    ids = {id(layer) for layer in layers}
    for layer in layers:
        class_name = type(layer).__name__
        label = f"{layer.name}: {class_name}" if show_layer_names else class_name
        if show_dtype:
            label = f"{label}|{getattr(layer, 'dtype', None)}"
        if show_shapes:
            inputs, outputs = _layer_shapes(layer)
            label = f"{label}|{{input:|output:}}|{{{{{inputs}}}|{{{outputs}}}}}"
        dot.add_node(pydot.Node(str(id(layer)), label=label))
    previous = None
    for layer in layers:
        inbound = []
        for node in getattr(layer, "_inbound_nodes", []):
            for kt in node.keras_inputs:
                src = kt._keras_history[0] if kt._keras_history else None
                if src is not None and id(src) in ids:
                    inbound.append(src)
        if not inbound and previous is not None and not getattr(layer, "_inbound_nodes", None):
            inbound = [previous]  # a Sequential model that was never called symbolically
        for src in inbound:
            a, b = str(id(src)), str(id(layer))
            if not dot.get_edge(a, b):
                dot.add_edge(pydot.Edge(a, b))
        previous = layer
    return dot


@public("torchflow.keras.utils")
def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=True, rankdir="TB", expand_nested=False, dpi=96):
    """Draws a Keras model's layer graph into an image file (needs pydot and graphviz).

    Args:
      model: A Keras model.
      to_file: The image file to write; its extension picks the format (png default).
      show_shapes, show_dtype, show_layer_names, rankdir, expand_nested, dpi: As in
        ``model_to_dot``.

    Returns:
      An ``IPython.display.Image`` of the file when IPython is installed (and the
      format is not pdf), else None.

    Raises:
      ImportError: If pydot or graphviz is missing (outside IPython), with TF 2.4's
        message.
    """
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi)
    if dot is None:
        return None
    _, extension = os.path.splitext(to_file)
    extension = extension[1:] if extension else "png"
    dot.write(to_file, format=extension)
    if extension != "pdf":
        try:
            from IPython import display
        except ImportError:
            return None
        return display.Image(filename=to_file)
    return None
