"""``tf.strings.unicode_script``: the ICU script code of each Unicode code point."""

from __future__ import annotations

import base64
import functools
import struct
import zlib

import numpy as np
import torch

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.ops import unicode_script_data
from torchflow._src.ops._dispatch import dtype_error, tensor_arg
from torchflow._src.util.api import public


@functools.lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray]:
    raw = zlib.decompress(base64.b64decode("".join(unicode_script_data.DATA)))
    n = unicode_script_data.COUNT
    starts = np.array(struct.unpack(f"<{n}I", raw[:4 * n]), dtype=np.int64)
    codes = np.frombuffer(raw[4 * n:], dtype=np.uint8).astype(np.int32)
    return starts, codes


@public("torchflow.strings")
def unicode_script(input, name=None) -> Tensor:
    """The script of each Unicode code point, as an ICU ``UScriptCode`` number.

    Common characters (digits, punctuation) are 0, inherited marks 1, Latin 25,
    Cyrillic 8, Han 17, and so on, as ICU numbers them; values that are not code
    points (below 0 or above 0x10FFFF) give -1, unassigned ones 103 (Unknown).

    Args:
      input: An int32 Tensor of code points, any shape.
      name: Unused (eager).

    Returns:
      An int32 Tensor of ``input``'s shape.

    Raises:
      InvalidArgumentError: If ``input`` is not int32.

    Differences from TensorFlow 2.4: the table is Unicode's Scripts.txt of a
    newer Unicode version than TF's ICU, so characters assigned since then have
    their script here where TF returns 103.

    >>> import torchflow as tf
    >>> tf.strings.unicode_script([ord("a"), 0x416, ord("1"), 0x4E2D, -5]).numpy()
    array([25,  8,  0, 17, -1], dtype=int32)
    """
    t = tensor_arg(input, dtypes.int32)
    if t._dtype is not dtypes.int32:
        raise dtype_error("UnicodeScript", 0, dtypes.int32, t._dtype)
    cps = t._t.detach().cpu().numpy().astype(np.int64)
    starts, codes = _table()
    idx = np.searchsorted(starts, cps, side="right") - 1
    out = codes[np.clip(idx, 0, len(codes) - 1)]
    out = np.where((cps < 0) | (cps > 0x10FFFF), -1, out).astype(np.int32)
    return wrap(torch.from_numpy(out).to(t._t.device), dtypes.int32)
