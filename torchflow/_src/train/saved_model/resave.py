"""Re-saving an object loaded from a SavedModel: its restored functions, written back.

``obj = tf.saved_model.load(p); tf.saved_model.save(obj, p2)`` keeps what TF keeps:
the variables and children (they are ordinary trackables), and every restored
``tf.function`` and concrete function. These have no Python body to trace again;
they are re-exported from the ``FunctionDef``\\ s they were loaded from, as TF
re-exports the graphs it imported:

* each ``FunctionDef`` of a restored function, and of every function it calls, is
  copied into the new library; a name already taken there is made unique and the
  ``func`` attributes that call it are renamed with it;
* its ``SavedConcreteFunction`` (input and output structures) is copied with
  ``bound_inputs`` pointing at the new node ids of the variables it captures;
* a restored function used as a signature is called by a new signature wrapper
  (keyword inputs in sorted order, a dict of outputs), as TF wraps it.
"""

from __future__ import annotations

from torchflow._src.core import dtypes, errors
from torchflow._src.core.op_graph import NameAttrList, attr_value
from torchflow._src.core.proto import tf_function_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variables import Variable
from torchflow._src.train.saved_model import constants, structure
from torchflow._src.train.saved_model.restored_function import (
    RestoredConcreteFunction,
    RestoredFunction,
)
from torchflow._src.train.saved_model.revived import RevivedResource
from torchflow._src.util import nest

RESTORED = (RestoredFunction, RestoredConcreteFunction)


def _rename_refs(fd, names: dict) -> None:
    """Points the ``func`` attributes of ``fd``'s nodes at the renamed functions."""

    def fix(av):
        kind = av.WhichOneof("value")
        if kind == "func":
            if av.func.name in names:
                av.func.name = names[av.func.name]
            for inner in av.func.attr.values():
                fix(inner)
        elif kind == "list":
            for f in av.list.func:
                if f.name in names:
                    f.name = names[f.name]

    for node in fd.node_def:
        for av in node.attr.values():
            fix(av)


class FunctionCopier:
    """Copies restored functions' ``FunctionDef``\\ s into one library, once each.

    Args:
      library: The ``FunctionDefLibrary`` being written.
      taken: The function names already in it (updated as names are added).
    """

    def __init__(self, library, taken: set):
        self._library = library
        self._taken = taken
        self._copied: "dict[tuple, str]" = {}  # (id(source library), name) -> new name
        self._sources: list = []  # keeps the source libraries alive (their ids are keys)

    def _new_name(self, name: str) -> str:
        out, k = name, 0
        while out in self._taken:
            k += 1
            out = f"{name}_{k}"
        self._taken.add(out)
        return out

    def copy(self, fn: RestoredConcreteFunction) -> str:
        """Adds ``fn``'s ``FunctionDef`` and those it calls; returns its name here."""
        src = fn._library
        key = (id(src), fn.name)
        if key in self._copied:
            return self._copied[key]
        self._sources.append(src)
        # Functions written beside the traced ones (loop bodies ...) hold names too.
        self._taken.update(f.signature.name for f in self._library.function)
        fdefs = [f for f in fn.library_functions()
                 if (id(src), f.signature.name) not in self._copied]
        renames = {}
        for f in fdefs:
            new = self._new_name(f.signature.name)
            self._copied[(id(src), f.signature.name)] = new
            if new != f.signature.name:
                renames[f.signature.name] = new
        for f in fdefs:
            out = self._library.function.add()
            out.CopyFrom(f)
            out.signature.name = self._copied[(id(src), f.signature.name)]
            if renames:
                _rename_refs(out, renames)
        return self._copied[key]


def bound_objects(fn: RestoredConcreteFunction, fname: str) -> list:
    """The objects ``fn`` captures, in order (its trailing resource inputs).

    Raises:
      UnimplementedError: It captures something other than a variable or an asset
        (a restored resource), which a re-save cannot bind yet.
    """
    out = []
    for c in getattr(fn, "_saved_capture_objects", None) or fn._captures:
        if not (isinstance(c, (Variable, constants.Asset, Tensor)) or
                is_restored_resource(c)):
            raise errors.UnimplementedError(
                None, None, f"Cannot re-save the restored function {fname}: it captures "
                f"{type(c).__name__} {c!r}, and torchflow re-saves restored functions that "
                "capture variables, assets, constants and restored resources (lookup tables) only")
        out.append(c)
    return out


def is_restored_resource(obj) -> bool:
    """A loaded resource (a lookup table) that a re-save writes back as a
    ``SavedResource`` node with its ``_create_resource``/``_initialize`` functions."""
    return isinstance(obj, RevivedResource) and obj._captured is None


def copy_saved_concrete(saved, fn: RestoredConcreteFunction, bound: list) -> None:
    """Fills the ``SavedConcreteFunction`` ``saved`` from ``fn``'s, bound to node ids."""
    saved.CopyFrom(fn.saved_concrete_function)
    del saved.bound_inputs[:]
    saved.bound_inputs.extend(bound)


def signature_parts(fn: RestoredConcreteFunction, key: str):
    """``(keywords, specs, out_keys, out_specs, flat_out_index)`` of a restored function
    used as signature ``key``: its tensor inputs named as TF names them (the spec's
    name, else the bare function's keyword, else ``input_<i>``), its outputs keyed as
    a signature's are (a dict's keys, else ``output_<i>``).

    Raises:
      ValueError: An input or output is not a tensor (TF's messages).
    """
    args, kwargs = fn.structured_input_signature
    leaves = nest.flatten((args, kwargs))
    specs = [s for s in leaves if isinstance(s, TensorSpec)]
    if len(specs) != len(leaves):
        raise ValueError(
            f"Got a non-Tensor value in the input signature of function {fn.name} used to "
            f"generate the SavedModel signature '{key}'; signature functions take tensor "
            "inputs only.")
    bare = fn._argument_keywords
    keywords = []
    for i, s in enumerate(specs):
        if bare is not None and i < len(bare):
            keywords.append(bare[i])
        else:
            keywords.append(s.name or f"input_{i}")
    if len(set(keywords)) != len(keywords):
        raise ValueError(f"Function {fn.name} used for signature '{key}' has repeated input "
                         f"names {keywords}.")
    outputs = fn.structured_outputs
    flat = nest.flatten(outputs)
    if not flat or not all(isinstance(o, TensorSpec) for o in flat):
        raise ValueError(
            f"Got a non-Tensor value {outputs!r} in the output of the function {fn.name} used "
            f"to generate the SavedModel signature '{key}'. Outputs for functions used as "
            "signatures must be a single Tensor, a sequence of Tensors, or a dictionary from "
            "string to Tensor.")
    if isinstance(outputs, dict) and all(isinstance(k, str) for k in outputs):
        out_keys = sorted(outputs)  # nest.flatten's order of a dict
    elif isinstance(outputs, TensorSpec):
        out_keys = ["output_0"]
    else:
        out_keys = [f"output_{i}" for i in range(len(flat))]
    return keywords, specs, out_keys, flat


def signature_wrapper(name: str, inner: str, inner_fd, keywords: list, specs: list,
                      out_keys: list, bound_types: list):
    """A signature's ``FunctionDef`` that calls the copied restored function ``inner``.

    Its inputs are the keywords in sorted order, then the bound inputs (variable and
    resource handles, captured constants) of ``bound_types``;
    its outputs the sorted ``out_keys``; the body one ``StatefulPartitionedCall``.
    """
    fd = tf_function_pb2.FunctionDef()
    sig = fd.signature
    sig.name = name
    sig.is_stateful = True
    order = sorted(range(len(keywords)), key=lambda k: keywords[k])
    for k in order:
        sig.input_arg.add(name=keywords[k], type=specs[k].dtype.as_datatype_enum)
        fd.arg_attr[len(sig.input_arg) - 1].attr["_user_specified_name"].s = \
            keywords[k].encode()
    handles = []
    for j, bound_type in enumerate(bound_types):
        a = f"unknown_{j}" if j else "unknown"
        sig.input_arg.add(name=a, type=bound_type.as_datatype_enum)
        handles.append(a)
    call = fd.node_def.add(name="StatefulPartitionedCall", op="StatefulPartitionedCall")
    call.input.extend(list(keywords) + handles)
    tin = [dtypes.as_dtype(a.type) for a in inner_fd.signature.input_arg]
    tout = [dtypes.as_dtype(a.type) for a in inner_fd.signature.output_arg]
    for a, v in (("Tin", tin), ("Tout", tout), ("f", NameAttrList(inner)), ("config", ""),
                 ("config_proto", ""), ("executor_type", "")):
        call.attr[a].CopyFrom(attr_value(v))
    for pos in sorted(range(len(out_keys)), key=lambda p: out_keys[p]):
        k = out_keys[pos]
        ident = fd.node_def.add(name=f"Identity_{pos}" if pos else "Identity", op="Identity")
        ident.input.append(f"StatefulPartitionedCall:output:{pos}")
        ident.input.append("^StatefulPartitionedCall")
        ident.attr["T"].type = tout[pos].as_datatype_enum
        sig.output_arg.add(name=k, type=tout[pos].as_datatype_enum)
        fd.ret[k] = f"{ident.name}:output:0"
    return fd


def encode_signature(saved, keywords: list, specs: list, out_keys: list, out_specs: list):
    """The wrapper's structured input (``((), {keyword: spec})``) and output signatures."""
    ins = {k: TensorSpec(s.shape, s.dtype, k) for k, s in zip(keywords, specs)}
    saved.canonicalized_input_signature.CopyFrom(structure.encode(((), ins)))
    outs = {k: TensorSpec(s.shape, s.dtype, k) for k, s in zip(out_keys, out_specs)}
    saved.output_signature.CopyFrom(structure.encode(outs))
    return ins, outs
