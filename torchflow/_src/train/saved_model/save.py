"""``tf.saved_model.save``: writes a trackable object as a SavedModel in TF's layout.

``export_dir`` gets ``saved_model.pb`` (a ``SavedModel`` with one ``MetaGraphDef``
tagged ``serve``), ``variables/variables.{index,data-00000-of-00001}`` (a TF
checkpoint, ``checkpoint._save_graph``) and ``assets/``. The MetaGraph holds:

* ``graph_def.library``: one ``FunctionDef`` per concrete function of every
  ``tf.function`` reachable from the object, and one per signature (TF's
  *signature wrapper*: the same body with keyword inputs in sorted order and
  the outputs of a dict); ``graph_def.node``: for each signature its input
  placeholders (``serving_default_x``) and the ``StatefulPartitionedCall`` of
  its wrapper on the variables' ``VarHandleOp``\\ s, so ``signature_def``'s
  tensor names exist;
* ``object_graph_def``: the checkpoint's objects with the same node ids (user
  objects, list/dict wrappers, ``SavedVariable``\\ s), then the functions
  (``SavedFunction``) as children of their owners, then ``signatures`` (TF's
  ``signature_map``) and its ``bare_concrete_function``\\ s; ``concrete_functions``
  describes each with ``bound_inputs`` (the node ids of the variables it
  captures, which are the FunctionDef's trailing resource inputs) and its input
  and output structures;
* ``signature_def``: one ``SignatureDef`` per signature (``tensorflow/serving/predict``).

The graphs come from the traced functions (``ConcreteFunction.graph``); a graph
holding computations with no TF op cannot be written and raises.
"""

from __future__ import annotations

import collections
import collections.abc
import inspect
import os
import shutil

import numpy as np

from torchflow._src.core import dtypes, errors, function_signature
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.function import ConcreteFunction, Function
from torchflow._src.core.op_graph import NameAttrList, attr_value, shape_proto
from torchflow._src.core.proto import tf_meta_graph_pb2, tf_saved_model_pb2, tf_versions_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops.lookup.initializers import VocabularyFile
from torchflow._src.train import checkpoint
from torchflow._src.train import object_graph as og
from torchflow._src.train.saved_model import (
    constants,
    keras_functions,
    resave,
    saver_functions,
    structure,
)
from torchflow._src.train.saved_model import save_options_impl as options_impl
from torchflow._src.train.saved_model.function_def import add_nested_functions, function_def
from torchflow._src.util import nest
from torchflow._src.util.api import public

# Functions Keras keeps for fit/evaluate/predict: TF does not save them.
_SKIPPED = frozenset(("train_function", "test_function", "predict_function",
                      "train_tf_function"))
_PREDICT = "tensorflow/serving/predict"
_INIT_OP_KEY = "__saved_model_init_op"
_FUNCTIONS = (Function, ConcreteFunction) + resave.RESTORED
_ASSETS = (constants.Asset, VocabularyFile)  # a table's vocabulary file is an asset too


def _is_table(obj) -> bool:
    """A ``tf.lookup`` table: a ``SavedResource`` with its creating and initializing
    functions, as TF writes a ``TrackableResource``."""
    return getattr(obj, "_is_lookup_table", False) is True and not isinstance(obj, type)


def _resource_functions(obj) -> tuple:
    """``(_create_resource, _initialize)`` of a resource node's object."""
    if _is_table(obj):
        fns = obj._list_functions_for_serialization({})
        return fns.get("_create_resource"), fns.get("_initialize")
    return getattr(obj, "_create_resource", None), getattr(obj, "_initialize", None)


def _functions_of(obj) -> list:
    """``[(attribute name, Function or ConcreteFunction)]`` of ``obj``, sorted by name."""
    if og.is_variable(obj) or isinstance(obj, (list, tuple, dict)) or isinstance(obj, type):
        return []
    hook = getattr(obj, "_list_functions_for_serialization", None)
    if callable(hook):  # TF's protocol (Keras layers define it): {name: function}
        return sorted((str(k), v) for k, v in hook({}).items()
                      if isinstance(v, _FUNCTIONS))
    names = set(getattr(obj, "__dict__", {}) or {})
    for klass in type(obj).__mro__:
        names.update(vars(klass))
    out = []
    for n in sorted(names):
        if (n.startswith("__") and n != "__call__") or n in _SKIPPED:
            continue
        try:
            static = inspect.getattr_static(obj, n)
        except AttributeError:
            continue
        if isinstance(static, _FUNCTIONS):
            out.append((n, getattr(obj, n)))
    # A revived object's ``__call__`` lives on its class, the restored function in
    # its saved children.
    seen = {n for n, _ in out}
    out += [(n, c) for n, c in getattr(obj, "_saved_children", ())
            if n not in seen and isinstance(c, resave.RESTORED)]
    return sorted(out, key=lambda item: item[0])


def _concretes(fn) -> list:
    """The concrete functions TF saves for ``fn``: every traced one (tracing the
    ``input_signature`` first if there is one and nothing was traced)."""
    if isinstance(fn, (ConcreteFunction, resave.RestoredConcreteFunction)):
        return [fn]
    if isinstance(fn, resave.RestoredFunction):
        return fn.concrete_functions
    if fn.input_signature is not None and not fn._list_all_concrete_functions():
        fn.get_concrete_function()
    return fn._list_all_concrete_functions()


def _relaxed_spec(t: Tensor, unknown_inputs: bool, name=None, graph=None) -> TensorSpec:
    """A ``TensorSpec`` of an output seen in a trace whose unknown input dimensions
    stood at 1: its static shape where the trace worked it out (``graph.static_shapes``),
    else those 1s may be any size, so they are written unknown."""
    static = getattr(graph, "static_shapes", {}).get(id(t))
    if static is not None:
        return TensorSpec(static, t.dtype, name)
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if dims is not None and unknown_inputs:
        dims = [None if d == 1 else d for d in dims]
    return TensorSpec(TensorShape(dims), t.dtype, name)


def _has_unknown(specs) -> bool:
    flat = nest.flatten(specs)
    for s in flat + [c for x in flat for c in structure.component_specs(x)]:
        if isinstance(s, TensorSpec) and (s.shape.rank is None or None in s.shape.as_list()):
            return True
    return False


def _full_arg_spec(fn: Function):
    try:
        spec = inspect.getfullargspec(fn.python_function)
    except TypeError:
        return None, False
    defaults = spec.defaults
    kwonlydefaults = spec.kwonlydefaults
    try:
        structure.encode((defaults, kwonlydefaults))
    except ValueError:
        defaults = kwonlydefaults = None
    full = collections.namedtuple("FullArgSpec", ["args", "varargs", "varkw", "defaults",
                                                  "kwonlyargs", "kwonlydefaults",
                                                  "annotations"])
    value = full(list(spec.args), spec.varargs, spec.varkw, defaults, list(spec.kwonlyargs),
                 kwonlydefaults, {})
    return structure.encode(value), fn._instance_ref is not None


class _Saver:
    def __init__(self, root, signatures, root_functions=(), options=None):
        self.root = root
        self.objects, self.edges, self.paths, self.index = og.walk(root)
        self.meta = tf_meta_graph_pb2.MetaGraphDef()
        self.graph = self.meta.object_graph_def
        self.library = self.meta.graph_def.library
        self._counter = 0
        self._names: "dict[int, str]" = {}  # id(concrete) -> FunctionDef name
        self._keep: list = []
        self.signatures = signatures
        self._root_functions = list(root_functions)
        self.options = options if options is not None else constants.SaveOptions()
        self._taken: set = set()
        self._copier = resave.FunctionCopier(self.library, self._taken)
        self.debug_functions: list = []  # [(FunctionDef name, graph, Python function)]
        self._constant_ids: "dict[int, int]" = {}  # id(captured tensor) -> node id
        self._constant_nodes: "dict[int, tuple]" = {}  # node id -> (Const name, dtype)

    def _fname(self, base: str) -> str:
        while True:
            self._counter += 1
            name = f"__inference_{base}_{self._counter}"
            if name not in self._taken:
                self._taken.add(name)
                return name

    # --- functions ----------------------------------------------------------------
    def _bound_inputs(self, concrete, fname: str) -> list:
        return [self._node_of(var, fname) for var in concrete.graph.captured_objects]

    def _handle_specs(self, graph) -> dict:
        return {ep: (v.dtype, v.shape.as_list() if v.shape.rank is not None else None)
                for v, ep in graph.captures if og.is_variable(v)}

    def _add_concrete(self, concrete, fname: str) -> str:
        name = self._names.get(id(concrete))
        if name is not None:
            return name
        if isinstance(concrete, resave.RestoredConcreteFunction):
            return self._add_restored(concrete, fname)
        graph = concrete._export_graph()
        if any(og.is_variable(o) for o in nest.flatten(graph.structured_outputs)):
            raise errors.UnimplementedError(
                None, None, f"Cannot save tf.function {fname}: it returns a tf.Variable, which "
                "torchflow's graphs do not hold as an output yet; return v.read_value() or "
                "tf.identity(v) instead.")
        name = self._fname(fname)
        self._names[id(concrete)] = name
        self._keep.append(concrete)
        self.debug_functions.append((name, graph, concrete._function.python_function))
        self.library.function.add().CopyFrom(
            function_def(graph, name, fname, handle_specs=self._handle_specs(graph)))
        add_nested_functions(self.library, graph)  # its loop bodies
        saved = self.graph.concrete_functions[name]
        saved.bound_inputs.extend(self._bound_inputs(concrete, fname))
        args, kwargs = concrete.structured_input_signature
        names = iter(graph.arg_names)

        def named(s):
            if isinstance(s, TensorSpec):
                return TensorSpec(s.shape, s.dtype, s.name or next(names, None))
            for _ in structure.component_specs(s):  # a ragged/sparse spec's inputs
                next(names, None)
            return s

        sig = nest.map_structure(named, (tuple(args), dict(kwargs)))
        saved.canonicalized_input_signature.CopyFrom(structure.encode(sig))
        unknown = _has_unknown((args, kwargs))
        out = nest.map_structure(
            lambda t: _relaxed_spec(t, unknown, None, graph) if isinstance(t, Tensor) else
            structure.output_spec(t, unknown), graph.structured_outputs)
        try:
            saved.output_signature.CopyFrom(structure.encode(out))
        except ValueError:
            saved.output_signature.CopyFrom(structure.encode(None))
        return name

    def _add_restored(self, concrete, fname: str) -> str:
        """A restored concrete function, written back from its FunctionDefs."""
        name = self._copier.copy(concrete)
        self._names[id(concrete)] = name
        self._keep.append(concrete)
        bound = [self._node_of(v, fname) for v in resave.bound_objects(concrete, fname)]
        resave.copy_saved_concrete(self.graph.concrete_functions[name], concrete, bound)
        return name

    def alias_name(self, concrete) -> str:
        """The library name of ``concrete`` (a function aliased in ``SaveOptions``),
        added to the library if no saved object holds it."""
        if id(concrete) in self._names:
            return self._names[id(concrete)]
        base = concrete.name if isinstance(concrete, resave.RestoredConcreteFunction) \
            else concrete._function.__name__
        return self._add_concrete(concrete, base)

    def _constant_node(self, t: Tensor) -> int:
        """A ``SavedConstant`` node for a tensor a restored function captures (a table's
        default value), naming a ``Const`` of the MetaGraph's graph, as TF writes one."""
        j = self._constant_ids.get(id(t))
        if j is None:
            j = len(self.graph.nodes)
            taken = {n.name for n in self.meta.graph_def.node}
            k = len(self._constant_ids)
            while f"captured_constant_{k}" in taken:
                k += 1
            nd = self.meta.graph_def.node.add(name=f"captured_constant_{k}", op="Const")
            nd.attr["value"].CopyFrom(attr_value(np.asarray(t.numpy())))
            nd.attr["dtype"].CopyFrom(attr_value(t.dtype))
            self.graph.nodes.add().constant.operation = nd.name
            self._constant_ids[id(t)] = j
            self._constant_nodes[j] = (nd.name, t.dtype)
            self._keep.append(t)
        return j

    def _node_of(self, var, fname: str) -> int:
        if isinstance(var, Tensor):
            return self._constant_node(var)
        j = self.index.get(id(var)) if not isinstance(var, _ASSETS) else \
            self._asset_ids.get(id(var))
        if j is None:
            what = f"variable {var.name}" if not _is_table(var) else \
                f"the lookup table {var!r} (Trackable referencing this tensor)"
            raise AssertionError(
                f"Tried to export a function which references an 'untracked' resource. "
                f"TensorFlow objects (e.g. tf.Variable) captured by functions must be "
                f"'tracked' by assigning them to an attribute of a tracked object or "
                f"assigned to an attribute of the main object directly. Function "
                f"{fname} captures {what}, which is not reachable from the "
                "object being saved.")
        return j

    def _add_function(self, owner: int, attr: str, fn) -> None:
        node_id = len(self.graph.nodes)
        proto = self.graph.nodes.add()
        self.graph.nodes[owner].children.add(node_id=node_id, local_name=attr)
        if isinstance(fn, (ConcreteFunction, resave.RestoredConcreteFunction)):
            name = self._add_concrete(fn, attr if isinstance(fn, resave.RestoredConcreteFunction)
                                      else fn._function.__name__)
            bare = proto.bare_concrete_function
            bare.concrete_function_name = name
            if isinstance(fn, resave.RestoredConcreteFunction) and \
                    fn._argument_keywords is not None:
                bare.argument_keywords.extend(fn._argument_keywords)
                bare.allowed_positional_arguments = fn._allowed_positional or 0
            return
        saved = proto.function
        for c in _concretes(fn):
            saved.concrete_functions.append(self._add_concrete(c, fn.__name__))
        if isinstance(fn, resave.RestoredFunction):
            spec = getattr(fn, "_saved_function_spec", None)
            if spec is not None:
                saved.function_spec.CopyFrom(spec)
            return
        full, is_method = _full_arg_spec(fn)
        if full is not None:
            saved.function_spec.fullargspec.CopyFrom(full)
        saved.function_spec.is_method = is_method
        saved.function_spec.input_signature.CopyFrom(structure.encode(
            tuple(fn.input_signature) if fn.input_signature is not None else None))

    # --- objects ------------------------------------------------------------------
    def build_objects(self) -> None:
        for i, obj in enumerate(self.objects):
            proto = self.graph.nodes.add()
            for name, j in self.edges[i]:
                proto.children.add(node_id=j, local_name=name)
            kind = og.kind_of(obj)
            if kind == "variable":
                v = proto.variable
                v.dtype = obj.dtype.as_datatype_enum
                v.shape.CopyFrom(shape_proto(obj.shape.as_list() if obj.shape.rank is not None
                                             else None))
                v.trainable = bool(getattr(obj, "trainable", True))
                v.synchronization = int(getattr(getattr(obj, "synchronization", None),
                                                "value", 0) or 0)
                v.aggregation = int(getattr(getattr(obj, "aggregation", None), "value", 0) or 0)
                name = getattr(obj, "name", "") or ""
                v.name = name[:-2] if name.endswith(":0") else name
                policy = self.options.experimental_variable_policy
                v.device = options_impl.variable_device(obj, policy)
                for c_name, c_device in options_impl.distributed_components(obj, policy):
                    v.experimental_distributed_variable_components.add(name=c_name,
                                                                       device=c_device)
            elif resave.is_restored_resource(obj):
                proto.resource.device = obj.device
            elif _is_table(obj):
                proto.resource.device = ""
            else:
                ident = {"list": "trackable_list_wrapper",
                         "dict": "trackable_dict_wrapper"}.get(kind, "_generic_user_object")
                if isinstance(obj, tuple):
                    ident = "trackable_tuple_wrapper"
                proto.user_object.identifier = ident
                proto.user_object.version.producer = 1
                proto.user_object.version.min_consumer = 1
        self._build_asset_nodes()
        for i, obj in enumerate(self.objects):
            for attr, fn in _functions_of(obj) + (self._root_functions if i == 0 else []):
                self._add_function(i, attr, fn)
            if _is_table(obj) and callable(getattr(obj, "_saveable_functions", None)):
                self._add_saveables(i, obj._saveable_functions())

    def _add_saveables(self, owner: int, saveables: dict) -> None:
        """TF's ``saveable_objects`` of a resource that keeps its contents in the
        checkpoint (a dense table): its save and restore functions, as bare concrete
        functions that the loader calls."""
        for name, fns in saveables.items():
            ids = []
            for fn in fns:
                ids.append(len(self.graph.nodes))
                bare = self.graph.nodes.add().bare_concrete_function
                concrete = fn.get_concrete_function()
                bare.concrete_function_name = self._add_concrete(concrete, fn.__name__)
                names = concrete._export_graph().arg_names
                bare.argument_keywords.extend(names)  # TF's loader calls them positionally
                bare.allowed_positional_arguments = len(names)
            so = self.graph.nodes[owner].saveable_objects[name]
            so.save_function, so.restore_function = ids

    def _build_asset_nodes(self) -> None:
        """The ``SavedAsset`` nodes (before the functions, which may capture an asset's
        path) and their ``AssetFileDef``\ s; ``build_assets`` copies the files."""
        self._asset_files: list = []
        self._asset_ids: dict = {}
        self._asset_tensors: dict = {}  # node id -> the graph's asset path Placeholder
        for i in range(len(self.objects)):
            d = getattr(self.objects[i], "__dict__", None) or {}
            for attr in sorted(d):
                asset = d[attr]
                if not isinstance(asset, _ASSETS):
                    continue
                src = asset._path
                if not os.path.isfile(src):
                    raise errors.NotFoundError(None, None, f"{src}; No such file or directory")
                base = os.path.basename(src)
                self._asset_files.append((src, base))
                self._asset_ids.setdefault(id(asset), len(self.graph.nodes))
                k = len(self.meta.asset_file_def)
                af = self.meta.asset_file_def.add(filename=base)
                af.tensor_info.name = f"asset_path_initializer_{k}:0" if k else \
                    "asset_path_initializer:0"
                node_id = len(self.graph.nodes)
                self._asset_tensors.setdefault(node_id, af.tensor_info.name[:-2])
                self.graph.nodes.add().asset.asset_file_def_index = k
                self.graph.nodes[i].children.add(node_id=node_id, local_name=attr)

    def build_assets(self, export_dir: str) -> None:
        assets_dir = os.path.join(export_dir, constants.ASSETS_DIRECTORY)
        os.makedirs(assets_dir, exist_ok=True)
        for src, base in self._asset_files:
            shutil.copyfile(src, os.path.join(assets_dir, base))

    def _checkpoint_keys(self) -> dict:
        """``{node id: checkpoint key}`` of the (unsharded) variables, as
        ``checkpoint._save_graph`` names them."""
        paths = [""] * len(self.objects)
        for i, out in enumerate(self.edges):
            for name, j in out:
                if j > i and not paths[j]:
                    esc = checkpoint._escape(name)
                    paths[j] = f"{paths[i]}/{esc}" if paths[i] else esc
        return {j: f"{paths[j]}/.ATTRIBUTES/VARIABLE_VALUE" for j, obj in enumerate(self.objects)
                if og.kind_of(obj) == "variable" and hasattr(obj, "dtype")
                and not callable(getattr(obj, "_checkpoint_shards", None))}

    # --- signatures ---------------------------------------------------------------
    def build_signatures(self) -> None:
        sigs = self.signatures
        map_id = len(self.graph.nodes)
        smap = self.graph.nodes.add()
        smap.user_object.identifier = "signature_map"
        smap.user_object.version.producer = 1
        smap.user_object.version.min_consumer = 1
        self.graph.nodes[0].children.add(node_id=map_id, local_name="signatures")
        gd = self.meta.graph_def
        handles: "dict[int, str]" = {}
        taken: set = set()

        def unique(base: str) -> str:
            out, k = base, 0
            while out in taken:
                k += 1
                out = f"{base}_{k}"
            taken.add(out)
            return out

        for j, obj in enumerate(self.objects):
            if og.kind_of(obj) == "variable" and hasattr(obj, "dtype"):
                name = (getattr(obj, "name", "") or "Variable").split(":")[0] or "Variable"
                node = gd.node.add(name=unique(name), op="VarHandleOp")
                node.attr["dtype"].type = obj.dtype.as_datatype_enum
                node.attr["shape"].shape.CopyFrom(shape_proto(
                    obj.shape.as_list() if obj.shape.rank is not None else None))
                node.attr["shared_name"].s = node.name.encode()
                node.attr["container"].s = b""
                handles[j] = node.name
                policy = self.options.experimental_variable_policy
                node.device = options_impl.variable_device(obj, policy)
                for c_name, c_device in options_impl.distributed_components(obj, policy)[1:]:
                    comp = gd.node.add()
                    comp.CopyFrom(node)
                    comp.name = unique(c_name)
                    comp.attr["shared_name"].s = comp.name.encode()
                    comp.device = c_device
        for j, (const, _) in self._constant_nodes.items():
            handles[j] = const
        inits = self._resource_nodes(handles, unique)
        for n_call, key in enumerate(sorted(sigs)):
            self._add_signature(key, sigs[key], map_id, handles, unique, n_call)
        keys = self._checkpoint_keys()
        saved = [j for j in handles if j in keys]
        if saved:
            saver_functions.add_saver(self.meta, [(keys[j], self.objects[j].dtype) for j in saved],
                                      [handles[j] for j in saved], unique, self._fname)
        init = gd.node.add(name=unique("NoOp"), op="NoOp")
        init.input.extend(f"^{n}" for n in inits)
        init_sig = self.meta.signature_def[_INIT_OP_KEY]
        info = init_sig.outputs[_INIT_OP_KEY]
        info.name = init.name
        info.tensor_shape.unknown_rank = True
        self.meta.collection_def["saved_model_main_op"].node_list.value.append(init.name)

    def bound_types(self, bound: list) -> list:
        """The dtypes of a function's bound inputs: a captured constant's, else resource."""
        return [self._constant_nodes[j][1] if j in self._constant_nodes else
                dtypes.string if j in self._asset_tensors else dtypes.resource for j in bound]

    def _call_node(self, unique, fname: str, inputs: list, tin: list) -> str:
        fd = next(f for f in self.library.function if f.signature.name == fname)
        node = self.meta.graph_def.node.add(name=unique("StatefulPartitionedCall"),
                                            op="StatefulPartitionedCall")
        node.input.extend(inputs)
        tout = [dtypes.as_dtype(a.type) for a in fd.signature.output_arg]
        for a, v in (("Tin", tin), ("Tout", tout), ("f", NameAttrList(fname)), ("config", ""),
                     ("config_proto", ""), ("executor_type", "")):
            node.attr[a].CopyFrom(attr_value(v))
        return node.name

    def _resource_nodes(self, handles: dict, unique) -> list:
        """The MetaGraph's nodes of each restored resource (a lookup table), as TF's
        exported graph makes them: a call of its ``_create_resource`` gives the handle
        signatures take, a call of its ``_initialize`` runs in the init op (returned)."""
        inits = []
        made = []
        # The TF1 loader feeds each asset's path to its Placeholder when it runs the
        # init op, so an initializer reading a vocabulary file gets the exported copy.
        fed = dict(handles)
        for j, name in self._asset_tensors.items():
            ph = self.meta.graph_def.node.add(name=unique(name), op="Placeholder")
            ph.attr["dtype"].type = dtypes.string.as_datatype_enum
            ph.attr["shape"].shape.CopyFrom(shape_proto([]))
            fed[j] = ph.name
        for j, obj in enumerate(self.objects):
            if not (resave.is_restored_resource(obj) or _is_table(obj)):
                continue
            create, _ = _resource_functions(obj)
            concretes = _concretes(create) if isinstance(create, _FUNCTIONS) else []
            if concretes and id(concretes[0]) in self._names:
                handles[j] = self._call_node(unique, self._names[id(concretes[0])], [], [])
                made.append(obj)
        fed.update(handles)
        for obj in made:
            _, init = _resource_functions(obj)
            concretes = _concretes(init) if isinstance(init, _FUNCTIONS) else []
            if not concretes or id(concretes[0]) not in self._names:
                continue
            name = self._names[id(concretes[0])]
            bound = list(self.graph.concrete_functions[name].bound_inputs)
            if all(b in fed for b in bound):
                inits.append(self._call_node(unique, name, [fed[b] for b in bound],
                                             self.bound_types(bound)))
        return inits

    def _add_signature(self, key, concrete, map_id, handles, unique, n_call) -> None:
        if isinstance(concrete, resave.RestoredConcreteFunction):
            self._add_restored_signature(key, concrete, map_id, handles, unique)
            return
        fname = concrete._function.__name__
        graph = concrete._export_graph()  # refused if it holds a traced-at size
        args, kwargs = concrete.structured_input_signature
        leaves = nest.flatten((args, kwargs))
        # A ragged/sparse spec is its components' inputs (args_0, args_0_1), as in TF.
        flat_specs = [c for s in leaves for c in
                      ([s] if isinstance(s, TensorSpec) else structure.component_specs(s))]
        # Python values (bound defaults, ...) are constants of the graph: not inputs.
        if any(isinstance(s, TypeSpec) and not isinstance(s, TensorSpec)
               and not structure.is_composite_spec(s) for s in leaves):
            raise ValueError(
                f"Got a non-Tensor value in the input signature of function {fname} used to "
                f"generate the SavedModel signature '{key}'; signature functions take "
                "tensor inputs only.")
        keywords = _signature_keywords(concrete, args, kwargs)
        if len(set(keywords)) != len(keywords):
            raise ValueError(f"Function {fname} used for signature '{key}' has repeated "
                             f"input names {keywords}.")
        outputs = graph.structured_outputs
        flat_out = nest.flatten(outputs)
        bad = [o for o in flat_out if not isinstance(o, Tensor)]
        if isinstance(outputs, dict) and all(isinstance(k, str) for k in outputs) and not bad \
                and all(isinstance(v, Tensor) for v in outputs.values()):
            out_keys = sorted(outputs)
        elif isinstance(outputs, Tensor):
            out_keys = ["output_0"]
        elif isinstance(outputs, (list, tuple)) and outputs and all(
                isinstance(o, Tensor) for o in outputs):
            out_keys = [f"output_{i}" for i in range(len(outputs))]
        else:
            raise ValueError(
                f"Got a non-Tensor value {bad[0] if bad else outputs!r} in the output of the "
                f"function {fname} used to generate the SavedModel signature '{key}'. Outputs "
                "for functions used as signatures must be a single Tensor, a sequence of "
                "Tensors, or a dictionary from string to Tensor.")
        # The wrapper's outputs are a dict: flattened in sorted key order.
        by_key = dict(zip(out_keys, range(len(out_keys))))
        sorted_keys = sorted(out_keys)
        order = sorted(range(len(keywords)), key=lambda k: keywords[k])
        name = self._fname("signature_wrapper")
        self.library.function.add().CopyFrom(function_def(
            graph, name, fname, arg_names=keywords, arg_order=order, output_names=sorted_keys,
            output_order=[by_key[k] for k in sorted_keys],
            handle_specs=self._handle_specs(graph)))
        add_nested_functions(self.library, graph)
        saved = self.graph.concrete_functions[name]
        bound = self._bound_inputs(concrete, fname)
        saved.bound_inputs.extend(bound)
        unknown = _has_unknown(flat_specs)
        in_sig = ((), {keywords[k]: TensorSpec(flat_specs[k].shape, flat_specs[k].dtype,
                                               keywords[k]) for k in order})
        saved.canonicalized_input_signature.CopyFrom(structure.encode(in_sig))
        flat_graph_out = [o for o in flat_out if isinstance(o, Tensor)]
        out_specs = {k: _relaxed_spec(flat_graph_out[by_key[k]], unknown, k, graph)
                     for k in sorted_keys}
        saved.output_signature.CopyFrom(structure.encode(out_specs))
        self.debug_functions.append((name, graph, concrete._function.python_function))
        self._signature_entry(key, name, [keywords[k] for k in order],
                              [flat_specs[k] for k in order], out_specs, bound, map_id, handles,
                              unique)

    def _add_restored_signature(self, key, fn, map_id, handles, unique) -> None:
        """A restored function as signature ``key``: a new wrapper calls its copy."""
        keywords, specs, out_keys, out_specs = resave.signature_parts(fn, key)
        inner = self._add_concrete(fn, key)
        bound = list(self.graph.concrete_functions[inner].bound_inputs)
        if any(j not in handles for j in bound):
            raise errors.UnimplementedError(
                None, None, f"Cannot use the restored function {fn.name} as signature '{key}': "
                "it captures an asset path, which torchflow's signatures do not feed yet")
        name = self._fname("signature_wrapper")
        inner_fd = next(f for f in self.library.function if f.signature.name == inner)
        self.library.function.add().CopyFrom(resave.signature_wrapper(
            name, inner, inner_fd, keywords, specs, out_keys, self.bound_types(bound)))
        saved = self.graph.concrete_functions[name]
        saved.bound_inputs.extend(bound)
        order = sorted(range(len(keywords)), key=lambda k: keywords[k])
        by_key = sorted(range(len(out_keys)), key=lambda p: out_keys[p])
        ins, outs = resave.encode_signature(
            saved, [keywords[k] for k in order], [specs[k] for k in order],
            [out_keys[p] for p in by_key], [out_specs[p] for p in by_key])
        self._signature_entry(key, name, list(ins), list(ins.values()), outs, bound, map_id,
                              handles, unique)

    def _signature_entry(self, key, name, keywords, specs, out_specs, bound, map_id, handles,
                         unique) -> None:
        """The signature map's bare function ``name`` (keyword inputs ``keywords`` with
        ``specs``, in sorted order; ``out_specs`` a dict in sorted key order) and the
        SignatureDef with the graph_def nodes its tensor names refer to."""
        node_id = len(self.graph.nodes)
        bare = self.graph.nodes.add().bare_concrete_function
        bare.concrete_function_name = name
        bare.argument_keywords.extend(keywords)
        bare.allowed_positional_arguments = len(keywords)  # as TF writes it: f(x) works too
        self.graph.nodes[map_id].children.add(node_id=node_id, local_name=key)
        gd = self.meta.graph_def
        sdef = self.meta.signature_def[key]
        sdef.method_name = _PREDICT
        ins = []
        for kw, spec in zip(keywords, specs):
            ph = gd.node.add(name=unique(f"{key}_{kw}"), op="Placeholder")
            ph.attr["dtype"].type = spec.dtype.as_datatype_enum
            dims = spec.shape.as_list() if spec.shape.rank is not None else None
            ph.attr["shape"].shape.CopyFrom(shape_proto(dims))
            ins.append(ph.name)
            info = sdef.inputs[kw]
            info.name = f"{ph.name}:0"
            info.dtype = spec.dtype.as_datatype_enum
            info.tensor_shape.CopyFrom(shape_proto(dims))
        call = gd.node.add(name=unique("StatefulPartitionedCall"), op="StatefulPartitionedCall")
        call.input.extend(ins + [handles[j] for j in bound])
        tin = [spec.dtype for spec in specs] + self.bound_types(bound)
        sorted_keys = list(out_specs)
        tout = [out_specs[k].dtype for k in sorted_keys]
        for a, v in (("Tin", tin), ("Tout", tout), ("f", NameAttrList(name)), ("config", ""),
                     ("config_proto", ""), ("executor_type", "")):
            call.attr[a].CopyFrom(attr_value(v))
        for pos, k in enumerate(sorted_keys):
            info = sdef.outputs[k]
            info.name = f"{call.name}:{pos}"
            info.dtype = out_specs[k].dtype.as_datatype_enum
            s = out_specs[k].shape
            info.tensor_shape.CopyFrom(shape_proto(s.as_list() if s.rank is not None else None))


def _signature_keywords(concrete, args, kwargs) -> list:
    """The signature's input names, as TF names them: a TensorSpec's name, else its
    argument's, the leaves of a nested argument ``x``, ``x_1``, ``x_2``..."""
    out = []
    pos = concrete._function._arg_names(len(args))
    for an, a in list(zip(pos, args)) + sorted(kwargs.items()):
        leaves = [c for x in nest.flatten(a) for c in
                  ([x] if isinstance(x, TensorSpec) else structure.component_specs(x))]
        out.extend(s.name or (an if i == 0 else f"{an}_{i}") for i, s in enumerate(leaves))
    return out


def _valid_signature(fn) -> bool:
    """TF 2.4's ``_valid_signature``: a function whose outputs are tensors (a ragged
    or sparse result cannot be a signature output; ragged/sparse inputs can)."""
    if not isinstance(fn, Function):
        return True
    try:
        outs = fn.get_concrete_function().structured_outputs
    except (errors.OpError, TypeError, ValueError):
        return False
    flat = nest.flatten(outs)
    if not flat or any(structure.is_composite_spec(getattr(o, "_type_spec", None))
                       for o in flat):
        return False
    # TF's _normalize_outputs: one tensor, a flat sequence of them, or a dict of them by
    # string keys (a nested result is no signature, and no error).
    tensor = (Tensor, function_signature.SymbolicTensor)
    if isinstance(outs, collections.abc.Mapping):
        return all(isinstance(k, str) and isinstance(v, tensor) for k, v in outs.items())
    seq = outs if isinstance(outs, collections.abc.Sequence) else [outs]
    return all(isinstance(o, tensor) for o in seq)


def _canonical_signatures(root, signatures, default=None) -> dict:
    """``{key: ConcreteFunction}`` from ``signatures=`` (TF's rules)."""
    if signatures is None and default is not None:
        signatures = default
    if signatures is None:
        functions = _functions_of(root)
        # TF's rule: a root function named _default_save_signature (Keras writes one; a
        # loaded Keras SavedModel holds it) is the default, else the one tf.function
        # with an input signature.
        default_fn = dict(functions).get("_default_save_signature")
        found = [fn for _, fn in functions
                 if isinstance(fn, (Function, resave.RestoredFunction))
                 and fn.input_signature is not None and _valid_signature(fn)]
        signatures = default_fn if default_fn is not None else found[0] if len(found) == 1 \
            else {}
    if not isinstance(signatures, collections.abc.Mapping):  # a loaded .signatures too
        signatures = {constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    out = {}
    for key, fn in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Invalid signature key: {key!r}. Keys of the signatures dict must "
                             "be strings.")
        if isinstance(fn, (Function, resave.RestoredFunction)):
            if fn.input_signature is None:
                raise ValueError(
                    f"Expected a TensorFlow function to generate a signature for, but got {fn}. "
                    "Only `tf.functions` with an input signature or concrete functions can be "
                    "used as a signature.")
            fn = fn.get_concrete_function()
        if not isinstance(fn, (ConcreteFunction, resave.RestoredConcreteFunction)):
            raise ValueError(
                f"Expected a TensorFlow function to generate a signature for, but got {fn}. "
                "Only `tf.functions` with an input signature or concrete functions can be used "
                "as a signature.")
        out[key] = fn
    return out


@public("torchflow.saved_model")
def save(obj, export_dir, signatures=None, options=None):
    """Exports a trackable object (a ``tf.Module`` ...) as a SavedModel in ``export_dir``.

    Writes TensorFlow's layout, which TensorFlow's ``tf.saved_model.load``, TF
    Serving's signatures and torchflow's loader read: ``saved_model.pb``,
    ``variables/`` (the variables, as a TF checkpoint) and ``assets/``. Every
    ``tf.function`` reachable from ``obj`` is saved with the concrete functions
    it has traced (one with an ``input_signature`` is traced for it), as TF
    graphs of its ops; variables it uses must be reachable from ``obj``.

    Args:
      obj: A trackable object (``tf.Module``, ``tf.train.Checkpoint``, a Keras
        layer ...) to export.
      export_dir: The directory to write (created if missing).
      signatures: Optional: a ``tf.function`` with an ``input_signature`` or a
        concrete function (saved as ``"serving_default"``), or a dict from
        signature key to either. If omitted and ``obj`` has exactly one
        ``tf.function`` with an ``input_signature``, that one is the default
        signature.
      options: A ``tf.saved_model.SaveOptions``.

    Raises:
      ValueError: ``obj`` is not trackable, or a signature is not a function
        with tensor inputs and tensor outputs.
      AssertionError: A function uses a variable not reachable from ``obj``.
      UnimplementedError: A function's graph holds computations that have no
        TensorFlow op (the message names the function and the computations).
    """
    export_dir = os.fspath(export_dir)
    if options is None:
        options = constants.SaveOptions()
    elif not isinstance(options, constants.SaveOptions):
        raise TypeError(f"options must be a tf.saved_model.SaveOptions, got {options!r}")
    options_impl.check_io_device(options.experimental_io_device)
    if not (og.is_trackable(obj) or _functions_of(obj)) or isinstance(obj, (list, dict, tuple)):
        raise ValueError(f"Expected a Trackable object for export, got {obj}.")
    keras_call, keras_serve = (None, None) if _functions_of(obj) else \
        keras_functions.keras_functions(obj)
    sigs = _canonical_signatures(obj, signatures, keras_serve)
    saver = _Saver(obj, sigs, [("__call__", keras_call)] if keras_call is not None else [],
                   options)
    saver.build_objects()
    saver.build_signatures()
    if options.function_aliases:
        options_impl.function_aliases(saver.meta, options.function_aliases, saver.alias_name)
    options_impl.verify_ops(saver.meta.graph_def, options.namespace_whitelist)
    os.makedirs(export_dir, exist_ok=True)
    saver.build_assets(export_dir)
    meta = saver.meta
    info = meta.meta_info_def
    info.tags.append(constants.SERVING)
    info.tensorflow_version = "2.4.0"
    info.tensorflow_git_version = "torchflow"
    info.stripped_default_attrs = True
    meta.graph_def.versions.CopyFrom(tf_versions_pb2.VersionDef(producer=561, min_consumer=12))
    variables_dir = os.path.join(export_dir, constants.VARIABLES_DIRECTORY)
    os.makedirs(variables_dir, exist_ok=True)
    checkpoint._save_graph(obj, os.path.join(variables_dir, constants.VARIABLES_FILENAME))
    sm = tf_saved_model_pb2.SavedModel(saved_model_schema_version=1)
    sm.meta_graphs.add().CopyFrom(meta)
    path = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(sm.SerializeToString(deterministic=True))
    os.replace(tmp, path)
    if options.save_debug_info:
        options_impl.write_debug_info(export_dir, saver.debug_functions)

