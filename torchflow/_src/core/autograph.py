"""``tf.autograph``: source conversion of Python control flow (``to_graph``,
``to_code``, ``do_not_convert``).

The conversion itself is ``core/autograph_convert.py``; its runtime (``tf.cond`` /
``tf.while_loop`` for tensor conditions) is ``ops/autograph_ops.py``.
"""

from __future__ import annotations

import enum

from torchflow._src.core import autograph_convert
from torchflow._src.util.api import public


@public("torchflow.autograph.experimental")
class Feature(enum.Enum):
    """AutoGraph conversion features: the values ``tf.function(experimental_autograph_options=)``
    and ``tf.autograph.to_graph(experimental_optional_features=)`` take.

    Accepted and ignored: torchflow's ``tf.function`` traces Python control flow by
    running it, so there is no conversion to tune.
    """

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


@public("torchflow.autograph.experimental")
def do_not_convert(func=None):
    """Marks ``func`` so that AutoGraph never converts it.

    Args:
      func: The function to mark; if None, returns a decorator.

    Returns:
      ``func`` itself, marked (its Python control flow always runs as Python, also
      inside a ``tf.function``).
    """
    if func is None:
        return do_not_convert
    try:
        setattr(func, autograph_convert.DO_NOT_CONVERT_ATTR, True)
    except (AttributeError, TypeError):  # builtins and other objects without a __dict__
        pass
    return func


@public("torchflow.autograph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """Converts a Python function's control flow to TF control flow (AutoGraph).

    ``if``/``while``/``for`` statements become calls that run ``tf.cond`` /
    ``tf.while_loop`` when their condition (or iterable) is a tensor, and stay Python
    otherwise; ``break``, ``continue`` and ``return`` inside them are supported.

    Args:
      entity: A Python function or method.
      recursive: Accepted; functions that ``entity`` calls are not converted.
      experimental_optional_features: Accepted, unused.

    Returns:
      The converted function (``entity`` itself when its source is unavailable or it
      is marked ``do_not_convert``).

    Raises:
      ValueError: If ``entity`` is not a Python function or method.

    Differences from TensorFlow 2.4: functions called by ``entity`` are not converted
    (``recursive`` is ignored); a statement the converter does not support stays
    Python instead of raising.

    >>> import torchflow as tf
    >>> def f(x):
    ...   while x > 1:
    ...     x = x / 2
    ...   return x
    >>> float(tf.autograph.to_graph(f)(tf.constant(8.0)))
    1.0
    """
    if not callable(entity):
        raise ValueError(f"Expected a Python function or method, got {entity!r}")
    return autograph_convert.convert(entity)


@public("torchflow.autograph")
def to_code(entity, recursive=True, experimental_optional_features=None) -> str:
    """The Python source of ``entity`` after AutoGraph conversion.

    Args:
      entity: A Python function or method.
      recursive: Accepted; called functions are not converted.
      experimental_optional_features: Accepted, unused.

    Returns:
      The converted source as a string (the original source when ``entity`` is not
      converted).

    Raises:
      ValueError: If ``entity`` is not a Python function or method.
      OSError: If the source of ``entity`` is unavailable.
    """
    if not callable(entity):
        raise ValueError(f"Expected a Python function or method, got {entity!r}")
    return autograph_convert.converted_source(entity)


@public("torchflow.autograph")
def set_verbosity(level, alsologtostdout=False):
    """Sets AutoGraph's log verbosity; no effect (torchflow does not convert code).

    Args:
      level: int, the verbosity level (0 is quiet, 10 most verbose in TF).
      alsologtostdout: bool, default False: in TF, also print the logs to stdout.
    """
    return None


@public("torchflow.autograph")
def trace(*args):
    """Prints ``args``, as ``tf.autograph.trace`` does when executing eagerly.

    Args:
      *args: The values to print, separated by spaces.
    """
    print(*args)
