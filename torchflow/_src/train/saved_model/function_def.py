"""A traced function's ``FuncGraph`` as a ``tensorflow.FunctionDef`` (what SavedModel writes).

A ``FunctionDef`` differs from the ``GraphDef`` of the same graph in three ways:

* the argument placeholders (and the captured variable handles, which follow
  them) become the signature's ``input_arg``\\ s, named in TF's argument style
  (lower case, ``[a-z][a-z0-9_]*``), and a node reads one by that name alone;
* a node reads another node's output ``k`` as ``node:arg:index``, where ``arg``
  is the op's output argument (``MatMul:product:0``; ``op_outputs`` holds TF's
  names) and ``index`` the position inside it (list outputs count up);
* the outputs are ``output_arg``\\ s with a ``ret`` map to the ``Identity`` nodes.

Stateful ops (variable reads and writes, prints) run in program order: each
gets a control input on the stateful op before it, as TF's automatic control
dependencies order them, and all are the function's control outputs.

Functional ops (``StatelessWhile``) name other functions (their loop body and
condition) that a graph holds in ``FuncGraph.functions``; ``add_nested_functions``
writes them into the library beside the function (SavedModel's; ``GraphDef.library``
gets them through ``op_graph.set_function_writer``).
"""

from __future__ import annotations

import re

from torchflow._src.core import errors, op_graph
from torchflow._src.core.op_graph import _Shape, attr_value, shape_proto
from torchflow._src.core.proto import tf_function_pb2
from torchflow._src.train.saved_model import op_outputs


def arg_name(name: str, taken: set) -> str:
    """``name`` as a unique TF argument name (``[a-z][a-z0-9_]*``)."""
    base = re.sub(r"[^a-z0-9_]", "_", name.lower()) or "arg"
    if not base[0].isalpha():
        base = "arg_" + base
    out, n = base, 1
    while out in taken:
        out = f"{base}_{n}"
        n += 1
    taken.add(out)
    return out


def _unexportable(graph, fname: str):
    ops = sorted(set(graph.unexportable))
    return errors.UnimplementedError(
        None, None, f"Cannot save tf.function {fname}: its graph holds computations with no "
        f"TensorFlow op ({', '.join(ops)}): a part of the function calls code that torchflow "
        "cannot write as TF ops, so the SavedModel would not run. Rewrite that part with "
        "tf ops that have TF lowerings, or save the weights with tf.train.Checkpoint.")


def _output_names(op, fname: str) -> list:
    """``[arg:index]`` of each output of ``op``, in order."""
    spec = op_outputs.output_args(op.type)
    if spec is None:
        raise errors.UnimplementedError(
            None, None, f"Cannot save tf.function {fname}: op {op.type} (node {op.name}) is not "
            "a TensorFlow op torchflow knows the outputs of")
    out = []
    for name, list_attr in spec:
        if list_attr is None:
            out.append(f"{name}:0")
            continue
        n = op._attrs.get(list_attr)
        n = len(n) if isinstance(n, (list, tuple)) else int(n or 0)
        out.extend(f"{name}:{i}" for i in range(n))
    return out


def _add_args(fd, graph, arg_names, arg_order, handle_specs) -> dict:
    """The signature's ``input_arg``\\ s; returns ``{placeholder node: argument name}``."""
    sig = fd.signature
    n_args = len(graph.arg_names)
    arg_eps = list(graph.inputs[:n_args])
    cap_eps = list(graph.inputs[n_args:])
    order = list(arg_order) if arg_order is not None else list(range(n_args))
    taken: set = set()
    inputs: "dict[str, str]" = {}
    shapes = []
    for pos, k in enumerate(order):
        node = graph.get_operation_by_name(arg_eps[k].split(":")[0])
        want = arg_names[k] if arg_names is not None else node.name
        a = arg_name(want, taken)
        inputs[node.name] = a
        sig.input_arg.add(name=a, type=node._attrs["dtype"].as_datatype_enum)
        dims = node._attrs.get("shape")
        dims = dims.dims if isinstance(dims, _Shape) else None
        shapes.append(dims)
        attrs = fd.arg_attr[pos].attr
        attrs["_user_specified_name"].s = want.encode()
        attrs["_output_shapes"].list.shape.add().CopyFrom(shape_proto(dims))
    for j, ep in enumerate(cap_eps):
        node = graph.get_operation_by_name(ep.split(":")[0])
        a = arg_name(node.name.replace("/resource", "_readvariableop_resource"), taken)
        inputs[node.name] = a
        # a resource handle, or a vocabulary file's path (string) a table reads
        arg = sig.input_arg.add(name=a, type=node._attrs["dtype"].as_datatype_enum)
        spec = (handle_specs or {}).get(ep)
        if spec is not None:
            hd = arg.handle_data.add(dtype=spec[0].as_datatype_enum)
            hd.shape.CopyFrom(shape_proto(spec[1]))
        shapes.append([])
        fd.arg_attr[len(order) + j].attr["_user_specified_name"].s = b"resource"
    fd.attr["_input_shapes"].list.SetInParent()
    for dims in shapes:
        fd.attr["_input_shapes"].list.shape.add().CopyFrom(shape_proto(dims))
    return inputs


def function_def(graph, name: str, fname: str, arg_names: list | None = None,
                 arg_order: list | None = None, output_names: list | None = None,
                 output_order: list | None = None, handle_specs: dict | None = None):
    """``graph`` (a ``FuncGraph``) as the ``FunctionDef`` called ``name``.

    Args:
      graph: The concrete function's graph.
      name: The FunctionDef's name.
      fname: The tf.function's name (for errors).
      arg_names: Names for the argument placeholders (default: theirs).
      arg_order: The order of the argument placeholders in the signature (indices
        into the arguments; the captured handles always follow).
      output_names: Names of the outputs (default ``identity``, ``identity_1``...).
      output_order: Which graph output each output is (default: in order).
      handle_specs: ``{handle endpoint: (dtype, dims)}`` of the captured variables.

    Raises:
      UnimplementedError: The graph holds ops with no TF equivalent.
    """
    if graph.unexportable:
        raise _unexportable(graph, fname)
    fd = tf_function_pb2.FunctionDef()
    fd.signature.name = name
    inputs = _add_args(fd, graph, arg_names, arg_order, handle_specs)
    sig = fd.signature

    outs: "dict[str, list]" = {}

    def ref(ep: str) -> str:
        if ep.startswith("^"):
            return ep
        node, _, k = ep.rpartition(":")
        if not node:
            node, k = ep, "0"
        if node in inputs:
            return inputs[node]
        names = outs.get(node)
        if names is None:
            raise errors.InternalError(None, None, f"node {node} is read before it is made")
        return f"{node}:{names[int(k)]}"

    last_stateful = None
    stateful = False
    for op in graph.get_operations():
        if op.name in inputs:
            continue
        if op.type == "Placeholder":
            raise errors.UnimplementedError(
                None, None, f"Cannot save tf.function {fname}: placeholder {op.name} is neither "
                "an argument nor a captured variable")
        outs[op.name] = _output_names(op, fname)
        nd = fd.node_def.add(name=op.name, op=op.type)
        deps = []
        for i in op._inputs:
            if i.startswith("^"):
                if i[1:] not in inputs:
                    deps.append(i)
            else:
                nd.input.append(ref(i))
        if op.type in op_outputs.STATEFUL:
            stateful = True
            if last_stateful is not None and f"^{last_stateful}" not in deps:
                deps.append(f"^{last_stateful}")
            last_stateful = op.name
            sig.control_output.append(op.name)
            fd.control_ret[op.name] = op.name
        nd.input.extend(deps)
        for k, v in op._attrs.items():
            nd.attr[k].CopyFrom(attr_value(v))
    sig.is_stateful = stateful
    taken_out: set = set()
    picks = list(output_order) if output_order is not None else list(range(len(graph.outputs)))
    for pos, k in enumerate(picks):
        ep = graph.outputs[k]
        node = graph.get_operation_by_name(ep.split(":")[0])
        want = output_names[pos] if output_names is not None else node.name
        a = arg_name(want, taken_out)
        sig.output_arg.add(name=a, type=node._output_dtypes[0].as_datatype_enum)
        fd.ret[a] = ref(ep)
    return fd


def _nested(graph, name: str):
    return function_def(graph, name, name)


def add_nested_functions(library, graph) -> None:
    """Adds to ``library`` (a ``FunctionDefLibrary``) the ``FunctionDef``\\ s of the
    functions ``graph`` names in functional ops (loop bodies and conditions) that it
    does not hold yet (a graph written twice, as a function and as a signature's
    wrapper, shares them)."""
    have = {f.signature.name for f in library.function}
    for name, g in graph.functions.items():
        if name not in have:
            library.function.append(_nested(g, name))


op_graph.set_function_writer(_nested)
