"""Helpers for the public API surface."""

from __future__ import annotations

from typing import Callable, TypeVar

_F = TypeVar("_F")


def public(module: str) -> Callable[[_F], _F]:
    """Marks an implementation object as public under ``module``.

    Sets ``__module__`` so that ``help()``, ``repr`` and error messages show the
    public path (``torchflow.math``) rather than the private one.
    """

    def deco(obj: _F) -> _F:
        try:
            obj.__module__ = module  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            pass
        return obj

    return deco
