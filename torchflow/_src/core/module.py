"""``tf.Module``: a named container that finds its variables and submodules.

Variables and submodules are found by walking the module's attributes (in
sorted attribute order, as TF does), descending into lists, tuples, dicts and
nested modules, each object once.
"""

from __future__ import annotations

import functools
import re

from torchflow._src.core import tracking
from torchflow._src.core.variable_scope import current_name_scope, name_scope
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\\-]*$")


def _camel_to_snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


@public("torchflow")
class Module:
    """Base class for neural network modules (``tf.Module``).

    Args:
      name: The module name (default: the class name in snake_case). Must be
        a valid Python identifier.

    Raises:
      ValueError: If ``name`` is not a valid identifier.

    >>> import torchflow as tf
    >>> class Dense(tf.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tf.Variable([[1.0]])
    >>> [v.name for v in Dense().trainable_variables]
    ['Variable:0']
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _valid_identifier(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             f"Python identifiers (e.g. a valid class name).")
        self._name = name
        with name_scope(name) as scope_name:
            self._scope_name = scope_name

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if tracking._pending:
            tracking.notify(self, name, value)

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """A ``tf.name_scope`` for this module (absolute, fixed at construction)."""
        return name_scope(self._scope_name)

    @property
    def variables(self) -> tuple:
        """All variables of this module and its submodules (deduplicated)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self) -> tuple:
        """All modules reachable from this one (not including itself)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        return list(_walk(self, predicate or (lambda _: True), recursive, with_path,
                          attribute_traversal_key, set(), ()))

    @classmethod
    def with_name_scope(cls, method):
        """Decorator that runs ``method`` inside the module's name scope."""

        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _valid_identifier(name) -> bool:
    return isinstance(name, str) and name.isidentifier()


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_trainable_variable(x) -> bool:
    return isinstance(x, Variable) and x.trainable


def _is_non_trainable_variable(x) -> bool:
    return isinstance(x, Variable) and not x.trainable


def _is_module(x) -> bool:
    return isinstance(x, Module)


def _walk(module, predicate, recursive, with_path, key_fn, seen, path):
    """TF's order: this module's attributes (sorted), each flattened as a nested
    structure, then the submodules found there, depth-first."""
    d = vars(module)
    ignored = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    submodules = []
    for key in sorted((k for k in d if k not in ignored), key=key_fn):
        value = d[key]
        if isinstance(value, (Variable, Module)):
            leaves = [((), value)]
        elif isinstance(value, (list, tuple, dict)):
            try:
                leaves = nest.flatten_with_tuple_paths(value)
            except (TypeError, ValueError):
                continue
        else:
            continue
        for leaf_path, leaf in leaves:
            if not isinstance(leaf, (Variable, Module)) or id(leaf) in seen:
                continue
            seen.add(id(leaf))
            sub = path + (key,) + tuple(leaf_path)
            if predicate(leaf):
                yield (sub, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((sub, leaf))
    for sub, m in submodules:
        yield from _walk(m, predicate, recursive, with_path, key_fn, seen, sub)


__all__ = ["Module", "current_name_scope"]
