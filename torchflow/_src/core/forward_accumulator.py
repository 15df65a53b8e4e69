"""``tf.autodiff.ForwardAccumulator``: forward-mode autodiff on torch's forward AD.

Entering the accumulator opens torch's dual level and turns each primal's
torch tensor into a dual tensor (primal + tangent), in place in the wrapper
(a variable reads as a dual for the duration). Ops propagate tangents;
``jvp(t)`` unpacks them. TF lets ``jvp`` be called after the ``with`` block,
so the dual level stays open until another accumulator starts or this one is
garbage-collected; the primals get their plain tensors back at exit.

Differences from TensorFlow 2.4: torch has one forward-AD level, so
accumulators do not nest; values computed after the ``with`` block from
values computed inside it still carry tangents.
"""

from __future__ import annotations

import torch
import torch.autograd.forward_ad as fwad

from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tape import UnconnectedGradients, _unconnected_mode
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_open: list = []  # the accumulator whose dual level is open (at most one)


def _close_open() -> None:
    while _open:
        acc = _open.pop()
        acc._close()


@public("torchflow.autodiff")
class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff.

    Args:
      primals: A Tensor/Variable or nested structure of them.
      tangents: Tangents in the same structure (and shapes/dtypes).

    Raises:
      ValueError: If the structures differ or a primal is not a Tensor/Variable.

    >>> import torchflow as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
    ...     y = x * x
    >>> acc.jvp(y).numpy()
    array([2., 0.], dtype=float32)
    """

    def __init__(self, primals, tangents):
        self._pending = []
        self._active = False
        self._level = None
        self._swapped: list = []
        self._primal_tangents: dict = {}
        self.watch(primals, tangents)

    def watch(self, primals, tangents) -> None:
        """Adds ``primals`` (with their ``tangents``) to the accumulator."""
        flat_p = nest.flatten(primals)
        flat_t = nest.flatten(tangents)
        if len(flat_p) != len(flat_t):
            raise ValueError(f"primals and tangents must have the same structure, got "
                             f"{len(flat_p)} primals and {len(flat_t)} tangents")
        for p, t in zip(flat_p, flat_t):
            if not isinstance(p, (Tensor, Variable)):
                raise ValueError(f"Passed in object {p!r} of type '{type(p).__name__}', not "
                                 f"tf.Tensor or tf.Variable.")
            tt = t if isinstance(t, Tensor) else to_tensor(t, p.dtype)
            self._pending.append((p, tt))
            self._primal_tangents[id(p)] = (p, tt)
            if self._active:
                self._make_dual(p, tt)

    def _make_dual(self, p, t) -> None:
        if isinstance(p, Variable):
            leaf = p._leaf
            p._forward_dual = fwad.make_dual(leaf, t._t.to(leaf.dtype).expand(leaf.shape))  # pyright: ignore[reportAttributeAccessIssue] - per-variable dual, set here
            self._swapped.append((p, "_forward_dual", None))
        else:
            old = p._t
            p._t = fwad.make_dual(old, t._t.to(old.dtype).expand(old.shape))
            self._swapped.append((p, "_t", old))

    def __enter__(self) -> "ForwardAccumulator":
        _close_open()
        self._level = fwad.dual_level()
        self._level.__enter__()
        _open.append(self)
        self._active = True
        for p, t in self._pending:
            self._make_dual(p, t)
        return self

    def __exit__(self, *exc) -> None:
        for obj, attr, old in reversed(self._swapped):
            setattr(obj, attr, old)
        self._swapped.clear()
        self._active = False

    def _close(self) -> None:
        if self._level is not None:
            self._level.__exit__(None, None, None)
            self._level = None

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The Jacobian-vector product of each tensor in ``primals``.

        Returns:
          Tangents in the structure of ``primals`` (None, or zeros with
          ``unconnected_gradients=ZERO``, where a value does not depend on the
          watched primals).
        """
        mode = _unconnected_mode(unconnected_gradients)

        def one(x):
            known = self._primal_tangents.get(id(x))
            if known is not None and known[0] is x:
                return known[1]
            t = x._read()._t if isinstance(x, Variable) else x._t
            tangent = None
            if self._level is not None and isinstance(t, torch.Tensor):
                tangent = fwad.unpack_dual(t).tangent
            if tangent is None:
                if mode is UnconnectedGradients.ZERO:
                    return wrap(torch.zeros_like(fwad.unpack_dual(t).primal), x.dtype)
                return None
            return wrap(tangent, x.dtype)

        return nest.map_structure(one, primals)

    def __del__(self):
        try:
            if self in _open:
                _open.remove(self)
                self._close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
