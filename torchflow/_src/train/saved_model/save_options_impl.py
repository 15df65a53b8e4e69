"""What ``tf.saved_model.SaveOptions`` change in a saved MetaGraph, applied as TF 2.4 does.

* ``namespace_whitelist``: an op of a custom namespace (``"MyNs>MyOp"``) in the graph
  or a function it calls (the signatures' and the saver's, and what they call, as TF
  counts them) is refused (``ValueError``) unless its namespace is listed
  (``verify_ops``).
* ``function_aliases``: ``meta_info_def.function_aliases`` maps the name of every
  saved concrete function of each aliased ``tf.function`` to its alias
  (``function_aliases``).
* ``save_debug_info``: ``debug/saved_model_debug_info.pb``, a ``GraphDebugInfo``
  with one stack trace per node of each traced function, keyed ``node@function``
  (TF 2.4's ``traces`` map; ``write_debug_info``). torchflow's graphs do not keep
  the Python stack of each op, so a node's trace is the frame of the Python
  function it was traced from (its file, first line and name).
* ``experimental_variable_policy``: devices of variables and of the components of
  distributed variables (``variable_devices``, ``distributed_components``).
* ``experimental_io_device``: a device string, checked (``check_io_device``);
  torchflow reads and writes files on the host.
"""

from __future__ import annotations

import os

from torchflow._src.core.device import DeviceSpec
from torchflow._src.core.function import ConcreteFunction, Function
from torchflow._src.core.proto import tf_graph_debug_info_pb2
from torchflow._src.train.saved_model import constants
from torchflow._src.train.saved_model.restored_function import (
    RestoredConcreteFunction,
    RestoredFunction,
)


def check_io_device(device) -> None:
    """Raises TF's ``ValueError`` when ``device`` is not a device string (None is fine)."""
    if device is None:
        return
    DeviceSpec.from_string(device if isinstance(device, str) else str(device))


def _ops_used(graph_def) -> set:
    """The ops of the graph's nodes and of the functions they call, as TF counts them
    (``meta_graph.ops_used_by_graph_def``): a function is followed when a node's op
    is its name or a ``(Stateful)PartitionedCall`` names it in ``f``."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used: set = set()
    todo: list = []

    def mark(op: str) -> None:
        if op not in used and op in functions:
            todo.append(functions[op])
        used.add(op)

    def visit(node) -> None:
        mark(node.op)
        if node.op in ("PartitionedCall", "StatefulPartitionedCall"):
            mark(node.attr["f"].func.name)

    for node in graph_def.node:
        visit(node)
    while todo:
        for node in todo.pop().node_def:
            visit(node)
    return used - set(functions)  # function names (``__inference_<lambda>_1``) are no ops


def verify_ops(graph_def, namespace_whitelist: list) -> None:
    """Refuses ops of namespaces that are not whitelisted (TF's message).

    Raises:
      ValueError: An op ``"Namespace>Op"`` of a namespace not in the list.
    """
    invalid_ops = []
    invalid_namespaces = set()
    for op in sorted(_ops_used(graph_def)):
        if ">" in op:
            namespace = op.split(">")[0]
            if namespace not in namespace_whitelist:
                invalid_ops.append(op)
                invalid_namespaces.add(namespace)
    if invalid_ops:
        raise ValueError(
            f"Attempted to save ops from non-whitelisted namespaces to SavedModel: "
            f"{invalid_ops}.\nPlease verify that these ops should be saved, since they must "
            "be available when loading the SavedModel. If loading from Python, you must "
            "import the library defining these ops. From C++, link the custom ops to the "
            "serving binary. Once you've confirmed this, please add the following namespaces "
            "to the `namespace_whitelist` argument in tf.saved_model.SaveOptions: "
            f"{invalid_namespaces}.")


def function_aliases(meta, aliases: dict, name_of) -> None:
    """Writes ``{concrete function name: alias}`` into ``meta.meta_info_def``.

    Args:
      meta: The ``MetaGraphDef``.
      aliases: ``SaveOptions.function_aliases``.
      name_of: Gives the library name of a concrete function (saving it if needed).

    Raises:
      TypeError: An aliased value is not a tf.function, a concrete function or a
        collection of concrete functions (TF's message).
    """
    out = meta.meta_info_def.function_aliases
    concrete = (ConcreteFunction, RestoredConcreteFunction)
    for alias, func in aliases.items():
        if isinstance(func, concrete):
            fns = [func]
        elif isinstance(func, RestoredFunction):
            fns = func.concrete_functions
        elif isinstance(func, Function):
            fns = func._list_all_concrete_functions()
        elif isinstance(func, (list, tuple, set)) and all(isinstance(f, concrete) for f in func):
            fns = list(func)
        else:
            raise TypeError(
                f"Unsupported type f{type(func)}. Functions in `function_aliases` should be "
                "created by tf.function, or concrete functions, or collections of concrete "
                "functions.")
        for f in fns:
            out[name_of(f)] = alias


def write_debug_info(export_dir: str, functions: list) -> None:
    """``debug/saved_model_debug_info.pb`` for ``[(FunctionDef name, graph, Python fn)]``."""
    info = tf_graph_debug_info_pb2.GraphDebugInfo()
    files: "dict[str, int]" = {}
    for fd_name, graph, python_fn in functions:
        code = getattr(python_fn, "__code__", None)
        if code is None:
            continue
        for op in graph.get_operations():
            trace = info.traces[f"{op.name}@{fd_name}"]
            for file, line, func in _op_frames(op, code):
                trace.file_line_cols.add(file_index=files.setdefault(file, len(files)),
                                         line=line, func=func)
    info.files.extend(sorted(files, key=files.__getitem__))
    directory = os.path.join(export_dir, constants.DEBUG_DIRECTORY)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, constants.DEBUG_INFO_FILENAME_PB)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(info.SerializeToString(deterministic=True))
    os.replace(tmp, path)


def _op_frames(op, body) -> list:
    """``[(file, line, function)]`` of the user frames that made ``op``, outermost
    first, from the traced ``body`` inward (TF also lists the frames that called the
    trace: here that would be the save call, not where the function was first
    traced); an op no user call made (a placeholder, an output's Identity) has the
    body's first line."""
    stack = list(getattr(op, "_stack", ()))
    # AutoGraph runs a converted copy of the body: found by its file, name and lines.
    last = max((ln for _, _, ln in body.co_lines() if ln is not None),
               default=body.co_firstlineno)
    starts = [k for k, (c, line) in enumerate(stack)
              if c.co_filename == body.co_filename and c.co_name == body.co_name and
              body.co_firstlineno <= line <= last]
    if starts:
        stack = stack[starts[-1]:]
    if not stack:
        return [(body.co_filename, body.co_firstlineno, body.co_name)]
    return [(c.co_filename, line, c.co_name) for c, line in stack]


def _is_distributed(var) -> bool:
    return isinstance(getattr(var, "_values", None), tuple) and \
        hasattr(var, "_distribute_strategy")


def variable_device(var, policy) -> str:
    """The device a SavedVariable and its ``VarHandleOp`` record ('' unless the policy
    saves devices)."""
    if not policy._save_variable_devices():
        return ""
    return str(getattr(var, "device", "") or "")


def distributed_components(var, policy) -> list:
    """``[(name, device)]`` of a distributed variable's components when the policy
    expands them (TF names component ``i > 0`` ``<name>/replica_<i>``), else ``[]``."""
    if not policy._expand_distributed_variables() or not _is_distributed(var):
        return []
    base = (getattr(var, "name", "") or "Variable").split(":")[0]
    out = []
    for i, c in enumerate(var._values):
        out.append((base if i == 0 else f"{base}/replica_{i}",
                    str(getattr(c, "device", "") or "")))
    return out
