"""TF's errors for bad axes and shapes in tnp's kernels (numpy_ops), raised before torch
sees the arguments so that no torch message ("Dimension out of range") leaks."""

from __future__ import annotations

import math

import numpy as np

from torchflow._src.core.errors import InvalidArgumentError, dims


def _fail(op: str, text: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{text} [Op:{op}]")


def _axes(axis) -> tuple:
    return () if axis is None else (int(axis),) if isinstance(axis, int) else tuple(
        int(a) for a in axis)


def reduction_axes(op: str, n: int, axis) -> None:
    """A reduction's axes: each in ``[-n, n)`` and none twice (TF's Reduce kernels)."""
    seen = set()
    for a in _axes(axis):
        if not -n <= a < n:
            raise _fail(op, f"Invalid reduction dimension ({a} for input with {n} "
                            f"dimension(s)")
        if a % n in seen:
            raise _fail(op, f"Invalid reduction arguments: Axes contains duplicate "
                            f"dimension: {a % n}")
        seen.add(a % n)


def one_axis(op: str, n: int, axis, text: str) -> None:
    """``axis`` (None allowed) in ``[-n, n)``; ``text`` is TF's message prefix."""
    if axis is not None and not -n <= int(axis) < n:
        raise _fail(op, f"{text} in the range [{-n}, {n}), but got {int(axis)}")


def each_axis(op: str, n: int, axis, fmt: str) -> None:
    """Every axis in ``[-n, n)``; ``fmt`` formats TF's message with i, a, n, m = n - 1, c (a, plus n
    when negative)."""
    for i, a in enumerate(_axes(axis)):
        if not -n <= a < n:
            raise _fail(op, fmt.format(i=i, a=a, n=n, m=n - 1, c=a if a >= 0 else a + n))


def concat_shapes(shapes: list, axis: int) -> None:
    """TF's ConcatOp checks: the axis, equal ranks, equal sizes off the axis."""
    n = len(shapes[0])
    if not -n <= axis < n:
        raise _fail("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range "
                                f"[{-n}, {n}), but got {axis}")
    for j, s in enumerate(shapes[1:], 1):
        if len(s) != n:
            raise _fail("ConcatV2", f"ConcatOp : Ranks of all input tensors should match: "
                                    f"shape[0] = {dims(shapes[0])} vs. shape[{j}] = {dims(s)}")
        for d in range(n):
            if d != axis % n and s[d] != shapes[0][d]:
                raise _fail("ConcatV2", f"ConcatOp : Dimension {d} in both shapes must be "
                                        f"equal: shape[0] = {dims(shapes[0])} vs. shape[{j}] "
                                        f"= {dims(s)}")


def reshape(size: int, shape) -> None:
    """A fully known target shape holds as many values as the input (TF's Reshape)."""
    shape = [int(d) for d in ((shape,) if isinstance(shape, int) else shape)]
    if -1 not in shape and math.prod(shape) != size:
        raise _fail("Reshape", f"Input to reshape is a tensor with {size} values, but the "
                               f"requested shape has {math.prod(shape)}")


def tile(ndim: int, reps) -> None:
    """No negative multiple (TF's Tile), indexed as TF pads ``reps`` to the rank."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    for i, r in enumerate(reps):
        if r < 0:
            raise _fail("Tile", f"Expected multiples[{i + max(0, ndim - len(reps))}] >= 0, "
                                f"but got {r}")


def broadcast_to(src: tuple, shape) -> None:
    """``src`` broadcasts to ``shape`` (TF's BroadcastTo)."""
    shape = tuple(int(d) for d in ((shape,) if isinstance(shape, int) else shape))
    try:
        ok = np.broadcast_shapes(src, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise _fail("BroadcastTo", f"Incompatible shapes: {dims(src)} vs. {dims(shape)}")


def stack_axis(ndim: int, axis: int) -> None:
    """The new axis of a stack in ``[-(ndim + 1), ndim + 1)`` (TF's ValueError)."""
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-ndim - 1}, {ndim + 1})")
