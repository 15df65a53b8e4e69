"""The object graph a checkpoint saves: who depends on whom, by name.

An object's dependencies are, in order of precedence:

* what its ``_checkpoint_dependencies()`` returns (a list of ``(name, child)``;
  Keras layers and optimizers define it);
* for lists and tuples, their trackable items named ``"0"``, ``"1"``, ...;
  for dicts, their trackable values named by key;
* for ``tf.Module``\\ s, ``tf.train.Checkpoint`` and any other object that has a
  ``__dict__`` and is reached through them, its trackable attributes, sorted.

Trackable values are Variables, Modules, objects with ``_checkpoint_dependencies``
or with state (``_serialize_to_tensors``/``_restore_from_tensors``, e.g. dataset
iterators, or ``PythonState``'s ``_serialize_state``), and containers holding any of these.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.module import Module
from torchflow._src.core.variables import Variable

_IGNORED = frozenset(("_self_unconditional_checkpoint_dependencies",))


def is_variable(obj) -> bool:
    """A Variable, or an object saved as one (``_is_checkpointable_variable``; a
    ShardedVariable's ``_checkpoint_shards``)."""
    return isinstance(obj, Variable) or getattr(obj, "_is_checkpointable_variable", False) or (
        callable(getattr(obj, "_checkpoint_shards", None)) and not isinstance(obj, type))


def has_state(obj) -> bool:
    return (hasattr(obj, "_serialize_state") and hasattr(obj, "_deserialize_state")) or (
        hasattr(obj, "_serialize_to_tensors") and hasattr(obj, "_restore_from_tensors")
        and not isinstance(obj, type))


def get_state(obj) -> dict:
    """An object's saveable state as ``{attribute name: tensor or value}``: TF's
    ``_serialize_to_tensors`` dict, or ``{"py_state": string}`` for a ``PythonState``
    (the attribute TF saves one under)."""
    if hasattr(obj, "_serialize_to_tensors"):
        return dict(obj._serialize_to_tensors())
    return {"py_state": obj._serialize_state()}


def set_state(obj, state: dict) -> None:
    """Restores ``{attribute name: NumPy value}`` read from a checkpoint."""
    if hasattr(obj, "_restore_from_tensors"):
        obj._restore_from_tensors({k: convert_to_tensor(v) for k, v in state.items()})
        return
    value = state.get("py_state")
    if isinstance(value, np.ndarray):
        value = value.item()
    obj._deserialize_state(value.decode("utf-8") if isinstance(value, bytes) else value)


def is_trackable(obj) -> bool:
    if is_variable(obj) or isinstance(obj, Module) or has_state(obj):
        return True
    if hasattr(obj, "_checkpoint_dependencies") and not isinstance(obj, type):
        return True
    if isinstance(obj, (list, tuple)):
        return any(is_trackable(v) for v in obj)
    if isinstance(obj, dict):
        return any(is_trackable(v) for v in obj.values())
    return False


def kind_of(obj) -> str:
    if is_variable(obj):
        return "variable"
    if has_state(obj):
        return "state"
    if isinstance(obj, (list, tuple)):
        return "list"
    if isinstance(obj, dict):
        return "dict"
    return "object"


def children(obj) -> list:
    """``[(name, child)]``: the trackable dependencies of ``obj``."""
    if is_variable(obj):
        return []
    deps = getattr(obj, "_checkpoint_dependencies", None)
    if callable(deps) and not isinstance(obj, type):
        return [(str(n), c) for n, c in deps() if is_trackable(c)]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if is_trackable(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if is_trackable(v)]
    d = getattr(obj, "__dict__", None)
    if d is None:
        return []
    return [(k, d[k]) for k in sorted(d) if k not in _IGNORED and is_trackable(d[k])]


def attribute_children(obj) -> list:
    """The attribute walk alone (for ``_checkpoint_dependencies`` implementations)."""
    d = getattr(obj, "__dict__", {})
    return [(k, d[k]) for k in sorted(d) if k not in _IGNORED and is_trackable(d[k])]


def walk(root):
    """Breadth-first ``(objects, edges, paths)``: every trackable reachable from
    ``root`` once, its ``[(name, child index)]`` edges and its first path."""
    objects = [root]
    index = {id(root): 0}
    edges: list[list] = []
    paths = [""]
    i = 0
    while i < len(objects):
        obj = objects[i]
        out = []
        for name, child in children(obj):
            j = index.get(id(child))
            if j is None:
                j = len(objects)
                index[id(child)] = j
                objects.append(child)
                paths.append(f"{paths[i]}/{name}" if paths[i] else name)
            out.append((name, j))
        edges.append(out)
        i += 1
    return objects, edges, paths, index
