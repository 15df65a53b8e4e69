"""``tf.name_scope`` and ``tf.variable_creator_scope``: thread-local scopes.

Both stacks live in ``context.thread_state()``: ``name_scope`` holds full
prefixes (``"outer/inner/"``), ``variable_creator_stack`` the creator functions
(outermost first) that ``tf.Variable(...)`` calls before the default creator.
"""

from __future__ import annotations

import contextlib

from torchflow._src.core import context
from torchflow._src.util.api import public


def current_name_scope() -> str:
    """The full prefix of the innermost name scope in this thread ('' at the top)."""
    stack = context.thread_state().name_scope
    return stack[-1] if stack else ""


@public("torchflow")
class name_scope:
    """A context manager that prefixes the names of variables created inside it.

    Args:
      name: The scope name. A name ending in ``/`` is absolute (it replaces the
        current prefix instead of nesting under it). ``""`` or None resets to
        the top level.

    Raises:
      ValueError: If ``name`` is not a string.

    >>> import torchflow as tf
    >>> with tf.name_scope("outer"):
    ...     with tf.name_scope("inner") as scope:
    ...         print(scope)
    outer/inner/
    """

    __slots__ = ("_name", "_pushed")

    def __init__(self, name):
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string. Received: {name!r}")
        self._name = name
        self._pushed = False

    @property
    def name(self):
        return self._name

    def __enter__(self) -> str:
        name = self._name
        stack = context.thread_state().name_scope
        if not name:
            full = ""
        elif name.endswith("/"):
            full = name
        else:
            full = (stack[-1] if stack else "") + name + "/"
        stack.append(full)
        self._pushed = True
        return full

    def __exit__(self, *exc) -> None:
        if self._pushed:
            context.thread_state().name_scope.pop()
            self._pushed = False


@public("torchflow")
@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Scope that makes ``tf.Variable(...)`` go through ``variable_creator``.

    ``variable_creator(next_creator, **kwargs)`` receives the creation keyword
    arguments (``initial_value``, ``trainable``, ``name``, ``dtype``, ``shape``,
    ``constraint``, ``synchronization``, ``aggregation``, ...). It may change
    them and call ``next_creator(**kwargs)``, or return a variable of its own
    (distribution strategies return mirrored/sharded variables this way).
    Scopes nest: the innermost creator runs first. The stack is per thread.

    >>> import torchflow as tf
    >>> def creator(next_creator, **kwargs):
    ...     kwargs["trainable"] = False
    ...     return next_creator(**kwargs)
    >>> with tf.variable_creator_scope(creator):
    ...     v = tf.Variable(1.0)
    >>> v.trainable
    False

    Args:
      variable_creator: A callable ``(next_creator, **kwargs)`` returning a variable.

    Yields:
      None; the scope lasts for the ``with`` block.
    """
    stack = context.thread_state().variable_creator_stack
    stack.append(variable_creator)
    try:
        yield
    finally:
        # Remove this creator even when an inner scope leaked (exception paths).
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is variable_creator:
                del stack[i]
                break
