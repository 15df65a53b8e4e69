"""More TF lowerings (see ``graph_lowering``): variable reads, convolutions, pooling.

Each is checked by running the exported graph in real TF
(``tests/compat/test_saved_model_save.py``).
"""

from __future__ import annotations

from torchflow._src.core import op_graph
from torchflow._src.core.variables import Variable


def _read_value(b, call):
    return [b.read_variable(call.args["self"])]


op_graph.register(Variable.read_value, _read_value)
op_graph.register(Variable.value, _read_value)
