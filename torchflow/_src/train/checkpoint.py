"""``tf.train.Checkpoint``: object-based saving and restoring of variables and state.

The object graph (``object_graph.py``) is saved in TF's checkpoint format: a
tensor bundle (``tensor_bundle.py``) of every variable and stateful object's
values, keyed as TF keys them, plus the ``TrackableObjectGraph`` proto, so TF
reads what torchflow writes and the other way round. ``restore``
matches saved objects to live ones by the names along their paths; values for
objects that do not exist yet (a Keras layer not built, an optimizer slot not
created) wait in ``core/tracking.py`` and are assigned when they appear.
"""

from __future__ import annotations

import logging
import os

import numpy as np

from torchflow._src.core import dtypes, errors, profiler_backend, tracking
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.proto import tf_trackable_object_graph_pb2 as graph_pb2
from torchflow._src.core.variables import Variable
from torchflow._src.ops.tensor_proto_ops import tf_type_name
from torchflow._src.train import checkpoint_legacy, tensor_bundle
from torchflow._src.train import checkpoint_management as cm
from torchflow._src.train import object_graph as og
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")
_VALUE_KEY = ".ATTRIBUTES/VARIABLE_VALUE"


def _variable_numpy(var):
    v = getattr(var, "_checkpoint_numpy", None)
    return v() if callable(v) else var.numpy()


def _shape_str(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _assign(var, value, key=None):
    """Restores ``value`` (a NumPy array) into ``var`` with TF's dtype and shape checks."""
    dtype = getattr(var, "true_dtype", None) or getattr(var, "dtype", None)  # AutoCast: stored
    if dtype is not None and value.dtype.kind != "O":
        saved = dtypes.as_dtype(value.dtype)
        if saved != dtype.base_dtype:
            raise InvalidArgumentError(
                None, None, f"tensor_name = {key or var.name}; expected dtype "
                f"{tf_type_name(dtype.base_dtype)} does not equal original dtype "
                f"{tf_type_name(saved)} [Op:RestoreV2]")
    assign = getattr(var, "_checkpoint_assign", None)
    if callable(assign):
        assign(value)
        return
    if tuple(var.shape.as_list() if var.shape.rank is not None else ()) != value.shape \
            and var.shape.is_fully_defined():
        raise ValueError(
            f"Received incompatible tensor with shape {_shape_str(value.shape)} when "
            f"attempting to restore variable with shape {_shape_str(var.shape.as_list())} "
            f"and name {var.name}.")
    var.assign(value)


OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _escape(name: str) -> str:
    """TF's escaping of an edge name inside a checkpoint key ('.' -> '..', '/' -> '.S')."""
    return name.replace(".", "..").replace("/", ".S")


def _full_name(var) -> str:
    name = getattr(var, "name", "") or ""
    return name[:-2] if name.endswith(":0") else name


def _state_tensors(obj) -> dict:
    """``{attribute name: NumPy value}`` of a stateful object (TF's
    ``_serialize_to_tensors``; ``py_state`` for a ``PythonState``)."""
    out = {}
    for k, v in og.get_state(obj).items():
        a = v.numpy() if hasattr(v, "numpy") else v
        if isinstance(a, str):
            a = a.encode("utf-8")
        out[k] = np.asarray(a, dtype=object) if isinstance(a, bytes) else np.asarray(a)
    return out


def _add_state(writer, node, path: str, obj) -> None:
    """A stateful object's tensors, one attribute each; TF's saveable of several
    tensors (a dense table's ``table``: ``table-keys``, ``table-values``) is one
    attribute whose tensors' keys carry the suffixes."""
    group = getattr(obj, "_saveable_attribute", None)
    if group is not None:
        node.attributes.add(name=group, checkpoint_key=f"{path}/.ATTRIBUTES/{group}")
    for name, value in _state_tensors(obj).items():
        key = f"{path}/.ATTRIBUTES/{name}"
        if group is None:
            node.attributes.add(name=name, checkpoint_key=key)
        writer.add(key, value)


def _add_sharded(writer, key: str, var, shards) -> None:
    """A ShardedVariable as TF 2.4 saves it: one tensor partitioned along axis 0."""
    pieces, offset = [], 0
    for shard in shards:
        value = _variable_numpy(shard)
        pieces.append((offset, value))
        offset += value.shape[0]
    writer.add_slices(key, [int(d) for d in var.shape.as_list()], pieces)


def save_graph(root, prefix: str) -> None:
    """``_save_graph`` as TF's ``SaveV2`` event in a running profile (idle: a flag read)."""
    with profiler_backend.host_range("SaveV2"):
        _save_graph(root, prefix)


def _save_graph(root, prefix: str) -> None:
    """Writes the object graph rooted at ``root`` as a TF checkpoint at ``prefix``:
    a tensor bundle holding every variable under ``<path>/.ATTRIBUTES/VARIABLE_VALUE``,
    optimizer slots under ``<var path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>/...``
    and the ``TrackableObjectGraph`` under ``_CHECKPOINTABLE_OBJECT_GRAPH``."""
    objects, edges, names, index = og.walk(root)
    paths = [""] * len(objects)
    for i, out in enumerate(edges):
        for name, j in out:
            if j > i and not paths[j]:
                paths[j] = f"{paths[i]}/{_escape(name)}" if paths[i] else _escape(name)
    graph = graph_pb2.TrackableObjectGraph()
    writer = tensor_bundle.BundleWriter(prefix)
    try:
        for i, obj in enumerate(objects):
            node = graph.nodes.add()
            for name, j in edges[i]:
                node.children.add(node_id=j, local_name=name)
            kind = og.kind_of(obj)
            if kind == "variable":
                key = f"{paths[i]}/{_VALUE_KEY}"
                node.attributes.add(name="VARIABLE_VALUE", full_name=_full_name(obj),
                                    checkpoint_key=key)
                shards = getattr(obj, "_checkpoint_shards", None)
                if callable(shards):
                    _add_sharded(writer, key, obj, shards())
                else:
                    writer.add(key, _variable_numpy(obj))
            elif kind == "state":
                _add_state(writer, node, paths[i], obj)
        for i, obj in enumerate(objects):
            slots = getattr(obj, "_checkpoint_slots", None)
            if not callable(slots):
                continue
            for slot_name, var, slot_var in slots():
                if id(var) not in index:
                    continue
                original = index[id(var)]
                key = (f"{paths[original]}/.OPTIMIZER_SLOT/{paths[i]}/{_escape(slot_name)}/"
                       f"{_VALUE_KEY}")
                slot_node = graph.nodes.add()
                slot_node.attributes.add(name="VARIABLE_VALUE", full_name=_full_name(slot_var),
                                         checkpoint_key=key)
                writer.add(key, _variable_numpy(slot_var))
                graph.nodes[i].slot_variables.add(
                    original_variable_node_id=original, slot_name=slot_name,
                    slot_variable_node_id=len(graph.nodes) - 1)
        writer.add(OBJECT_GRAPH_KEY, np.array(graph.SerializeToString(), dtype=object))
    except BaseException:
        writer.abort()
        raise
    writer.finish()
    current = os.path.basename(tensor_bundle.data_filename(prefix))
    for old in tensor_bundle.data_files(prefix):  # torchflow's older data-file names
        if os.path.basename(old) != current:
            tensor_bundle.delete_file(old)


class _Restore:
    """One restore operation: the saved graph and what has been matched so far."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        try:  # TF reads the object graph through its Python checkpoint reader
            self.reader = cm.open_reader(prefix)
            self.graph = cm.object_graph(self.reader)
        except errors.OpError as e:
            raise cm.translate_error(e) from None
        self.nodes = self.graph.nodes
        self.legacy = isinstance(self.reader, checkpoint_legacy.LegacyReader)
        self.matched: dict[int, object] = {}
        self.slot_done: set = set()
        # original-variable node id -> [(optimizer node id, slot reference)]
        self.slots_by_original: dict[int, list] = {}
        for i, node in enumerate(self.nodes):
            for ref in node.slot_variables:
                self.slots_by_original.setdefault(ref.original_variable_node_id, []).append(
                    (i, ref))

    def _value(self, node_id: int, name: str = "VARIABLE_VALUE"):
        for attr in self.nodes[node_id].attributes:
            if attr.name == name:
                return self.reader.lookup(attr.checkpoint_key), attr.checkpoint_key
        return None, None

    def _state(self, node) -> dict:
        """``{name: value}`` of a stateful object's attributes. TF keys a saveable's
        tensors by the attribute's key plus each tensor's suffix (an iterator's
        ``ITERATOR`` attribute is stored as ``.../ITERATOR_STATE``)."""
        out = {}
        for a in node.attributes:
            if self.reader.contains(a.checkpoint_key):
                out[a.name] = self.reader.lookup(a.checkpoint_key)
                continue
            keys = [k for k in self.reader.entries if k.startswith(a.checkpoint_key)]
            if not keys:
                raise errors.NotFoundError(
                    None, None, f"Key {a.checkpoint_key} not found in checkpoint")
            for k in keys:
                out[a.name + k[len(a.checkpoint_key):]] = self.reader.lookup(k)
        return out

    def match(self, node_id: int, obj) -> None:
        if node_id in self.matched:
            return
        self.matched[node_id] = obj
        node = self.nodes[node_id]
        if node.attributes:
            if og.is_variable(obj):
                value, key = self._value(node_id)
                if value is not None:
                    _assign(obj, value, key)
            elif og.has_state(obj):
                og.set_state(obj, self._state(node))
        legacy_deps = getattr(obj, "_legacy_checkpoint_dependencies", None) if self.legacy \
            else None
        live = dict(legacy_deps() if callable(legacy_deps) else og.children(obj))
        for ref in node.children:
            child = live.get(ref.local_name)
            if child is not None:
                self.match(ref.node_id, child)
            elif type(obj) not in (list, tuple, dict):
                tracking.defer(obj, ref.local_name, _Deferred(self, ref.node_id))
        self._slots_for(node_id)

    def _slots_for(self, node_id: int) -> None:
        """Restores or parks optimizer slots once both ends of a slot are known."""
        pairs = [(node_id, ref) for ref in self.nodes[node_id].slot_variables]
        pairs += self.slots_by_original.get(node_id, [])
        for opt_id, ref in pairs:
            key = (opt_id, ref.original_variable_node_id, ref.slot_name)
            if key in self.slot_done:
                continue
            opt = self.matched.get(opt_id)
            var = self.matched.get(ref.original_variable_node_id)
            if opt is None or var is None:
                continue
            self.slot_done.add(key)
            value, ckpt_key = self._value(ref.slot_variable_node_id)
            if value is None:
                continue
            existing = None
            get_slot = getattr(opt, "_lookup_slot", None)
            if callable(get_slot):
                existing = get_slot(var, ref.slot_name)
            if existing is not None:
                _assign(existing, value, ckpt_key)
                self.matched[ref.slot_variable_node_id] = existing
            else:
                tracking.defer_slot(opt, ref.slot_name, var,
                                    _Value(value, self, ref.slot_variable_node_id))

    def unmatched_nodes(self) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if i not in self.matched and n.attributes]

    def unmatched_keys(self) -> list[str]:
        return [a.checkpoint_key for i in self.unmatched_nodes() for a in self.nodes[i].attributes]


def restore_graph(root, prefix: str, legacy_root: str | None = None) -> CheckpointLoadStatus:
    """Restores the checkpoint at ``prefix`` into the object graph rooted at ``root``
    (what Keras ``load_weights`` and a SavedModel's ``variables/`` use).

    ``legacy_root`` names the child of a torchflow 0.x checkpoint's root that
    ``root`` corresponds to (0.x ``save_weights`` saved ``Checkpoint(model=model)``).
    """
    with profiler_backend.host_range("RestoreV2"):  # TF's op name, for the profiler
        r = _Restore(_path(prefix))
        start = 0
        if r.legacy and legacy_root is not None:
            start = next((c.node_id for c in r.nodes[0].children
                          if c.local_name == legacy_root), 0)
            if start:
                r.matched[0] = None
        r.match(start, root)
    return CheckpointLoadStatus(r, root)


class ListWrapper(list):
    """A list assigned to a ``Checkpoint`` attribute: tracked even while empty, and an
    element appended later is restored from a pending ``restore``, as in TF."""

    def _checkpoint_dependencies(self):
        return [(str(i), v) for i, v in enumerate(self)]

    def _added(self, start: int) -> None:
        if tracking._pending:
            for i in range(start, len(self)):
                tracking.notify(self, str(i), self[i])

    def append(self, value) -> None:
        super().append(value)
        self._added(len(self) - 1)

    def extend(self, values) -> None:
        n = len(self)
        super().extend(values)
        self._added(n)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"


class _Deferred:
    """Token parked in core/tracking until the named child appears."""

    def __init__(self, restore: _Restore, node_id: int):
        self._restore = restore
        self._node_id = node_id

    def restore_into(self, obj) -> None:
        if og.is_trackable(obj):
            self._restore.match(self._node_id, obj)


class _Value:
    """A slot value parked until the optimizer creates the slot."""

    def __init__(self, value, restore: _Restore | None = None, node_id: int | None = None):
        self._value = value
        self._restore = restore
        self._node_id = node_id

    def restore_into(self, var) -> None:
        _assign(var, self._value)
        if self._restore is not None:
            self._restore.matched[self._node_id] = var


@public("torchflow.train")
class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: checks on how the restore matched."""

    def __init__(self, restore: _Restore, root):
        self._restore = restore
        self._root = root

    def _live_unmatched(self) -> list:
        objects, _, paths, _ = og.walk(self._root)
        matched = {id(o) for o in self._restore.matched.values()}
        counter = getattr(self._root, "_save_counter", None)
        return [paths[i] for i, o in enumerate(objects)
                if og.kind_of(o) in ("variable", "state") and id(o) not in matched
                and o is not counter]

    def assert_consumed(self):
        """Raises AssertionError unless every saved value was restored and every
        variable in the live object graph got a value."""
        missing = self._restore.unmatched_keys()
        if missing:
            raise AssertionError(
                f"Unresolved object in checkpoint {self._restore.prefix}: {missing}")
        live = self._live_unmatched()
        if live:
            raise AssertionError(f"Some Python objects were not bound to checkpointed values, "
                                 f"likely due to changes in the Python program: {live}")
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a live variable or stateful object got no value."""
        live = self._live_unmatched()
        if live:
            raise AssertionError(f"Some Python objects were not bound to checkpointed values, "
                                 f"likely due to changes in the Python program: {live}")
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError if nothing but the root was matched."""
        if len(self._restore.matched) <= 1:
            raise AssertionError(
                f"Nothing except the root object matched a checkpointed value "
                f"({self._restore.prefix}).")
        return self

    def expect_partial(self):
        """Silences warnings about values that were never used."""
        return self

    def run_restore_ops(self, session=None):
        return None

    def initialize_or_restore(self, session=None):
        return None


@public("torchflow.train")
class InitializationOnlyStatus:
    """Returned by ``restore(None)``: nothing was restored."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_existing_objects_matched(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_nontrivial_match(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        return None

    def initialize_or_restore(self, session=None):
        return None


@public("torchflow.train")
class Checkpoint:
    """Saves and restores trackable objects (variables, modules, models,
    optimizers, dataset iterators) as an object graph.

    Args:
      root: Optional root object; its dependencies become the checkpoint's.
      **kwargs: Objects to track, by name (``model=model, optimizer=opt``).

    Raises:
      ValueError: If a keyword value is not trackable.

    >>> import torchflow as tf, tempfile, os
    >>> v = tf.Variable(1.0)
    >>> ckpt = tf.train.Checkpoint(v=v)
    >>> path = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    >>> _ = v.assign(5.0)
    >>> _ = ckpt.restore(path)
    >>> float(v.numpy())
    1.0
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_deps", {})
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_save_counter", None)
        for name, value in sorted(kwargs.items()):
            if not og.is_trackable(value):
                raise ValueError(
                    f"`Checkpoint` was expecting a trackable object (an object derived from "
                    f"`TrackableBase`), got {value!r}. If you believe this object should be "
                    f"trackable (i.e. it is part of the TensorFlow Python API and manages "
                    f"state), please open an issue.")
            self._deps[name] = value

    def __setattr__(self, name, value):
        if type(value) is list:
            value = ListWrapper(value)
        if og.is_trackable(value):
            self._deps[name] = value
            if tracking._pending:
                tracking.notify(self, name, value)
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        deps = object.__getattribute__(self, "_deps")
        if name in deps:
            return deps[name]
        raise AttributeError(name)

    def _checkpoint_dependencies(self):
        deps = []
        if self._root is not None:
            deps.extend(og.children(self._root))
        deps.extend(sorted(self._deps.items()))
        if self._save_counter is not None:
            deps.append(("save_counter", self._save_counter))
        return deps

    @property
    def save_counter(self) -> Variable:
        """How many times ``save()`` has run (an int64 variable, saved too)."""
        if self._save_counter is None:
            object.__setattr__(self, "_save_counter",
                               Variable(0, dtype=dtypes.int64, trainable=False,
                                        name="save_counter"))
            if tracking._pending:
                tracking.notify(self, "save_counter", self._save_counter)
        return self._save_counter

    def write(self, file_prefix: str, options=None) -> str:
        """Writes a checkpoint at exactly ``file_prefix`` (no counter, no state file).

        Returns:
          ``file_prefix``.
        """
        file_prefix = _path(file_prefix)
        save_graph(self, file_prefix)
        return file_prefix

    def save(self, file_prefix: str, options=None) -> str:
        """Saves to ``{file_prefix}-{save_counter}`` and records it in the
        directory's ``checkpoint`` state file (for ``tf.train.latest_checkpoint``).

        Returns:
          The path of the new checkpoint.
        """
        counter = self.save_counter
        counter.assign_add(1)
        path = f"{_path(file_prefix)}-{int(counter.numpy())}"
        try:
            self.write(path)
        except BaseException:
            counter.assign_sub(1)
            raise
        cm.record_saved(path)
        return path

    def read(self, save_path: str, options=None) -> CheckpointLoadStatus:
        """Restores from ``save_path`` written by ``write`` (same as ``restore``)."""
        return self._read(save_path)

    def restore(self, save_path, options=None):
        """Restores the objects tracked by this checkpoint from ``save_path``.

        Values for objects that do not exist yet are assigned when they are
        created (deferred restoration).

        Args:
          save_path: A path returned by ``save``/``write`` or
            ``tf.train.latest_checkpoint``; None restores nothing.

        Returns:
          A ``CheckpointLoadStatus`` (``InitializationOnlyStatus`` for None).

        Raises:
          NotFoundError: If there is no checkpoint at ``save_path``.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        status = self._read(save_path)
        self.save_counter  # noqa: B018 - TF makes the counter; a saved value reaches it
        return status

    def _read(self, save_path):
        return restore_graph(self, save_path)


def _path(p) -> str:
    return os.fspath(p)
