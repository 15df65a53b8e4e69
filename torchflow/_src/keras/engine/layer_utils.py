"""``Model.summary`` in tf.keras' table layout."""

from __future__ import annotations


def _shape_str(layer) -> str:
    try:
        out = layer.output_shape
    except (RuntimeError, AttributeError):
        return "multiple"
    if isinstance(out, list) and len(out) == 1:
        out = out[0]
    return str(out)


def print_summary(model, line_length=None, positions=None, print_fn=None):
    """Prints the layer table, total/trainable/non-trainable parameter counts."""
    print_fn = print_fn or print
    line_length = line_length or 65
    positions = positions or [0.45, 0.85, 1.0]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    headers = ["Layer (type)", "Output Shape", "Param #"]

    def row(fields):
        line = ""
        for i, f in enumerate(fields):
            if i > 0:
                line = line[:-1] + " "
            line += str(f)
            line = line[: positions[i]]
            line += " " * (positions[i] - len(line))
        print_fn(line)

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    row(headers)
    print_fn("=" * line_length)
    layers = model.layers
    for i, layer in enumerate(layers):
        try:
            count = layer.count_params()
        except ValueError:
            count = 0
        row([f"{layer.name} ({type(layer).__name__})", _shape_str(layer), count])
        print_fn("=" * line_length if i == len(layers) - 1 else "_" * line_length)
    if not layers:
        print_fn("=" * line_length)
    trainable = sum(int(w.shape.num_elements() or 0) for w in model.trainable_weights)
    non_trainable = sum(int(w.shape.num_elements() or 0) for w in model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)
