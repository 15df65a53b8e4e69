"""``tf.train.Checkpoint``: object-based saving and restoring of variables and state.

The object graph (``object_graph.py``) is saved with the values of its variables
and stateful objects (``checkpoint_format.py`` documents the files). ``restore``
matches saved objects to live ones by the names along their paths; values for
objects that do not exist yet (a Keras layer not built, an optimizer slot not
created) wait in ``core/tracking.py`` and are assigned when they appear.
"""

from __future__ import annotations

import logging
import os

from torchflow._src.core import dtypes, tracking
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.variables import Variable
from torchflow._src.ops.tensor_proto_ops import tf_type_name
from torchflow._src.train import checkpoint_format as fmt
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


def save_graph(root, prefix: str) -> None:
    """Writes the object graph rooted at ``root`` as a checkpoint at ``prefix``."""
    objects, edges, paths, index = og.walk(root)
    data = fmt.DataWriter()
    nodes: list[dict] = []
    extra_slot_vars: list = []
    for i, obj in enumerate(objects):
        node = {"kind": og.kind_of(obj), "children": {n: j for n, j in edges[i]}}
        if node["kind"] == "variable":
            entry = data.add(_variable_numpy(obj))
            entry["key"] = f"{paths[i]}/{_VALUE_KEY}"
            node["value"] = entry
        elif node["kind"] == "state":
            node["state"] = data.encode_state(og.get_state(obj))
        slots = getattr(obj, "_checkpoint_slots", None)
        if callable(slots):
            node["slots"] = []
            for slot_name, var, slot_var in slots():
                if id(var) not in index:
                    continue
                entry = data.add(_variable_numpy(slot_var))
                entry["key"] = (f"{paths[index[id(var)]]}/.OPTIMIZER_SLOT/{paths[i]}/"
                                f"{slot_name}/.ATTRIBUTES/VARIABLE_VALUE")
                node["slots"].append({"slot": slot_name, "original": index[id(var)],
                                      "value": entry})
                extra_slot_vars.append(slot_var)
        nodes.append(node)
    fmt.write(prefix, nodes, data)


class _Restore:
    """One restore operation: the saved graph and what has been matched so far."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.nodes, self.reader, _ = fmt.read(prefix)
        self.matched: dict[int, object] = {}
        self.slot_done: set = set()
        # original-variable node id -> [(optimizer node id, slot record)]
        self.slots_by_original: dict[int, list] = {}
        for i, node in enumerate(self.nodes):
            for rec in node.get("slots", ()):
                self.slots_by_original.setdefault(rec["original"], []).append((i, rec))

    def match(self, node_id: int, obj) -> None:
        if node_id in self.matched:
            return
        self.matched[node_id] = obj
        node = self.nodes[node_id]
        kind = node["kind"]
        if kind == "variable":
            if og.is_variable(obj):
                _assign(obj, self.reader.array(node["value"]), node["value"].get("key"))
        elif kind == "state":
            if og.has_state(obj):
                og.set_state(obj, self.reader.decode_state(node["state"]))
        live = dict(og.children(obj))
        for name, child_id in node["children"].items():
            child = live.get(name)
            if child is not None:
                self.match(child_id, child)
            elif type(obj) not in (list, tuple, dict):
                tracking.defer(obj, name, _Deferred(self, child_id))
        self._slots_for(node_id)

    def _slots_for(self, node_id: int) -> None:
        """Restores or parks optimizer slots once both ends of a slot are known."""
        candidates = list(self.nodes[node_id].get("slots", ()))
        pairs = [(node_id, rec) for rec in candidates]
        pairs += self.slots_by_original.get(node_id, [])
        for opt_id, rec in pairs:
            key = (opt_id, rec["original"], rec["slot"])
            if key in self.slot_done:
                continue
            opt = self.matched.get(opt_id)
            var = self.matched.get(rec["original"])
            if opt is None or var is None:
                continue
            self.slot_done.add(key)
            value = self.reader.array(rec["value"])
            existing = None
            get_slot = getattr(opt, "_lookup_slot", None)
            if callable(get_slot):
                existing = get_slot(var, rec["slot"])
            if existing is not None:
                _assign(existing, value)
            else:
                tracking.defer_slot(opt, rec["slot"], var, _Value(value))

    def unmatched_nodes(self) -> list[int]:
        return [i for i, n in enumerate(self.nodes)
                if i not in self.matched and (n["kind"] in ("variable", "state"))]


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
    def __init__(self, value):
        self._value = value

    def restore_into(self, var) -> None:
        _assign(var, self._value)


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
        missing = self._restore.unmatched_nodes()
        if missing:
            raise AssertionError(
                f"Unresolved object in checkpoint {self._restore.prefix}: "
                f"{[self._restore.nodes[i].get('value', {}).get('key', i) for i in missing]}")
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
        r = _Restore(_path(save_path))
        r.match(0, self)
        return CheckpointLoadStatus(r, self)


def _path(p) -> str:
    return os.fspath(p)
