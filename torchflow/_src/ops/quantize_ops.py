"""``tf.quantization.quantize`` / ``dequantize`` / ``quantized_concat``: float <->
quantized-dtype (qint8, quint8, qint16, quint16, qint32) conversion with TF 2.4's
kernel arithmetic (MIN_COMBINED, MIN_FIRST and SCALED modes).

Quantized tensors hold their values in the matching torch integer dtype; their
``numpy()`` is the plain integer array, as in TF.
"""

from __future__ import annotations

import collections

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.errors import NotFoundError, invalid_argument
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.util.api import public

_STORAGE = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16, "quint16": np.uint16,
            "qint32": np.int32}
_TORCH = {"qint8": torch.int8, "quint8": torch.uint8, "qint16": torch.int16,
          "quint16": torch.int32, "qint32": torch.int32}  # quint16 held widened

QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat",
                                         ["output", "output_min", "output_max"])


def _qdtype(op: str, T):
    d = dtypes.as_dtype(T)
    if d.name not in _STORAGE:
        raise invalid_argument(op, f"Value for attr 'T' of {d.name} is not in the list of "
                                   f"allowed values: qint8, quint8, qint32, qint16, quint16")
    return d


def _limits(d):
    info = np.iinfo(_STORAGE[d.name])
    return float(info.min), float(info.max)


def _ranges(x: np.ndarray, lo, hi, axis):
    """``min_range``/``max_range`` broadcast against ``x`` (per ``axis`` if given)."""
    lo, hi = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
    if axis is None:
        return lo.reshape(()), hi.reshape(())
    ax = axis % x.ndim
    shape = [1] * x.ndim
    shape[ax] = -1
    return lo.reshape(shape), hi.reshape(shape)


def _round_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _store(q: np.ndarray, d) -> Tensor:
    lo, hi = _limits(d)
    q = np.clip(q, lo, hi).astype(_STORAGE[d.name])
    return wrap(torch.from_numpy(q.astype(np.int64)).to(_TORCH[d.name]), d)


def _np(v) -> np.ndarray:
    return np.asarray(tensor_arg(v).numpy())


@public("torchflow.quantization")
def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01):
    """Quantizes float ``input`` in ``[min_range, max_range]`` to the dtype ``T``.

    The range is first widened to contain 0 and to be at least
    ``ensure_minimum_range * max(1, |min|, |max|)`` wide.

    Args:
      input: A float32 tensor.
      min_range: The minimum (a scalar, or 1-D along ``axis``).
      max_range: The maximum (same shape as ``min_range``).
      T: ``tf.qint8``, ``tf.quint8``, ``tf.qint16``, ``tf.quint16`` or ``tf.qint32``.
      mode: ``"MIN_COMBINED"``, ``"MIN_FIRST"`` or ``"SCALED"``.
      round_mode: ``"HALF_AWAY_FROM_ZERO"`` or (SCALED only) ``"HALF_TO_EVEN"``.
      name: Unused (eager).
      narrow_range: SCALED mode: leave out the lowest quantized value.
      axis: Quantize per slice along this axis.
      ensure_minimum_range: The minimum relative width of the range.

    Returns:
      ``QuantizeV2(output, output_min, output_max)``: the quantized tensor and the
      float32 range it actually represents.

    Raises:
      InvalidArgumentError: For a bad ``T``, ``mode``/``round_mode`` pair or range.
    """
    op = "QuantizeV2"
    d = _qdtype(op, T)
    if mode not in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        raise invalid_argument(op, f"Value for attr 'mode' of \"{mode}\" is not in the list "
                                   f"of allowed values: \"MIN_COMBINED\", \"MIN_FIRST\", "
                                   f"\"SCALED\"")
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise invalid_argument(op, "Round mode 'HALF_TO_EVEN' is only supported for mode "
                                   "'SCALED'")
    x = _np(input).astype(np.float32)
    lo_in, hi_in = _ranges(x, _np(min_range), _np(max_range), axis)
    if (lo_in > hi_in).any():
        raise invalid_argument(op, f"max_range must be larger than min_range. Got "
                                   f"{lo_in.reshape(-1).tolist()} and "
                                   f"{hi_in.reshape(-1).tolist()}")
    lo = np.minimum(np.float32(0), lo_in)
    eps = np.maximum(np.float32(1), np.maximum(np.abs(lo_in), np.abs(hi_in))) * \
        np.float32(ensure_minimum_range)
    hi = np.maximum(np.float32(0), np.maximum(hi_in, lo + eps)).astype(np.float32)
    tmin, tmax = _limits(d)
    if mode == "MIN_COMBINED":
        scale = (tmax - tmin) / (hi.astype(np.float64) - lo)
        v = (np.clip(x, lo, hi) - lo).astype(np.float32) * np.float32(scale)
        if tmin < 0:
            q = _round_away(v - np.float32((tmax - tmin + 1) / 2))
        else:
            q = np.floor(v + np.float32(0.5))
    elif mode == "MIN_FIRST":
        steps = 2.0 ** (8 * np.dtype(_STORAGE[d.name]).itemsize)
        rng = (hi.astype(np.float64) - lo) * (steps / (steps - 1.0))
        rs = steps / rng
        q = _round_away(np.clip(x, lo, hi) * rs) - _round_away(lo * rs) + tmin
    else:
        lo_out = tmin + (1 if narrow_range else 0)
        big = np.float32(np.finfo(np.float32).max)
        with np.errstate(divide="ignore", invalid="ignore"):
            s_min = np.where(lo_out * lo > 0, np.float32(lo_out) / lo, big)
            s_max = np.where(tmax * hi > 0, np.float32(tmax) / hi, big)
        scale = np.minimum(s_min, s_max).astype(np.float32)
        lo = (np.float32(lo_out) / scale).astype(np.float32)
        hi = (np.float32(tmax) / scale).astype(np.float32)
        v = np.clip(x, lo, hi) * scale
        q = np.round(v) if round_mode == "HALF_TO_EVEN" else _round_away(v)
    out_lo = np.asarray(lo, np.float32).reshape(np.shape(_np(min_range)))
    out_hi = np.asarray(hi, np.float32).reshape(np.shape(_np(max_range)))
    return QuantizeV2(_store(q, d), wrap(torch.from_numpy(out_lo.copy()), dtypes.float32),
                      wrap(torch.from_numpy(out_hi.copy()), dtypes.float32))


@public("torchflow.quantization")
def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None, axis=None,
               narrow_range=False, dtype=dtypes.float32) -> Tensor:
    """Converts a quantized tensor back to floats over ``[min_range, max_range]``.

    Args:
      input: A quantized tensor (qint8, quint8, qint16, quint16 or qint32).
      min_range: The minimum its values represent (scalar, or 1-D along ``axis``).
      max_range: The maximum.
      mode: ``"MIN_COMBINED"``, ``"MIN_FIRST"`` or ``"SCALED"``.
      name: Unused (eager).
      axis: Dequantize per slice along this axis.
      narrow_range: SCALED mode: the lowest quantized value was left out.
      dtype: ``tf.float32`` or ``tf.bfloat16``.

    Returns:
      A tensor of ``dtype``.

    Raises:
      InvalidArgumentError: For a non-quantized input or bad mode.
    """
    op = "Dequantize"
    t = tensor_arg(input)
    d = _qdtype(op, t.dtype)
    out_d = dtypes.as_dtype(dtype)
    if mode not in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        raise invalid_argument(op, f"Value for attr 'mode' of \"{mode}\" is not in the list "
                                   f"of allowed values: \"MIN_COMBINED\", \"MIN_FIRST\", "
                                   f"\"SCALED\"")
    q = np.asarray(t.numpy()).astype(np.float64)
    lo, hi = _ranges(q, _np(min_range), _np(max_range), axis)
    tmin, tmax = _limits(d)
    if mode == "MIN_COMBINED":
        half = (tmax - tmin + 1) / 2.0 if tmin < 0 else 0.0
        scale = (hi - lo) / np.float32(tmax - tmin)
        y = (q.astype(np.float32) + np.float32(half)) * scale.astype(np.float32) + lo
    elif mode == "MIN_FIRST":
        steps = 2.0 ** (8 * np.dtype(_STORAGE[d.name]).itemsize)
        rng = (hi.astype(np.float64) - lo) * (steps / (steps - 1.0))
        rs = rng / steps
        rs32 = rs.astype(np.float32).astype(np.float64)
        lo_rounded = np.round(lo / rs32) * rs32
        y = lo_rounded + (q - tmin) * rs
    else:
        lo_out = tmin + (1 if narrow_range else 0)
        if tmin == 0:
            scale = hi / np.float32(tmax)
        else:
            scale = np.maximum(lo / np.float32(lo_out), hi / np.float32(tmax))
        y = q.astype(np.float32) * scale.astype(np.float32)
    y = torch.from_numpy(np.asarray(y, np.float32).copy())
    return wrap(y.to(out_d._torch), out_d)


def _requantize(v: np.ndarray, lo: float, hi: float, out_lo: float, out_hi: float, d):
    """TF's Eigen requantize (QuantizedToFloatStruct then FloatToQuantizedStruct), in
    float32 as the kernel computes it."""
    f32 = np.float32
    tmin, tmax = _limits(d)
    steps = f32(2.0 ** (8 * np.dtype(_STORAGE[d.name]).itemsize))
    scale = f32((f32(hi) - f32(lo)) / (steps - f32(1.0)))
    lo_r = f32(lo) if hi == lo else f32(_round_away(f32(lo) / scale) * scale)
    x = (lo_r - f32(tmin) * scale) + v.astype(f32) * scale
    q_scale = f32(0.0) if out_hi == out_lo else f32((steps - f32(1.0)) / (f32(out_hi) - f32(out_lo)))
    lo_scaled = f32(_round_away(f32(out_lo) * q_scale))
    q = _round_away((x * q_scale).astype(f32)) - (lo_scaled - f32(tmin))
    return np.clip(q, tmin, tmax)


@public("torchflow.quantization")
def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """Concatenates quantized tensors, requantizing each into the common range.

    The output range is ``[min(0, mins), max(maxes)]`` (symmetric around 0 for
    signed dtypes).

    Args:
      concat_dim: The axis (a scalar).
      values: A list of quantized tensors of one dtype.
      input_mins: Their float minima.
      input_maxes: Their float maxima.
      name: Unused (eager).

    Returns:
      ``QuantizedConcat(output, output_min, output_max)``.

    Raises:
      InvalidArgumentError: For mismatched lists or dtypes.
    """
    op = "QuantizedConcat"
    ts = [tensor_arg(v) for v in values]
    if not ts or len(ts) != len(input_mins) or len(ts) != len(input_maxes):
        raise invalid_argument(op, "values, input_mins and input_maxes must be lists of the "
                                   "same non-zero length")
    d = _qdtype(op, ts[0].dtype)
    if d.name not in ("quint8", "qint32"):
        raise NotFoundError(None, None, f"Could not find device for node: {{{{node {op}}}}} = "
                                        f"{op}[N={len(ts)}, T=DT_{d.name.upper()}]\nAll kernels "
                                        f"registered for op {op}:\n  device='CPU'; T in "
                                        f"[DT_QINT32]\n  device='CPU'; T in [DT_QUINT8]\n "
                                        f"[Op:{op}]")
    if any(t.dtype != d for t in ts):
        raise invalid_argument(op, "All values must have the same quantized dtype")
    mins = [float(_np(m)) for m in input_mins]
    maxs = [float(_np(m)) for m in input_maxes]
    out_lo, out_hi = min(0.0, min(mins)), max(maxs)
    if _limits(d)[0] < 0:
        big = max(abs(out_lo), abs(out_hi))
        out_lo, out_hi = -big, big
    out_lo, out_hi = float(np.float32(out_lo)), float(np.float32(out_hi))
    parts = []
    for t, lo, hi in zip(ts, mins, maxs):
        v = np.asarray(t.numpy())
        if lo == out_lo and hi == out_hi:
            parts.append(v.astype(np.float64))
        else:
            parts.append(_requantize(v, lo, hi, out_lo, out_hi, d))
    axis = int(_np(concat_dim))
    out = np.concatenate(parts, axis=axis)
    return QuantizedConcat(_store(out, d),
                           wrap(torch.tensor(out_lo, dtype=torch.float32), dtypes.float32),
                           wrap(torch.tensor(out_hi, dtype=torch.float32), dtypes.float32))
