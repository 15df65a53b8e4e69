"""``tf.keras.backend``: global Keras settings and small helpers.

The settings live in ``core/context.py`` with the rest of torchflow's state.
"""

from __future__ import annotations

import re

from torchflow._src.core import context, dtypes
from torchflow._src.util.api import public

_G = context.GLOBAL


@public("torchflow.keras.backend")
def floatx() -> str:
    """The default float type name (``"float32"``)."""
    return _G.keras_floatx


@public("torchflow.keras.backend")
def set_floatx(value) -> None:
    """Sets the default float type (``"float16"``, ``"bfloat16"``, ``"float32"``, ``"float64"``).

    Raises:
      ValueError: For any other value.
    """
    value = str(value)
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value}")
    _G.keras_floatx = value


@public("torchflow.keras.backend")
def epsilon() -> float:
    """The fuzz factor used in numeric expressions (1e-7)."""
    return _G.keras_epsilon


@public("torchflow.keras.backend")
def set_epsilon(value) -> None:
    _G.keras_epsilon = float(value)


@public("torchflow.keras.backend")
def image_data_format() -> str:
    """``"channels_last"`` (default) or ``"channels_first"``."""
    return _G.keras_image_data_format


@public("torchflow.keras.backend")
def set_image_data_format(data_format) -> None:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _G.keras_image_data_format = data_format


@public("torchflow.keras.backend")
def learning_phase():
    """The global learning phase (0 = test, 1 = train) used when ``training`` is None."""
    return 0 if _G.keras_learning_phase is None else _G.keras_learning_phase


@public("torchflow.keras.backend")
def set_learning_phase(value) -> None:
    if value not in (0, 1, True, False):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _G.keras_learning_phase = int(value)


@public("torchflow.keras.backend")
def clear_session() -> None:
    """Resets Keras' global naming state (layer name counters) and policy."""
    _G.keras_name_uids = {}


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
