"""A minimal PNG encoder (8-bit grey, grey+alpha, RGB, RGBA) for image summaries."""

from __future__ import annotations

import struct
import zlib

import numpy as np

_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def encode(image: np.ndarray) -> bytes:
    """PNG bytes of a ``[height, width, channels]`` uint8 array (1-4 channels)."""
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in _COLOR_TYPE:
        raise ValueError(f"encode: expected a [h, w, 1|2|3|4] uint8 image, got "
                         f"{image.dtype} {image.shape}")
    h, w, c = image.shape
    rows = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, w * c)], axis=1)
    header = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPE[c], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + _chunk(b"IEND", b""))
