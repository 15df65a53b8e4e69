"""Keras models in TF's SavedModel directory layout, both ways with TensorFlow.

A directory written by tf.keras' ``model.save(dir)`` (``save_format="tf"``) holds

* ``keras_metadata.pb``: a ``SavedMetadata`` proto with one node per Keras
  object of the SavedModel's object graph (``node_id``, ``node_path`` such as
  ``root.layer_with_weights-0``, an identifier such as ``_tf_keras_layer``, and
  JSON metadata: ``class_name``, ``name``, ``config``, ``build_input_shape``, ...;
  the root's also holds ``model_config`` and ``training_config``);
* ``variables/variables.{index,data-*}``: a TF checkpoint whose root object is
  the model (``layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE``,
  ``optimizer/iter/...``, optimizer slots under ``.OPTIMIZER_SLOT``);
* ``saved_model.pb``: the ``SavedModel`` proto (object graph, traced functions).

``load`` revives the model from the root's config (``custom_objects`` for user
classes), restores its variables from ``variables/`` by object path and, with
``compile=True``, compiles it with the saved training config and restores the
optimizer's state (tf.keras starts a new optimizer there, with a warning;
torchflow restores the slots, from TF 2.4's layout and from tf-keras 2.11+'s
``optimizer/_variables``). ``save`` writes the same three files: the metadata
as TF writes it, the checkpoint with TF's object paths, and ``saved_model.pb``
from ``tf.saved_model.save`` with the model's call traced on its inputs
(``__call__`` and a ``serving_default`` signature keyed by the output names)
when every op of the call has a TF lowering; otherwise ``saved_model.pb``
holds the object graph (objects and variables with TF's identifiers) and no
functions, which tf.keras' ``load_model`` still reads (it revives the model
from its config) while ``tf.saved_model.load`` gives the objects and
variables only.
"""

from __future__ import annotations

import inspect
import json
import logging
import os

from google.protobuf import message as pb_message

from torchflow._src.core import errors
from torchflow._src.core.function import function
from torchflow._src.core.proto import tf_saved_metadata_pb2 as metadata_pb2
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.core.proto import tf_saved_object_graph_pb2 as sog_pb2
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.keras.engine import serialization
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_layer import InputLayer
from torchflow._src.keras.engine.model import Model, _json_default
from torchflow._src.keras.engine.sequential import Sequential
from torchflow._src.keras.engine.serialization import serialize_layer
from torchflow._src.keras.layers.rnn.base_rnn import RNN
from torchflow._src.keras.metrics.base_metric import Metric
from torchflow._src.keras.optimizers.optimizer_v2 import OptimizerV2
from torchflow._src.train import checkpoint as ckpt_lib
from torchflow._src.train import checkpoint_management as cm
from torchflow._src.train import object_graph as og
from torchflow._src.train.saved_model import keras_functions, structure
from torchflow._src.train.saved_model import load as saved_model_load
from torchflow._src.train.saved_model import save as saved_model_save

_log = logging.getLogger("torchflow")
_tf_log = logging.getLogger("tensorflow")  # where TF's own save warnings go
METADATA_FILENAME = "keras_metadata.pb"
_PRODUCER, _MIN_CONSUMER = 2, 1
_KERAS_VERSION = "2.4.0"


def is_keras_saved_model(path: str) -> bool:
    """Whether ``path`` is a directory holding ``keras_metadata.pb``."""
    return os.path.isfile(os.path.join(path, METADATA_FILENAME))


# --- JSON as TF's Keras encodes it -----------------------------------------------
def _encode(obj):
    """TF's ``json_utils`` encoding: tuples as ``{"class_name": "__tuple__"}``,
    TensorShapes as ``{"class_name": "TensorShape"}``, NumPy scalars as numbers."""
    if isinstance(obj, TensorShape):
        items = None if obj.rank is None else obj.as_list()
        return {"class_name": "TensorShape", "items": items}
    if isinstance(obj, tuple):
        return {"class_name": "__tuple__", "items": [_encode(v) for v in obj]}
    if isinstance(obj, list):
        return [_encode(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _encode(v) for k, v in obj.items()}
    if hasattr(obj, "item") and hasattr(obj, "dtype"):
        return obj.item()
    if hasattr(obj, "name") and type(obj).__name__ == "DType":
        return obj.name
    return obj


# Config keys newer tf-keras writes that TF 2.4's layers do not take, with the value
# that means TF 2.4's behaviour (None: any value; MultiHeadAttention's build shapes,
# the layer is built when called); another value is kept and fails as unknown.
_NEWER_KEYS = {"MultiHeadAttention": {"query_shape": None, "key_shape": None,
                                      "value_shape": None, "softmax_robust_masking": False}}


def _decode(obj):
    """The inverse of ``_encode`` (TF's ``json_utils.decode``), also dropping the
    ``shared_object_id`` keys tf.keras adds to configs and ``_NEWER_KEYS``."""
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    if isinstance(obj, dict):
        name = obj.get("class_name")
        if name == "__tuple__" and set(obj) <= {"class_name", "items"}:
            return tuple(_decode(v) for v in obj["items"])
        if name == "TensorShape" and set(obj) <= {"class_name", "items"}:
            items = obj["items"]
            return None if items is None else [_decode(v) for v in items]
        out = {k: _decode(v) for k, v in obj.items() if k != "shared_object_id"}
        drop = _NEWER_KEYS.get(name) if isinstance(name, str) else None
        if drop and isinstance(out.get("config"), dict):
            out["config"] = {k: v for k, v in out["config"].items()
                             if k not in drop or drop[k] is not None and v != drop[k]}
        return out
    return obj


def _dumps(obj) -> str:

    return json.dumps(_encode(obj), default=_json_default)


# --- loading -----------------------------------------------------------------------
def read_metadata(path: str):
    """The ``SavedMetadata`` proto of ``path/keras_metadata.pb``.

    Raises:
      DataLossError: The file does not parse.
      InvalidArgumentError: A node needs a newer Keras (its ``min_consumer``).
    """
    file = os.path.join(path, METADATA_FILENAME)
    with open(file, "rb") as f:
        data = f.read()
    meta = metadata_pb2.SavedMetadata()
    try:
        meta.ParseFromString(data)
    except pb_message.DecodeError:
        raise errors.DataLossError(
            None, None, f"Unable to parse {file}: not a Keras SavedMetadata proto "
            f"(truncated or corrupted)") from None
    for node in meta.nodes:
        if node.version.min_consumer > _PRODUCER:
            raise errors.InvalidArgumentError(
                None, None, f"The Keras object at {node.node_path} of {file} needs Keras "
                f"metadata version {node.version.min_consumer}; this reader supports up to "
                f"{_PRODUCER}.")
    return meta


def _root_metadata(meta, path: str) -> dict:
    for node in meta.nodes:
        if node.node_path == "root":
            try:
                return json.loads(node.metadata)
            except ValueError:
                raise errors.DataLossError(
                    None, None, f"The metadata of the root object in "
                    f"{os.path.join(path, METADATA_FILENAME)} is not valid JSON") from None
    raise errors.DataLossError(None, None, f"{os.path.join(path, METADATA_FILENAME)} has no "
                               f"root object")


def _model_config(root: dict):
    if root.get("model_config"):
        return _decode(root["model_config"])
    if root.get("config") is not None and root.get("class_name"):
        return _decode({"class_name": root["class_name"], "config": root["config"]})
    return None


class RevivedModel(Model):
    """A Keras model loaded without its Python class (a subclassed model with no
    config): calls run the SavedModel's traced call function, and its weights are
    the loaded variables, as TF revives such a model from the graph."""

    def __init__(self, loaded, name=None):
        super().__init__(name=name)
        object.__setattr__(self, "_revived", loaded)  # not tracked: its variables are
        self._revived_variables = _variables_of(loaded)
        self.built = True

    def call(self, inputs, training=None, mask=None):
        return self._revived.__call__(inputs)


def _variables_of(obj, seen=None) -> list:
    seen = set() if seen is None else seen
    out = []
    for v in vars(obj).values() if hasattr(obj, "__dict__") else ():
        if id(v) in seen:
            continue
        seen.add(id(v))
        if og.is_variable(v):
            out.append(v)
        elif hasattr(v, "__dict__") and type(v).__module__.startswith("torchflow._src.train"):
            out.extend(_variables_of(v, seen))
    return out


def _revive_from_graph(path: str, root: dict):
    """The model at ``path`` revived from its graphs when its SavedModel holds a
    call function; None otherwise."""
    loaded = saved_model_load.load(path)
    if not callable(loaded):
        return None
    return RevivedModel(loaded, name=root.get("name"))


def load(path: str, custom_objects, compile, compile_from):  # noqa: A002 - Keras' argument name
    """The Keras model of the SavedModel directory ``path`` (see the module docstring)."""

    root = _root_metadata(read_metadata(path), path)
    config = _model_config(root)
    if config is None:  # TF revives a generic model from the graph, as here
        revived = _revive_from_graph(path, root)
        if revived is not None:
            return revived
        raise NotImplementedError(
            f"Unable to revive the {root.get('class_name', 'model')} saved at {path}: it has "
            f"no config (a subclassed model or layer that does not implement `get_config`), "
            f"and torchflow does not revive models from a SavedModel's graphs. Define the "
            f"class in Python with `get_config`/`from_config` and pass it to `load_model` in "
            f"`custom_objects={{{root.get('class_name', 'MyModel')!r}: MyModel}}`, or build "
            f"the model in Python and call `model.load_weights({path!r})`.")
    try:
        model = _revive(config, custom_objects)
    except ValueError as e:
        if "Unknown" in str(e) and "custom_objects" not in str(e):
            raise ValueError(f"{e}. Please ensure this object is passed to the "
                             f"`custom_objects` argument of `load_model`.") from None
        raise
    training = _decode(root.get("training_config")) if compile else None
    if training:
        compile_from(model, training, custom_objects)
    prefix = os.path.join(path, "variables", "variables")
    ckpt_lib.restore_graph(model, prefix).expect_partial()
    if training and model.optimizer is not None:
        create = getattr(model.optimizer, "_create_all_weights", None)
        if callable(create):  # the slots take their restored values now
            create(model.trainable_variables)
        _restore_new_optimizer_layout(model, prefix)
    return model


def _revive(config, custom_objects):
    """``deserialize_layer`` of ``config`` where a class missing from
    ``custom_objects`` is the process's class of that name (``reviving``).

    TF revives such a class from the SavedModel's graphs, so a program may
    ``del`` the class's name before loading (the save-and-serialize guide's
    ``super(CustomModel, self).__init__()``); torchflow runs the class's own
    ``from_config``/``__init__``, with the deleted name bound to the class in
    its module's globals while they run (and removed afterwards).
    """

    injected = []
    try:
        for _ in range(16):
            try:
                with serialization.reviving():
                    return serialization.deserialize_layer(config, custom_objects)
            except NameError as e:
                name = getattr(e, "name", None)
                cls = serialization._all_subclasses(Layer).get(name) if name else None
                init = inspect.unwrap(getattr(cls, "__init__", None)) if cls else None
                namespace = getattr(init, "__globals__", None)
                if namespace is None or name in namespace:
                    raise
                namespace[name] = cls
                injected.append((namespace, name))
        raise RecursionError("too many names missing while reviving the model")
    finally:
        for namespace, name in injected:
            namespace.pop(name, None)


def _restore_new_optimizer_layout(model, prefix: str) -> None:
    """tf-keras >= 2.11's optimizers (not TF 2.4's, which the checkpoint layout above
    restores) keep their state in ``optimizer/_variables/N``: the step counter,
    then for each trainable variable its slots in the optimizer's slot order.
    Their values go to the TF 2.4 optimizer's iterations and slots."""

    reader = cm.open_reader(prefix)
    key = "optimizer/_variables/{}/.ATTRIBUTES/VARIABLE_VALUE"
    if not reader.contains(key.format(1)):
        return
    opt = model.optimizer
    slot_names = list(getattr(opt, "_slot_order", None) or _SLOTS.get(
        type(opt).__name__, ()))
    if not slot_names:
        return
    it = "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"
    if reader.contains(it):
        opt.iterations.assign(reader.lookup(it))
    n = 1
    for var in model.trainable_variables:
        for slot in slot_names:
            k = key.format(n)
            n += 1
            if not reader.contains(k):
                return
            opt.add_slot(var, slot).assign(reader.lookup(k))


_SLOTS = {"Adam": ("m", "v"), "SGD": ("momentum",), "RMSprop": ("rms",),
          "Adagrad": ("accumulator",), "Adamax": ("m", "v"), "Nadam": ("m", "v")}


# --- saving ------------------------------------------------------------------------
def _identifier(obj) -> str:

    if isinstance(obj, Sequential):
        return "_tf_keras_sequential"
    if isinstance(obj, Model):
        return "_tf_keras_network" if getattr(obj, "_is_graph_network", False) \
            else "_tf_keras_model"
    if isinstance(obj, Metric):
        return "_tf_keras_metric"
    if isinstance(obj, InputLayer):
        return "_tf_keras_input_layer"
    if isinstance(obj, RNN):
        return "_tf_keras_rnn_layer"
    if isinstance(obj, Layer) or callable(getattr(obj, "_keras_sublayer_metadata", None)):
        return "_tf_keras_layer"
    if isinstance(obj, OptimizerV2):
        return "optimizer"  # TF 2.4's OptimizerV2 (revived by TF as a RestoredOptimizer)
    if isinstance(obj, dict):
        return "trackable_dict_wrapper"
    if isinstance(obj, tuple):
        return "trackable_tuple_wrapper"
    if isinstance(obj, list):
        return "trackable_list_wrapper"
    return "_generic_user_object"


def _expects_training_arg(layer) -> bool:
    try:
        return "training" in inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False


def _sublayer_metadata(obj) -> dict:
    # A layer's weights held as tf.keras' sublayer would hold them (MultiHeadAttention's
    # EinsumDense projections): that sublayer's metadata.
    data = obj._keras_sublayer_metadata()
    config = data["config"]
    return {"name": data["name"], "trainable": config.get("trainable", True),
            "expects_training_arg": data.get("expects_training_arg", False),
            "dtype": config.get("dtype"), "batch_input_shape": None, "stateful": False,
            "must_restore_from_config": False, "preserve_input_structure_in_config": False,
            "autocast": True, "class_name": data["class_name"], "config": config,
            "build_input_shape": data["build_input_shape"]}


def _layer_metadata(layer) -> dict:
    if not isinstance(layer, Layer) and callable(getattr(layer, "_keras_sublayer_metadata",
                                                         None)):
        return _sublayer_metadata(layer)
    meta = {"name": layer.name, "trainable": bool(layer.trainable),
            "expects_training_arg": _expects_training_arg(layer),
            "dtype": layer.dtype if isinstance(layer.dtype, str) else
            getattr(layer.dtype, "name", None),
            "batch_input_shape": getattr(layer, "_batch_input_shape", None),
            "stateful": bool(getattr(layer, "stateful", False)),
            "must_restore_from_config": False,
            "preserve_input_structure_in_config": False,
            "autocast": bool(getattr(layer, "_autocast", True))}
    if isinstance(layer, Metric):
        meta = {"name": layer.name, "dtype": meta["dtype"]}
    try:
        ser = serialize_layer(layer)
        meta["class_name"] = ser["class_name"]
        meta["config"] = ser["config"]
    except NotImplementedError:
        meta["class_name"] = type(layer).__name__
    shapes = getattr(layer, "_build_shapes", None)
    if shapes is not None and isinstance(meta.get("config"), dict):
        # tf-keras >= 2.6 builds MultiHeadAttention's weights in from_config from
        # these (TF 2.4's config has none; torchflow's loader drops them, _NEWER_KEYS);
        # without them its load_model falls back to calling the layer's traced
        # call, which is not saved.
        meta["config"] = {**meta["config"], "query_shape": shapes[0],
                          "key_shape": shapes[1], "value_shape": shapes[2]}
    if isinstance(layer, Layer) and getattr(layer, "_build_input_shape", None) is not None:
        shape = layer._build_input_shape
        meta["build_input_shape"] = TensorShape(shape) if _is_shape(shape) else shape
    return meta


def _is_shape(shape) -> bool:
    if isinstance(shape, TensorShape):
        return True
    return isinstance(shape, (list, tuple)) and all(d is None or isinstance(d, int)
                                                     for d in shape)


def _model_metadata(model, training_config) -> dict:

    meta = _layer_metadata(model)
    meta["is_graph_network"] = bool(getattr(model, "_is_graph_network", False))
    meta["keras_version"] = _KERAS_VERSION
    meta["backend"] = "tensorflow"
    try:
        meta["model_config"] = serialize_layer(model)
    except NotImplementedError:
        pass
    if training_config:
        meta["training_config"] = training_config
    return meta


class _Root:
    """The model seen without its optimizer (``include_optimizer=False``)."""

    def __init__(self, model):
        self._model = model

    def _checkpoint_dependencies(self):
        return [(n, c) for n, c in og.children(self._model) if n != "optimizer"]


def _variable_proto(var, proto) -> None:
    proto.dtype = var.dtype.base_dtype.as_datatype_enum
    shape = var.shape
    if shape.rank is None:
        proto.shape.unknown_rank = True
    else:
        for d in shape.as_list():
            proto.shape.dim.add(size=-1 if d is None else int(d))
    proto.trainable = bool(getattr(var, "trainable", True))
    sync = getattr(var, "synchronization", None)
    agg = getattr(var, "aggregation", None)
    proto.synchronization = int(getattr(sync, "value", 0) or 0)
    proto.aggregation = int(getattr(agg, "value", 0) or 0)
    name = getattr(var, "name", "") or ""
    proto.name = name[:-2] if name.endswith(":0") else name


def save(model, filepath: str, include_optimizer: bool, training_config, signatures=None,
         options=None) -> None:
    """Writes ``model`` at ``filepath`` in tf.keras' SavedModel layout.

    ``saved_model.pb`` comes from ``tf.saved_model.save`` with the model's call
    traced for its inputs (``__call__`` and the ``serving_default`` signature)
    where every op of that call has a TF lowering; otherwise it holds the object
    graph alone (``UnimplementedError`` of the tracer is the signal)."""
    root = model if include_optimizer and training_config else _Root(model)
    os.makedirs(filepath, exist_ok=True)
    objects, edges, _, index = og.walk(root)  # the checkpoint's node ids
    objects[0] = model
    edges, paths = _unique_edges(edges)
    if not _save_with_functions(model, root, filepath, signatures, options):
        graph = _object_graph(objects, edges, index, paths)
        sm = tf_saved_model_pb2.SavedModel(saved_model_schema_version=1)
        mg = sm.meta_graphs.add()
        mg.meta_info_def.tags.append("serve")
        mg.meta_info_def.tensorflow_version = "2.4.0"
        mg.meta_info_def.tensorflow_git_version = "torchflow"
        mg.graph_def.versions.producer = 561
        mg.graph_def.versions.min_consumer = 12
        mg.object_graph_def.CopyFrom(graph)
        os.makedirs(os.path.join(filepath, "variables"), exist_ok=True)
        os.makedirs(os.path.join(filepath, "assets"), exist_ok=True)
        ckpt_lib.save_graph(root, os.path.join(filepath, "variables", "variables"))
    else:
        sm = tf_saved_model_pb2.SavedModel()
        with open(os.path.join(filepath, "saved_model.pb"), "rb") as f:
            sm.ParseFromString(f.read())
        _kerasify(sm.meta_graphs[0].object_graph_def, objects, edges, paths)
    meta = metadata_pb2.SavedMetadata()
    for i, obj in enumerate(objects):
        ident = _identifier(obj) if i in paths and not og.is_variable(obj) else ""
        if not ident.startswith("_tf_keras"):
            continue
        data = _model_metadata(model, training_config) if i == 0 else _layer_metadata(obj)
        meta.nodes.add(node_id=i, node_path="root." + paths[i] if i else "root",
                       identifier=ident, metadata=_dumps(data),
                       version={"producer": _PRODUCER, "min_consumer": _MIN_CONSUMER})
    _write(os.path.join(filepath, "saved_model.pb"), sm.SerializeToString())
    _write(os.path.join(filepath, METADATA_FILENAME), meta.SerializeToString())


def _input_specs(model):
    """The ``TensorSpec`` structure of a graph network's inputs (None otherwise)."""

    inputs = getattr(model, "inputs", None)
    if not inputs:
        # A subclassed model: the inputs of its first call (TF's save spec).
        return getattr(model, "_save_spec", None)
    specs = [t.type_spec if structure.is_composite_spec(getattr(t, "type_spec", None)) else
             TensorSpec(t.shape, t.dtype, name=getattr(t, "name", None) or None)
             for t in inputs]  # Input(ragged=True) / Input(sparse=True): their specs
    return specs[0] if len(specs) == 1 else specs


def default_signature(model):
    """The ``serving_default`` signature TF gives a Keras model: a ``tf.function``
    of its call (``training=False``) with its inputs' ``input_signature``,
    returning ``{output name: tensor}``; None for a model whose inputs are not
    known (a subclassed model)."""
    spec = _input_specs(model)
    if spec is None:
        return None
    names = list(getattr(model, "output_names", None) or [])

    def serving_default(*args):
        # *args: an unnamed (ragged/sparse) input's components are args_0, args_0_1, as TF.
        out = model(args[0], training=False)
        if isinstance(out, dict):
            return dict(out)
        flat = list(out) if isinstance(out, (list, tuple)) else [out]
        keys = names if len(names) == len(flat) else [f"output_{k}" for k in range(len(flat))]
        return dict(zip(keys, flat))

    return function(serving_default, input_signature=[spec])


def _save_with_functions(model, root, filepath: str, signatures, options) -> bool:
    """``tf.saved_model.save`` of ``root`` with the model's traced call; False
    where that cannot be written (no input spec, ops without TF lowerings)."""
    spec = _input_specs(model)
    if spec is None:
        return False

    sigs = signatures if signatures is not None else {
        "serving_default": default_signature(model)}
    try:
        call_fn = keras_functions.keras_call_function(model, spec)
    except (errors.OpError, TypeError, ValueError) as e:
        _log.warning("model.save: the call of %s was not traced (%s: %s); "
                     "saved_model.pb holds the object graph only.", model.name,
                     type(e).__name__, e)
        return False
    object.__setattr__(root, "__call__", call_fn)
    try:
        saved_model_save.save(root, filepath, signatures=sigs, options=options)
    except errors.UnimplementedError as e:
        # Ops without TF lowerings (the message names each Unlowered value's maker).
        _tf_log.warning("model.save: %s is saved without its __call__ and "
                        "serving_default signature: %s", model.name, e.message)
        return False
    except (AssertionError, NotImplementedError, TypeError, ValueError) as e:
        # The call could not be traced or written (an untracked variable, a structure
        # the saver does not take): the model still saves, without graphs.
        _log.warning("model.save: the call of %s was not written as a graph (%s: %s); "
                     "saved_model.pb holds the object graph only.", model.name,
                     type(e).__name__, e)
        return False
    finally:
        object.__delattr__(root, "__call__")
    return True


def _kerasify(graph, objects, edges, paths) -> None:
    """Gives the objects of ``tf.saved_model.save``'s graph (the first
    ``len(objects)`` nodes) their Keras identifiers and each child one name."""
    n = len(objects)
    for i, obj in enumerate(objects):
        node = graph.nodes[i]
        extra = [(c.local_name, c.node_id) for c in node.children if c.node_id >= n]
        del node.children[:]
        for name, j in list(edges[i]) + extra:
            node.children.add(node_id=j, local_name=name)
        if node.WhichOneof("kind") == "user_object":
            ident = _identifier(obj) if i in paths else "_generic_user_object"
            node.user_object.identifier = ident
            node.user_object.version.producer = 2 if ident == "optimizer" else 1


def _object_graph(objects, edges, index, paths):
    """The ``SavedObjectGraph`` of the objects, their variables, the optimizer's
    slot variables (in ``save_graph``'s order) and an empty signature map."""
    graph = sog_pb2.SavedObjectGraph()
    for i, obj in enumerate(objects):
        node = graph.nodes.add()
        for name, j in edges[i]:
            node.children.add(node_id=j, local_name=name)
        if og.is_variable(obj):
            _variable_proto(obj, node.variable)
            continue
        ident = _identifier(obj) if i in paths else "_generic_user_object"
        node.user_object.identifier = ident
        node.user_object.version.producer = 2 if ident == "optimizer" else 1
        node.user_object.version.min_consumer = 1
    for i, obj in enumerate(objects):
        slots = getattr(obj, "_checkpoint_slots", None)
        if not callable(slots):
            continue
        for slot_name, var, slot_var in slots():
            if id(var) not in index:
                continue
            slot_node = graph.nodes.add()
            _variable_proto(slot_var, slot_node.variable)
            graph.nodes[i].slot_variables.add(
                original_variable_node_id=index[id(var)], slot_name=slot_name,
                slot_variable_node_id=len(graph.nodes) - 1)
    graph.nodes[0].children.add(node_id=len(graph.nodes), local_name="signatures")
    signatures = graph.nodes.add()  # TF's (here empty) signature map
    signatures.user_object.identifier = "signature_map"
    signatures.user_object.version.producer = 1
    signatures.user_object.version.min_consumer = 1
    return graph


def _unique_edges(edges):
    """The edges without a second child of the same name (TF's object graphs name
    each child once; torchflow's checkpoint may list a Sequential's InputLayer
    as a second ``layer-0``, which TF's Keras loader would take for the first),
    and each node's first path from the root along them (``"layer-0.kernel"``)."""
    out = []
    for es in edges:
        seen, kept = set(), []
        for name, j in es:
            if name not in seen:
                seen.add(name)
                kept.append((name, j))
        out.append(kept)
    paths = {0: ""}
    queue = [0]
    while queue:
        i = queue.pop(0)
        for name, j in out[i]:
            if j not in paths:
                paths[j] = f"{paths[i]}.{name}" if paths[i] else name
                queue.append(j)
    return out, paths


def _write(file: str, data: bytes) -> None:
    tmp = file + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, file)
