"""``tf.register_tensor_conversion_function``: user conversions from custom Python
types to Tensors, consulted by ``tf.convert_to_tensor`` (and every op input) for
values torchflow cannot convert itself."""

from __future__ import annotations

import numbers

import numpy as np

from torchflow._src.core.tensor import Tensor
from torchflow._src.util.api import public

# [(priority, order, base_types, fn)], kept sorted: lower priority first, then first
# registered first (as TF).
_REGISTRY: list = []


@public("torchflow")
def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Registers ``conversion_func`` to turn instances of ``base_type`` into Tensors.

    ``conversion_func(value, dtype=None, name=None, as_ref=False)`` returns a
    Tensor (of ``dtype`` when one is requested) or ``NotImplemented`` to let the
    next function try. Functions with a lower ``priority`` run first.

    Args:
      base_type: A type or tuple of types (not Python numbers or NumPy types).
      conversion_func: The conversion function.
      priority: The priority (default 100).

    Raises:
      TypeError: For a bad ``base_type`` or a non-callable ``conversion_func``.
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not types or any(not isinstance(t, type) for t in types):
        raise TypeError("base_type must be a type or a tuple of types.")
    if any(issubclass(t, (numbers.Number, np.generic, np.ndarray)) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy "
                        "scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    _REGISTRY.append((priority, len(_REGISTRY), types, conversion_func))
    _REGISTRY.sort(key=lambda e: (e[0], e[1]))


def convert_registered(value, dtype, name):
    """The Tensor a registered function makes of ``value``, or None if none applies.

    Raises:
      RuntimeError: If a function returns a Tensor of another dtype than requested.
    """
    for _, _, types, fn in _REGISTRY:
        if not isinstance(value, types):
            continue
        out = fn(value, dtype=dtype, name=name, as_ref=False)
        if out is NotImplemented:
            continue
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{fn!r} returned non-Tensor: {out!r}")
        if dtype is not None and out.dtype != dtype:
            raise RuntimeError(f"{fn!r}: Conversion function {fn!r} for type {type(value)} "
                               f"returned incompatible dtype: requested = {dtype.name}, "
                               f"actual = {out.dtype.name}")
        return out
    return None
