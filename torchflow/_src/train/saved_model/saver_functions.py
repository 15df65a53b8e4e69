"""The ``saver_def`` of a SavedModel: TF's save and restore functions of its variables.

TF 1-style loaders (``tf.compat.v1.saved_model.load``, TF Serving's C++ loader)
restore the variables by running ``saver_def.restore_op_name`` with the
checkpoint prefix fed to ``saver_def.filename_tensor_name``. As TF writes them,
both are ``StatefulPartitionedCall``\\ s of functions that take the prefix and
the variables' handles: ``RestoreV2`` + one ``AssignVariableOp`` per variable, and
``ReadVariableOp``\\ s + ``SaveV2``; each returns the prefix.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.op_graph import NameAttrList, attr_value, shape_proto
from torchflow._src.core.proto import tf_function_pb2

_STRING = dtypes.string.as_datatype_enum
_RESOURCE = dtypes.resource.as_datatype_enum


def _const(fd, name: str, values: list) -> str:
    nd = fd.node_def.add(name=name, op="Const")
    nd.attr["dtype"].type = _STRING
    nd.attr["value"].CopyFrom(attr_value(np.array(values, dtype=object)))
    return f"{name}:output:0"


def _new(name: str, n: int, prefix_arg: str):
    fd = tf_function_pb2.FunctionDef()
    sig = fd.signature
    sig.name = name
    sig.is_stateful = True
    sig.input_arg.add(name="file_prefix", type=_STRING)
    args = []
    for i in range(n):
        a = f"{prefix_arg}_{i}_resource" if i else f"{prefix_arg}_resource"
        sig.input_arg.add(name=a, type=_RESOURCE)
        args.append(a)
    sig.output_arg.add(name="identity", type=_STRING)
    return fd, args


def _finish(fd, deps: list) -> None:
    nd = fd.node_def.add(name="Identity", op="Identity")
    nd.input.append("file_prefix")
    nd.input.extend(f"^{d}" for d in deps)
    nd.attr["T"].type = _STRING
    fd.ret["identity"] = "Identity:output:0"
    for d in deps:
        fd.signature.control_output.append(d)
        fd.control_ret[d] = d


def restore_function(name: str, variables: list):
    """``variables``: ``[(checkpoint key, dtype)]``; the function's inputs are the
    prefix and one handle per variable, in that order."""
    fd, args = _new(name, len(variables), "assignvariableop")
    names = _const(fd, "RestoreV2/tensor_names", [k for k, _ in variables])
    slices = _const(fd, "RestoreV2/shape_and_slices", [""] * len(variables))
    rd = fd.node_def.add(name="RestoreV2", op="RestoreV2")
    rd.input.extend(["file_prefix", names, slices])
    rd.attr["dtypes"].CopyFrom(attr_value([d for _, d in variables]))
    deps = []
    for i, ((_, d), a) in enumerate(zip(variables, args)):
        nd = fd.node_def.add(name=f"AssignVariableOp_{i}" if i else "AssignVariableOp",
                             op="AssignVariableOp")
        nd.input.extend([a, f"RestoreV2:tensors:{i}"])
        nd.attr["dtype"].type = d.as_datatype_enum
        deps.append(nd.name)
    _finish(fd, deps)
    return fd


def save_function(name: str, variables: list):
    """The save counterpart of ``restore_function`` (``SaveV2`` of the values)."""
    fd, args = _new(name, len(variables), "readvariableop")
    names = _const(fd, "SaveV2/tensor_names", [k for k, _ in variables])
    slices = _const(fd, "SaveV2/shape_and_slices", [""] * len(variables))
    reads = []
    for i, ((_, d), a) in enumerate(zip(variables, args)):
        nd = fd.node_def.add(name=f"ReadVariableOp_{i}" if i else "ReadVariableOp",
                             op="ReadVariableOp")
        nd.input.append(a)
        nd.attr["dtype"].type = d.as_datatype_enum
        reads.append(f"{nd.name}:value:0")
    sd = fd.node_def.add(name="SaveV2", op="SaveV2")
    sd.input.extend(["file_prefix", names, slices] + reads)
    sd.attr["dtypes"].CopyFrom(attr_value([d for _, d in variables]))
    _finish(fd, ["SaveV2"])
    return fd


def add_saver(meta, variables: list, handles: list, unique, fname) -> None:
    """Adds the two functions, their calls and ``meta.saver_def``.

    Args:
      meta: The ``MetaGraphDef``.
      variables: ``[(checkpoint key, dtype)]``.
      handles: The ``VarHandleOp`` node names of the variables, in the same order.
      unique: Makes a graph node name unique.
      fname: Makes a function name unique from a base.
    """
    gd = meta.graph_def
    ph = gd.node.add(name=unique("saver_filename"), op="Placeholder")
    ph.attr["dtype"].type = _STRING
    ph.attr["shape"].shape.CopyFrom(shape_proto([]))
    calls = []
    for make, base in ((save_function, "_traced_save"), (restore_function, "_traced_restore")):
        name = fname(base)
        gd.library.function.add().CopyFrom(make(name, variables))
        call = gd.node.add(name=unique("StatefulPartitionedCall"), op="StatefulPartitionedCall")
        call.input.extend([ph.name] + list(handles))
        for a, v in (("Tin", [dtypes.string] + [dtypes.resource] * len(handles)),
                     ("Tout", [dtypes.string]), ("f", NameAttrList(name)), ("config", ""),
                     ("config_proto", ""), ("executor_type", "")):
            call.attr[a].CopyFrom(attr_value(v))
        calls.append(call.name)
    sd = meta.saver_def
    sd.filename_tensor_name = f"{ph.name}:0"
    sd.save_tensor_name = f"{calls[0]}:0"
    sd.restore_op_name = calls[1]
    sd.version = 2  # SaverDef.V2
