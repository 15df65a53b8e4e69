"""Helpers for the public API surface."""

from __future__ import annotations

import types
from typing import Callable, TypeVar

_F = TypeVar("_F")

# Public op functions (defined in _src/ops or _src/numpy, and the tensor functions
# of tf.keras.backend, which TF 2.4 also dispatches on KerasTensors), in
# registration order, and a hook run on each function registered after dispatch is on.
_OP_FUNCTIONS: list = []
_on_register: list = []
_OP_PACKAGES = ("torchflow._src.ops", "torchflow._src.numpy",
                "torchflow._src.keras.backend_ops", "torchflow._src.keras.backend_nn")


def public(module: str) -> Callable[[_F], _F]:
    """Marks an implementation object as public under ``module``.

    Sets ``__module__`` so that ``help()``, ``repr`` and error messages show the
    public path (``torchflow.math``) rather than the private one. Op functions
    are also registered so Keras can dispatch them on symbolic inputs.
    """

    def deco(obj: _F) -> _F:
        origin = getattr(obj, "__module__", "") or ""
        try:
            obj.__module__ = module  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            pass
        if isinstance(obj, types.FunctionType) and origin.startswith(_OP_PACKAGES):
            _OP_FUNCTIONS.append(obj)
            for hook in _on_register:
                hook(obj)
        return obj

    return deco


def op_functions() -> list:
    """Every public op function registered so far."""
    return list(_OP_FUNCTIONS)


def on_op_registered(hook) -> None:
    """Calls ``hook(fn)`` for each op function registered from now on."""
    _on_register.append(hook)
