"""Deferred restoration: values waiting for objects that do not exist yet.

``tf.train.Checkpoint.restore`` may run before a Keras layer is built or an
optimizer has made its slots. Values for such objects are parked here, keyed
by the live parent object (or optimizer) and the child's name; when the child
appears (``Module.__setattr__``, ``Layer.add_weight``, optimizer slot creation
call ``notify``/``take_slot``), it is restored at once, as in TF.

A parked value is a *token*: any object with ``restore_into(obj)``.
"""

from __future__ import annotations

import weakref

# id(parent) -> (weakref(parent), {child name: token})
_pending: dict[int, tuple] = {}
# id(optimizer) -> (weakref(optimizer), {(slot name, id(variable)): (weakref(variable), token)})
_pending_slots: dict[int, tuple] = {}


def _ref(obj):
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda obj=obj: obj


def defer(parent, name: str, token) -> None:
    """Parks ``token`` until ``parent`` gains a child called ``name``."""
    entry = _pending.get(id(parent))
    if entry is None or entry[0]() is not parent:
        entry = (_ref(parent), {})
        _pending[id(parent)] = entry
    entry[1][name] = token


def notify(parent, name: str, value) -> None:
    """Called when ``parent`` gains child ``name``; restores a parked value."""
    if not _pending:
        return
    entry = _pending.get(id(parent))
    if entry is None:
        return
    if entry[0]() is not parent:
        del _pending[id(parent)]
        return
    token = entry[1].pop(name, None)
    if not entry[1]:
        del _pending[id(parent)]
    if token is not None:
        token.restore_into(value)


def defer_slot(optimizer, slot_name: str, variable, token) -> None:
    """Parks a slot value until ``optimizer`` creates slot ``slot_name`` for ``variable``."""
    entry = _pending_slots.get(id(optimizer))
    if entry is None or entry[0]() is not optimizer:
        entry = (_ref(optimizer), {})
        _pending_slots[id(optimizer)] = entry
    entry[1][(slot_name, id(variable))] = (_ref(variable), token)


def take_slot(optimizer, slot_name: str, variable):
    """The parked token for a new slot of ``variable``, or None."""
    if not _pending_slots:
        return None
    entry = _pending_slots.get(id(optimizer))
    if entry is None:
        return None
    item = entry[1].pop((slot_name, id(variable)), None)
    if not entry[1]:
        del _pending_slots[id(optimizer)]
    if item is None or item[0]() is not variable:
        return None
    return item[1]


def restore_slot(optimizer, slot_name: str, variable, slot_variable) -> None:
    """Restores a just-created slot variable if a checkpoint value waits for it."""
    token = take_slot(optimizer, slot_name, variable)
    if token is not None:
        token.restore_into(slot_variable)


def clear() -> None:
    _pending.clear()
    _pending_slots.clear()
