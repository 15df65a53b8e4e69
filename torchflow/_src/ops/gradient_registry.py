"""``tf.RegisterGradient`` and ``tf.no_gradient``: the registry of gradient functions
by op type.

As in TF 2.4, a registered function is the gradient of an op type in graphs
(``gradient_override_map`` and ops loaded as libraries); eager code and
``tf.function`` differentiate through the engine's autograd and do not consult it.
The registry starts with every op type torchflow implements (``tf.raw_ops``), so
registering one of them again raises TF's ``KeyError``, as TF's built-in
registrations do.
"""

from __future__ import annotations

import sys
import threading

from torchflow._src.ops import raw_ops
from torchflow._src.util.api import public

_BUILT_IN = "torchflow's built-in gradients"
_lock = threading.Lock()
_registry: dict[str, tuple[object, str]] = {}
_filled = False


def _fill() -> None:
    global _filled
    if not _filled:
        for name in dir(raw_ops):
            if name[:1].isupper() and callable(getattr(raw_ops, name)):
                _registry.setdefault(name, (None, _BUILT_IN))
        _filled = True


def _caller() -> str:
    frame = sys._getframe(3)
    return f"{frame.f_code.co_name} {frame.f_code.co_filename}:{frame.f_lineno}"


def _register(op_type, fn) -> None:
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    where = _caller()
    with _lock:
        _fill()
        if op_type in _registry:
            raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous "
                           f"registration was in {_registry[op_type][1]})")
        _registry[op_type] = (fn, where)


def get_gradient_function(op_type: str):
    """The function registered for ``op_type`` (None for ``no_gradient``).

    Raises:
      LookupError: If nothing is registered for ``op_type``, as TF's registry.
    """
    with _lock:
        _fill()
        if op_type not in _registry:
            raise LookupError(f"gradient registry has no entry for: {op_type}")
        return _registry[op_type][0]


@public("torchflow")
class RegisterGradient:
    """A decorator that registers a function as the gradient of an op type.

    The function takes ``(op, *output_grads)`` and returns the gradients of the
    op's inputs.

    Args:
      op_type: The op type's name (a string).

    Raises:
      TypeError: If ``op_type`` is not a string.
      KeyError: When decorating, if ``op_type`` already has a registration.

    >>> import torchflow as tf
    >>> @tf.RegisterGradient("MyDoublingGrad")
    ... def _double_grad(op, grad):
    ...     return 2.0 * grad
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        """Registers ``f`` as the gradient of ``op_type`` and returns ``f``."""
        _register(self._op_type, f)
        return f


@public("torchflow")
def no_gradient(op_type) -> None:
    """Declares that ops of type ``op_type`` have no gradient (it is None).

    Args:
      op_type: The op type's name (a string).

    Raises:
      TypeError: If ``op_type`` is not a string.
      KeyError: If ``op_type`` already has a registration (every op torchflow
        implements has one).

    Differences from TensorFlow 2.4: TF's registry also holds op types torchflow
    does not implement (``StopGradient``, ...); registering those succeeds here.

    >>> import torchflow as tf
    >>> tf.no_gradient("MyLookupOp")
    """
    _register(op_type, None)
