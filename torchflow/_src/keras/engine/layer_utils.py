"""``Model.summary`` in tf.keras' table layout (TF 2.4's ``print_summary``).

A model whose graph is a chain (a Sequential model, a subclassed model, or a
Functional one with one node per depth, each with one input, and no shared
layer) gets the three-column table; any other Functional model gets a fourth
column, "Connected to": ``layer_name[node_index][tensor_index]`` of each input
of the layer's calls, one per line.
"""

from __future__ import annotations

from torchflow._src.util import nest


def _shape_str(layer) -> str:
    try:
        return str(layer.output_shape)
    except (RuntimeError, AttributeError, ValueError):
        return "multiple"


def _relevant_nodes(model):
    by_depth = getattr(model, "_nodes_by_depth", None)
    return [n for nodes in by_depth.values() for n in nodes] if by_depth else []


def _is_sequential_like(model) -> bool:
    if type(model).__name__ == "Sequential" or not getattr(model, "_is_graph_network", False):
        return True
    nodes = []
    for depth_nodes in model._nodes_by_depth.values():
        if len(depth_nodes) > 1 or (len(depth_nodes) == 1 and
                                    len(nest.flatten(depth_nodes[0].keras_inputs)) > 1):
            return False
        nodes += depth_nodes
    ids = {id(n) for n in nodes}
    for layer in model.layers:  # a shared layer (two calls in this graph) is a branch
        if sum(id(n) in ids for n in layer._inbound_nodes) > 1:
            return False
    return True


def print_summary(model, line_length=None, positions=None, print_fn=None):
    """Prints the layer table, total/trainable/non-trainable parameter counts."""
    print_fn = print_fn or print
    sequential_like = _is_sequential_like(model)
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    relevant = {id(n) for n in _relevant_nodes(model)}

    def row(fields):
        line = ""
        for i, f in enumerate(fields):
            if i > 0:
                line = line[:-1] + " "
            line += str(f)
            line = line[: positions[i]]
            line += " " * (positions[i] - len(line))
        print_fn(line)

    def params(layer):
        if not layer.built and not getattr(layer, "_is_graph_network", False):
            return "0 (unused)"
        try:
            return layer.count_params()
        except ValueError:
            return 0

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    row(headers)
    print_fn("=" * line_length)
    layers = model.layers
    for i, layer in enumerate(layers):
        fields = [f"{layer.name} ({type(layer).__name__})", _shape_str(layer), params(layer)]
        if sequential_like:
            row(fields)
        else:
            connections = [f"{inbound.name}[{node_index}][{tensor_index}]"
                           for node in layer._inbound_nodes
                           if not relevant or id(node) in relevant
                           for inbound, node_index, tensor_index, _ in node.iterate_inbound()]
            row(fields + [connections[0] if connections else ""])
            for extra in connections[1:]:
                row(["", "", "", extra])
        print_fn("=" * line_length if i == len(layers) - 1 else "_" * line_length)
    if not layers:
        print_fn("=" * line_length)
    trainable = sum(int(w.shape.num_elements() or 0) for w in model.trainable_weights)
    non_trainable = sum(int(w.shape.num_elements() or 0) for w in model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)
