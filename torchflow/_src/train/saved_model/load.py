"""``tf.saved_model.load``: revives the objects of a SavedModel directory.

Driven only by the protos: ``saved_model.pb`` (a ``SavedModel``; its
``MetaGraphDef`` holds the ``SavedObjectGraph``, the function library and the
signatures) and ``variables/`` (a TF checkpoint whose object graph has the same
objects). Each ``SavedObject`` becomes: a user object (an ``AutoTrackable``-like
object with its children as attributes), a list / dict / tuple for TF's
wrapper types, a ``tf.Variable`` restored from the checkpoint, a
``RestoredFunction`` (a ``tf.function``) or ``RestoredConcreteFunction``, an
``Asset``, or a constant. Functions run their ``FunctionDef`` graphs through
``graph_exec`` with the variables they captured bound as extra inputs, so no
Python class of the saved model is needed.
"""

from __future__ import annotations

import os

from google.protobuf import message as pb_message
from google.protobuf import text_format

from torchflow._src.core import dtypes, errors
from torchflow._src.core.convert import constant
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.core.variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
)
from torchflow._src.ops import creation_ops
from torchflow._src.ops.graph_exec import FunctionLibrary, attr_value
from torchflow._src.train import checkpoint_management
from torchflow._src.train.saved_model import constants, save_options_impl
from torchflow._src.train.saved_model.restored_function import (
    RestoredConcreteFunction,
    RestoredFunction,
)
from torchflow._src.train.saved_model.revived import (
    RevivedResource,
    SignatureMap,
    make_user_object,
)
from torchflow._src.util.api import public

_WRAPPERS = {"trackable_list_wrapper": list, "trackable_dict_wrapper": dict,
             "trackable_tuple_wrapper": tuple}


@public("torchflow.saved_model")
def contains_saved_model(export_dir) -> bool:
    """Whether ``export_dir`` holds a SavedModel (``saved_model.pb`` or ``.pbtxt``).

    Args:
      export_dir: A directory path (string or ``os.PathLike``).

    Returns:
      True if the directory contains a SavedModel file.

    >>> import torchflow as tf
    >>> tf.saved_model.contains_saved_model("/no/such/dir")
    False
    """
    export_dir = _path(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, n)) for n in (
        constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


def _path(export_dir) -> str:
    path = os.fspath(export_dir)
    return path.decode("utf-8") if isinstance(path, bytes) else path


def read_saved_model(export_dir: str):
    """The ``SavedModel`` proto of ``export_dir`` (TF's ``parse_saved_model``).

    Raises:
      OSError: There is no SavedModel file, or it does not parse (TF's messages).
    """
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    sm = tf_saved_model_pb2.SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            sm.ParseFromString(data)
        except pb_message.DecodeError as e:
            raise OSError(f"Cannot parse file {pb.encode()!r}: Error parsing message with type "
                          f"'tensorflow.SavedModel': {_decode_reason(e)}.") from None
        return sm
    if os.path.isfile(pbtxt):
        with open(pbtxt, "rb") as f:
            data = f.read()
        try:
            text_format.Merge(data.decode("utf-8"), sm)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise OSError(f"Cannot parse file {pbtxt}: {e}.") from None
        return sm
    raise OSError(f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
                  f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}")


def _decode_reason(e) -> str:
    text = str(e)
    return "Wire format was corrupt" if not text or "parsing" in text.lower() or \
        "truncated" in text.lower() else text


def _tag_sets(sm) -> list:
    return [list(m.meta_info_def.tags) for m in sm.meta_graphs]


def _meta_graph(sm, tags, export_dir: str):
    if tags is None:
        if len(sm.meta_graphs) != 1:
            raise ValueError(
                "Importing a SavedModel with `tf.saved_model.load` requires a `tags=` argument "
                f"if there is more than one MetaGraph. Got `tags=None`, but there are "
                f"{len(sm.meta_graphs)} MetaGraphs in the SavedModel with tag sets: "
                f"{_tag_sets(sm)}. Pass a `tags=` argument to load this SavedModel.")
        return sm.meta_graphs[0]
    wanted = [tags] if isinstance(tags, str) else list(tags)
    for meta in sm.meta_graphs:
        if set(meta.meta_info_def.tags) == set(wanted):
            return meta
    if len(sm.meta_graphs) == 1:
        raise ValueError(
            f"Got an incompatible argument to `tags`: {tags}. The SavedModel at {export_dir} "
            f"has one MetaGraph with tags {list(sm.meta_graphs[0].meta_info_def.tags)}. You "
            "may omit the argument, pass 'None', or pass matching tags.")
    raise ValueError(
        f"Got an incompatible argument to `tags`: {tags}. The SavedModel at {export_dir} has "
        f"{len(sm.meta_graphs)} MetaGraphs with tag sets: {_tag_sets(sm)}. Pass a 'tags=' "
        "argument to load this SavedModel.")


def _checkpoint_values(export_dir: str, saved_graph, options) -> dict:
    """``{saved node id: NumPy value}`` for the variables, from ``variables/``."""
    var_nodes = [i for i, n in enumerate(saved_graph.nodes) if n.WhichOneof("kind") == "variable"]
    if not var_nodes or options.experimental_skip_checkpoint:
        return {}
    prefix = os.path.join(export_dir, constants.VARIABLES_DIRECTORY,
                          constants.VARIABLES_FILENAME)
    try:
        reader = checkpoint_management.open_reader(prefix)
        ckpt_graph = checkpoint_management.object_graph(reader)
    except errors.NotFoundError as e:
        raise FileNotFoundError(
            f"{e.message}\n You may be trying to load on a different device from the "
            "computational device. Consider setting the `experimental_io_device` option in "
            "`tf.saved_model.LoadOptions` to the io_device such as '/job:localhost'.") from None
    except errors.OpError as e:
        raise checkpoint_management.translate_error(e) from None
    mapping = _match_nodes(saved_graph, ckpt_graph)
    values = {}
    for node_id in var_nodes:
        ckpt_id = mapping.get(node_id)
        key = None
        if ckpt_id is not None:
            for attr in ckpt_graph.nodes[ckpt_id].attributes:
                if attr.name == "VARIABLE_VALUE":
                    key = attr.checkpoint_key
        if key is None:
            raise errors.NotFoundError(
                None, None, f"The SavedModel's checkpoint {prefix} has no value for variable "
                f"node {node_id} ({saved_graph.nodes[node_id].variable.name})")
        try:
            values[node_id] = reader.lookup(key)
        except errors.OpError as e:
            raise checkpoint_management.translate_error(e) from None
    return values


def _match_nodes(saved_graph, ckpt_graph) -> dict:
    """Saved node id -> checkpoint node id, following the same child names from the root
    (TF writes both graphs from one object walk, so this is node i -> i; matching by path
    also reads checkpoints whose graph lists the nodes in another order)."""
    mapping = {0: 0}
    queue = [0]
    while queue:
        s = queue.pop()
        c = mapping[s]
        if c >= len(ckpt_graph.nodes):
            continue
        ckpt_children = {ref.local_name: ref.node_id for ref in ckpt_graph.nodes[c].children}
        for ref in saved_graph.nodes[s].children:
            cid = ckpt_children.get(ref.local_name)
            if cid is not None and ref.node_id not in mapping:
                mapping[ref.node_id] = cid
                queue.append(ref.node_id)
    return mapping


class _Loader:
    def __init__(self, export_dir: str, meta, options):
        self._dir = export_dir
        self._meta = meta
        self._graph = meta.object_graph_def
        self._library = FunctionLibrary(meta.graph_def.library)
        self._values = _checkpoint_values(export_dir, self._graph, options)
        self._skip = options.experimental_skip_checkpoint
        self._graph_nodes = {n.name: n for n in meta.graph_def.node}
        self.nodes: list = [None] * len(self._graph.nodes)

    def load(self):
        nodes = self._graph.nodes
        order = ("variable", "constant", "asset", "resource", "captured_tensor",
                 "bare_concrete_function", "function", "user_object")
        for kind in order:
            for i, proto in enumerate(nodes):
                if proto.WhichOneof("kind") == kind and self.nodes[i] is None:
                    self._revive(i, proto)
        for i, proto in enumerate(nodes):
            if proto.WhichOneof("kind") is None:
                self.nodes[i] = make_user_object("")
        for i in range(len(nodes)):
            self._resolve(i, set())
        for i, proto in enumerate(nodes):
            self._attach(i, proto)
        self._init_resources()
        root = self.nodes[0]
        info = self._meta.meta_info_def
        if not isinstance(root, (list, dict, tuple)):
            _try_setattr(root, "tensorflow_version", info.tensorflow_version)
            _try_setattr(root, "tensorflow_git_version", info.tensorflow_git_version)
            if not isinstance(getattr(root, "signatures", None), SignatureMap):
                _try_setattr(root, "signatures", SignatureMap())
        return root

    def _revive(self, i: int, proto) -> None:
        kind = proto.WhichOneof("kind")
        if kind == "variable":
            self.nodes[i] = self._variable(i, proto.variable)
        elif kind == "constant":
            self.nodes[i] = self._constant(proto.constant.operation)
        elif kind == "asset":
            index = proto.asset.asset_file_def_index
            if index >= len(self._meta.asset_file_def):
                raise errors.InvalidArgumentError(
                    None, None, f"SavedAsset node {i} names asset_file_def[{index}], but the "
                    f"MetaGraph has {len(self._meta.asset_file_def)}")
            filename = self._meta.asset_file_def[index].filename
            self.nodes[i] = constants.Asset(
                os.path.join(self._dir, constants.ASSETS_DIRECTORY, filename))
        elif kind == "resource":
            self.nodes[i] = RevivedResource(proto.resource.device)
        elif kind == "captured_tensor":
            self.nodes[i] = RevivedResource("", captured=proto.captured_tensor.name)
        elif kind == "bare_concrete_function":
            bare = proto.bare_concrete_function
            self.nodes[i] = self._concrete(bare.concrete_function_name, bare)
        elif kind == "function":
            fn = proto.function
            concrete = [self._concrete(n) for n in fn.concrete_functions]
            name = self._function_name(i)
            spec = fn.function_spec if fn.HasField("function_spec") else None
            self.nodes[i] = RestoredFunction(name, concrete, spec)
            # What a re-save writes back (tf.saved_model.save of the loaded object).
            self.nodes[i]._saved_function_spec = spec
        elif kind == "user_object":
            ident = proto.user_object.identifier
            if ident in _WRAPPERS:
                self.nodes[i] = None if ident == "trackable_tuple_wrapper" else _WRAPPERS[ident]()
            elif ident == "signature_map":
                self.nodes[i] = SignatureMap()
            else:
                self.nodes[i] = make_user_object(ident)

    def _init_resources(self) -> None:
        """Makes each resource's handle (its ``_create_resource`` function), then fills
        it (``_initialize``), as TF's loader does once every object exists."""
        resources = [(i, p) for i, p in enumerate(self._graph.nodes)
                     if p.WhichOneof("kind") == "resource"]
        children = {i: {r.local_name: self.nodes[r.node_id] for r in p.children}
                    for i, p in resources}
        for i, _ in resources:
            create = children[i].get("_create_resource")
            if create is not None:
                self.nodes[i].handle = create()
        for i, _ in resources:
            init = children[i].get("_initialize")
            if init is not None:
                init()
        self._restore_saveables([(i, p) for i, p in resources if p.saveable_objects])

    def _restore_saveables(self, resources: list) -> None:
        """Refills resources whose contents the checkpoint keeps (a dense table's
        ``table`` saveable): the tensors stored under the attribute's key plus their
        suffixes (``-keys``, ``-values``, in order) go to its restore function."""
        if not resources or self._skip:
            return
        prefix = os.path.join(self._dir, constants.VARIABLES_DIRECTORY,
                              constants.VARIABLES_FILENAME)
        try:
            reader = checkpoint_management.open_reader(prefix)
            ckpt_graph = checkpoint_management.object_graph(reader)
        except errors.OpError as e:
            raise checkpoint_management.translate_error(e) from None
        mapping = _match_nodes(self._graph, ckpt_graph)
        for i, proto in resources:
            ckpt_id = mapping.get(i)
            if ckpt_id is None:
                continue
            keys = {a.name: a.checkpoint_key for a in ckpt_graph.nodes[ckpt_id].attributes}
            for name, saveable in proto.saveable_objects.items():
                key = keys.get(name)
                if key is None:
                    continue
                entries = sorted(k for k in reader.entries if k.startswith(key))
                restore = self.nodes[saveable.restore_function]
                restore(*[constant(reader.lookup(k)) for k in entries])

    def _function_name(self, i: int) -> str:
        for proto in self._graph.nodes:
            for ref in proto.children:
                if ref.node_id == i:
                    return ref.local_name
        return f"function_{i}"

    def _variable(self, i: int, saved) -> Variable:
        try:
            dtype = dtypes.as_dtype(saved.dtype)
        except (TypeError, ValueError, KeyError):
            raise errors.InvalidArgumentError(
                None, None, f"Variable node {i} has dtype enum {saved.dtype}, which torchflow "
                "has no dtype for") from None
        if i in self._values:
            value = self._values[i]
        else:
            shape = [max(int(d.size), 0) for d in saved.shape.dim]
            value = creation_ops.zeros(shape, dtype=dtype)
        try:
            sync = VariableSynchronization(int(saved.synchronization))
            agg = VariableAggregation(int(saved.aggregation))
        except ValueError:
            sync, agg = VariableSynchronization.AUTO, VariableAggregation.NONE
        return Variable(value, trainable=saved.trainable, name=saved.name or None,
                        dtype=dtype, synchronization=sync, aggregation=agg)

    def _constant(self, operation: str):
        node = self._graph_nodes.get(operation)
        if node is None or "value" not in node.attr:
            raise errors.NotFoundError(
                None, None, f"SavedConstant names operation '{operation}', which the "
                "SavedModel's graph does not hold as a Const")
        return attr_value(node.attr["value"])

    def _concrete(self, name: str, bare=None) -> RestoredConcreteFunction:
        saved = self._graph.concrete_functions.get(name)
        if saved is None:
            raise errors.NotFoundError(
                None, None, f"Concrete function {name} is not described in the SavedModel's "
                "object graph")
        if name not in self._library:
            raise errors.NotFoundError(
                None, None, f"Function {name} is not defined in the SavedModel's function "
                "library")
        captures = []
        for node_id in saved.bound_inputs:
            if node_id >= len(self.nodes):
                raise errors.InvalidArgumentError(
                    None, None, f"Concrete function {name} captures node {node_id}, but the "
                    f"object graph has {len(self.nodes)} nodes")
            obj = self.nodes[node_id]
            if obj is None:
                self._revive(node_id, self._graph.nodes[node_id])
                obj = self.nodes[node_id]
            captures.append(obj.asset_path if isinstance(obj, constants.Asset) else obj)
        fn = RestoredConcreteFunction(self._library, name, saved, captures, bare)
        # The captured objects themselves (an asset, not its path): what a re-save binds.
        fn._saved_capture_objects = [self.nodes[j] for j in saved.bound_inputs]
        return fn

    def _resolve(self, i: int, visiting: set):
        """Builds tuple wrappers (immutable: their children must exist first)."""
        if self.nodes[i] is not None:
            return self.nodes[i]
        if i in visiting:
            raise errors.InvalidArgumentError(
                None, None, f"The SavedModel's object graph has a cycle through tuple node {i}")
        visiting.add(i)
        refs = sorted(self._graph.nodes[i].children, key=lambda r: _int_or(r.local_name))
        self.nodes[i] = tuple(self._resolve(r.node_id, visiting) for r in refs)
        return self.nodes[i]

    def _attach(self, i: int, proto) -> None:
        obj = self.nodes[i]
        refs = list(proto.children)
        for ref in refs:
            if ref.node_id >= len(self.nodes):
                raise errors.InvalidArgumentError(
                    None, None, f"Object graph node {i} has child {ref.local_name!r} -> node "
                    f"{ref.node_id}, but there are {len(self.nodes)} nodes")
        if isinstance(obj, tuple):
            return
        if isinstance(obj, list):
            for ref in sorted(refs, key=lambda r: _int_or(r.local_name)):
                obj.append(self.nodes[ref.node_id])
            return
        if isinstance(obj, (dict, SignatureMap)):
            for ref in refs:
                obj[ref.local_name] = self.nodes[ref.node_id]
            return
        for ref in refs:
            child = self.nodes[ref.node_id]
            add = getattr(obj, "_add_child", None)
            if add is not None:
                add(ref.local_name, child)
            else:
                _try_setattr(obj, ref.local_name, child)


def _int_or(name: str):
    try:
        return int(name)
    except ValueError:
        return 1 << 62


def _try_setattr(obj, name: str, value) -> None:
    try:
        setattr(obj, name, value)
    except (AttributeError, TypeError):
        pass  # a read-only attribute (a property of a restored function, ...) keeps its own


@public("torchflow.saved_model")
def load(export_dir, tags=None, options=None):
    """Loads a SavedModel written by ``tf.saved_model.save`` (TensorFlow's or torchflow's).

    The returned object has the saved object's trackable children as attributes:
    variables (restored from ``variables/``), restored ``tf.function``s (callable
    with the signatures they were traced for; their graphs run, so the original
    Python code is not needed), nested objects, lists and dicts, and
    ``.signatures``: a mapping from signature key (``"serving_default"``) to a
    concrete function that takes keyword tensors and returns a dict.

    Args:
      export_dir: The SavedModel directory.
      tags: The tag set of the MetaGraph to load (a string or list of strings);
        may be omitted when the SavedModel has one MetaGraph.
      options: A ``tf.saved_model.LoadOptions``.

    Returns:
      The revived root object.

    Raises:
      OSError: There is no SavedModel at ``export_dir`` or ``saved_model.pb`` does
        not parse.
      FileNotFoundError: The variables checkpoint is missing.
      ValueError: ``tags`` match no MetaGraph, or are needed and missing.
      NotFoundError, DataLossError, InvalidArgumentError: The SavedModel's contents
        are inconsistent or its checkpoint is damaged.
    """
    export_dir = _path(export_dir)
    if options is None:
        options = constants.LoadOptions()
    elif not isinstance(options, constants.LoadOptions):
        raise TypeError(f"options must be a tf.saved_model.LoadOptions, got {options!r}")
    save_options_impl.check_io_device(options.experimental_io_device)
    sm = read_saved_model(export_dir)
    meta = _meta_graph(sm, tags, export_dir)
    if not meta.HasField("object_graph_def") or not meta.object_graph_def.nodes:
        raise errors.UnimplementedError(
            None, None, f"The SavedModel at {export_dir} has no object graph (a TF1 SavedModel "
            "written by SavedModelBuilder); torchflow loads TF2 SavedModels only")
    return _Loader(export_dir, meta, options).load()
