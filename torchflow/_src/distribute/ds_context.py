"""Which strategy and which context (cross-replica or replica) the thread is in.

TF's ``distribution_strategy_context``. The per-thread stack of modes lives in
``core/context.py`` (``thread_state().strategy_stack``, the one home of global
state); an empty stack means the default strategy in its default replica context.
A MirroredStrategy replica thread starts with a stack holding its replica mode.
"""

from __future__ import annotations

from torchflow._src.core import context
from torchflow._src.util.api import public

_state = context.thread_state()


class ThreadMode:
    """One entry of the stack: the strategy, and which of its contexts is current."""

    __slots__ = ("strategy", "cross_replica_context", "replica_context")

    def __init__(self, strategy, cross_replica_context=None, replica_context=None):
        self.strategy = strategy
        self.cross_replica_context = cross_replica_context
        self.replica_context = replica_context


# Set by distribute_lib at import: () -> the default strategy's ThreadMode.
_DEFAULT_MODE: list = []


def default_mode() -> ThreadMode:
    return _DEFAULT_MODE[0]()


def current_mode() -> ThreadMode:
    stack = _state.strategy_stack
    if stack:
        return stack[-1]
    return _DEFAULT_MODE[0]()


def push_mode(mode: ThreadMode) -> None:
    _state.strategy_stack.append(mode)


def pop_mode() -> None:
    _state.strategy_stack.pop()


def current_replica():
    """The ``ReplicaContext`` of a non-default strategy this thread runs as, or None."""
    stack = _state.strategy_stack
    if not stack:
        return None
    return stack[-1].replica_context


@public("torchflow.distribute")
def get_replica_context():
    """Returns the current ``tf.distribute.ReplicaContext`` or None.

    Returns None in a cross-replica context (inside ``strategy.scope()`` but
    outside ``strategy.run``); the default replica context outside any scope; the
    replica's own context inside ``strategy.run``.

    >>> import torchflow as tf
    >>> tf.distribute.get_replica_context().num_replicas_in_sync
    1
    """
    return current_mode().replica_context


@public("torchflow.distribute")
def in_cross_replica_context() -> bool:
    """Returns True inside ``strategy.scope()`` and outside ``strategy.run``.

    >>> import torchflow as tf
    >>> tf.distribute.in_cross_replica_context()
    False
    """
    return current_mode().cross_replica_context is not None


def get_cross_replica_context():
    """The strategy in a cross-replica context (or the default one), else None."""
    return current_mode().cross_replica_context


@public("torchflow.distribute")
def get_strategy():
    """Returns the current ``tf.distribute.Strategy`` (the default one outside scopes).

    >>> import torchflow as tf
    >>> tf.distribute.get_strategy().num_replicas_in_sync
    1
    """
    return current_mode().strategy


@public("torchflow.distribute")
def has_strategy() -> bool:
    """Returns True when a non-default strategy is current (in a scope or replica).

    >>> import torchflow as tf
    >>> tf.distribute.has_strategy()
    False
    """
    return bool(_state.strategy_stack) and current_mode().strategy is not \
        default_mode().strategy
