"""``tf.nn`` losses: cross entropies, ``l2_loss``, ``log_poisson_loss`` and the
per-replica averaging helpers ``compute_average_loss`` / ``scale_regularization_loss``.
"""

from __future__ import annotations

import math

import torch

from torchflow._src.core import context, dtypes, graph_trace
from torchflow._src.core.errors import InvalidArgumentError, dims
from torchflow._src.ops import _nn_common as nc
from torchflow._src.ops._dispatch import Tensor, tensor_arg, translate, wrap
from torchflow._src.util.api import public


def _same_shape(op_labels: str, a: Tensor, b: Tensor, a_name: str, b_name: str):
    if tuple(a._t.shape) != tuple(b._t.shape):
        raise ValueError(f"`{a_name}` and `{b_name}` must have the same shape, received "
                         f"({tuple(a._t.shape)} vs {tuple(b._t.shape)}).")


def _float_pair(op: str, labels, logits, allowed=nc.FLOATS_COMPLEX):
    x = nc.typed_arg(op, logits, allowed)
    z = nc.same_dtype("Mul", x, labels)
    return z, x


@public("torchflow.nn")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """Computes sigmoid cross entropy given ``logits``, stably:
    ``max(x, 0) - x * z + log(1 + exp(-abs(x)))``.

    Args:
      labels: A Tensor of ``logits``' dtype and shape, values in [0, 1].
      logits: A float Tensor.
      name: Unused (eager).

    Returns:
      A Tensor of elementwise logistic losses.

    Raises:
      ValueError: if the shapes differ.
    """
    z, x = _float_pair("Exp", labels, logits)
    _same_shape("", x, z, "logits", "labels")
    xt, zt = x._t, z._t
    try:
        return wrap(torch.relu(xt) - xt * zt + torch.log1p(torch.exp(-xt.abs())), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("SigmoidCrossEntropy", e) from None


@public("torchflow.nn")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None) -> Tensor:
    """Like ``sigmoid_cross_entropy_with_logits`` with positive examples weighted by
    ``pos_weight``:  ``labels * -log(sigmoid(logits)) * pos_weight +
    (1 - labels) * -log(1 - sigmoid(logits))``.

    Args:
      labels: A Tensor of ``logits``' dtype and shape.
      logits: A float Tensor.
      pos_weight: A coefficient (scalar or broadcastable Tensor) for positive examples.
      name: Unused (eager).

    Returns:
      A Tensor of elementwise weighted logistic losses.
    """
    z, x = _float_pair("Exp", labels, logits)
    _same_shape("", x, z, "logits", "labels")
    w = nc.same_dtype("Mul", x, pos_weight)._t
    xt, zt = x._t, z._t
    try:
        log_weight = 1 + (w - 1) * zt
        out = (1 - zt) * xt + log_weight * (torch.log1p(torch.exp(-xt.abs())) + torch.relu(-xt))
        return wrap(out, x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate("WeightedCrossEntropy", e) from None


def _precise(t: torch.Tensor) -> torch.Tensor:
    # TF computes the half-precision cross entropies in float32.
    return t.float() if t.dtype in (torch.float16, torch.bfloat16) else t


def _softmax_xent(z: torch.Tensor, x: torch.Tensor, axis: int) -> torch.Tensor:
    """``-sum(z * log_softmax(x))`` with TF's gradients.

    TF's kernel backpropagates ``softmax(x) - z`` to the logits, which is the true
    gradient only when each row of labels sums to 1; the labels get
    ``-log_softmax(x)``. The detached terms below give exactly those gradients
    without changing the value ``s * lse(x) - sum(z * x)`` (``s = sum(z)``).
    """
    lse = torch.logsumexp(x, axis)
    s = z.sum(axis)
    excess = s.detach() - 1
    return s * lse - (z * x).sum(axis) - excess * lse + excess * lse.detach()


@public("torchflow.nn")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None) -> Tensor:
    """Computes softmax cross entropy between ``logits`` and ``labels`` (each row of
    ``labels`` a probability distribution): ``-sum(labels * log_softmax(logits), axis)``.

    Args:
      labels: A Tensor broadcastable to ``logits``' shape; cast to its dtype.
      logits: A float Tensor of rank >= 1.
      axis: The class dimension (default -1).
      name: Unused (eager).

    Returns:
      A Tensor of ``logits``' dtype with ``axis`` removed.

    Raises:
      InvalidArgumentError: non-float logits, or shapes that do not broadcast.

    >>> import torchflow as tf
    >>> float(tf.nn.softmax_cross_entropy_with_logits([0., 1.], [0., 0.]))
    0.6931471824645996
    """
    op = "SoftmaxCrossEntropyWithLogits"
    x = nc.typed_arg(op, logits, nc.FLOATS)
    z = tensor_arg(labels, x._dtype)
    xt = x._t
    zt = z._t if z._dtype is x._dtype else z._t.to(xt.dtype)
    if xt.ndim == 0:
        raise InvalidArgumentError(None, None, f"logits must have >= 1 dimension, got [] "
                                               f"[Op:{op}]")
    try:
        xb, zb = torch.broadcast_tensors(xt, zt)
    except RuntimeError:
        raise InvalidArgumentError(
            None, None, f"logits and labels must be broadcastable: logits_size="
                        f"{dims(xt.shape)} labels_size={dims(zt.shape)} [Op:{op}]") from None
    try:
        out = _softmax_xent(_precise(zb), _precise(xb), int(axis))
        return wrap(out.to(xt.dtype), x._dtype)
    except Exception as e:  # noqa: BLE001 - translated to a TF error
        raise translate(op, e) from None


@public("torchflow.nn")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None) -> Tensor:
    """Softmax cross entropy with integer class ``labels`` (one class per example).

    Args:
      labels: An int32/int64 Tensor of shape ``logits.shape[:-1]``, values in
        ``[0, num_classes)``.
      logits: A float Tensor ``[..., num_classes]``.
      name: Unused (eager).

    Returns:
      A Tensor of ``labels``' shape and ``logits``' dtype.

    Raises:
      ValueError: on a scalar ``logits`` or mismatched shapes.
      InvalidArgumentError: on a label outside ``[0, num_classes)`` (on the CPU; on
        a GPU that example's loss is NaN, as in TF).
    """
    op = "SparseSoftmaxCrossEntropyWithLogits"
    x = nc.typed_arg(op, logits, nc.FLOATS)
    y = nc.typed_arg(op, labels, (dtypes.int32, dtypes.int64), attr="Tlabels")
    xt, yt = x._t, y._t
    if xt.ndim == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={x.numpy()!r}`")
    if yt.shape != xt.shape[:-1]:
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                         f"dimension. Received: labels.shape={tuple(yt.shape)} and "
                         f"logits.shape={tuple(xt.shape)}")
    n = xt.shape[-1]
    if not xt.is_cpu:
        # As TF's GPU kernel: NaN losses for out-of-range labels, no host sync.
        ok = (yt >= 0) & (yt < n)
        lp = torch.log_softmax(_precise(xt), -1)
        out = -lp.gather(-1, yt.long().clamp(0, max(n - 1, 0)).unsqueeze(-1)).squeeze(-1)
        out = torch.where(ok, out, torch.full_like(out, float("nan")))
        return wrap(out.to(xt.dtype), x._dtype)
    # torch's fused kernel checks the label range itself (no extra pass over the
    # labels); only int64's smallest value could pass as its ignore_index (not
    # checked while a tf.function traces: that read would keep it from replaying).
    if yt.numel() and n and (yt.dtype is not torch.int64 or graph_trace.active() is not None
                             or int(yt.min()) != _I64_MIN):
        flat = xt.ndim == 2
        try:
            out = torch.nn.functional.cross_entropy(
                _precise(xt) if flat else _precise(xt).reshape(-1, n),
                yt.long() if flat else yt.reshape(-1).long(), reduction="none",
                ignore_index=_I64_MIN)
        except IndexError:
            raise _label_range_error(op, yt, n) from None
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            raise translate(op, e) from None
        if not flat:
            out = out.reshape(yt.shape)
        return wrap(out if out.dtype is xt.dtype else out.to(xt.dtype), x._dtype)
    if yt.numel():
        raise _label_range_error(op, yt, n)
    return wrap(torch.zeros(yt.shape, dtype=xt.dtype, device=xt.device)
                + 0.0 * xt.sum(-1), x._dtype)


_I64_MIN = -(2 ** 63)


def _label_range_error(op: str, yt: torch.Tensor, n: int) -> InvalidArgumentError:
    bad = (yt < 0) | (yt >= n)
    v = int(yt[bad].reshape(-1)[0])
    vals = " ".join(str(int(a)) for a in yt.reshape(-1)[:10].tolist())
    return InvalidArgumentError(
        None, None,
        f"Received a label value of {v} which is outside the valid range of "
        f"[0, {n}).  Label values: {vals} [Op:{op}]")


@public("torchflow.nn")
def l2_loss(t, name=None) -> Tensor:
    """Computes half the squared L2 norm of ``t``: ``sum(t ** 2) / 2``.

    Args:
      t: A float Tensor.
      name: Unused (eager).

    Returns:
      A scalar of ``t``'s dtype.
    """
    x = nc.typed_arg("L2Loss", t, nc.FLOATS)
    return wrap(x._t.square().sum() / 2, x._dtype)


@public("torchflow.nn")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None) -> Tensor:
    """Computes the log-Poisson loss ``exp(log_input) - log_input * targets``.

    With ``compute_full_loss`` the Stirling term ``targets * log(targets) - targets
    + 0.5 * log(2 * pi * targets)`` is added where ``targets > 1``.

    Args:
      targets: A Tensor of ``log_input``'s dtype and shape.
      log_input: A float Tensor.
      compute_full_loss: Whether to add the Stirling approximation term.
      name: Unused (eager).

    Returns:
      A Tensor of elementwise losses.
    """
    x = nc.typed_arg("Exp", log_input, nc.FLOATS_COMPLEX)
    z = nc.same_dtype("Mul", x, targets)
    _same_shape("", x, z, "log_input", "targets")
    xt, zt = x._t, z._t
    out = torch.exp(xt) - xt * zt
    if compute_full_loss:
        stirling = zt * torch.log(zt) - zt + 0.5 * torch.log(2 * math.pi * zt)
        out = out + torch.where(zt > 1, stirling, torch.zeros_like(stirling))
    return wrap(out, x._dtype)


def _num_replicas() -> int:
    # The strategy stack is filled by the distribute layer (duck-typed here).
    stack = context.thread_state().strategy_stack
    if stack:
        return int(getattr(stack[-1], "num_replicas_in_sync", 1))
    return 1


@public("torchflow.nn")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """Scales per-example losses with ``sample_weight`` and averages them over the
    global batch: ``sum(per_example_loss * sample_weight) / global_batch_size``.

    Args:
      per_example_loss: A Tensor of rank >= 1, one loss per example.
      sample_weight: Optional weights broadcastable to ``per_example_loss``.
      global_batch_size: Optional; defaults to the leading dimension times the
        number of replicas in sync.

    Returns:
      A scalar loss of ``per_example_loss``' dtype.

    Raises:
      ValueError: if ``per_example_loss`` is a scalar.
    """
    loss = tensor_arg(per_example_loss)
    lt = loss._t
    if lt.ndim == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor "
                         f"with at least rank 1. Received per_example_loss={loss.numpy()!r} "
                         f"with rank 0")
    if sample_weight is not None:
        w = tensor_arg(sample_weight)._t.to(lt.dtype)
        # Per-example weights line up with the leading dims, as in Keras losses.
        if w.ndim == lt.ndim + 1 and w.shape[-1] == 1:
            w = w.squeeze(-1)
        elif w.ndim == lt.ndim - 1 and w.ndim > 0:
            w = w.unsqueeze(-1)
        lt = lt * w
    if global_batch_size is None:
        global_batch_size = lt.shape[0] * _num_replicas()
    elif isinstance(global_batch_size, Tensor):
        global_batch_size = global_batch_size.numpy().item()
    total = lt.sum()
    if lt.dtype.is_floating_point or lt.dtype.is_complex:
        return wrap(total / global_batch_size, loss._dtype)
    # Integer losses divide like TF's truediv (int32 -> float64).
    return wrap(total.double() / global_batch_size, dtypes.float64)


@public("torchflow.nn")
def scale_regularization_loss(regularization_loss):
    """Sums ``regularization_loss`` and divides it by the number of replicas in sync.

    Args:
      regularization_loss: A Tensor (or list of scalars) of regularization losses.

    Returns:
      A scalar Tensor.
    """
    if isinstance(regularization_loss, (list, tuple)):
        regularization_loss = [tensor_arg(v) for v in regularization_loss]
    x = tensor_arg(regularization_loss)
    return wrap(x._t.sum() / _num_replicas(), x._dtype)

