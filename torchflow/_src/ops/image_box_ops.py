"""``tf.image`` bounding-box ops (TF 2.4 semantics): the non-max suppression
variants (plain, with scores, combined, overlaps, padded), ``draw_bounding_boxes``,
``extract_glimpse`` and ``sample_distorted_bounding_box`` (stateful and
stateless).

Box suppression is data-dependent control flow over few boxes, so it runs on the
host in NumPy (as TF's CPU kernels do); the outputs are tensors on the default
device.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.convert import constant
from torchflow._src.core.errors import InvalidArgumentError, dims, invalid_argument
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.ops.random_ops import uniform
from torchflow._src.ops.stateless_random_ops import seed_pair
from torchflow._src.util.api import public


# --- non-max suppression -----------------------------------------------------------
def _iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    def norm(b):
        return (np.minimum(b[..., 0], b[..., 2]), np.minimum(b[..., 1], b[..., 3]),
                np.maximum(b[..., 0], b[..., 2]), np.maximum(b[..., 1], b[..., 3]))
    y1, x1, y2, x2 = norm(box)
    ys1, xs1, ys2, xs2 = norm(boxes)
    inter = (np.clip(np.minimum(y2, ys2) - np.maximum(y1, ys1), 0, None)
             * np.clip(np.minimum(x2, xs2) - np.maximum(x1, xs1), 0, None))
    union = (y2 - y1) * (x2 - x1) + (ys2 - ys1) * (xs2 - xs1) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def check_nms_args(op: str, b: np.ndarray, s: np.ndarray, max_output_size,
                   iou_threshold) -> int:
    """The NonMaxSuppressionV3/V5 kernels' checks; returns ``max_output_size``."""
    if b.ndim != 2:
        raise invalid_argument(op, f"boxes must be 2-D{dims(b.shape)} (Shape must be rank 2 "
                                   f"but is rank {b.ndim})")
    if b.shape[1] != 4:
        raise invalid_argument(op, f"boxes must have 4 columns (Dimension must be 4 but is "
                                   f"{b.shape[1]})")
    if s.ndim != 1:
        raise invalid_argument(op, f"scores must be 1-D{dims(s.shape)} (Shape must be rank 1 "
                                   f"but is rank {s.ndim})")
    if s.shape[0] != b.shape[0]:
        raise invalid_argument(op, f"scores has incompatible shape (Dimensions must be equal, "
                                   f"but are {b.shape[0]} and {s.shape[0]})")
    m = np.asarray(max_output_size.numpy() if isinstance(max_output_size, Tensor)
                   else max_output_size)
    if m.ndim != 0:
        raise invalid_argument(op, f"max_output_size must be 0-D, got shape {dims(m.shape)} "
                                   f"(Shape must be rank 0 but is rank {m.ndim})")
    if int(m) < 0:
        raise invalid_argument(op, "output size must be non-negative")
    iou = float(iou_threshold)
    if not 0.0 <= iou <= 1.0:
        raise invalid_argument(op, "iou_threshold must be in [0, 1]")
    return int(m)


_NMS_TYPES = (dtypes.float16, dtypes.float32)


def _nms_arg(op: str, x, index: int) -> np.ndarray:
    t = tensor_arg(x, dtypes.float32)
    if t.dtype not in _NMS_TYPES:
        if t.dtype == dtypes.string or index:
            raise InvalidArgumentError(None, None, f"cannot compute {op} as input #{index}"
                                                   f"(zero-based) was expected to be a float "
                                                   f"tensor but is a {t.dtype.name} tensor "
                                                   f"[Op:{op}]")
        names = ", ".join(d.name.replace("float16", "half").replace("float32", "float")
                          for d in _NMS_TYPES)
        raise InvalidArgumentError(None, None, f"Value for attr 'T' of {t.dtype.name} is "
                                               f"not in the list of allowed values: {names} "
                                               f"[Op:{op}]")
    return np.asarray(t.numpy(), np.float64)


def _nms(op, boxes, scores, max_output_size, iou_threshold, score_threshold):
    b = _nms_arg(op, boxes, 0)
    s = _nms_arg(op, scores, 1)
    max_output_size = check_nms_args(op, b, s, max_output_size, iou_threshold)
    order = np.argsort(-s, kind="stable")
    order = order[s[order] > score_threshold]
    keep = []
    for i in order:
        if len(keep) >= int(max_output_size):
            break
        if not keep or (_iou(b[i], b[keep]) <= iou_threshold).all():
            keep.append(int(i))
    return np.asarray(keep, np.int32), s


@public("torchflow.image")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None) -> Tensor:
    """Greedy non-max suppression: indices of kept ``[y1, x1, y2, x2]`` boxes by
    decreasing score (int32).

    Args:
      boxes: A float ``[num_boxes, 4]`` tensor.
      scores: A float ``[num_boxes]`` tensor.
      max_output_size: A scalar int: the most boxes to keep.
      iou_threshold: float, default 0.5: overlap above which a box is dropped.
      score_threshold: float, default ``-inf``: boxes scoring lower are dropped.
      name: Unused (eager).

    Returns:
      An int32 ``[M]`` tensor of indices into ``boxes``, ``M <= max_output_size``.

    Raises:
      InvalidArgumentError: For boxes not ``[n, 4]``, scores not ``[n]``, a negative
        or non-scalar ``max_output_size`` or an ``iou_threshold`` outside [0, 1].
    """
    keep, _ = _nms("NonMaxSuppressionV3", boxes, scores, max_output_size, iou_threshold, score_threshold)
    return constant(keep, dtype=dtypes.int32)


@public("torchflow.image")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None) -> tuple:
    """Like ``non_max_suppression`` and also returns the kept scores (hard NMS only).

    Args:
      boxes: A float ``[num_boxes, 4]`` tensor.
      scores: A float ``[num_boxes]`` tensor.
      max_output_size: A scalar int: the most boxes to keep.
      iou_threshold: float, default 0.5.
      score_threshold: float, default ``-inf``.
      soft_nms_sigma: float, default 0.0 (only 0 is supported).
      name: Unused (eager).

    Returns:
      ``(selected_indices, selected_scores)``: int32 ``[M]`` and float ``[M]``.

    Raises:
      InvalidArgumentError: For boxes not ``[n, 4]``, scores not ``[n]``, a negative
        or non-scalar ``max_output_size`` or an ``iou_threshold`` outside [0, 1].
      NotImplementedError: For ``soft_nms_sigma > 0``.
    """
    if soft_nms_sigma:
        raise NotImplementedError("non_max_suppression_with_scores: soft-NMS is not "
                                  "supported.")
    keep, s = _nms("NonMaxSuppressionV5", boxes, scores, max_output_size, iou_threshold, score_threshold)
    return (constant(keep, dtype=dtypes.int32),
            constant(s[keep].astype(np.float32), dtype=dtypes.float32))


def _np(x, d: dtypes.DType | None = dtypes.float32) -> np.ndarray:
    return np.asarray(tensor_arg(x, d).numpy())


def _greedy(order, max_out, suppressed) -> list:
    """Greedy selection over ``order``; ``suppressed(i, keep)`` is True to drop ``i``."""
    keep: list = []
    for i in order:
        if len(keep) >= max_out:
            break
        if not keep or not suppressed(int(i), keep):
            keep.append(int(i))
    return keep


def _sorted_candidates(s: np.ndarray, score_threshold) -> np.ndarray:
    order = np.argsort(-s, kind="stable")
    return order[s[order] > score_threshold]


@public("torchflow.image")
def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None) -> Tensor:
    """Greedy non-max suppression driven by a precomputed ``[n, n]`` overlap matrix.

    A box is dropped when its overlap with an already kept box exceeds
    ``overlap_threshold``.

    Args:
      overlaps: A ``[num_boxes, num_boxes]`` float tensor of pairwise overlaps.
      scores: A ``[num_boxes]`` float tensor.
      max_output_size: The most boxes to keep.
      overlap_threshold: Overlap above which a box is suppressed.
      score_threshold: Boxes scoring at or below this are never kept.
      name: Unused (eager).

    Returns:
      A 1-D int32 tensor of kept indices, by decreasing score.

    Raises:
      InvalidArgumentError: If the shapes do not match.
    """
    op = "NonMaxSuppressionWithOverlaps"
    o = _np(overlaps).astype(np.float64)
    s = _np(scores).astype(np.float64)
    if o.ndim != 2:
        raise invalid_argument(op, f"overlaps must be 2-D{dims(o.shape)}")
    if o.shape[0] != o.shape[1]:
        raise invalid_argument(op, f"overlaps must be square{dims(o.shape)}")
    if s.ndim != 1:
        raise invalid_argument(op, f"scores must be 1-D{dims(s.shape)}")
    if s.shape[0] != o.shape[0]:
        raise invalid_argument(op, f"scores has incompatible shape (Dimensions must be equal, "
                                   f"but are {o.shape[0]} and {s.shape[0]})")
    if int(max_output_size) < 0:
        raise invalid_argument(op, "output size must be non-negative")
    thr = float(overlap_threshold)
    keep = _greedy(_sorted_candidates(s, float(score_threshold)), int(max_output_size),
                   lambda i, k: bool((o[i, k] > thr).any()))
    return constant(np.asarray(keep, np.int32), dtype=dtypes.int32)


def _nms_one(b: np.ndarray, s: np.ndarray, max_out, iou_threshold, score_threshold) -> list:
    return _greedy(_sorted_candidates(s, score_threshold), max_out,
                   lambda i, k: bool((_iou(b[i], b[k]) > iou_threshold).any()))


def _check_padded_args(b: np.ndarray, s: np.ndarray, max_output_size) -> int:
    """The shape errors TF's traced ``non_max_suppression_padded`` raises: its
    reshapes to ``[batch, num_boxes, 4]`` / ``[batch, num_boxes]`` fail as
    ``ValueError``s while tracing, a batch mismatch or negative size at run time."""
    if b.ndim < 2:
        raise ValueError(f"slice index -1 of dimension 0 out of bounds. for 'strided_slice' "
                         f"with input shapes: [{b.ndim}]")
    n = b.shape[-2]
    for arr, per in ((b, n * 4), (s, n)):
        if per and arr.size % per or not per and arr.size:
            raise ValueError(f"Dimension size must be evenly divisible by {per} but is "
                             f"{arr.size} for 'Reshape' with input shapes: {dims(arr.shape)}")
    if n and b.size // (n * 4) != s.size // n:
        raise invalid_argument("GatherV2", f"params.shape[0]: {b.size // (n * 4)} should be "
                                           f"equal to indices.shape[0]: {s.size // n}")
    m = int(max_output_size)
    if m < 0:
        raise invalid_argument("Range", f"Requires start <= limit when delta > 0: 0/{m}")
    return m


@public("torchflow.image")
def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512) -> tuple:
    """Greedy non-max suppression whose output can be padded to ``max_output_size``.

    Args:
      boxes: ``[..., num_boxes, 4]`` float boxes ``[y1, x1, y2, x2]``.
      scores: ``[..., num_boxes]`` float scores.
      max_output_size: The most boxes to keep per batch entry.
      iou_threshold: IoU above which a box is suppressed.
      score_threshold: Boxes scoring at or below this are never kept.
      pad_to_max_output_size: Pad the indices with zeros to ``max_output_size``
        (required for batched input).
      name: Unused (eager).
      sorted_input: Whether the boxes are already sorted by score (the result is
        the same either way).
      canonicalized_coordinates: Whether ``y1 <= y2`` and ``x1 <= x2`` already hold.
      tile_size: TF's tiling parameter; does not change the result.

    Returns:
      ``(selected_indices, valid_outputs)``: int32 indices ``[..., max_output_size]``
      (or ``[valid]`` unpadded) and the int32 count(s) of valid indices.

    Raises:
      ValueError: If batched input is given without ``pad_to_max_output_size``, or
        boxes and scores whose shapes are not ``[..., n, 4]`` and ``[..., n]``.
      InvalidArgumentError: For a batch mismatch or a negative ``max_output_size``.
    """
    b = _np(boxes).astype(np.float64)
    s = _np(scores).astype(np.float64)
    if b.ndim > 2 and not pad_to_max_output_size:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be "
                         f"True for batched input")
    m = _check_padded_args(b, s, max_output_size)
    batch = b.shape[:-2]
    bf = b.reshape(-1, b.shape[-2], 4)
    sf = s.reshape(-1, s.shape[-1])
    idx = np.zeros((bf.shape[0], m), np.int32)
    valid = np.zeros((bf.shape[0],), np.int32)
    for j in range(bf.shape[0]):
        keep = _nms_one(bf[j], sf[j], m, float(iou_threshold), float(score_threshold))
        idx[j, :len(keep)] = keep
        valid[j] = len(keep)
    if b.ndim == 2:
        sel = idx[0] if pad_to_max_output_size else idx[0, :valid[0]]
        return constant(sel, dtype=dtypes.int32), constant(valid[0], dtype=dtypes.int32)
    return (constant(idx.reshape(*batch, m), dtype=dtypes.int32),
            constant(valid.reshape(batch), dtype=dtypes.int32))


def _check_combined_args(b, s, max_output_size_per_class, max_total_size, iou_threshold):
    """The CombinedNonMaxSuppression kernel's checks, in its order."""
    op = "CombinedNonMaxSuppression"
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    if per_class <= 0:
        raise invalid_argument(op, "max_size_per_class must be positive")
    if total <= 0:
        raise invalid_argument(op, "max_total_size must be > 0")
    if not 0.0 <= float(iou_threshold) <= 1.0:
        raise invalid_argument(op, "iou_threshold must be in [0, 1]")
    if b.ndim != 4:
        raise invalid_argument(op, f"boxes must be 4-D{dims(b.shape)}")
    if s.ndim != 3:
        raise invalid_argument(op, f"scores must be 3-D{dims(s.shape)}")
    if b.shape[0] != s.shape[0]:
        raise invalid_argument(op, "boxes and scores must have same batch size")
    if b.shape[1] != s.shape[1]:
        raise invalid_argument(op, "scores has incompatible shape")
    if b.shape[2] not in (1, s.shape[2]):
        raise invalid_argument(op, "third dimension of boxes must be either 1 or num classes")
    if b.shape[3] != 4:
        raise invalid_argument(op, "boxes must have 4 columns")
    return per_class, total


@public("torchflow.image")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None) -> tuple:
    """Per-class greedy non-max suppression over a batch, merged by score.

    Args:
      boxes: ``[batch, num_boxes, q, 4]`` floats; ``q`` is 1 (boxes shared by all
        classes) or ``num_classes``.
      scores: ``[batch, num_boxes, num_classes]`` floats.
      max_output_size_per_class: The most boxes kept per class.
      max_total_size: The most boxes kept per batch entry over all classes.
      iou_threshold: IoU above which a box is suppressed within its class.
      score_threshold: Boxes scoring at or below this are dropped.
      pad_per_class: Pad to ``min(max_output_size_per_class * num_classes,
        max_total_size)`` instead of ``max_total_size``.
      clip_boxes: Clip the output coordinates to ``[0, 1]``.
      name: Unused (eager).

    Returns:
      ``(nmsed_boxes [batch, d, 4], nmsed_scores [batch, d], nmsed_classes
      [batch, d], valid_detections [batch])``; scores/boxes/classes are float32
      zero-padded, ``valid_detections`` int32.

    Raises:
      InvalidArgumentError: If the shapes are inconsistent.
    """
    b = _np(boxes)
    s = _np(scores)
    per_class, total = _check_combined_args(b, s, max_output_size_per_class, max_total_size,
                                            iou_threshold)
    n_cls = s.shape[2]
    d = min(per_class * n_cls, total) if pad_per_class else total
    out_b = np.zeros((b.shape[0], d, 4), np.float32)
    out_s = np.zeros((b.shape[0], d), np.float32)
    out_c = np.zeros((b.shape[0], d), np.float32)
    valid = np.zeros((b.shape[0],), np.int32)
    for j in range(b.shape[0]):
        cand = []  # (score, class, box)
        for c in range(n_cls):
            bc = b[j, :, 0 if b.shape[2] == 1 else c].astype(np.float64)
            sc = s[j, :, c].astype(np.float64)
            for i in _nms_one(bc, sc, per_class, float(iou_threshold), float(score_threshold)):
                cand.append((s[j, i, c], c, b[j, i, 0 if b.shape[2] == 1 else c]))
        cand.sort(key=lambda e: -e[0])  # stable: ties keep class order
        cand = cand[:d]
        valid[j] = len(cand)
        for k, (sc, c, bx) in enumerate(cand):
            out_s[j, k], out_c[j, k] = sc, c
            out_b[j, k] = np.clip(bx, 0.0, 1.0) if clip_boxes else bx
    return (constant(out_b, dtype=dtypes.float32), constant(out_s, dtype=dtypes.float32),
            constant(out_c, dtype=dtypes.float32), constant(valid, dtype=dtypes.int32))


@public("torchflow.image")
def draw_bounding_boxes(images, boxes, colors, name=None) -> Tensor:
    """Draws one-pixel box outlines onto a batch of images.

    Box ``[y_min, x_min, y_max, x_max]`` in [0, 1] maps to rows
    ``int(y * (height - 1))`` and columns ``int(x * (width - 1))``; box ``k``
    uses ``colors[k % len(colors)]`` (its first ``depth`` channels).

    Args:
      images: ``[batch, height, width, depth]`` float32 or float16 images.
      boxes: ``[batch, num_boxes, 4]`` float boxes.
      colors: ``[num_colors, >= depth]`` float colours.
      name: Unused (eager).

    Returns:
      The images with the outlines drawn, same shape and dtype.

    Raises:
      InvalidArgumentError: For a non-float dtype or inconsistent shapes.
    """
    t = tensor_arg(images)
    if t._dtype not in (dtypes.float32, dtypes.float16):
        raise invalid_argument("DrawBoundingBoxesV2",
                               f"Value for attr 'T' of {t._dtype.name} is not in the list of "
                               f"allowed values: float, half")
    if t._t.dim() != 4:
        raise invalid_argument("DrawBoundingBoxesV2",
                               f"The rank of the images should be 4, got {t._t.dim()}")
    op = "DrawBoundingBoxesV2"
    bx = _np(boxes)
    col = _np(colors)
    n, h, w, depth = t._t.shape
    if depth not in (1, 3, 4):
        raise invalid_argument("DrawBoundingBoxesV2", "Channel depth should be either 1 (GRY), "
                                                      "3 (RGB), or 4 (RGBA)")
    if bx.ndim != 3:
        raise invalid_argument(op, f"boxes must be 3-D [batch, num_boxes, 4], got "
                                   f"{dims(bx.shape)}")
    if bx.shape[0] != n:
        raise invalid_argument(op, "The batch sizes should be the same")
    if bx.shape[2] != 4:
        raise invalid_argument(op, f"The size of the third dimension of the box must be 4. "
                                   f"Received: {bx.shape[2]}")
    if col.ndim != 2:
        raise invalid_argument(op, f"colors must be a 2-D matrix{dims(col.shape)}")
    if col.shape[0] == 0 or col.shape[1] < depth:
        raise invalid_argument("DrawBoundingBoxesV2",
                               f"Channel depth should be less than or equal to (4 or the "
                               f"number of colors), got colors of shape {list(col.shape)}")
    canvas = t._t.detach().cpu().clone()
    for i in range(n):
        for k in range(bx.shape[1]):
            color = torch.tensor(col[k % col.shape[0], :depth], dtype=canvas.dtype)
            y0, x0 = int(bx[i, k, 0] * (h - 1)), int(bx[i, k, 1] * (w - 1))
            y1, x1 = int(bx[i, k, 2] * (h - 1)), int(bx[i, k, 3] * (w - 1))
            if y0 > y1 or x0 > x1 or y0 >= h or y1 < 0 or x0 >= w or x1 < 0:
                continue
            cy0, cy1, cx0, cx1 = max(y0, 0), min(y1, h - 1), max(x0, 0), min(x1, w - 1)
            if y0 >= 0:
                canvas[i, y0, cx0:cx1 + 1] = color
            if y1 < h:
                canvas[i, y1, cx0:cx1 + 1] = color
            if x0 >= 0:
                canvas[i, cy0:cy1 + 1, x0] = color
            if x1 < w:
                canvas[i, cy0:cy1 + 1, x1] = color
    return wrap(canvas.to(t._t.device), t._dtype)


@public("torchflow.image")
def extract_glimpse(input, size, offsets, centered=True, normalized=True,
                    noise="uniform", name=None) -> Tensor:
    """Extracts a ``size`` window per image at ``offsets`` (TF 2.4's
    ``extract_glimpse``, the V2 kernel).

    The window's top-left corner is, as TF's kernel computes it (truncated to
    an integer): ``offset * size / 2 + size / 2 - window / 2`` when centered and
    normalized, ``offset * size`` when only normalized, ``offset + size / 2`` when
    only centered, and ``offset`` otherwise. Pixels outside the image are filled per ``noise``: ``"uniform"``
    (uniform between the channel's min and max), ``"gaussian"`` (the channel's
    mean and standard deviation) or ``"zero"``.

    Args:
      input: ``[batch, height, width, channels]`` float tensor.
      size: ``[glimpse_height, glimpse_width]`` integers.
      offsets: ``[batch, 2]`` float ``(y, x)`` offsets.
      centered: Offsets are relative to the image centre.
      normalized: Offsets are in units of the image size.
      noise: ``"uniform"``, ``"gaussian"`` or ``"zero"``.
      name: Unused (eager).

    Returns:
      ``[batch, glimpse_height, glimpse_width, channels]`` float32 tensor.

    Raises:
      InvalidArgumentError: For a bad shape or ``noise`` value.
    """
    t = tensor_arg(input, dtypes.float32)
    x = t._t
    if x.dim() != 4:
        raise invalid_argument("ExtractGlimpseV2", f"input must be 4-dimensional"
                                                   f"{list(x.shape)}")
    sz = _np(size, dtypes.int32)
    if sz.shape != (2,):
        raise invalid_argument("ExtractGlimpseV2", f"input must be a vector of size 2 "
                                                   f"(height, width){dims(sz.shape)}")
    gh, gw = (int(v) for v in sz)
    off = _np(offsets).astype(np.float32)
    n, h, w, c = x.shape
    if off.shape != (n, 2):
        raise invalid_argument("ExtractGlimpseV2", f"first dimension should be batch"
                                                   f"{dims(off.shape)}")
    if noise not in ("uniform", "gaussian", "zero", ""):
        raise invalid_argument("ExtractGlimpseV2", f"Noise type {noise} not supported.")
    out = torch.zeros((n, gh, gw, c), dtype=x.dtype, device=x.device)
    for i in range(n):
        oy, ox = float(off[i, 0]), float(off[i, 1])
        if normalized:
            oy, ox = oy * h, ox * w
            if centered:  # the kernel removes half the window only in this mode
                oy, ox = oy / 2.0 + h / 2.0 - gh / 2.0, ox / 2.0 + w / 2.0 - gw / 2.0
        elif centered:
            oy, ox = oy + h / 2.0, ox + w / 2.0
        y0, x0 = int(oy), int(ox)  # C++ truncation, as the kernel casts
        img = x[i]
        if noise == "uniform":
            lo = img.amin(dim=(0, 1))
            hi = img.amax(dim=(0, 1))
            fill = lo + (hi - lo) * uniform([gh, gw, c])._t.to(x.device)
        elif noise == "gaussian":
            mean, std = img.mean(dim=(0, 1)), img.std(dim=(0, 1), unbiased=False)
            fill = mean + std * torch.randn((gh, gw, c), device=x.device, dtype=x.dtype)
        else:
            fill = torch.zeros((gh, gw, c), device=x.device, dtype=x.dtype)
        ys = torch.arange(y0, y0 + gh, device=x.device)
        xs = torch.arange(x0, x0 + gw, device=x.device)
        inside = ((ys >= 0) & (ys < h))[:, None] & ((xs >= 0) & (xs < w))[None, :]
        vals = img[ys.clamp(0, h - 1)][:, xs.clamp(0, w - 1)]
        out[i] = torch.where(inside[..., None], vals, fill.to(x.dtype))
    return wrap(out, dtypes.float32)


def _random_crop_rect(rng, h, w, ar, area_range):
    area = h * w
    min_area, max_area = area_range[0] * area, area_range[1] * area
    min_h = int(round(math.sqrt(min_area / ar)))
    max_h = int(round(math.sqrt(max_area / ar)))
    if round(max_h * ar) > w:
        max_h = int((w + 0.5 - 1e-7) / ar)
    max_h = min(max_h, h)
    min_h = min(min_h, max_h)
    hh = min_h + (int(rng.integers(0, max_h - min_h + 1)) if min_h < max_h else 0)
    ww = int(round(hh * ar))
    if ww * hh < min_area:
        hh += 1
        ww = int(round(hh * ar))
    if ww * hh > max_area:
        hh -= 1
        ww = int(round(hh * ar))
    if ww * hh < min_area or ww * hh > max_area or ww > w or hh > h or ww <= 0 or hh <= 0:
        return None
    y = int(rng.integers(0, h - hh + 1)) if h > hh else 0
    x = int(rng.integers(0, w - ww + 1)) if w > ww else 0
    return y, x, hh, ww


def _sample_box(op, rng, image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
                area_range, max_attempts, use_image_if_no_bounding_boxes):
    size = _np(image_size, None).reshape(-1)
    if size.shape[0] != 3:
        raise invalid_argument(op, f"image_size must contain 3 elements{dims(size.shape)}")
    h, w = int(size[0]), int(size[1])
    boxes = _np(bounding_boxes)
    if boxes.ndim != 3:
        raise invalid_argument(op, f"input boxes must be 3-dimensional [batch, num_boxes, "
                                   f"coords]: {dims(boxes.shape)}")
    if boxes.shape[-1] != 4:
        raise invalid_argument(op, f"bounding boxes must have shape [4] or [*, 4], got "
                                   f"{dims(boxes.shape)}")
    boxes = boxes.reshape(-1, 4).astype(np.float64)
    ar_lo, ar_hi = aspect_ratio_range if aspect_ratio_range is not None else (0.75, 1.33)
    area_range = list(area_range) if area_range is not None else [0.05, 1.0]
    attempts = 100 if max_attempts is None else int(max_attempts)
    if boxes.shape[0] == 0:
        if not use_image_if_no_bounding_boxes:
            raise invalid_argument(op, "No bounding boxes provided as input. One must enable "
                                       "use_image_if_no_bounding_boxes if you wish to not "
                                       "provide any bounding boxes.")
        boxes = np.array([[0.0, 0.0, 1.0, 1.0]])
    px = boxes * np.array([h, w, h, w])
    cover = float(min_object_covered)
    rect = None
    for _ in range(attempts):
        ar = float(rng.uniform(ar_lo, ar_hi))
        r = _random_crop_rect(rng, h, w, ar, area_range)
        if r is None:
            continue
        y, x, hh, ww = r
        iy = np.clip(np.minimum(px[:, 2], y + hh) - np.maximum(px[:, 0], y), 0, None)
        ix = np.clip(np.minimum(px[:, 3], x + ww) - np.maximum(px[:, 1], x), 0, None)
        barea = (px[:, 2] - px[:, 0]) * (px[:, 3] - px[:, 1])
        frac = np.where(barea > 0, iy * ix / np.where(barea > 0, barea, 1), 0.0)
        if (frac >= cover).any():
            rect = r
            break
    y, x, hh, ww = rect if rect is not None else (0, 0, h, w)
    d = tensor_arg(image_size)._dtype
    begin = constant(np.array([y, x, 0]), dtype=d)
    sz = constant(np.array([hh, ww, -1]), dtype=d)
    bbox = constant(np.array([[[y / h, x / w, (y + hh) / h, (x + ww) / w]]], np.float32),
                    dtype=dtypes.float32)
    return begin, sz, bbox


@public("torchflow.image")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None) -> tuple:
    """A random crop of an image that covers part of at least one bounding box.

    Up to ``max_attempts`` times a crop with a random aspect ratio and area is
    drawn; the first that covers at least ``min_object_covered`` of some box is
    returned, else the whole image.

    Args:
      image_size: ``[height, width, channels]`` integers.
      bounding_boxes: ``[batch, N, 4]`` float boxes ``[y1, x1, y2, x2]`` in [0, 1].
      seed: An int seed (0: nondeterministic).
      min_object_covered: Fraction of some box the crop must cover.
      aspect_ratio_range: ``(min, max)`` width / height (default ``(0.75, 1.33)``).
      area_range: ``(min, max)`` fraction of the image area (default ``(0.05, 1)``).
      max_attempts: Attempts before the whole image is returned (default 100).
      use_image_if_no_bounding_boxes: Use the whole image as the box when none is given.
      name: Unused (eager).

    Returns:
      ``(begin, size, bboxes)``: ``begin = [y, x, 0]`` and ``size = [h, w, -1]`` for
      ``tf.slice`` (``image_size``'s dtype), and the crop as a ``[1, 1, 4]`` float box.

    Raises:
      InvalidArgumentError: If ``bounding_boxes`` is not ``[batch, N, 4]``, or no boxes
        are given without ``use_image_if_no_bounding_boxes``.
    """
    rng = np.random.default_rng(None if not seed else int(seed))
    return _sample_box("SampleDistortedBoundingBoxV2", rng, image_size, bounding_boxes,
                       min_object_covered, aspect_ratio_range, area_range, max_attempts,
                       use_image_if_no_bounding_boxes)


@public("torchflow.image")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None,
                                            name=None) -> tuple:
    """``sample_distorted_bounding_box`` that is deterministic in ``seed`` (a shape
    ``[2]`` integer tensor): the same seed gives the same crop.

    Args:
      image_size: ``[height, width, channels]`` integers.
      bounding_boxes: ``[batch, N, 4]`` float boxes in [0, 1].
      seed: A shape ``[2]`` integer tensor or pair.
      min_object_covered: Fraction of some box the crop must cover.
      aspect_ratio_range: ``(min, max)`` width / height.
      area_range: ``(min, max)`` fraction of the image area.
      max_attempts: Attempts before the whole image is returned.
      use_image_if_no_bounding_boxes: Use the whole image when no box is given.
      name: Unused (eager).

    Returns:
      ``(begin, size, bboxes)`` as in ``sample_distorted_bounding_box``.

    Raises:
      InvalidArgumentError: If ``bounding_boxes`` is not ``[batch, N, 4]``, or no boxes
        are given without ``use_image_if_no_bounding_boxes``.
    """
    op = "StatelessSampleDistortedBoundingBox"
    s0, s1 = seed_pair(op, seed)
    rng = np.random.default_rng([s0 & 0xFFFFFFFFFFFFFFFF, s1 & 0xFFFFFFFFFFFFFFFF])
    return _sample_box(op, rng, image_size, bounding_boxes, min_object_covered,
                       aspect_ratio_range, area_range, max_attempts,
                       use_image_if_no_bounding_boxes)
