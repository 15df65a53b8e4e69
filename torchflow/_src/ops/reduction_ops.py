"""Reductions and scans: ``tf.reduce_sum/mean/max/...``, ``argmax``, ``cumsum``.

``axis`` is None (all axes), an int, a list/tuple or an int32/int64 tensor;
negative axes count from the end; ``axis=[]`` reduces nothing. Results keep the
input dtype (``reduce_mean`` of integers is integer division, as in TF). Empty
reductions give TF's identities: 0 for sum, 1 for prod, the lowest/highest value
for max/min, NaN for a floating mean, 0 for an integer mean.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import COMPOSITE, Tensor, dtype_error, tensor_arg, wrap
from torchflow._src.util.api import public

_BOOL = dtypes.bool
_TIDX = mc.TypeSet("int32", "int64")
_SUM_TYPES = mc.ALL_NUM
_MAX_TYPES = mc.ALL_REAL


def _axis_list(op, axis, attr="Tidx"):
    if isinstance(axis, Tensor) or hasattr(axis, "_tf_value"):
        axis = tensor_arg(axis)
        if axis._dtype._name not in _TIDX:
            raise mc.bad_type(op, axis._dtype, _TIDX, attr)
        v = axis._t.tolist()
        return v if isinstance(v, list) else [v]
    if isinstance(axis, np.ndarray):
        if axis.dtype.kind not in "iu":
            raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
        return axis.reshape(-1).tolist()
    if isinstance(axis, (list, tuple)):
        out = []
        for a in axis:
            out.extend(_axis_list(op, a, attr))
        return out
    if isinstance(axis, (bool, float, complex, str, bytes)) or not hasattr(axis, "__index__"):
        raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
    return [int(axis)]


def reduction_dims(op, axis, ndim):
    """Normalized, sorted reduction dims (an empty tuple reduces nothing)."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:
        return (axis % ndim,)
    dims = []
    for a in _axis_list(op, axis):
        if not -ndim <= a < ndim:
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid reduction dimension ({a} for input with {ndim} dimension(s) [Op:{op}]",
            )
        a = a % ndim
        if a in dims:
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid reduction arguments: Axes contains duplicate dimension: {a} [Op:{op}]",
            )
        dims.append(a)
    return tuple(sorted(dims))


def _prep(op, input_tensor, allowed, axis):
    x = tensor_arg(input_tensor)
    d = x._dtype
    if d._name not in allowed:
        raise mc.bad_type(op, d, allowed)
    return x._t, d, reduction_dims(op, axis, x._t.ndim)


def _reduced_shape(shape, dims, keepdims):
    if keepdims:
        return [1 if i in dims else s for i, s in enumerate(shape)]
    return [s for i, s in enumerate(shape) if i not in dims]


def _flatten_dims(t, dims):
    """Moves ``dims`` to the end and flattens them into one (for single-dim torch ops)."""
    keep = [i for i in range(t.ndim) if i not in dims]
    t = t.permute(keep + list(dims))
    return t.reshape([t.shape[i] for i in range(len(keep))] + [-1])


def _finish(r, shape, dims, keepdims):
    return r.reshape(_reduced_shape(shape, dims, keepdims))


_DOC = """{summary}

    Args:
      input_tensor: The tensor to reduce.
      axis: The dimensions to reduce: None (all), an int, a list or an int tensor;
        negative values count from the end.
      keepdims: If True, keeps reduced dimensions with length 1.
      name: Unused (eager).

    Returns:
      The reduced tensor, of the input's dtype{extra}.

    Raises:
      InvalidArgumentError: If an axis is out of range or repeated, or the dtype
        is not supported.
"""


def _doc(summary, extra="", example=""):
    def deco(f):
        f.__doc__ = _DOC.format(summary=summary, extra=extra) + (
            f"\n    >>> import torchflow as tf\n    {example}\n" if example else ""
        )
        return f

    return deco


@public("torchflow.math")
@_doc("Computes the sum of elements across dimensions of a tensor.",
      example=">>> tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=0).numpy()\n"
              "    array([4, 6], dtype=int32)")
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    if type(input_tensor) is Tensor and axis is None and not keepdims:
        # Hot path: torch parses fewer arguments without dims/dtype (~0.7 us); integers
        # keep their dtype (torch would sum them in int64), a 0-d one is its own sum
        # (as below); narrow unsigned ones widen (below).
        d = input_tensor._dtype
        if d._kind in "fc":
            return wrap(torch.sum(input_tensor._t), d)
        if d._kind in "iu":
            t = input_tensor._t
            if not t.ndim:
                return wrap(t, d)
            if d._name not in mc.NARROW:
                return wrap(torch.sum(t, dtype=d._torch), d)
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce("sum", input_tensor, axis, keepdims)
    t, d, dims = _prep("Sum", input_tensor, _SUM_TYPES, axis)
    if not dims:
        return wrap(t, d)
    if d._name in mc.NARROW:
        return wrap(mc.narrow(torch.sum(t.to(torch.int64), dims, bool(keepdims)), d), d)
    if d._kind in "fc":
        return wrap(torch.sum(t, dims, bool(keepdims)), d)
    return wrap(torch.sum(t, dims, bool(keepdims), dtype=t.dtype), d)


@public("torchflow.math")
@_doc("Computes the product of elements across dimensions of a tensor.")
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce("prod", input_tensor, axis, keepdims)
    t, d, dims = _prep("Prod", input_tensor, _SUM_TYPES, axis)
    if not dims:
        return wrap(t, d)
    shape = t.shape
    wide = d._name in mc.NARROW
    src = t.to(torch.int64) if wide else t
    r = torch.prod(_flatten_dims(src, dims), -1, dtype=src.dtype)
    r = _finish(r, shape, dims, keepdims)
    return wrap(mc.narrow(r, d) if wide else r, d)


def _extreme(op, input_tensor, axis, keepdims, fn, is_max):
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce("max" if is_max else "min", input_tensor,
                                                    axis, keepdims)
    t, d, dims = _prep(op, input_tensor, _MAX_TYPES, axis)
    if not dims:
        return wrap(t, d)
    if t.numel() == 0:
        fill = (d.min if is_max else d.max) if d._kind != "f" else (
            float("-inf") if is_max else float("inf"))
        shape = _reduced_shape(t.shape, dims, keepdims)
        if d._name in mc.NARROW:
            fill = fill - 2**64 if fill >= 2**63 else fill  # uint64 max, as int64 bits
            return wrap(mc.narrow(torch.full(shape, fill, dtype=torch.int64, device=t.device),
                                 d), d)
        return wrap(torch.full(shape, fill, dtype=t.dtype, device=t.device), d)
    if d._name in mc.NARROW:
        return wrap(mc.from_order_key(fn(mc.order_key(t, d), dims, bool(keepdims)), d), d)
    return wrap(fn(t, dims, bool(keepdims)), d)


@public("torchflow.math")
@_doc("Computes the maximum of elements across dimensions of a tensor.")
def reduce_max(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    return _extreme("Max", input_tensor, axis, keepdims, torch.amax, True)


@public("torchflow.math")
@_doc("Computes the minimum of elements across dimensions of a tensor.")
def reduce_min(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    return _extreme("Min", input_tensor, axis, keepdims, torch.amin, False)


@public("torchflow.math")
@_doc("Computes the mean of elements across dimensions of a tensor.",
      extra=" (integer inputs use integer division, as in TF)",
      example=">>> int(tf.reduce_mean(tf.constant([1, 2])))\n    1")
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    if type(input_tensor) is Tensor and axis is None and not keepdims and \
            input_tensor._dtype._kind in "fc":
        return wrap(torch.mean(input_tensor._t), input_tensor._dtype)
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce("mean", input_tensor, axis, keepdims)
    t, d, dims = _prep("Mean", input_tensor, _SUM_TYPES, axis)
    if not dims:
        return wrap(t, d)
    if d._kind in "fc":
        return wrap(torch.mean(t, dims, bool(keepdims)), d)
    n = 1
    for i in dims:
        n *= t.shape[i]
    s = torch.sum(t.to(torch.int64), dims, bool(keepdims))
    if n == 0:
        return wrap(mc.narrow(torch.zeros_like(s), d), d)
    return wrap(mc.narrow(torch.div(s, n, rounding_mode="trunc"), d), d)


def _logical_reduce(op, input_tensor, axis, keepdims, fn):
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce(op.lower(), input_tensor, axis, keepdims)
    x = tensor_arg(input_tensor)
    if x._dtype is not _BOOL:
        raise dtype_error(op, 0, _BOOL, x._dtype)
    t = x._t
    dims = reduction_dims(op, axis, t.ndim)
    if not dims:
        return x
    return wrap(fn(t, dim=dims, keepdim=bool(keepdims)), _BOOL)


@public("torchflow.math")
@_doc("Computes the logical AND of elements across dimensions of a bool tensor.")
def reduce_all(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    return _logical_reduce("All", input_tensor, axis, keepdims, torch.all)


@public("torchflow.math")
@_doc("Computes the logical OR of elements across dimensions of a bool tensor.")
def reduce_any(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    return _logical_reduce("Any", input_tensor, axis, keepdims, torch.any)


@public("torchflow.math")
@_doc("Computes ``log(sum(exp(x)))`` across dimensions, stably.")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    t, d, dims = _prep("IsFinite", input_tensor, mc.FLOATS, axis)
    if not dims:
        return wrap(t, d)
    return wrap(torch.logsumexp(t, dims, bool(keepdims)), d)


@public("torchflow.math")
@_doc("Computes the Euclidean norm ``sqrt(sum(|x|**2))`` across dimensions.",
      extra=" (integer results are truncated; complex inputs give a complex result)")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    t, d, dims = _prep("EuclideanNorm", input_tensor, _SUM_TYPES, axis)
    if not dims:
        return wrap(t, d)
    if d._kind == "f":
        return wrap(torch.linalg.vector_norm(t, 2, dims, bool(keepdims)), d)
    if d._kind == "c":
        r = torch.linalg.vector_norm(t, 2, dims, bool(keepdims))
        return wrap(r.to(t.dtype), d)
    r = torch.sqrt(torch.sum(torch.square(t.to(torch.float64)), dims, bool(keepdims)))
    return wrap(mc.narrow(torch.floor(r).to(torch.int64), d), d)


def _moment(op, input_tensor, axis, keepdims, std):
    x = tensor_arg(input_tensor)
    d = x._dtype
    if d._kind not in "fc":
        if d._kind in "iu":
            raise TypeError(f"Input must be either real or complex. Received integer type {d}.")
        raise mc.bad_type(op, d, _SUM_TYPES)
    t = x._t
    dims = reduction_dims(op, axis, t.ndim)
    if not dims:
        r = torch.zeros_like(t.real if t.is_complex() else t)
        return wrap(r)
    r = torch.var(t, dims, correction=0, keepdim=bool(keepdims))
    return wrap(torch.sqrt(r) if std else r)


@public("torchflow.math")
@_doc("Computes the population variance of elements across dimensions.",
      extra=" (the real dtype for complex inputs)")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce("variance", input_tensor, axis, keepdims)
    return _moment("Mean", input_tensor, axis, keepdims, False)


@public("torchflow.math")
@_doc("Computes the population standard deviation of elements across dimensions.",
      extra=" (the real dtype for complex inputs)")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    if type(input_tensor) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input_tensor)].reduce("std", input_tensor, axis, keepdims)
    return _moment("Mean", input_tensor, axis, keepdims, True)


@public("torchflow.math")
def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None) -> Tensor:
    """Counts the non-zero elements (non-empty strings) across dimensions.

    Args:
      input: A numeric, bool or string tensor.
      axis: The dimensions to reduce (None for all).
      keepdims: If True, keeps reduced dimensions with length 1.
      dtype: The output dtype (default int64).
      name: Unused (eager).

    Returns:
      A tensor of ``dtype``.

    Raises:
      InvalidArgumentError: If an axis is out of range.
    """
    x = tensor_arg(input)
    out = dtypes.as_dtype(dtype)
    if x._dtype is dtypes.string:
        nz = torch.from_numpy(np.vectorize(len, otypes=[np.int64])(x._t) > 0) if x._t.size else \
            torch.zeros(x._t.shape, dtype=torch.bool)
    else:
        nz = x._t != 0
    dims = reduction_dims("Sum", axis, nz.ndim)
    r = torch.sum(nz.to(torch.int64), dims, bool(keepdims)) if dims else nz.to(torch.int64)
    return wrap(mc.narrow(r, out) if out._kind in "iu" else r.to(out._torch), out)


_ARG_TYPES = mc.TypeSet(mc.FLOAT, mc.INT, "bool")


def _arg_extreme(op, input, axis, output_type, fn):
    x = tensor_arg(input)
    d = x._dtype
    if d._name not in _ARG_TYPES:
        raise mc.bad_type(op, d, _ARG_TYPES)
    out = dtypes.as_dtype(output_type)
    if out._name not in ("int16", "uint16", "int32", "int64"):
        raise mc.bad_type(op, out, mc.TypeSet("int16", "uint16", "int32", "int64"), "output_type")
    t = x._t
    a = 0 if axis is None else _axis_list(op, axis)
    if isinstance(a, list):
        if len(a) != 1:
            raise InvalidArgumentError(None, None, f"dimension must be a scalar [Op:{op}]")
        a = a[0]
    nd = t.ndim
    if not -nd <= a < nd:
        raise InvalidArgumentError(
            None, None, f"Expected dimension in the range [{-nd}, {nd}), but got {a} [Op:{op}]"
        )
    a %= nd
    if t.shape[a] == 0:
        raise InvalidArgumentError(
            None, None, f"Reduction axis {a} is empty in shape {list(t.shape)} [Op:{op}]"
        )
    if t.is_floating_point():
        # TF's comparisons never pick a NaN (unless nothing else is there); torch's do.
        fill = float("-inf") if fn is torch.argmax else float("inf")
        # one kernel (the infinities passed so that they stay infinite)
        t = torch.nan_to_num(t, nan=fill, posinf=float("inf"), neginf=float("-inf"))
    elif d is _BOOL:
        t = t.to(torch.uint8)
    elif d._name in mc.NARROW:
        t = mc.order_key(t, d)
    r = fn(t, a)
    return wrap(mc.narrow(r, out), out)


@public("torchflow.math")
def argmax(input, axis=None, output_type=dtypes.int64, name=None) -> Tensor:
    """Returns the index of the largest value across an axis (the first one on ties).

    Args:
      input: A real or bool tensor.
      axis: The axis to reduce (default 0); an int or scalar int tensor.
      output_type: int64 (default), int32, int16 or uint16.
      name: Unused (eager).

    Returns:
      A tensor of ``output_type`` with ``axis`` removed.

    Raises:
      InvalidArgumentError: If the axis is out of range or empty, or the dtype is
        not supported.

    >>> import torchflow as tf
    >>> int(tf.argmax(tf.constant([1., 5., 2.])))
    1
    """
    return _arg_extreme("ArgMax", input, axis, output_type, torch.argmax)


@public("torchflow.math")
def argmin(input, axis=None, output_type=dtypes.int64, name=None) -> Tensor:
    """Returns the index of the smallest value across an axis (the first one on ties).

    Args:
      input: A real or bool tensor.
      axis: The axis to reduce (default 0); an int or scalar int tensor.
      output_type: int64 (default), int32, int16 or uint16.
      name: Unused (eager).

    Returns:
      A tensor of ``output_type`` with ``axis`` removed.

    Raises:
      InvalidArgumentError: If the axis is out of range or empty, or the dtype is
        not supported.
    """
    return _arg_extreme("ArgMin", input, axis, output_type, torch.argmin)


@public("torchflow.math")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """Normalizes along ``axis`` so that the L2 norm is 1: ``x / sqrt(max(sum(|x|**2), eps))``.

    Args:
      x: A floating-point or complex tensor.
      axis: The dimensions to normalize along (None for all).
      epsilon: Lower bound of the squared norm (avoids division by zero).
      name: Unused (eager).
      dim: Deprecated alias of ``axis``.

    Returns:
      A tensor of ``x``'s dtype and shape.

    Raises:
      TypeError: If ``epsilon`` does not fit ``x``'s dtype (integer inputs).

    >>> import torchflow as tf
    >>> tf.math.l2_normalize(tf.constant([3., 4.])).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    if axis is None:
        axis = dim
    x = tensor_arg(x)
    d = x._dtype
    if d._kind not in "fc":
        if d._kind == "b":
            raise mc.bad_type("Square", d, mc.ALL_NUM)
        raise TypeError(f"Cannot convert {epsilon!r} to EagerTensor of dtype {d.name}")
    t = x._t
    dims = reduction_dims("Sum", axis, t.ndim)
    sq = t.real * t.real + t.imag * t.imag if t.is_complex() else t * t
    s = torch.sum(sq, dims, True) if dims else sq
    inv = torch.rsqrt(torch.clamp_min(s, epsilon))
    return wrap(t * inv.to(t.dtype) if t.is_complex() else t * inv, d)
