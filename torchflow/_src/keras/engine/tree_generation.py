"""The layer-tree generation: a counter that layers cache tree walks against.

It is bumped by every change that can alter a layer tree's flattened layers or
weight lists (a layer or weight tracked, a ``trainable`` flag set), so a layer
can keep its flattened sublayers and trainable weights between training steps
and rebuild them only after such a change.
"""

from __future__ import annotations

generation = [0]


def bump() -> None:
    generation[0] += 1


class TrackedList(list):
    """A list that bumps the layer-tree generation whenever it is mutated."""

    __slots__ = ()

    def __reduce_ex__(self, protocol):
        return (TrackedList, (list(self),))


def _mutator(name):
    base = getattr(list, name)

    def method(self, *args):
        generation[0] += 1
        return base(self, *args)

    method.__name__ = name
    return method


for _name in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
              "__setitem__", "__delitem__", "__iadd__", "__imul__"):
    setattr(TrackedList, _name, _mutator(_name))
del _name
