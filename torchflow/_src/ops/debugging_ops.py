"""``tf.debugging``: runtime assertions and numeric checks (eager semantics).

As in TF 2.x eager mode, a failed value check raises ``InvalidArgumentError``
at once and a passing one returns None; static checks (rank, shape, dtype)
raise ``ValueError``/``TypeError``. Messages follow TF's layout.
"""

from __future__ import annotations

import numpy as np
import torch

from torchflow._src.core import config, dtypes, graph_trace, result_hooks
from torchflow._src.core.convert import convert_to_tensor, to_tensor
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.core.tensor import Tensor, is_tensor, to_numpy, wrap
from torchflow._src.ops._dispatch import NARROW_UNSIGNED, dtype_error, translate
from torchflow._src.util.api import public


def _t(x) -> Tensor:
    return x if type(x) is Tensor else to_tensor(x)


def _np(x: Tensor) -> np.ndarray:
    return np.asarray(to_numpy(x._t, x._dtype))


def _desc(x: Tensor) -> str:
    return f"shape={x.shape} dtype={x.dtype.name}"


def _prefix(message) -> str:
    return f"{message}.  " if message else ""


def _fail(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


# --- binary comparisons -------------------------------------------------------------

_CMP = {
    "Equal": ("==", torch.eq, np.equal),
    "NotEqual": ("!=", torch.ne, np.not_equal),
    "Less": ("<", torch.lt, np.less),
    "LessEqual": ("<=", torch.le, np.less_equal),
    "Greater": (">", torch.gt, np.greater),
    "GreaterEqual": (">=", torch.ge, np.greater_equal),
}


def _condition(op: str, x: Tensor, y: Tensor):
    """The elementwise condition as a NumPy bool array (None when all hold)."""
    _, tfn, nfn = _CMP[op]
    if x._dtype is dtypes.string or x._dtype in NARROW_UNSIGNED:
        a, b = _np(x), _np(y)
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise _fail(f"Incompatible shapes: {dims(a.shape)} vs. {dims(b.shape)} [Op:{op}]") \
                from None
        cond = np.asarray(nfn(a, b), dtype=bool)
        return None if cond.all() else cond
    try:
        c = tfn(x._t, y._t)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        if "must match the size" in str(e):
            raise _fail(f"Incompatible shapes: {dims(x.shape)} vs. {dims(y.shape)} [Op:{op}]") \
                from None
        raise translate(op, e) from None
    if bool(c.all()):
        return None
    return c.cpu().numpy()


def _passes_through(x, *args, **kwargs):
    """What a check returning its input gives a trace that runs nothing: the input."""
    return to_tensor(x)


@graph_trace.host_op  # checked on every call of a traced function, as TF's Assert
def _binary_assert(op: str, x, y, message, summarize) -> None:
    x = _t(x)
    y = _t(y)
    if x._dtype is not y._dtype:
        raise dtype_error(op, 1, x._dtype, y._dtype)
    cond = _condition(op, x, y)
    if cond is None:
        return
    summarize = 3 if summarize is None else summarize
    sym = _CMP[op][0]
    xa, ya = _np(x), _np(y)
    lines = [f"{message}" if message else None, f"Condition x {sym} y did not hold."]
    if x.shape == y.shape and xa.ndim > 0:
        bad = np.argwhere(~cond)[:summarize]
        idx = tuple(bad.T)
        lines += [
            f"Indices of first {len(bad)} different values:", str(bad),
            "Corresponding x values:", str(xa[idx]),
            "Corresponding y values:", str(ya[idx]),
        ]
    fx, fy = xa.reshape(-1)[:summarize], ya.reshape(-1)[:summarize]
    lines += [f"First {fx.size} elements of x:", str(fx), f"First {fy.size} elements of y:", str(fy)]
    raise _fail("\n".join(line for line in lines if line is not None))


@public("torchflow.debugging")
def assert_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x == y`` elementwise (broadcasting), as TF's eager mode does.

    Args:
      x: A Tensor.
      y: A Tensor of the same dtype as ``x``.
      message: A string to prefix to the error message.
      summarize: How many entries of the tensors to print (default 3).
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If the condition does not hold for some element, the
        dtypes differ, or the shapes do not broadcast.
    """
    _binary_assert("Equal", x, y, message, summarize)


@public("torchflow.debugging")
def assert_none_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x != y`` elementwise (broadcasting), as TF's eager mode does.

    Args:
      x: A Tensor.
      y: A Tensor of the same dtype as ``x``.
      message: A string to prefix to the error message.
      summarize: How many entries of the tensors to print (default 3).
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If the condition does not hold for some element, the
        dtypes differ, or the shapes do not broadcast.
    """
    _binary_assert("NotEqual", x, y, message, summarize)


@public("torchflow.debugging")
def assert_less(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x < y`` elementwise (broadcasting), as TF's eager mode does.

    Args:
      x: A Tensor.
      y: A Tensor of the same dtype as ``x``.
      message: A string to prefix to the error message.
      summarize: How many entries of the tensors to print (default 3).
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If the condition does not hold for some element, the
        dtypes differ, or the shapes do not broadcast.
    """
    _binary_assert("Less", x, y, message, summarize)


@public("torchflow.debugging")
def assert_less_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x <= y`` elementwise (broadcasting), as TF's eager mode does.

    Args:
      x: A Tensor.
      y: A Tensor of the same dtype as ``x``.
      message: A string to prefix to the error message.
      summarize: How many entries of the tensors to print (default 3).
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If the condition does not hold for some element, the
        dtypes differ, or the shapes do not broadcast.
    """
    _binary_assert("LessEqual", x, y, message, summarize)


@public("torchflow.debugging")
def assert_greater(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x > y`` elementwise (broadcasting), as TF's eager mode does.

    Args:
      x: A Tensor.
      y: A Tensor of the same dtype as ``x``.
      message: A string to prefix to the error message.
      summarize: How many entries of the tensors to print (default 3).
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If the condition does not hold for some element, the
        dtypes differ, or the shapes do not broadcast.
    """
    _binary_assert("Greater", x, y, message, summarize)


@public("torchflow.debugging")
def assert_greater_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x >= y`` elementwise (broadcasting), as TF's eager mode does.

    Args:
      x: A Tensor.
      y: A Tensor of the same dtype as ``x``.
      message: A string to prefix to the error message.
      summarize: How many entries of the tensors to print (default 3).
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If the condition does not hold for some element, the
        dtypes differ, or the shapes do not broadcast.
    """
    _binary_assert("GreaterEqual", x, y, message, summarize)


# --- sign checks ----------------------------------------------------------------------


def _pretty(item, summarize) -> str:
    if isinstance(item, Tensor):
        flat = _np(item).reshape(-1)
        lst = [str(v) for v in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
        return str(lst)
    return str(item)


@graph_trace.host_op  # checked on every call of a traced function, as TF's Assert
def _sign_assert(op: str, sym: str, x, message, summarize, sep: str) -> None:
    x = _t(x)
    if x._dtype is dtypes.string:
        raise TypeError("Cannot convert 0 to EagerTensor of dtype string")
    zero = wrap(torch.zeros((), dtype=x._dtype._torch, device=x._t.device), x._dtype) \
        if x._dtype._torch is not None and x._dtype not in NARROW_UNSIGNED \
        else to_tensor(np.zeros((), x._dtype.as_numpy_dtype))
    if _condition(op, x, zero) is None:
        return
    summarize = 3 if summarize is None else summarize
    head = f"Condition x {sym} 0 did not hold element-wise:"
    label = f"x ({_desc(x)}) = "
    data = [_prefix(message)] + ([head, label] if sep else [head + label]) + [x]
    raise _fail("\n".join(_pretty(d, summarize) for d in data))


@public("torchflow.debugging")
def assert_positive(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x > 0`` elementwise.

    Args:
      x: A numeric tensor.
      message: None (default) or a str prefixed to the error message.
      summarize: None (default: 3) or an int: how many entries of ``x`` the message shows.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If some element is not positive.
    """
    _sign_assert("Greater", ">", x, message, summarize, "\n")


@public("torchflow.debugging")
def assert_negative(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x < 0`` elementwise.

    Args:
      x: A numeric tensor.
      message: None (default) or a str prefixed to the error message.
      summarize: None (default: 3) or an int: how many entries of ``x`` the message shows.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If some element is not negative.
    """
    _sign_assert("Less", "<", x, message, summarize, "\n")


@public("torchflow.debugging")
def assert_non_negative(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x >= 0`` elementwise.

    Args:
      x: A numeric tensor.
      message: None (default) or a str prefixed to the error message.
      summarize: None (default: 3) or an int: how many entries of ``x`` the message shows.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If some element is negative.
    """
    _sign_assert("GreaterEqual", ">=", x, message, summarize, "\n")


@public("torchflow.debugging")
def assert_non_positive(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x <= 0`` elementwise.

    Args:
      x: A numeric tensor.
      message: None (default) or a str prefixed to the error message.
      summarize: None (default: 3) or an int: how many entries of ``x`` the message shows.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      InvalidArgumentError: If some element is positive.
    """
    # TF's message lacks the line break here; kept so messages match.
    _sign_assert("LessEqual", "<=", x, message, summarize, "")


# --- Assert, assert_near ------------------------------------------------------------------


def _summarize_eager(x: Tensor, summarize) -> str:
    a = _np(x)
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = a.size
    if a.ndim:
        flat = a.reshape(-1)
        lst = [str(v) for v in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
    else:
        lst = [str(a.reshape(()).item() if x._dtype is dtypes.string else a)] if summarize else []
    return ", ".join(lst)


@public("torchflow.debugging")
@graph_trace.host_op
def Assert(condition, data, summarize=None, name=None) -> None:
    """Asserts that ``condition`` is true; otherwise raises with ``data`` printed.

    Args:
      condition: A Python bool or boolean Tensor (converted with ``bool()``).
      data: A list of values (Tensors, numbers, strings) to print on failure.
      summarize: How many entries of each tensor to print (default 3; < 0: all).
      name: Unused (eager).

    Raises:
      InvalidArgumentError: If ``condition`` is false.

    >>> import torchflow as tf
    >>> tf.debugging.Assert(True, [tf.constant(1)])
    """
    if not condition:
        parts = [_summarize_eager(_t(d), summarize) for d in data]
        raise _fail(f"Expected '{condition!s}' to be true. Summarized data: " + "\n".join(parts))


@public("torchflow.debugging")
@graph_trace.host_op
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None) -> None:
    """Asserts ``|x - y| <= atol + rtol * |y|`` elementwise.

    Args:
      x: A float or complex Tensor.
      y: A Tensor of the same dtype.
      rtol: Relative tolerance (default ``10 * eps`` of the dtype).
      atol: Absolute tolerance (default ``10 * eps`` of the dtype).
      message: A string to prefix to the error message.
      summarize: How many entries to print.
      name: Unused (eager).

    Raises:
      InvalidArgumentError: If the values are not close.
      ValueError: If the dtype is not floating or complex.
    """
    x = _t(x)
    y = convert_to_tensor(y, dtype=x._dtype)
    np_dtype = x._dtype.as_numpy_dtype
    if not (x._dtype.is_floating or x._dtype.is_complex):
        raise ValueError(f"data type {np_dtype} not inexact")
    real = x._dtype.real_dtype
    eps = float(np.finfo(np.float32 if real is dtypes.bfloat16 else real.as_numpy_dtype).eps)
    if real is dtypes.bfloat16:
        eps = 2.0**-7
    rtol = to_tensor(10 * eps if rtol is None else rtol, real)
    atol = to_tensor(10 * eps if atol is None else atol, real)
    try:
        diff = torch.abs(x._t - y._t)
        tol = atol._t + rtol._t * torch.abs(y._t)
        ok = bool(torch.all(diff <= tol))
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("AssertNear", e) from None
    if ok:
        return
    data = [
        _prefix(message),
        f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
        f"x ({_desc(x)}) = ", x,
        f"y ({_desc(y)}) = ", y,
    ]
    Assert(wrap(torch.tensor(False), dtypes.bool), data, summarize=summarize)


# --- static checks ----------------------------------------------------------------------------


def _static_rank(rank, what: str) -> int:
    if isinstance(rank, Tensor):
        if rank.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"tensor must be of type tf.int32; got tf.{rank.dtype.name}")
        if rank.shape.rank != 0:
            raise ValueError(f"{what} must be a scalar.")
        return int(rank)
    if isinstance(rank, str):
        raise TypeError("tensor must be of type tf.int32; got tf.string")
    return int(rank)


@public("torchflow.debugging")
def assert_rank(x, rank, message=None, name=None) -> None:
    """Asserts that ``x`` has rank ``rank``.

    Args:
      x: A tensor.
      rank: A scalar int (or int tensor): the expected rank.
      message: None (default) or a str prefixed to the error message.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      ValueError: If the rank differs (a static check in TF).
    """
    x = _t(x)
    r = _static_rank(rank, "Rank")
    if x.ndim != r:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank {r}.  Received rank "
                         f"{x.ndim}, shape {x.shape}")


@public("torchflow.debugging")
def assert_rank_at_least(x, rank, message=None, name=None) -> None:
    """Asserts that ``x`` has rank ``rank`` or higher.

    Args:
      x: A tensor.
      rank: A scalar int: the minimum rank.
      message: None (default) or a str prefixed to the error message.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      ValueError: If the rank is lower.
    """
    x = _t(x)
    r = _static_rank(rank, "Rank")
    if x.ndim < r:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank at least {r}.  Received "
                         f"rank {x.ndim}, shape {x.shape}")


@public("torchflow.debugging")
def assert_rank_in(x, ranks, message=None, name=None) -> None:
    """Asserts that the rank of ``x`` is one of ``ranks``.

    Args:
      x: A tensor.
      ranks: A list of ints: the allowed ranks.
      message: None (default) or a str prefixed to the error message.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      ValueError: If it is not.
    """
    x = _t(x)
    rs = tuple(_static_rank(r, "Rank") for r in ranks)
    if x.ndim not in rs:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank in {rs}.  Received rank "
                         f"{x.ndim}, shape {x.shape}")


@public("torchflow.debugging")
def assert_scalar(tensor, message=None, name=None) -> None:
    """Asserts that ``tensor`` is a scalar.

    Args:
      tensor: A tensor.
      message: None (default) or a str prefixed to the error message.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      ValueError: If it is not.
    """
    t = _t(tensor)
    if t.ndim != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {t.shape}.")


@public("torchflow.debugging")
def assert_type(tensor, tf_type, message=None, name=None) -> None:
    """Asserts that ``tensor`` has dtype ``tf_type``.

    Args:
      tensor: A tensor (or ``SparseTensor``).
      tf_type: The expected ``tf.DType``.
      message: None (default) or a str prefixed to the error message.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      TypeError: If the dtype differs.
    """
    want = dtypes.as_dtype(tf_type)
    got = tensor.dtype if is_tensor(tensor) else _t(tensor).dtype
    got = dtypes.as_dtype(got)
    if isinstance(tensor, (np.ndarray, np.generic, float, int, bool)) and not is_tensor(tensor):
        return
    if got is not want:
        raise TypeError(f"{_prefix(message)}tensor must be of type {want!r}; got {got!r}")


@public("torchflow.debugging")
def assert_integer(x, message=None, name=None) -> None:
    """Asserts that ``x`` has an integer dtype.

    Args:
      x: A tensor.
      message: None (default) or a str prefixed to the error message.
      name: Unused (eager).

    Returns:
      None.

    Raises:
      TypeError: If it does not.
    """
    d = x.dtype if is_tensor(x) else _t(x).dtype
    if not d.is_integer:
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of '
                        f"dtype {d}")


@public("torchflow.debugging")
def assert_proper_iterable(values) -> None:
    """Asserts that ``values`` is iterable and not a Tensor, ndarray or string.

    Args:
      values: The object to check.

    Returns:
      None.

    Raises:
      TypeError: If it is not.
    """
    unintentional = (Tensor, np.ndarray, bytes, str)
    if isinstance(values, unintentional) or is_tensor(values):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@public("torchflow.debugging")
def assert_same_float_dtype(tensors=None, dtype=None):
    """Checks that all ``tensors`` (and ``dtype``) share one float dtype; returns it.

    Args:
      tensors: None (default) or a list of tensors.
      dtype: None (default) or the expected float ``tf.DType``.

    Returns:
      The common float ``tf.DType`` (``tf.float32`` when nothing is given).

    Raises:
      ValueError: If the dtypes differ or are not floating.
    """
    if tensors:
        dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        first = None
        for t in tensors:
            if t is None:
                continue
            if dtype is None:
                dtype, first = t.dtype, t
            elif t.dtype != dtype:
                other = first if first is not None else dtype
                raise ValueError(f"{t!s}, type={t.dtype}, must be of the same type ({dtype}) as "
                                 f"{other!s}.")
    if dtype is None:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


@public("torchflow.debugging")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None) -> None:
    """Asserts the shapes of several tensors against symbolic shape specs.

    Args:
      shapes: A list of ``(tensor, spec)`` pairs or a dict ``{tensor: spec}``.
        A spec is a tuple of dims: an int (that size), a string (a symbol that
        must have one size across all tensors), None (any size); ``...`` or
        ``'*'`` as the first element allows any leading dimensions.
      data: Unused (eager).
      summarize: Unused (eager).
      message: A string to prefix to the error message.
      name: Unused (eager).

    Raises:
      ValueError: If a rank or a dimension does not match.
    """
    items = shapes.items() if isinstance(shapes, dict) else shapes
    prefix = _prefix(message)
    seen: dict = {}
    for x, spec in items:
        if hasattr(x, "deref") and not is_tensor(x):
            x = x.deref()
        x = _t(x)
        spec = list(spec) if not isinstance(spec, str) else [spec]
        shape = x.shape.as_list()
        wildcard = bool(spec) and (spec[0] is Ellipsis or spec[0] == "*")
        if wildcard:
            spec = spec[1:]
            if len(shape) < len(spec):
                raise ValueError(f"{prefix}Tensor  must have rank at least {len(spec)}.  Received "
                                 f"rank {len(shape)}, shape {x.shape}")
        elif not spec:
            spec = [1] * len(shape)
        elif len(shape) != len(spec):
            raise ValueError(f"{prefix}Tensor  must have rank {len(spec)}.  Received rank "
                             f"{len(shape)}, shape {x.shape}")
        for i, want in enumerate(spec):
            dim = i - len(spec) if wildcard else i
            size = shape[dim]
            if want is None:
                continue
            if isinstance(want, str):
                if want not in seen:
                    seen[want] = (size, f"Specified by tensor {_desc(x)} dimension {dim}")
                    continue
                expected, source = seen[want]
            else:
                expected, source = int(want), "Specified explicitly"
            if size != expected:
                raise ValueError(f"{prefix}{source}.  Tensor {_desc(x)} dimension {dim} must have "
                                 f"size {expected}.  Received size {size}, shape {x.shape}")


# --- numerics ------------------------------------------------------------------------------------

@public("torchflow.debugging")
@graph_trace.host_op(dry=_passes_through)
def check_numerics(tensor, message, name=None) -> Tensor:
    """Returns ``tensor`` unchanged if it has no NaN or Inf; raises otherwise.

    Args:
      tensor: A floating-point Tensor (bfloat16, float16, float32, float64).
      message: The prefix of the error message.
      name: Unused (eager).

    Returns:
      ``tensor``.

    Raises:
      InvalidArgumentError: If ``tensor`` has NaN or Inf values, or is not floating.

    >>> import torchflow as tf
    >>> tf.debugging.check_numerics(tf.constant([1.0]), "x").numpy()
    array([1.], dtype=float32)
    """
    t = _t(tensor)
    if not t._dtype.is_floating:
        raise _fail(
            f"Value for attr 'T' of {t._dtype.name} is not in the list of allowed values: "
            f"bfloat16, half, float, double [Op:CheckNumerics]"
        )
    x = t._t
    if bool(torch.isfinite(x).all()):
        return t
    has_inf = bool(torch.isinf(x).any())
    has_nan = bool(torch.isnan(x).any())
    what = "Inf and NaN" if has_inf and has_nan else ("Inf" if has_inf else "NaN")
    raise _fail(f"{message} : Tensor had {what} values [Op:CheckNumerics]")


@public("torchflow.debugging")
@graph_trace.host_op(dry=_passes_through)
def assert_all_finite(x, message, name=None) -> Tensor:
    """Asserts that ``x`` has no NaN or Inf values; returns ``x``.

    Args:
      x: A float tensor.
      message: str: the error message.
      name: Unused (eager).

    Returns:
      ``x`` unchanged.

    Raises:
      InvalidArgumentError: If it has, or ``x`` is not floating.
    """
    return check_numerics(x, message)


@public("torchflow.debugging")
def is_numeric_tensor(tensor) -> bool:
    """Returns True if ``tensor`` is a Tensor of a numeric (non-string) dtype.

    Args:
      tensor: Any object.

    Returns:
      A Python bool.
    """
    return isinstance(tensor, Tensor) and tensor.dtype._kind in "fiuc"


@public("torchflow.debugging")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50) -> None:
    """Makes every op check its floating-point results for Infinity and NaN.

    While enabled, the first op whose output holds an Inf or a NaN raises
    ``InvalidArgumentError`` naming the op, with TF's message (``Detected Infinity
    or NaN in output 0 of eagerly-executing op "Log" ...``). Integer results are
    not checked. Calling it again has no further effect.

    Args:
      stack_height_limit: Unused (TF's limit on the stack trace it prints).
      path_length_limit: Unused (TF's limit on the file paths it prints).

    Differences from TensorFlow 2.4: the message omits the op's inputs and the
    stack trace; gradients computed by ``GradientTape.gradient`` are not checked
    per backward op.

    >>> import torchflow as tf
    >>> tf.debugging.enable_check_numerics()
    >>> try:
    ...     _ = tf.math.log(tf.constant([0.0]))
    ... except tf.errors.InvalidArgumentError as e:
    ...     print('op "Log"' in str(e))
    True
    >>> tf.debugging.disable_check_numerics()
    """
    result_hooks.set_check_numerics(True)


@public("torchflow.debugging")
def disable_check_numerics() -> None:
    """Turns ``enable_check_numerics`` off (no effect when it is off).

    Returns:
      None.
    """
    result_hooks.set_check_numerics(False)


@public("torchflow.debugging")
def set_log_device_placement(enabled) -> None:
    """Turns logging of op placements on or off.

    While on, every op prints ``Executing op MatMul in device
    /job:localhost/replica:0/task:0/device:CPU:0`` (TF's eager format) to stderr.

    Args:
      enabled: Whether to log.
    """
    config.set_log_device_placement(enabled)
    result_hooks.refresh()


@public("torchflow.debugging.experimental")
def enable_dump_debug_info(dump_root, tensor_debug_mode="NO_TENSOR", circular_buffer_size=1000,
                           op_regex=None, tensor_dtypes=None):
    """TF's Debugger V2 dump (``tfdbg2``) for TensorBoard's Debugger plugin.

    Not supported by torchflow: its ops do not run through TF's runtime, whose
    execution and graph events the dump records.

    Args:
      dump_root: The directory TF would write to.
      tensor_debug_mode: TF's tensor summary mode.
      circular_buffer_size: TF's buffer size.
      op_regex: TF's op filter.
      tensor_dtypes: TF's dtype filter.

    Raises:
      NotImplementedError: Always. For NaN/Inf hunting use
        ``tf.debugging.enable_check_numerics()``.
    """
    raise NotImplementedError(
        "tf.debugging.experimental.enable_dump_debug_info is not supported by torchflow: "
        "it writes TF runtime (Debugger V2) events that torchflow ops do not produce. Use "
        "tf.debugging.enable_check_numerics() to find the first op that produces NaN or "
        f"Infinity. Received: dump_root={dump_root!r}")


@public("torchflow.debugging.experimental")
def disable_dump_debug_info() -> None:
    """Turns ``enable_dump_debug_info`` off.

    A no-op: ``enable_dump_debug_info`` is not supported by torchflow, so no dump
    is ever running.
    """
