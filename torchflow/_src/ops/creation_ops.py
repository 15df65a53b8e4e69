"""Tensor creation and dtype conversion: zeros, fill, range, linspace, cast, ..."""

from __future__ import annotations

import builtins
import functools

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError, UnimplementedError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import (
    as_int,
    int_list,
    int_value,
    is_str,
    op_error,
    tensor_of,
    tfname,
)
from torchflow._src.ops._dispatch import COMPOSITE
from torchflow._src.util.api import public

_f32 = dtypes.float32


def _dims(shape, op: str) -> list:
    dims = int_list(shape, "shape")
    for d in dims:
        if d < 0:
            raise op_error(op, f"Dimension {d} must be >= 0")
    return dims


def _full(dims, value, dtype: dtypes.DType) -> Tensor:
    if dtype is dtypes.string:
        return wrap(np.full(dims, value, dtype=object), dtype)
    if dtype in _WIDE:
        t = torch.full(dims, value, dtype=torch.int64, device=context.default_device())
        return wrap(t.to(dtype._torch), dtype)
    return wrap(torch.full(dims, value, dtype=dtype._torch, device=context.default_device()),
                dtype)


_WIDE = frozenset((dtypes.uint16, dtypes.uint32, dtypes.uint64))
_WIDE_NAMES = frozenset(d.name for d in _WIDE)


@public("torchflow")
def zeros(shape, dtype=_f32, name=None) -> Tensor:
    """Creates a tensor with all elements set to zero (``b''`` for strings).

    Args:
      shape: A list of non-negative integers, a TensorShape or a 1-D int tensor.
      dtype: The element type (default float32).
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` filled with zeros.

    Raises:
      InvalidArgumentError: If a dimension is negative.

    >>> import torchflow as tf
    >>> tf.zeros([2, 3], tf.int32).numpy()
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    dtype = dtypes.as_dtype(dtype)
    dims = _dims(shape, "Fill")
    if dtype is dtypes.string:
        return _full(dims, b"", dtype)
    if dtype in _WIDE:
        return _full(dims, 0, dtype)
    return wrap(torch.zeros(dims, dtype=dtype._torch, device=context.default_device()), dtype)


@public("torchflow")
def ones(shape, dtype=_f32, name=None) -> Tensor:
    """Creates a tensor with all elements set to one.

    Args:
      shape: A list of non-negative integers, a TensorShape or a 1-D int tensor.
      dtype: The element type (default float32); not string.
      name: Unused (eager).

    Returns:
      A Tensor of ``shape`` filled with ones.

    Raises:
      TypeError: If ``dtype`` is string.
      InvalidArgumentError: If a dimension is negative.
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.string:
        raise TypeError("Cannot convert 1 to EagerTensor of dtype string")
    dims = _dims(shape, "Fill")
    if dtype in _WIDE:
        return _full(dims, 1, dtype)
    return wrap(torch.ones(dims, dtype=dtype._torch, device=context.default_device()), dtype)


@public("torchflow")
def fill(dims, value, name=None) -> Tensor:
    """Creates a tensor of shape ``dims`` filled with the scalar ``value``.

    Args:
      dims: The shape (list of ints or 1-D int tensor).
      value: A scalar; its dtype (inferred as ``tf.constant`` does) is the result's.
      name: Unused (eager).

    Returns:
      A Tensor.

    Raises:
      InvalidArgumentError: If ``value`` is not a scalar or a dimension is negative.

    >>> import torchflow as tf
    >>> tf.fill([2], 9).numpy()
    array([9, 9], dtype=int32)
    """
    v = tensor_of(value)
    if v._t.ndim != 0:
        raise op_error("Fill", f"value must be a scalar, got shape {list(v._t.shape)}")
    d = _dims(dims, "Fill")
    if is_str(v._t):
        return wrap(np.full(d, v._t.reshape(()).item(), dtype=object), dtypes.string)
    return wrap(v._t.expand(d).clone(), v._dtype)


def _like_dtype(input, dtype):
    x = tensor_of(input)
    return x, (x._dtype if dtype is None else dtypes.as_dtype(dtype))


@public("torchflow")
def zeros_like(input, dtype=None, name=None) -> Tensor:
    """A tensor of zeros with the shape of ``input`` (and its dtype unless ``dtype``).

    Args:
      input: A tensor or convertible value.
      dtype: None (default: ``input``'s dtype) or the result's ``tf.DType``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s shape filled with 0 (empty strings for string tensors).
    """
    if type(input) in COMPOSITE:  # tf.RaggedTensor: same row partitions
        return COMPOSITE[type(input)].unary(functools.partial(zeros_like, dtype=dtype), input)
    x, d = _like_dtype(input, dtype)
    if is_str(x._t) or d is dtypes.string or d in _WIDE:
        return zeros(list(x._t.shape), d)
    # zeros_like of the tensor, not zeros of its size: a traced function replays it
    # at the size of each call's input.
    return wrap(torch.zeros_like(x._t, dtype=d._torch, memory_format=torch.contiguous_format), d)


@public("torchflow")
def ones_like(input, dtype=None, name=None) -> Tensor:
    """A tensor of ones with the shape of ``input`` (and its dtype unless ``dtype``).

    Args:
      input: A tensor or convertible value.
      dtype: None (default: ``input``'s dtype) or the result's ``tf.DType``.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s shape filled with 1.

    Raises:
      InvalidArgumentError: If the dtype is string.
    """
    if type(input) in COMPOSITE:  # tf.RaggedTensor: same row partitions
        return COMPOSITE[type(input)].unary(functools.partial(ones_like, dtype=dtype), input)
    x, d = _like_dtype(input, dtype)
    if d is dtypes.string:
        raise op_error("OnesLike", "Value for attr 'T' of string is not in the list of "
                                   "allowed values")
    if is_str(x._t) or d in _WIDE:
        return ones(list(x._t.shape), d)
    return wrap(torch.ones_like(x._t, dtype=d._torch, memory_format=torch.contiguous_format), d)


@public("torchflow")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=_f32, name=None) -> Tensor:
    """Constructs an identity matrix, or a batch of them.

    Args:
      num_rows: Number of rows.
      num_columns: Number of columns (default ``num_rows``).
      batch_shape: Optional leading batch dimensions.
      dtype: The element type (default float32).
      name: Unused (eager).

    Returns:
      A Tensor of shape ``batch_shape + [num_rows, num_columns]``.
    """
    dtype = dtypes.as_dtype(dtype)
    n = int_value(num_rows, "num_rows")
    m = n if num_columns is None else int_value(num_columns, "num_columns")
    if n < 0 or m < 0:
        raise op_error("Eye", f"num_rows and num_columns must be non-negative, got {n}, {m}")
    t = torch.eye(n, m, dtype=dtype._torch if dtype not in _WIDE else torch.int64,
                  device=context.default_device())
    if batch_shape is not None:
        b = _dims(batch_shape, "Eye")
        t = t.expand(*b, n, m).clone()
    return wrap(t.to(dtype._torch) if dtype in _WIDE else t, dtype)


_RANGE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


@public("torchflow")
def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:  # noqa: A001
    """Creates a sequence of numbers from ``start`` up to (excluding) ``limit``.

    ``tf.range(n)`` is ``tf.range(0, n)``. Without ``dtype`` the result has the
    widest type of the arguments in the order int32 < int64 < float32 < float64.

    Args:
      start: First value (or the limit when ``limit`` is None).
      limit: End of the sequence, exclusive.
      delta: Increment (non-zero; default 1).
      dtype: Optional dtype of the result.
      name: Unused (eager).

    Returns:
      A 1-D Tensor.

    Raises:
      InvalidArgumentError: If ``delta`` is 0 or its sign does not lead from
        ``start`` to ``limit``.

    >>> import torchflow as tf
    >>> tf.range(3, 18, 3).numpy()
    array([ 3,  6,  9, 12, 15], dtype=int32)
    """
    if limit is None:
        start, limit = 0, start
    if dtype is None and type(start) is int and type(limit) is int and type(delta) is int \
            and delta > 0 and start <= limit and -(2**31) <= start and limit < 2**31:
        # Fast path: tf.range(n) in Python loops.
        return wrap(torch.arange(start, limit, delta, dtype=torch.int32,
                                 device=context.default_device()), dtypes.int32)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        vals = [_range_arg(v, dtype) for v in (start, limit, delta)]
    else:
        ts = [tensor_of(v) for v in (start, limit, delta)]
        ranked = [t._dtype for t in ts if t._dtype in _RANGE_ORDER]
        dtype = max(ranked, key=_RANGE_ORDER.index) if ranked else ts[0]._dtype
        vals = [_scalar(t, "range") for t in ts]
    s, lim, d = vals
    if dtype.is_integer:
        s, lim, d = as_int(s), as_int(lim), as_int(d)
    if d == 0:
        raise op_error("Range", f"Requires delta != 0: {d}")
    if d > 0 and s > lim:
        raise op_error("Range", f"Requires start <= limit when delta > 0: {s}/{lim}")
    if d < 0 and s < lim:
        raise op_error("Range", f"Requires start >= limit when delta < 0: {s}/{lim}")
    dev = context.default_device()
    if dtype.is_integer:
        t = torch.arange(s, lim, d, dtype=torch.int64, device=dev)
        return wrap(t.to(dtype._torch), dtype)
    if dtype is dtypes.float32 or dtype.is_floating:
        n = int(np.ceil(abs((lim - s) / d)))
        t = s + d * torch.arange(n, dtype=torch.float64, device=dev)
        return wrap(t.to(dtype._torch), dtype)
    raise TypeError(f"tf.range: unsupported dtype {dtype.name}")


def _scalar(t: Tensor, op):
    if t._t.ndim != 0:
        raise op_error("Range", f"start, limit and delta must be scalars, got shape "
                                f"{list(t._t.shape)}")
    return t._t.item()


def _range_arg(v, dtype):
    if isinstance(v, (Tensor,)) or hasattr(v, "_tf_value"):
        t = tensor_of(v)
        return _scalar(t if t._dtype is dtype else cast(t, dtype), "range")
    return _scalar(cast(tensor_of(v), dtype), "range")


@public("torchflow")
def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """Generates ``num`` evenly spaced values from ``start`` to ``stop`` inclusive.

    ``start`` and ``stop`` may be tensors of the same shape; the new axis of
    length ``num`` is placed at ``axis``. Integer inputs give float64.

    Args:
      start: First value(s); float or int.
      stop: Last value(s), same dtype as ``start``.
      num: Number of values (positive int).
      name: Unused (eager).
      axis: Where to insert the new axis.

    Returns:
      A Tensor of ``start``'s float dtype.
    """
    a = tensor_of(start)
    b = tensor_of(stop, a._dtype) if not isinstance(stop, Tensor) else stop
    if a._dtype.is_integer:
        a, b = cast(a, dtypes.float64), cast(b, dtypes.float64)
    if b._dtype is not a._dtype:
        raise InvalidArgumentError(None, None, f"cannot compute LinSpace as input #1(zero-based) "
                                   f"was expected to be a {a._dtype.name} tensor but is a "
                                   f"{b._dtype.name} tensor [Op:LinSpace]")
    n = int_value(num, "num")
    if n <= 0:
        raise op_error("LinSpace", f"Requires num > 0: {n}")
    ta, tb = torch.broadcast_tensors(a._t, b._t)
    if n == 1:
        steps = torch.zeros(1, dtype=ta.dtype, device=ta.device)
    else:
        steps = torch.arange(n, dtype=ta.dtype, device=ta.device) / (n - 1)
    out = ta.unsqueeze(-1) + (tb - ta).unsqueeze(-1) * steps
    if n > 1:
        out = torch.cat([out[..., :-1], tb.unsqueeze(-1)], -1)  # exact end point
    rank = out.ndim
    ax = int_value(axis, "axis")
    ax = ax + rank if ax < 0 else ax
    if not 0 <= ax < rank:
        raise op_error("LinSpace", f"axis {axis} out of range for rank {rank}")
    return wrap(out.movedim(-1, ax), a._dtype)


@public("torchflow")
def identity(input, name=None) -> Tensor:
    """Returns a new tensor with the same shape and contents as ``input``.

    The result is a distinct ``tf.Tensor`` (as in TF) sharing the immutable
    value; for a ``tf.Variable`` it is a snapshot of the current value.

    Args:
      input: A tensor, variable or convertible value.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype, shape and values.
    """
    if type(input) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(input)].unary(identity, input)
    x = tensor_of(input)
    return wrap(x._t, x._dtype) if x is input else x


@public("torchflow")
def identity_n(input, name=None):
    """Returns a list of tensors with the same values as ``input`` (a list).

    Args:
      input: A list of tensors.
      name: Unused (eager).

    Returns:
      A list of tensors, one per input, with its dtype and values.
    """
    return [tensor_of(v) for v in input]


def _cast_t(t, src: dtypes.DType, dst: dtypes.DType):
    # Kinds and names, not DType properties and DType set lookups (DType's __hash__
    # is Python code): tf.cast's hot path.
    if src._kind == "c" and dst._kind != "c":
        if dst._kind == "b":
            # TF keeps only the real part here too, so 1j casts to False.
            return t.real != 0
        t = t.real
    if src._name in _WIDE_NAMES:
        t = t.to(torch.int64) if src is not dtypes.uint64 else t.to(torch.float64) \
            if dst.is_floating else t.to(torch.int64)
    if dst._name in _WIDE_NAMES and t.dtype not in (torch.int64, torch.bool):
        t = t.to(torch.int64) if not t.is_floating_point() else t.trunc().to(torch.int64)
    return t.to(dst._torch)


@public("torchflow")
def cast(x, dtype, name=None) -> Tensor:
    """Casts a tensor to ``dtype``.

    Floats become integers by truncation toward zero; complex numbers become
    real numbers by dropping the imaginary part; booleans become 0/1, and any
    non-zero value becomes True.

    Args:
      x: A Tensor (or value convertible to one).
      dtype: The destination type.
      name: Unused (eager).

    Returns:
      A Tensor of ``dtype`` (``x`` itself if it already has it).

    Raises:
      UnimplementedError: If the cast is to or from string.

    >>> import torchflow as tf
    >>> tf.cast(tf.constant([1.8, -2.2]), tf.int32).numpy()
    array([ 1, -2], dtype=int32)
    """
    if type(dtype) is not dtypes.DType:
        dtype = dtypes.as_dtype(dtype)
    if type(x) is Tensor:
        t = x
    elif type(x) in COMPOSITE:  # tf.RaggedTensor
        return COMPOSITE[type(x)].cast(x, dtype, cast)
    elif isinstance(x, (builtins.bool, int, float)) and dtype._torch is not None \
            and dtype not in _WIDE:
        t = to_tensor(x)
    else:
        t = tensor_of(x)
    src = t._dtype
    if src is dtype:
        return t
    if src is dtypes.string or dtype is dtypes.string:
        raise UnimplementedError(None, None, f"Cast {_tfname(src)} to {_tfname(dtype)} is not "
                                             f"supported [Op:Cast]")
    return wrap(_cast_t(t._t, src, dtype), dtype)


def _tfname(d):
    return {"float32": "float", "float64": "double", "float16": "half"}.get(d.name, d.name)


@public("torchflow")
def saturate_cast(value, dtype, name=None) -> Tensor:
    """Casts ``value`` to ``dtype``, clamping to the range of ``dtype`` first.

    Args:
      value: A numeric tensor.
      dtype: The target ``tf.DType``.
      name: Unused (eager).

    Returns:
      A tensor of ``dtype`` and ``value``'s shape; out-of-range values become the nearest
        representable one.
    """
    dtype = dtypes.as_dtype(dtype)
    x = tensor_of(value)
    if x._dtype.is_complex and not dtype.is_complex:
        x = wrap(x._t.real, x._dtype.real_dtype)
    if not dtype.is_bool and not x._dtype.is_bool and dtype is not x._dtype:
        lo, hi = dtype.min, dtype.max
        t = x._t
        if x._dtype.is_complex:
            pass
        elif x._dtype.is_floating:
            # clamp in float; bounds rounded down into the source type
            hi_f = torch.tensor(hi, dtype=t.dtype)
            if hi_f.item() > hi:
                hi_f = torch.nextafter(hi_f, torch.tensor(0, dtype=t.dtype))
            lo_f = torch.tensor(lo, dtype=t.dtype)
            if lo_f.item() < lo:
                lo_f = torch.nextafter(lo_f, torch.tensor(0, dtype=t.dtype))
            t = torch.clamp(t, lo_f.to(t.device), hi_f.to(t.device))
        else:
            src_lo, src_hi = x._dtype.min, x._dtype.max
            if lo > src_lo or hi < src_hi:
                tt = t.to(torch.int64) if x._dtype in _WIDE else t
                t = torch.clamp(tt, builtins.max(lo, src_lo), builtins.min(hi, src_hi))
                if x._dtype in _WIDE:
                    return wrap(_cast_t(t, dtypes.int64, dtype), dtype)
        x = wrap(t, x._dtype)
    return cast(x, dtype)


_BITCAST_OK = frozenset(d for d in dtypes.ALL if d._kind in "fiuc")


@public("torchflow")
def bitcast(input, type, name=None) -> Tensor:  # noqa: A002 - TF's argument name
    """Reinterprets the bytes of a tensor as another dtype without copying data.

    If the new element type is smaller, a last dimension of size
    ``old_size // new_size`` is added; if larger, the last dimension must be
    ``new_size // old_size`` and is removed.

    Args:
      input: A numeric tensor (not bool or string).
      type: The numeric ``tf.DType`` to reinterpret as.
      name: Unused (eager).

    Returns:
      A tensor of dtype ``type`` with the same bytes.

    Raises:
      InvalidArgumentError: For bool/string dtypes or a last dimension that
        does not fit.
    """
    x = tensor_of(input)
    dst = dtypes.as_dtype(type)
    for d in (x._dtype, dst):
        if d not in _BITCAST_OK:
            raise op_error("Bitcast", f"Value for attr 'T' of {tfname(d)} is not in the list of "
                                      f"allowed values")
    t = x._t
    a, b = x._dtype.size, dst.size
    shape = list(t.shape)
    if a == b:
        return wrap(t.contiguous().view(dst._torch), dst)
    if a > b:
        r = t.reshape(shape + [1]).contiguous().view(dst._torch)
        return wrap(r.reshape(shape + [a // b]), dst)
    if not shape or shape[-1] != b // a:
        raise op_error("Bitcast", f"Cannot bitcast from {x._dtype._enum} to {dst._enum}")
    return wrap(t.contiguous().view(dst._torch).reshape(shape[:-1]), dst)


_ONE_HOT_TI = frozenset(("uint8", "int8", "int32", "int64"))


@public("torchflow")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name=None) -> Tensor:
    """Returns a one-hot tensor: ``on_value`` where the index matches, else ``off_value``.

    Indices outside ``[0, depth)`` (including negative ones) give a row of
    ``off_value``.

    Args:
      indices: An int tensor of indices.
      depth: The size of the one-hot dimension.
      on_value: Value for matching positions (default 1).
      off_value: Value elsewhere (default 0).
      axis: Where the new dimension goes (default -1, last).
      dtype: Output dtype (default: the dtype of on/off_value, else float32).
      name: Unused (eager).

    Returns:
      A Tensor of rank ``rank(indices) + 1``.

    Raises:
      TypeError: If on_value and off_value have different dtypes.

    >>> import torchflow as tf
    >>> tf.one_hot([0, 2], 3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if type(indices) in COMPOSITE:  # tf.RaggedTensor: one-hot of the values
        return COMPOSITE[type(indices)].one_hot(indices, one_hot, depth, on_value, off_value,
                                                axis, dtype)
    if isinstance(indices, np.ndarray) and indices.dtype.name not in _ONE_HOT_TI:
        # As TF's eager conversion does for a NumPy argument: cast to the op's
        # default index dtype, int64 (float32 labels, as the Keras guides pass).
        indices = indices.astype(np.int64)
    idx = tensor_of(indices)
    if idx._dtype.name not in _ONE_HOT_TI:
        raise op_error("OneHot", f"Value for attr 'TI' of {tfname(idx._dtype)} is not in the list "
                                 f"of allowed values: uint8, int8, int32, int64")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    on = None if on_value is None else tensor_of(on_value, dtype)
    off = None if off_value is None else tensor_of(off_value, dtype)
    if on is not None and off is not None and on._dtype is not off._dtype:
        raise TypeError(f"dtype {on._dtype} of on_value does not match dtype {off._dtype} "
                        f"of off_value")
    if dtype is None:
        dtype = on._dtype if on is not None else off._dtype if off is not None else _f32
    for v, nm in ((on, "on_value"), (off, "off_value")):
        if v is not None and v._dtype is not dtype:
            raise TypeError(f"dtype {v._dtype} of {nm} does not match dtype parameter {dtype}")
    if on is None:
        on = to_tensor(True if dtype.is_bool else 1, dtype)
    if off is None:
        off = to_tensor(False if dtype.is_bool else 0, dtype)
    n = int_value(depth, "depth")
    if n < 0:
        raise op_error("OneHot", f"depth must be non-negative, got: {n}")
    it = idx._t.to(torch.int64)
    rank = it.ndim + 1
    ax = -1 if axis is None else int_value(axis, "axis")
    if not -1 <= ax < rank:
        raise op_error("OneHot", f"Expected axis to be -1 or between [0, {rank}).  But "
                                 f"received: {ax}")
    classes = torch.arange(n, device=it.device)
    mask = it.unsqueeze(-1) == classes
    if is_str(on._t):
        res = np.where(mask.cpu().numpy(), on._t.reshape(()).item(), off._t.reshape(()).item())
        res = np.moveaxis(np.asarray(res, dtype=object), -1, ax)
        return wrap(res, dtypes.string)
    out = torch.where(mask, on._t.to(it.device), off._t.to(it.device))
    if ax != -1:
        out = out.movedim(-1, ax)
    return wrap(out, dtype)


__all__ = ["zeros", "ones", "fill", "zeros_like", "ones_like", "eye", "range", "linspace",
           "identity", "identity_n", "cast", "saturate_cast", "bitcast", "one_hot"]
