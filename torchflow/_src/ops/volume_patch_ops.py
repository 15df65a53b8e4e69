"""``tf.extract_volume_patches``: 3-D patches of a 5-D volume (TF 2.4 semantics)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchflow._src.core.errors import invalid_argument
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops._dispatch import tensor_arg
from torchflow._src.util.api import public


def _five(op: str, name: str, v) -> list:
    v = [int(i) for i in v]
    if len(v) != 5 or v[0] != 1 or v[4] != 1:
        raise invalid_argument(op, f"{name} must be a list of 5 ints with the first and "
                                   f"last equal to 1, got {v}")
    return v[1:4]


@public("torchflow")
def extract_volume_patches(input, ksizes, strides, padding, name=None) -> Tensor:
    """Extracts ``ksizes`` 3-D patches from a 5-D volume into the depth dimension.

    Args:
      input: ``[batch, planes, rows, cols, depth]`` real tensor.
      ksizes: ``[1, k_planes, k_rows, k_cols, 1]``.
      strides: ``[1, s_planes, s_rows, s_cols, 1]``.
      padding: ``"VALID"`` or ``"SAME"`` (zero padding, the extra on the far side).
      name: Unused (eager).

    Returns:
      ``[batch, out_planes, out_rows, out_cols, k_planes * k_rows * k_cols * depth]``
      with each patch flattened in (plane, row, col, depth) order.

    Raises:
      InvalidArgumentError: For a bad rank, ``ksizes``/``strides`` or ``padding``.
    """
    op = "ExtractVolumePatches"
    t = tensor_arg(input)
    x = t._t
    if x.dim() != 5:
        raise invalid_argument(op, f"input must be 5-dimensional{list(x.shape)}")
    k = _five(op, "ksizes", ksizes)
    s = _five(op, "strides", strides)
    pad = padding.decode() if isinstance(padding, bytes) else str(padding)
    if pad not in ("VALID", "SAME"):
        raise invalid_argument(op, f"Unknown padding type: {pad}")
    if pad == "SAME":
        widths = []
        for n, kk, ss in zip(x.shape[1:4], k, s):
            out = -(-n // ss)
            total = max((out - 1) * ss + kk - n, 0)
            widths.append((total // 2, total - total // 2))
        # F.pad lists the last dimension first: depth, cols, rows, planes.
        x = F.pad(x, (0, 0, *widths[2], *widths[1], *widths[0]))
    y = x
    for axis, (kk, ss) in enumerate(zip(k, s), start=1):
        if y.shape[axis] < kk:
            shape = list(y.shape)
            shape[axis] = 0
            return wrap(torch.zeros((*shape[:4], k[0] * k[1] * k[2] * x.shape[4]),
                                    dtype=x.dtype, device=x.device), t._dtype)
        y = y.unfold(axis, kk, ss)
    # y: [b, op, or, oc, depth, kp, kr, kc] -> [b, op, or, oc, kp, kr, kc, depth]
    y = y.permute(0, 1, 2, 3, 5, 6, 7, 4)
    return wrap(y.reshape(*y.shape[:4], -1).contiguous(), t._dtype)
