"""``tf.keras.backend``: global Keras settings and small helpers.

The settings live in ``core/context.py`` with the rest of torchflow's state.
"""

from __future__ import annotations

import contextlib
import logging
import re

import numpy as np

from torchflow._src.core import context, dtypes
from torchflow._src.core.tensor import Tensor, is_tensor
from torchflow._src.core.variable_scope import name_scope as _tf_name_scope
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.ops.creation_ops import cast
from torchflow._src.util.api import public

_G = context.GLOBAL
_log = logging.getLogger("tensorflow")


@public("torchflow.keras.backend")
def floatx() -> str:
    """The default float type name (``"float32"``).

    Returns:
      A str.
    """
    return _G.keras_floatx


@public("torchflow.keras.backend")
def set_floatx(value) -> None:
    """Sets the default float type (``"float16"``, ``"bfloat16"``, ``"float32"``, ``"float64"``).

    Args:
      value: ``'float16'``, ``'bfloat16'``, ``'float32'`` or ``'float64'``.

    Raises:
      ValueError: For any other value.
    """
    value = str(value)
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value}")
    _G.keras_floatx = value


@public("torchflow.keras.backend")
def epsilon() -> float:
    """The fuzz factor used in numeric expressions (1e-7).

    Returns:
      A float.
    """
    return _G.keras_epsilon


@public("torchflow.keras.backend")
def set_epsilon(value) -> None:
    """Sets the fuzz factor returned by ``epsilon()``.

    Args:
      value: float: the new fuzz factor.
    """
    _G.keras_epsilon = float(value)


@public("torchflow.keras.backend")
def image_data_format() -> str:
    """``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
      A str.
    """
    return _G.keras_image_data_format


@public("torchflow.keras.backend")
def set_image_data_format(data_format) -> None:
    """Sets the value of ``image_data_format()``.

    Args:
      data_format: ``'channels_last'`` or ``'channels_first'``.

    Raises:
      ValueError: Unless ``data_format`` is ``"channels_last"`` or ``"channels_first"``.
    """
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _G.keras_image_data_format = data_format


@public("torchflow.keras.backend")
def learning_phase():
    """The global learning phase (0 = test, 1 = train) used when ``training`` is None.

    Returns:
      0 or 1 (or a bool tensor).
    """
    return 0 if _G.keras_learning_phase is None else _G.keras_learning_phase


@public("torchflow.keras.backend")
def set_learning_phase(value) -> None:
    """Sets the global learning phase (deprecated in TF 2.4).

    Logs TF 2.4's deprecation warning; pass ``training=`` to the layer or model
    call instead.

    Args:
      value: 0 (test) or 1 (train).

    Raises:
      ValueError: Unless ``value`` is 0 or 1.
    """
    _log.warning("set_learning_phase (from tensorflow.python.keras.backend) is deprecated "
                 "and will be removed after 2020-10-11.\nInstructions for updating:\n"
                 "Simply pass a True/False value to the `training` argument of the "
                 "`__call__` method of your layer or model.")
    if value not in (0, 1, True, False):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _G.keras_learning_phase = int(value)


@public("torchflow.keras.backend")
@contextlib.contextmanager
def learning_phase_scope(value):
    """A context in which ``learning_phase()`` is ``value`` (0 or 1).

    Args:
      value: 0 (test) or 1 (train).

    Raises:
      ValueError: Unless ``value`` is 0 or 1.
    """
    if value not in (0, 1, True, False):
        raise ValueError("Expected learning phase to be 0 or 1.")
    previous = _G.keras_learning_phase
    _G.keras_learning_phase = int(value)
    try:
        yield
    finally:
        _G.keras_learning_phase = previous


@public("torchflow.keras.backend")
def clear_session() -> None:
    """Resets all state Keras generated: layer name counters and the learning phase.

    Call it between models built in a loop so that layer names start again from
    ``dense``, ``dense_1``, ... and memory held by old models' names is released.
    """
    _G.keras_name_uids = {}
    _G.keras_learning_phase = None


@public("torchflow.keras.backend")
def get_uid(prefix="") -> int:
    """A unique integer per ``prefix``, counting from 1 (``get_uid("dense")`` -> 1, 2...).

    Args:
      prefix: str, default ``''``: the counter's key.

    Returns:
      An int.
    """
    uids = _G.keras_name_uids
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


@public("torchflow.keras.backend")
def reset_uids() -> None:
    """Resets the counters ``get_uid`` and layer naming use.

    After it, ``get_uid("dense")`` counts from 1 again.
    """
    _G.keras_name_uids = {}


@public("torchflow.keras.backend")
def manual_variable_initialization(value) -> None:
    """Accepted for TF 1 compatibility; variables are always initialised eagerly.

    Args:
      value: bool; ignored.
    """
    _G.keras_manual_var_init = bool(value)


@public("torchflow.keras.backend")
def name_scope(name):
    """``tf.name_scope(name)``: a context manager that prefixes op and variable names.

    Args:
      name: str: the scope's name.
    """
    return _tf_name_scope(name)


@public("torchflow.keras.backend")
def get_value(x):
    """The value of a variable or tensor as a NumPy array (other values pass through).

    Args:
      x: A variable, tensor or other value.

    Returns:
      A NumPy array (other values pass through).
    """
    if not is_tensor(x) and not hasattr(x, "numpy"):
        return x
    if isinstance(x, KerasTensor):
        raise ValueError(f"Cannot get the value of a symbolic Keras tensor: {x}")
    return x.numpy()


@public("torchflow.keras.backend")
def batch_get_value(tensors) -> list:
    """``[get_value(x) for x in tensors]``.

    Args:
      tensors: A list of variables or tensors.

    Returns:
      A list of NumPy arrays.
    """
    return [get_value(x) for x in tensors]


@public("torchflow.keras.backend")
def set_value(x, value) -> None:
    """Assigns the NumPy-compatible ``value`` to the variable ``x``.

    Args:
      x: A variable.
      value: A NumPy-compatible value of ``x``'s shape.

    Raises:
      ValueError: If the shapes are incompatible.
    """
    value = np.asarray(value, dtype=dtypes.as_dtype(x.dtype).as_numpy_dtype)
    x.assign(value)


@public("torchflow.keras.backend")
def batch_set_value(tuples) -> None:
    """Sets many variables at once: ``tuples`` is a list of ``(variable, value)``.

    Args:
      tuples: A list of ``(variable, value)`` pairs.
    """
    for x, value in tuples:
        set_value(x, value)


@public("torchflow.keras.backend")
def int_shape(x):
    """The shape of a tensor, variable or array as a tuple of ints or None.

    Args:
      x: A tensor, variable or array.

    Returns:
      A tuple of ints or None, or None for an unknown rank.

    >>> import torchflow as tf
    >>> tf.keras.backend.int_shape(tf.zeros([2, 3]))
    (2, 3)
    """
    try:
        shape = x.shape
        if not isinstance(shape, tuple):
            shape = tuple(shape.as_list())
        return shape
    except ValueError:
        return None


@public("torchflow.keras.backend")
def ndim(x) -> int:
    """The rank of ``x`` as a Python int (None if unknown).

    Args:
      x: A tensor, variable or array.

    Returns:
      A Python int.
    """
    shape = int_shape(x)
    return None if shape is None else len(shape)


@public("torchflow.keras.backend")
def dtype(x) -> str:
    """The dtype name of a tensor or variable (``"float32"``).

    Args:
      x: A tensor or variable.

    Returns:
      A str.
    """
    return dtypes.as_dtype(x.dtype).base_dtype.name


@public("torchflow.keras.backend")
def count_params(x) -> int:
    """The number of scalars in the tensor or variable ``x``.

    Args:
      x: A tensor or variable.

    Returns:
      A Python int.
    """
    return int(np.prod(x.shape.as_list()))


@public("torchflow.keras.backend")
def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic Keras tensor (a ``keras.Input`` or a layer's output).

    Args:
      x: Any object.

    Returns:
      A Python bool.

    Raises:
      ValueError: If ``x`` is not a tensor at all.
    """
    if isinstance(x, KerasTensor):
        return True
    if not (isinstance(x, Tensor) or is_tensor(x)):
        raise ValueError(f"Unexpectedly found an instance of type `{type(x)}`. "
                         "Expected a symbolic tensor instance.")
    return False


@public("torchflow.keras.backend")
def is_sparse(tensor) -> bool:
    """Whether ``tensor`` is a ``tf.SparseTensor``.

    Args:
      tensor: A tensor (possibly sparse).

    Returns:
      A Python bool.
    """
    return type(tensor).__name__ == "SparseTensor"


@public("torchflow.keras.backend")
def cast_to_floatx(x):
    """Casts ``x`` to ``floatx()``: a NumPy array for array-likes, a tensor for tensors.

    Args:
      x: A tensor or variable.
    """
    if is_tensor(x):
        return cast(x, floatx())
    return np.asarray(x, dtype=floatx())


def standardize_dtype(dtype):
    if dtype is None:
        return None
    return dtypes.as_dtype(dtype).name


def to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    if insecure[0] != "_":
        return insecure
    return "private" + insecure


def unique_object_name(base: str, zero_based: bool = False) -> str:
    """``dense``, ``dense_1``, ``dense_2``... per base name (TF's layer naming)."""
    uids = _G.keras_name_uids
    n = uids.get(base, 0)
    uids[base] = n + 1
    if zero_based:
        return base if n == 0 else f"{base}_{n}"
    return f"{base}_{n + 1}"
