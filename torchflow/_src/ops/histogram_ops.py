"""Fixed-width histograms: histogram_fixed_width and histogram_fixed_width_bins."""

from __future__ import annotations

import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._array_helpers import int_value, op_error, tensor_of
from torchflow._src.util.api import public


def _bins(values, value_range, nbins, op: str):
    v = tensor_of(values)
    if v._dtype._kind not in "fi":
        raise op_error(op, f"histogram values must be int or float, got {v._dtype.name}")
    r = tensor_of(value_range, v._dtype) if not isinstance(value_range, Tensor) else value_range
    if r._dtype is not v._dtype or tuple(r._t.shape) != (2,):
        raise op_error(op, f"value_range should be a vector of 2 {v._dtype.name} values, got "
                           f"{r!r}")
    n = int_value(nbins, "nbins")
    if n <= 0:
        raise op_error(op, f"nbins should be a positive number, but got '{n}'")
    t = v._t
    rt = r._t.to(t.device)
    if not bool(rt[0] < rt[1]):
        raise op_error(op, f"value_range should satisfy value_range[0] < value_range[1], but "
                           f"got '[{rt[0].item()}, {rt[1].item()}]'")
    # TF divides in the values' float type (float64 for integers).
    ft = t.dtype if t.is_floating_point() else torch.float64
    lo, hi = rt[0].to(ft), rt[1].to(ft)
    scaled = (t.to(ft) - lo) / (hi - lo)
    idx = torch.floor(scaled * n).clamp(0, n - 1)
    return idx.to(torch.int64), n


@public("torchflow")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32,
                               name=None) -> Tensor:
    """The bin index of each value for ``nbins`` equal bins over ``value_range``.

    Values below the range go to bin 0, values above to bin ``nbins - 1``.

    Args:
      values: A numeric tensor of any shape.
      value_range: A ``[2]`` tensor ``[min, max]`` of ``values``' dtype.
      nbins: int, default 100: the number of bins.
      dtype: ``tf.int32`` (default) or ``tf.int64``.
      name: Unused (eager).

    Returns:
      A tensor of ``dtype`` and ``values``' shape.

    Raises:
      InvalidArgumentError: For ``nbins <= 0`` or an empty range.
    """
    idx, _ = _bins(values, value_range, nbins, "HistogramFixedWidth")
    d = dtypes.as_dtype(dtype)
    return wrap(idx.to(d._torch), d)


@public("torchflow")
def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32,
                          name=None) -> Tensor:
    """Counts ``values`` in ``nbins`` equal-width bins spanning ``value_range``.

    Values outside the range count in the first or last bin.

    Args:
      values: A numeric tensor of any shape.
      value_range: A ``[2]`` tensor ``[min, max]`` of ``values``' dtype.
      nbins: int, default 100: the number of bins.
      dtype: ``tf.int32`` (default) or ``tf.int64``: the counts' dtype.
      name: Unused (eager).

    Returns:
      A 1-D ``[nbins]`` tensor of ``dtype``.

    Raises:
      InvalidArgumentError: For ``nbins <= 0`` or an empty range.

    >>> import torchflow as tf
    >>> tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], 5).numpy()
    array([2, 1, 1, 0, 2], dtype=int32)
    """
    idx, n = _bins(values, value_range, nbins, "HistogramFixedWidth")
    d = dtypes.as_dtype(dtype)
    counts = torch.bincount(idx.reshape(-1), minlength=n)
    return wrap(counts.to(d._torch), d)


__all__ = ["histogram_fixed_width", "histogram_fixed_width_bins"]
