"""Segment reductions: ``tf.math.segment_*`` (sorted ids) and ``unsorted_segment_*``.

Built on torch's ``index_add`` / ``index_reduce`` so they stay differentiable.
Empty segments get TF's values: 0 for sum/mean (and for sorted max/min), 1 for
prod, the lowest/highest value for unsorted max/min. Unsorted ops drop negative
ids, as TF does.
"""

from __future__ import annotations

import warnings

import torch

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.ops import _math_common as mc
from torchflow._src.ops._dispatch import COMPOSITE, Tensor, tensor_arg, wrap
from torchflow._src.ops.math_ops import truediv
from torchflow._src.util.api import public

_IDX = mc.TypeSet("int32", "int64")
_SUM_TYPES = mc.ALL_NUM
_MAX_TYPES = mc.ALL_REAL


def _ids(op, segment_ids):
    ids = tensor_arg(segment_ids)
    if ids._dtype._name not in _IDX:
        raise mc.bad_type(op, ids._dtype, _IDX, "Tindices")
    return ids._t.to(torch.int64)


def _data(op, data, allowed):
    x = tensor_arg(data)
    if x._dtype._name not in allowed:
        raise mc.bad_type(op, x._dtype, allowed)
    return x._t, x._dtype


def _reduce(t, d, ids, num, kind, fill):
    """Reduces rows of ``t`` (first dim) into ``num`` segments given 1-D int64 ``ids``."""
    wide = d._name in mc.NARROW
    ordered = wide and kind in ("amax", "amin")
    if ordered:
        t = mc.order_key(t, d)
        fill = mc.order_key(fill, d)
    elif wide:
        t = t.to(torch.int64)
    shape = [num] + list(t.shape[1:])
    if kind == "sum":
        out = torch.zeros(shape, dtype=t.dtype, device=t.device).index_add(0, ids, t)
    elif t.is_complex():  # index_reduce has no complex kernel; only prod allows complex
        rows = [t[ids == s].prod(0) for s in range(num)]
        out = torch.stack(rows) if rows else torch.zeros(shape, dtype=t.dtype, device=t.device)
    else:
        init = torch.full(shape, fill, dtype=t.dtype, device=t.device)  # pyright: ignore[reportCallIssue, reportArgumentType] - torch.full takes a 0-d tensor fill
        with warnings.catch_warnings():  # torch flags index_reduce's API as beta; it works
            warnings.simplefilter("ignore", UserWarning)
            out = init.index_reduce(0, ids, t, kind, include_self=False)
    if ordered:
        return wrap(mc.from_order_key(out, d), d)
    return wrap(mc.narrow(out, d) if wide else out, d)


def _fill(d, kind, unsorted):
    if kind == "prod":
        return 1
    if kind == "sum" or not unsorted:
        return 0
    if d._kind == "f":
        # TF fills empty unsorted max/min segments with the dtype's lowest/highest finite value.
        return d.min if kind == "amax" else d.max
    return d.min if kind == "amax" else d.max


def _sorted_segment(op, data, segment_ids, kind, allowed):
    t, d = _data(op, data, allowed)
    ids = _ids(op, segment_ids)
    if ids.ndim != 1:
        raise InvalidArgumentError(None, None, f"segment_ids should be a vector. [Op:{op}]")
    if t.ndim == 0 or ids.shape[0] != t.shape[0]:
        raise InvalidArgumentError(
            None, None, f"segment_ids should be the same size as dimension 0 of input. [Op:{op}]"
        )
    n = ids.shape[0]
    if n and bool((ids[0] < 0).item()):
        raise InvalidArgumentError(None, None, f"segment ids must be >= 0 [Op:{op}]")
    if n > 1 and bool((ids[1:] < ids[:-1]).any()):
        raise InvalidArgumentError(None, None, f"segment ids are not increasing [Op:{op}]")
    num = int(ids[-1].item()) + 1 if n else 0
    if kind == "mean":
        s = _reduce(t, d, ids, num, "sum", 0)._t
        cnt = torch.zeros(num, dtype=torch.int64, device=t.device).index_add(
            0, ids, torch.ones_like(ids))
        cnt = torch.clamp_min(cnt, 1).reshape([num] + [1] * (t.ndim - 1))
        if d._kind in "fc":
            return wrap(s / cnt.to(s.dtype), d)
        return wrap(mc.narrow(torch.div(s.to(torch.int64), cnt, rounding_mode="trunc"), d), d)
    return _reduce(t, d, ids, num, kind, _fill(d, kind, False))


def _num_segments(op, num_segments):
    n = tensor_arg(num_segments)
    if n._dtype._name not in _IDX:
        raise mc.bad_type(op, n._dtype, _IDX, "Tnumsegments")
    if n._t.ndim != 0:
        raise InvalidArgumentError(None, None, f"num_segments should be a scalar [Op:{op}]")
    v = int(n._t.item())
    if v < 0:
        raise InvalidArgumentError(None, None, f"num_segments must be non-negative [Op:{op}]")
    return v


def _unsorted_prep(op, data, segment_ids, num_segments, allowed):
    t, d = _data(op, data, allowed)
    ids = _ids(op, segment_ids)
    num = _num_segments(op, num_segments)
    k = ids.ndim
    if tuple(t.shape[:k]) != tuple(ids.shape):
        raise InvalidArgumentError(
            None, None, f"data.shape = {list(t.shape)} does not start with segment_ids.shape = "
            f"{list(ids.shape)} [Op:{op}]"
        )
    ids = ids.reshape(-1)
    t = t.reshape([-1] + list(t.shape[k:]))
    if ids.numel():
        bad = ids >= num
        if bool(bad.any()):
            i = int(torch.nonzero(bad)[0, 0])
            raise InvalidArgumentError(
                None, None, f"segment_ids[{i}] = {int(ids[i])} is out of range [0, {num}) [Op:{op}]"
            )
        keep = ids >= 0
        if not bool(keep.all()):
            ids = ids[keep]
            t = t[keep]
    return t, d, ids, num


def _unsorted(op, data, segment_ids, num_segments, kind, allowed):
    if type(data) in COMPOSITE or type(segment_ids) in COMPOSITE:  # tf.RaggedTensor
        h = COMPOSITE.get(type(data)) or COMPOSITE[type(segment_ids)]
        return h.unsorted_segment(kind, data, segment_ids, num_segments)
    t, d, ids, num = _unsorted_prep(op, data, segment_ids, num_segments, allowed)
    return _reduce(t, d, ids, num, kind, _fill(d, kind, True))


def _counts(t, ids, num):
    cnt = torch.zeros(num, dtype=torch.int64, device=t.device).index_add(0, ids, torch.ones_like(ids))
    return cnt.reshape([num] + [1] * (t.ndim - 1))


@public("torchflow.math")
def segment_sum(data, segment_ids, name=None) -> Tensor:
    """Computes the sum along segments of a tensor (TF's ``SegmentSum``).

    Args:
      data: A tensor.
      segment_ids: A 1-D int32/int64 tensor of sorted, non-negative ids, one per
        row of ``data``.
      name: Unused (eager).

    Returns:
      A tensor of ``data``'s dtype with first dimension ``segment_ids[-1] + 1``.
      Segments with no rows hold 0.

    Raises:
      InvalidArgumentError: If the ids are not sorted, negative, or do not match
        ``data``'s first dimension.
    """
    return _sorted_segment("SegmentSum", data, segment_ids, "sum", _SUM_TYPES)


@public("torchflow.math")
def segment_prod(data, segment_ids, name=None) -> Tensor:
    """Computes the product along segments of a tensor (TF's ``SegmentProd``).

    Args:
      data: A tensor.
      segment_ids: A 1-D int32/int64 tensor of sorted, non-negative ids, one per
        row of ``data``.
      name: Unused (eager).

    Returns:
      A tensor of ``data``'s dtype with first dimension ``segment_ids[-1] + 1``.
      Segments with no rows hold 1.

    Raises:
      InvalidArgumentError: If the ids are not sorted, negative, or do not match
        ``data``'s first dimension.
    """
    return _sorted_segment("SegmentProd", data, segment_ids, "prod", _SUM_TYPES)


@public("torchflow.math")
def segment_max(data, segment_ids, name=None) -> Tensor:
    """Computes the maximum along segments of a tensor (TF's ``SegmentMax``).

    Args:
      data: A tensor.
      segment_ids: A 1-D int32/int64 tensor of sorted, non-negative ids, one per
        row of ``data``.
      name: Unused (eager).

    Returns:
      A tensor of ``data``'s dtype with first dimension ``segment_ids[-1] + 1``.
      Segments with no rows hold 0.

    Raises:
      InvalidArgumentError: If the ids are not sorted, negative, or do not match
        ``data``'s first dimension.
    """
    return _sorted_segment("SegmentMax", data, segment_ids, "amax", _MAX_TYPES)


@public("torchflow.math")
def segment_min(data, segment_ids, name=None) -> Tensor:
    """Computes the minimum along segments of a tensor (TF's ``SegmentMin``).

    Args:
      data: A tensor.
      segment_ids: A 1-D int32/int64 tensor of sorted, non-negative ids, one per
        row of ``data``.
      name: Unused (eager).

    Returns:
      A tensor of ``data``'s dtype with first dimension ``segment_ids[-1] + 1``.
      Segments with no rows hold 0.

    Raises:
      InvalidArgumentError: If the ids are not sorted, negative, or do not match
        ``data``'s first dimension.
    """
    return _sorted_segment("SegmentMin", data, segment_ids, "amin", _MAX_TYPES)


@public("torchflow.math")
def segment_mean(data, segment_ids, name=None) -> Tensor:
    """Computes the mean (integer division for integers) along segments of a tensor (TF's ``SegmentMean``).

    Args:
      data: A tensor.
      segment_ids: A 1-D int32/int64 tensor of sorted, non-negative ids, one per
        row of ``data``.
      name: Unused (eager).

    Returns:
      A tensor of ``data``'s dtype with first dimension ``segment_ids[-1] + 1``.
      Segments with no rows hold 0.

    Raises:
      InvalidArgumentError: If the ids are not sorted, negative, or do not match
        ``data``'s first dimension.
    """
    return _sorted_segment("SegmentMean", data, segment_ids, "mean", _SUM_TYPES)


@public("torchflow.math")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None) -> Tensor:
    """Computes the sum along segments of a tensor (TF's ``UnsortedSegmentSum``).

    Args:
      data: A tensor.
      segment_ids: An int32/int64 tensor whose shape is a prefix of ``data``'s;
        negative ids are dropped.
      num_segments: The number of segments (a scalar int).
      name: Unused (eager).

    Returns:
      A tensor of shape ``[num_segments] + data.shape[segment_ids.ndim:]``.
      Segments with no rows hold 0.

    Raises:
      InvalidArgumentError: If an id is ``>= num_segments`` or the shapes do not match.
    """
    return _unsorted("UnsortedSegmentSum", data, segment_ids, num_segments, "sum", _SUM_TYPES)


@public("torchflow.math")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None) -> Tensor:
    """Computes the product along segments of a tensor (TF's ``UnsortedSegmentProd``).

    Args:
      data: A tensor.
      segment_ids: An int32/int64 tensor whose shape is a prefix of ``data``'s;
        negative ids are dropped.
      num_segments: The number of segments (a scalar int).
      name: Unused (eager).

    Returns:
      A tensor of shape ``[num_segments] + data.shape[segment_ids.ndim:]``.
      Segments with no rows hold 1.

    Raises:
      InvalidArgumentError: If an id is ``>= num_segments`` or the shapes do not match.
    """
    return _unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, "prod", _SUM_TYPES)


@public("torchflow.math")
def unsorted_segment_max(data, segment_ids, num_segments, name=None) -> Tensor:
    """Computes the maximum along segments of a tensor (TF's ``UnsortedSegmentMax``).

    Args:
      data: A tensor.
      segment_ids: An int32/int64 tensor whose shape is a prefix of ``data``'s;
        negative ids are dropped.
      num_segments: The number of segments (a scalar int).
      name: Unused (eager).

    Returns:
      A tensor of shape ``[num_segments] + data.shape[segment_ids.ndim:]``.
      Segments with no rows hold the dtype's lowest value.

    Raises:
      InvalidArgumentError: If an id is ``>= num_segments`` or the shapes do not match.
    """
    return _unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, "amax", _MAX_TYPES)


@public("torchflow.math")
def unsorted_segment_min(data, segment_ids, num_segments, name=None) -> Tensor:
    """Computes the minimum along segments of a tensor (TF's ``UnsortedSegmentMin``).

    Args:
      data: A tensor.
      segment_ids: An int32/int64 tensor whose shape is a prefix of ``data``'s;
        negative ids are dropped.
      num_segments: The number of segments (a scalar int).
      name: Unused (eager).

    Returns:
      A tensor of shape ``[num_segments] + data.shape[segment_ids.ndim:]``.
      Segments with no rows hold the dtype's highest value.

    Raises:
      InvalidArgumentError: If an id is ``>= num_segments`` or the shapes do not match.
    """
    return _unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, "amin", _MAX_TYPES)


@public("torchflow.math")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None) -> Tensor:
    """Computes the mean along segments (``sum / max(count, 1)``; integers divide like truediv).

    Args:
      data: A numeric tensor.
      segment_ids: An int32/int64 tensor whose shape is a prefix of ``data``'s.
      num_segments: The number of segments (a scalar int).
      name: Unused (eager).

    Returns:
      A tensor of shape ``[num_segments] + data.shape[segment_ids.ndim:]``; empty
      segments hold 0. Integer inputs give float32/float64 as ``tf.math.truediv`` does.

    Raises:
      InvalidArgumentError: If an id is ``>= num_segments`` or the shapes do not match.
    """
    if type(data) in COMPOSITE or type(segment_ids) in COMPOSITE:  # tf.RaggedTensor
        h = COMPOSITE.get(type(data)) or COMPOSITE[type(segment_ids)]
        return h.unsorted_segment("mean", data, segment_ids, num_segments)
    op = "UnsortedSegmentSum"
    t, d, ids, num = _unsorted_prep(op, data, segment_ids, num_segments, _SUM_TYPES)
    if d._kind == "c":  # TF clamps the counts with Maximum, which has no complex kernel
        raise mc.bad_type("Maximum", d, mc.ALL_REAL)
    s = _reduce(t, d, ids, num, "sum", 0)
    cnt = torch.clamp_min(_counts(t, ids, num), 1)
    return truediv(s, wrap(mc.narrow(cnt, d) if d._kind in "iu" else cnt.to(s._t.dtype), d))


@public("torchflow.math")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None) -> Tensor:
    """Computes ``sum / sqrt(count)`` along segments (floating-point data).

    Args:
      data: A floating-point or complex tensor.
      segment_ids: An int32/int64 tensor whose shape is a prefix of ``data``'s.
      num_segments: The number of segments (a scalar int).
      name: Unused (eager).

    Returns:
      A tensor of shape ``[num_segments] + data.shape[segment_ids.ndim:]``; empty
      segments hold 0.

    Raises:
      InvalidArgumentError: If ``data`` is not floating point, an id is
        ``>= num_segments`` or the shapes do not match.
    """
    if type(data) in COMPOSITE or type(segment_ids) in COMPOSITE:  # tf.RaggedTensor
        h = COMPOSITE.get(type(data)) or COMPOSITE[type(segment_ids)]
        return h.unsorted_segment("sqrt_n", data, segment_ids, num_segments)
    op = "UnsortedSegmentSum"
    t, d, ids, num = _unsorted_prep(op, data, segment_ids, num_segments, _SUM_TYPES)
    if d._kind == "c":
        raise mc.bad_type("Maximum", d, mc.ALL_REAL)
    if d._kind not in "fc":
        raise mc.bad_type("Sqrt", d, mc.FLOATS_COMPLEX)
    s = _reduce(t, d, ids, num, "sum", 0)._t
    cnt = torch.clamp_min(_counts(t, ids, num), 1).to(s.dtype)
    return wrap(s / torch.sqrt(cnt), d)


