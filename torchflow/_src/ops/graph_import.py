"""``tf.import_graph_def``: a ``GraphDef`` into a graph, or run inside a function.

TF 2 imports a ``GraphDef`` (a frozen model, ``ConcreteFunction.graph.as_graph_def()``)
into the default graph. Inside a ``tf.function`` that graph is the function's, so the
imported nodes run with it, on the tensors ``input_map`` gives their inputs: here the
nodes run then and there through the graph executor that runs SavedModels
(``graph_exec``), and a replay of the function replays them. Outside a function (in a
``with tf.Graph().as_default():`` block, or eagerly, where TF uses a global graph) the
nodes are added to that graph as ``tf.Operation`` s, whose outputs are symbolic
(``GraphTensor``) as in TF: the graph can be inspected and written back.
"""

from __future__ import annotations

from torchflow._src.core import dtypes, errors, graph_api, op_graph
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.proto import tf_function_pb2, tf_graph_pb2
from torchflow._src.core.tensor import Tensor, executing_eagerly
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.ops import graph_exec, raw_op_types
from torchflow._src.ops._dispatch import tf_type_name
from torchflow._src.util.api import public

__all__ = ["import_graph_def"]

_PLACEHOLDERS = ("Placeholder", "PlaceholderV2")
# Ops that produce no tensor (they run for their effect or as control edges).
_NO_OUTPUTS = frozenset({"NoOp", "AssignVariableOp", "AssignAddVariableOp",
                         "AssignSubVariableOp", "Assert", "SaveV2", "PrintV2",
                         "WriteScalarSummary", "WriteHistogramSummary", "WriteSummary"})


@public("torchflow.graph_util")
def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports the graph ``graph_def`` into the default graph.

    Inside a ``tf.function`` the imported nodes run as part of it, reading the
    tensors of ``input_map``; elsewhere they are added to the default graph (the
    one a ``with g.as_default():`` block makes, or TF's global graph when
    executing eagerly) as operations with symbolic outputs.

    Args:
      graph_def: A ``GraphDef`` proto (``tf.compat.v1.GraphDef``).
      input_map: A dict from input names in ``graph_def`` (``"x:0"``, or ``"x"``
        for output 0) to the tensors that replace them.
      return_elements: Names in ``graph_def`` of tensors (``"y:0"``) or
        operations (``"init"``) to return.
      name: The prefix of the imported names (default ``"import"``; ``""``: no
        prefix).
      op_dict: Unused (TF's deprecated argument).
      producer_op_list: Unused (the defaults of attributes are the executor's).

    Returns:
      The tensors and ``tf.Operation`` s of ``return_elements``, in order (the
      tensors computed, inside a function), or None without ``return_elements``.

    Raises:
      TypeError: If an argument has the wrong type.
      ValueError: If ``input_map`` or ``return_elements`` name what ``graph_def``
        does not have.
      InvalidArgumentError: Inside a function, if a placeholder the outputs need
        is not in ``input_map``.
      NotImplementedError: With ``input_map`` when executing eagerly (as TF).
    """
    del op_dict, producer_op_list
    gd = _graph_def(graph_def)
    mapping = _input_map(input_map)
    wanted = _return_elements(return_elements)
    target = graph_api.user_default_graph()
    run = target is None and not executing_eagerly()
    eager = target is None and not run
    if eager:
        if mapping:
            raise NotImplementedError("_as_tf_output not supported when eager execution is "
                                      "enabled.")
        target = graph_api.get_default_graph()
    # Inside a function the returned ops sit in a graph of their own.
    graph = target if target is not None else graph_api.Graph()
    graph._check_not_finalized()
    # Eagerly TF imports into its global graph without a name scope.
    prefix = "" if name == "" or eager else graph.unique_name(name or "import")
    nodes = {nd.name: nd for nd in gd.node}
    _check_names(nodes, mapping, wanted)
    ops = _add_nodes(graph, gd, prefix, None if run else mapping)
    if run:
        values = _run(gd, prefix, mapping, wanted)
    if wanted is None:
        return None
    out = []
    for k, ref in enumerate(wanted):
        if ":" in ref:
            src, _, idx = ref.rpartition(":")
            out.append(values[k] if run else ops[src].outputs[int(idx)])  # pyright: ignore[reportPossiblyUnboundVariable] - set when run
        else:
            out.append(ops[ref])
    return out


def _graph_def(graph_def):
    if isinstance(graph_def, tf_graph_pb2.GraphDef):
        return graph_def
    desc = getattr(graph_def, "DESCRIPTOR", None)
    if getattr(desc, "full_name", None) == "tensorflow.GraphDef":  # another GraphDef class
        return tf_graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
    raise TypeError("graph_def must be a GraphDef proto.")


def _input_map(input_map) -> dict:
    if input_map is None:
        return {}
    if not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    if not all(isinstance(k, (str, bytes)) for k in input_map):
        raise TypeError("All keys for input_map must be strings.")
    return {_endpoint(_text(k)): v for k, v in input_map.items()}


def _return_elements(return_elements):
    if return_elements is None:
        return None
    if not all(isinstance(r, (str, bytes)) for r in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    return [_text(r) for r in return_elements]


def _text(s) -> str:
    return s.decode() if isinstance(s, bytes) else s


def _endpoint(ref: str) -> str:
    """``"x"`` -> ``"x:0"``; ``"x:1"`` unchanged (``"^x"`` too)."""
    if ref.startswith("^") or ":" in ref:
        return ref
    return ref + ":0"


def _check_names(nodes: dict, mapping: dict, wanted) -> None:
    missing = [k for k in mapping if k.rpartition(":")[0] not in nodes]
    if missing:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(missing)}]")
    counts = _output_counts(nodes.values())
    for ref in wanted or ():
        if ":" in ref:
            src, _, idx = ref.rpartition(":")
            if src not in nodes or not idx.isdigit():
                raise ValueError(f"Requested return tensor '{ref}' not found in graph def")
            if int(idx) >= counts[src]:
                raise ValueError(f"Invalid return output {idx} of node '{src}', which has "
                                 f"{counts[src]} output(s)")
        elif ref not in nodes:
            raise ValueError(f"Requested return node '{ref}' not found in graph def")


def _output_counts(nodes) -> dict:
    """Each node's number of outputs: its ``_output_shapes``, its op's definition,
    and at least one more than the highest output another node reads."""
    counts = {}
    for nd in nodes:
        shapes = nd.attr.get("_output_shapes")
        if shapes is not None and len(shapes.list.shape):
            n = len(shapes.list.shape)
        elif nd.op in _NO_OUTPUTS:
            n = 0
        else:
            code = raw_op_types.OPS.get(nd.op)
            n = len(code.split("->", 1)[1].split()) if code and "->" in code else 1
        counts[nd.name] = n
    for nd in nodes:
        for ref in nd.input:
            if ref.startswith("^"):
                continue
            src, _, idx = ref.partition(":")
            if idx.isdigit() and src in counts:
                counts[src] = max(counts[src], int(idx) + 1)
    return counts


def _scoped(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


def _add_nodes(graph, gd, prefix: str, mapping) -> dict:
    """Adds ``gd``'s nodes to ``graph`` (names under ``prefix``); ``mapping`` (None
    when the nodes run instead) replaces inputs by tensors of ``graph``. Returns
    ``{name in gd: Operation}``."""
    nodes = list(gd.node)
    counts = _output_counts(nodes)
    # A name the graph has is made unique (``out`` -> ``out_1``), as TF's importer does.
    rename = {}
    for nd in nodes:
        full = _scoped(prefix, nd.name)
        if full in graph._ops or full.lower() in graph._name_counts:
            full = graph.unique_name(full)
        rename[nd.name] = full
    for key, value in (mapping or {}).items():
        if not isinstance(value, graph_api.GraphTensor) or value.graph is not graph:
            raise ValueError(f"Tensor {value!r} mapped to {key} is not an element of this "
                             f"graph.")
    ops: dict = {}
    dtype_of: dict = {}
    for nd in nodes:
        new = type(nd)()
        new.CopyFrom(nd)
        new.name = rename[nd.name]
        del new.input[:]
        in_dtypes = []
        for ref in nd.input:
            if ref.startswith("^"):
                new.input.append("^" + rename.get(ref[1:], ref[1:]))
                continue
            mapped = (mapping or {}).get(_endpoint(ref))
            if mapped is not None:
                new.input.append(mapped.name)
                in_dtypes.append(mapped.dtype)
                continue
            src, sep, idx = ref.partition(":")
            new.input.append(rename.get(src, src) + sep + idx)
            in_dtypes.append(dtype_of.get(_endpoint(ref)))
        attrs = {k: graph_exec.attr_value(v) for k, v in nd.attr.items()}
        n = counts[nd.name]
        out_dtypes = _out_dtypes(nd.op, attrs, in_dtypes, n)
        for k, d in enumerate(out_dtypes):
            dtype_of[f"{nd.name}:{k}"] = d
        op = op_graph.Operation(graph, new.name, nd.op, [_endpoint(i) for i in new.input],
                                attrs, n, out_dtypes, _out_shapes(nd.op, attrs, n), proto=new)
        graph._add_op(op)
        ops[nd.name] = op
    return ops


def _out_dtypes(op: str, attrs: dict, in_dtypes: list, n: int) -> list:
    types = attrs.get("_output_types") or attrs.get("Tout")
    if isinstance(types, list) and len(types) == n:
        return list(types)
    code = raw_op_types.OPS.get(op)
    if code and "->" in code:
        args, outs = code.split("->", 1)
        tensor_args = [a.split("=", 1)[0] for a in args.split() if not a.split("=", 1)[1]
                       .startswith("a:")] if args.strip() else []
        found = []
        for o in outs.split():
            if "@" in o:
                found.append(attrs.get(o.split("@", 1)[1]))
            elif "=" in o:
                src = o.split("=", 1)[1]
                i = tensor_args.index(src) if src in tensor_args else -1
                found.append(in_dtypes[i] if 0 <= i < len(in_dtypes) else None)
            elif ":" in o and not o.split(":", 1)[1].startswith("L"):
                found.append(dtypes.as_dtype(o.split(":", 1)[1]))
            else:
                found.append(None)
        if len(found) == n:
            return found
    d = attrs.get("dtype", attrs.get("T", attrs.get("out_type")))
    if d is None and in_dtypes:
        d = in_dtypes[0]
    return [d if isinstance(d, dtypes.DType) else None] * n


def _out_shapes(op: str, attrs: dict, n: int) -> list:
    shapes = attrs.get("_output_shapes")
    if isinstance(shapes, list) and len(shapes) == n:
        return [TensorShape(s) if not isinstance(s, TensorShape) else s for s in shapes]
    if op in _PLACEHOLDERS and attrs.get("shape") is not None:
        return [TensorShape(attrs["shape"])]
    if op == "Const" and isinstance(attrs.get("value"), Tensor):
        return [attrs["value"].shape]
    return [None] * n


def _run(gd, prefix: str, mapping: dict, wanted) -> list:
    """Runs the nodes ``wanted`` needs, on ``mapping``'s tensors, as one function of
    the graph executor; returns the tensors ``wanted`` names (None for its ops)."""
    fdef = tf_function_pb2.FunctionDef()
    fdef.signature.name = "__import_graph_def"
    args: dict = {}
    inputs = []
    for k, (key, value) in enumerate(mapping.items()):
        t = value if isinstance(value, Tensor) else convert_to_tensor(value)
        arg = fdef.signature.input_arg.add(name=f"import_input_{k}")
        arg.type = t.dtype.as_datatype_enum  # pyright: ignore[reportAttributeAccessIssue] - the stubs type enums apart from int
        args[key] = arg.name
        inputs.append(t)
    for nd in gd.node:
        new = fdef.node_def.add()
        new.CopyFrom(nd)
        del new.input[:]
        for ref in nd.input:
            new.input.append(args.get(_endpoint(ref), ref))
        if nd.op in _PLACEHOLDERS and f"{nd.name}:0" in args:
            new.op = "NoOp"  # its readers read the argument instead
    tensors = [r for r in wanted or () if ":" in r]
    for k, ref in enumerate(tensors):
        fdef.signature.output_arg.add(name=f"import_output_{k}")
        fdef.ret[f"import_output_{k}"] = args.get(ref, ref)
    for ref in wanted or ():
        if ":" not in ref:
            fdef.control_ret[ref] = ref
            fdef.signature.control_output.append(ref)
    library = tf_function_pb2.FunctionDefLibrary()
    library.CopyFrom(gd.library)
    library.function.append(fdef)
    lib = graph_exec.FunctionLibrary(library)
    plan = lib._plan(fdef.signature.name)
    for node in plan.order:
        if node.op in _PLACEHOLDERS:
            shape = node.attrs.get("shape")
            dims = "<unknown>" if shape is None or TensorShape(shape).rank is None else \
                "[" + ",".join("?" if d is None else str(d) for d in TensorShape(shape)) + "]"
            dt = node.attrs.get("dtype")
            raise errors.InvalidArgumentError(
                None, None, f"You must feed a value for placeholder tensor "
                f"'{_scoped(prefix, node.name)}' with dtype "
                f"{tf_type_name(dt) if isinstance(dt, dtypes.DType) else dt} and shape {dims}\n\t "
                f"[[{{{{node {_scoped(prefix, node.name)}}}}}]]")
    results = plan.run(lib, inputs)
    it = iter(results)
    return [next(it) if ":" in ref else None for ref in wanted or ()]
