"""``tf.autograph``: accepted for compatibility.

torchflow runs ``tf.function`` bodies as Python (DESIGN.md), so there is no
source conversion: Python ``if``/``for``/``while`` on tensor values simply run.
These functions keep programs that call the AutoGraph API working.
"""

from __future__ import annotations

import enum
import inspect

from torchflow._src.util.api import public


@public("torchflow.autograph.experimental")
class Feature(enum.Enum):
    """AutoGraph conversion features (accepted, no effect)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


@public("torchflow.autograph.experimental")
def do_not_convert(func=None):
    """Marks ``func`` as not to be converted; returns it unchanged."""
    if func is None:
        return do_not_convert
    return func


@public("torchflow.autograph.experimental")
def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None):
    """Loop hints for AutoGraph (no effect: loops run as Python)."""
    return None


@public("torchflow.autograph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """Returns ``entity`` itself (its Python code is what runs)."""
    return entity


@public("torchflow.autograph")
def to_code(entity, recursive=True, experimental_optional_features=None) -> str:
    """The Python source of ``entity`` (there is no converted form)."""
    return inspect.getsource(entity)


@public("torchflow.autograph")
def set_verbosity(level, alsologtostdout=False):
    """AutoGraph log verbosity (no effect)."""
    return None


@public("torchflow.autograph")
def trace(*args):
    """Prints ``args`` (as ``tf.autograph.trace`` does when executing eagerly)."""
    print(*args)
