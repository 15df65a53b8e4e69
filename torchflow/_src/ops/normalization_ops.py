"""``tf.nn`` statistics and normalization: ``moments``, ``weighted_moments``,
``batch_normalization``, ``local_response_normalization``."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public


def _axes(axes, ndim: int) -> list[int]:
    ax = nc.int_list(axes, "axes")
    for a in ax:
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                None, None, f"Invalid reduction dimension {a} for input with {ndim} "
                            f"dimensions. [Op:Mean]")
    return sorted({a % ndim for a in ax}) if ndim else []


def _mean(t: torch.Tensor, ax, keep: bool) -> torch.Tensor:
    if t.dtype.is_floating_point or t.dtype.is_complex:
        return t.mean(ax, keepdim=keep) if ax else t
    # Integer means truncate toward zero, like TF's integer Mean.
    if not ax:
        return t
    n = 1
    for a in ax:
        n *= t.shape[a]
    return torch.div(t.sum(ax, keepdim=keep), max(n, 1), rounding_mode="trunc").to(t.dtype)


@public("torchflow.nn")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """Calculates the mean and variance of ``x`` over ``axes``.

    Half-precision inputs are reduced in float32 and cast back, as in TF.

    Args:
      x: A Tensor.
      axes: Ints (or an int), the axes to reduce.
      shift: Unused (as in TF 2.x).
      keepdims: Keep the reduced axes with size 1.
      name: Unused (eager).

    Returns:
      ``(mean, variance)``, two Tensors of ``x``'s dtype.

    >>> import torchflow as tf
    >>> m, v = tf.nn.moments(tf.constant([1., 2., 3.]), [0])
    >>> float(m), round(float(v), 4)
    (2.0, 0.6667)
    """
    x = tensor_arg(x)
    t = x._t
    ax = _axes(axes, t.ndim)
    low = t.dtype in (torch.float16, torch.bfloat16)
    y = t.float() if low else t
    try:
        mean = _mean(y, ax, True)
        var = _mean((y - mean.detach()).square(), ax, True)
        if not keepdims:
            mean = mean.squeeze(ax) if ax else mean
            var = var.squeeze(ax) if ax else var
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("Mean", e) from None
    if low:
        mean, var = mean.to(t.dtype), var.to(t.dtype)
    return wrap(mean, x._dtype), wrap(var, x._dtype)


@public("torchflow.nn")
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """The frequency-weighted mean and variance of ``x`` over ``axes``.

    Args:
      x: A float Tensor.
      axes: Ints, the axes to reduce.
      frequency_weights: A Tensor of weights broadcastable to ``x``.
      keepdims: Keep the reduced axes with size 1.
      name: Unused (eager).

    Returns:
      ``(weighted_mean, weighted_variance)`` of ``x``'s dtype.
    """
    x = tensor_arg(x)
    t = x._t
    w = tensor_arg(frequency_weights, x._dtype)._t.to(t.dtype)
    ax = _axes(axes, t.ndim)
    low = t.dtype in (torch.float16, torch.bfloat16)
    y, w = (t.float(), w.float()) if low else (t, w)
    try:
        wsum = torch.broadcast_to(w, y.shape).sum(ax, keepdim=True)
        mean = (w * y).sum(ax, keepdim=True) / wsum
        var = (w * (y - mean.detach()).square()).sum(ax, keepdim=True) / wsum
        if not keepdims:
            mean, var = mean.squeeze(ax), var.squeeze(ax)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("Mean", e) from None
    return wrap(mean.to(t.dtype), x._dtype), wrap(var.to(t.dtype), x._dtype)


@public("torchflow.nn")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """Normalizes ``x`` by ``mean`` and ``variance`` and applies ``scale`` and
    ``offset``: ``(x - mean) * scale / sqrt(variance + eps) + offset``.

    Args:
      x: A float Tensor.
      mean, variance: Tensors broadcastable to ``x``, of its dtype.
      offset: Optional Tensor (``beta``) or None.
      scale: Optional Tensor (``gamma``) or None.
      variance_epsilon: A small float to avoid dividing by zero.
      name: Unused (eager).

    Returns:
      The normalized Tensor.
    """
    x = tensor_arg(x)
    m = nc.same_dtype("Mul", x, mean)._t
    v = nc.same_dtype("Mul", x, variance)._t
    try:
        inv = torch.rsqrt(v + variance_epsilon)
        if scale is not None:
            inv = inv * nc.same_dtype("Mul", x, scale)._t
        shift = -m * inv
        if offset is not None:
            shift = nc.same_dtype("Mul", x, offset)._t + shift
        return wrap(x._t * inv + shift, x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("BatchNormalization", e) from None


@public("torchflow.nn")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,
                                 name=None) -> Tensor:
    """Local response normalization across the last (channel) dimension:
    ``input / (bias + alpha * sum(input[..., d - r: d + r + 1] ** 2)) ** beta``.

    Args:
      input: A 4-D float Tensor.
      depth_radius: Half-width ``r`` of the 1-D normalization window.
      bias, alpha, beta: Floats, see the formula.
      name: Unused (eager).

    Returns:
      A Tensor of ``input``'s dtype and shape.
    """
    op = "LRN"
    x = nc.typed_arg(op, input, (nc.FLOATS[0], nc.FLOATS[1], nc.FLOATS[2]))
    t = x._t
    if t.ndim != 4:
        raise InvalidArgumentError(None, None, f"in must be 4-dimensional [Op:{op}]")
    r = int(depth_radius)
    c = t.shape[-1]
    try:
        sq = t.square().reshape(-1, 1, c)
        win = F.avg_pool1d(F.pad(sq, (r, r)), 2 * r + 1, 1) * (2 * r + 1)
        out = t / (bias + alpha * win.reshape(t.shape)) ** beta
        return wrap(out, x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None


@public("torchflow.nn")
def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """The sufficient statistics for the mean and variance of ``x`` over ``axes``.

    Args:
      x: A float tensor.
      axes: A list of ints: the dimensions to reduce.
      shift: None (default) or a tensor subtracted first for stability.
      keepdims: bool, default False: keep the reduced dimensions with size 1.
      name: Unused (eager).

    Returns:
      ``(count, mean_ss, variance_ss, shift)``: the number of reduced elements
      (of ``x``'s dtype), ``sum(x - shift)``, ``sum((x - shift) ** 2)`` and
      ``shift`` (None when not given).
    """
    x = tensor_arg(x)
    t = x._t
    ax = _axes(axes, t.ndim)
    n = 1
    for a in ax:
        n *= t.shape[a]
    count = torch.tensor(n, dtype=t.dtype, device=t.device)
    s = None
    y = t
    if shift is not None:
        s = nc.same_dtype("Sub", x, shift)
        y = t - s._t
    mean_ss = y.sum(ax, keepdim=keepdims) if ax else y
    var_ss = y.square().sum(ax, keepdim=keepdims) if ax else y.square()
    return (wrap(count, x._dtype), wrap(mean_ss, x._dtype), wrap(var_ss, x._dtype), s)


@public("torchflow.nn")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from ``sufficient_statistics``' outputs.

    Args:
      counts: A tensor: the number of reduced elements.
      mean_ss: A tensor: the (shifted) sum of the values.
      variance_ss: A tensor: the (shifted) sum of squares.
      shift: None or the tensor the sums were shifted by.
      name: Unused (eager).

    Returns:
      ``(mean, variance)``.
    """
    c = tensor_arg(counts)
    m = nc.same_dtype("Mul", c, mean_ss)._t
    v = nc.same_dtype("Mul", c, variance_ss)._t
    div = 1 / c._t
    shifted = m * div
    mean = shifted + nc.same_dtype("Add", c, shift)._t if shift is not None else shifted
    return wrap(mean, c._dtype), wrap(v * div - shifted.square(), c._dtype)


@public("torchflow.nn")
def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,
                                         scale_after_normalization, name=None):
    """``batch_normalization`` with TF 1's argument order; ``gamma`` is applied only
    if ``scale_after_normalization``.

    Args:
      input: A 4-D float tensor.
      mean: A 1-D tensor of the last dimension's size.
      variance: A 1-D tensor like ``mean``.
      beta: A 1-D offset tensor like ``mean``.
      gamma: A 1-D scale tensor like ``mean``.
      variance_epsilon: A small float added to the variance.
      scale_after_normalization: bool: whether ``gamma`` multiplies the result.
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype and shape.
    """
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """TF's fused batch normalization (``tf.compat.v1.nn.fused_batch_norm``), for
    Keras' ``BatchNormalization``; not a ``tf.nn`` name in TF 2.4.

    Args:
      x: A 4-D (or 5-D) float Tensor.
      scale, offset: 1-D float32 Tensors, one entry per channel.
      mean, variance: 1-D running statistics (required when not training; the
        old running values when ``exponential_avg_factor != 1``).
      epsilon: Added to the variance.
      data_format: ``"NHWC"``/``"NDHWC"`` or ``"NCHW"``/``"NCDHW"``.
      is_training: Normalize with the batch statistics (else with ``mean`` and
        ``variance``).
      name: Unused (eager).
      exponential_avg_factor: ``new = (1 - f) * old + f * batch`` for the
        returned running statistics.

    Returns:
      ``(y, running_mean, running_variance)``; in training the variance returned is
      the unbiased batch variance (blended as above), as in TF.
    """
    op = "FusedBatchNormV3"
    xt_ = nc.typed_arg(op, x, nc.FLOATS)
    t = xt_._t
    if t.ndim not in (4, 5):
        raise InvalidArgumentError(None, None, f"input must be 4-dimensional or "
                                               f"5-dimensional {list(t.shape)} [Op:{op}]")
    cl = not str(data_format).startswith("NC")
    c_ax = t.ndim - 1 if cl else 1
    dims = [d for d in range(t.ndim) if d != c_ax]
    shape = [1] * t.ndim
    shape[c_ax] = t.shape[c_ax]
    work = t.float() if t.dtype in (torch.float16, torch.bfloat16) else t
    s = tensor_arg(scale)._t.to(work.dtype)
    o = tensor_arg(offset)._t.to(work.dtype)
    if is_training:
        bm = work.mean(dims)
        bv = work.var(dims, unbiased=False)
        n = work.numel() // max(t.shape[c_ax], 1)
        unbiased = bv * (n / max(n - 1, 1))
        f = float(exponential_avg_factor)
        if f != 1.0:
            om = tensor_arg(mean)._t.to(work.dtype)
            ov = tensor_arg(variance)._t.to(work.dtype)
            run_m, run_v = (1 - f) * om + f * bm, (1 - f) * ov + f * unbiased
        else:
            run_m, run_v = bm, unbiased
        use_m, use_v = bm, bv
    else:
        if mean is None or variance is None:
            raise ValueError("fused_batch_norm: mean and variance are required for inference.")
        use_m = run_m = tensor_arg(mean)._t.to(work.dtype)
        use_v = run_v = tensor_arg(variance)._t.to(work.dtype)
    inv = torch.rsqrt(use_v + epsilon) * s
    y = work * inv.reshape(shape) + (o - use_m * inv).reshape(shape)
    sd = tensor_arg(scale)._dtype
    return (wrap(y.to(t.dtype), xt_._dtype), wrap(run_m.to(sd._torch), sd),
            wrap(run_v.to(sd._torch), sd))
