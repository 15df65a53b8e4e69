"""The sorted-string table behind a checkpoint's ``.index`` file.

TensorFlow's tensor-bundle index is a LevelDB-format table
(``tensorflow/core/lib/io/table*``), written here from its published layout:

* data blocks of entries ``varint32 shared, varint32 unshared, varint32
  value_len, key[shared:], value``, prefix-compressed against the previous key
  and restarting every 16 entries; then the restart offsets (fixed32 each) and
  their count (fixed32);
* after every block a 5-byte trailer: the compression type (0, none) and the
  masked CRC-32C of the block and that type byte;
* an empty meta-index block, then an index block mapping each data block's
  last key to its handle (``varint64 offset, varint64 size``);
* a 48-byte footer: both handles, zero padding, and the magic number
  ``0xdb4775248b80fb57`` (fixed64).

Errors are TensorFlow's: a damaged or foreign file raises ``DataLossError``.
"""

from __future__ import annotations

import struct

import google_crc32c

from torchflow._src.core import errors

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_MASK_DELTA = 0xA282EAD8
_RESTART_INTERVAL = 16
_BLOCK_SIZE = 262144  # TF's table::Options default


def crc32c(data, crc: int = 0) -> int:
    """CRC-32C (Castagnoli) of ``data``, extending ``crc``."""
    return google_crc32c.extend(crc, data if isinstance(data, bytes) else bytes(data))


def mask(crc: int) -> int:
    """LevelDB's masked CRC (stored CRCs are masked so CRCs of CRCs stay useful)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def put_varint(out: bytearray, value: int) -> None:
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def get_varint(buf, pos: int, limit: int) -> tuple[int, int]:
    """``(value, next position)``; raises DataLossError past ``limit``."""
    result = shift = 0
    while pos < limit and shift <= 63:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
    raise errors.DataLossError(None, None, "bad varint in sstable")


class _BlockBuilder:
    def __init__(self, restart_interval: int):
        self.buf = bytearray()
        self.restarts = [0]
        self.count = 0
        self.last_key = b""
        self.interval = restart_interval

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < self.interval:
            n = min(len(key), len(self.last_key))
            while shared < n and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.count = 0
        put_varint(self.buf, shared)
        put_varint(self.buf, len(key) - shared)
        put_varint(self.buf, len(value))
        self.buf += key[shared:]
        self.buf += value
        self.last_key = key
        self.count += 1

    def finish(self) -> bytes:
        tail = struct.pack(f"<{len(self.restarts)}I", *self.restarts)
        return bytes(self.buf) + tail + struct.pack("<I", len(self.restarts))

    def size(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def empty(self) -> bool:
        return not self.buf


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key in ``[start, limit)`` (LevelDB's bytewise FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n and start[i] < 0xFF and start[i] + 1 < limit[i]:
        return start[:i] + bytes([start[i] + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= ``key`` (LevelDB's bytewise FindShortSuccessor)."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


def build_table(items) -> bytes:
    """The table bytes for ``items``, ``(key bytes, value bytes)`` in sorted key order."""
    out = bytearray()

    def emit(contents: bytes) -> bytes:
        handle = bytearray()
        put_varint(handle, len(out))
        put_varint(handle, len(contents))
        out.extend(contents)
        out.append(0)
        out.extend(struct.pack("<I", mask(crc32c(b"\x00", crc32c(contents)))))
        return bytes(handle)

    index = _BlockBuilder(1)
    block = _BlockBuilder(_RESTART_INTERVAL)
    pending = None  # handle of a finished block, indexed once the next key is known
    last = None
    for key, value in items:
        if last is not None and key <= last:
            raise ValueError(f"sstable keys must be added in increasing order: {key!r}")
        if pending is not None:
            index.add(_shortest_separator(last, key), pending)
            pending = None
        last = key
        block.add(key, value)
        if block.size() >= _BLOCK_SIZE:
            pending = emit(block.finish())
            block = _BlockBuilder(_RESTART_INTERVAL)
    if not block.empty():
        pending = emit(block.finish())
    if pending is not None:
        index.add(_short_successor(last), pending)
    meta_handle = emit(_BlockBuilder(_RESTART_INTERVAL).finish())
    index_handle = emit(index.finish())
    footer = (meta_handle + index_handle).ljust(FOOTER_SIZE - 8, b"\x00")
    out.extend(footer + struct.pack("<Q", MAGIC))
    return bytes(out)


def _corrupt(what: str) -> errors.DataLossError:
    return errors.DataLossError(None, None, what)


def _read_handle(buf, pos: int, limit: int) -> tuple[int, int, int]:
    offset, pos = get_varint(buf, pos, limit)
    size, pos = get_varint(buf, pos, limit)
    return offset, size, pos


def _block(buf, offset: int, size: int) -> memoryview:
    if offset + size + 5 > len(buf) - FOOTER_SIZE or size < 4:
        raise _corrupt("truncated block read")
    contents = buf[offset:offset + size]
    kind = buf[offset + size]
    (stored,) = struct.unpack_from("<I", buf, offset + size + 1)
    if unmask(stored) != crc32c(buf[offset:offset + size + 1]):
        raise _corrupt("block checksum mismatch")
    if kind != 0:
        raise _corrupt("bad block type" if kind != 1 else
                       "Snappy-compressed sstable blocks are not supported")
    return contents


def _entries(block: memoryview):
    n = len(block)
    (num_restarts,) = struct.unpack_from("<I", block, n - 4)
    limit = n - 4 - 4 * num_restarts
    if num_restarts == 0 or limit < 0:
        raise _corrupt("bad block contents")
    pos, key = 0, b""
    while pos < limit:
        shared, pos = get_varint(block, pos, limit)
        unshared, pos = get_varint(block, pos, limit)
        vlen, pos = get_varint(block, pos, limit)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise _corrupt("bad entry in block")
        key = key[:shared] + bytes(block[pos:pos + unshared])
        pos += unshared
        yield key, block[pos:pos + vlen]
        pos += vlen


def read_table(buf) -> list[tuple[bytes, memoryview]]:
    """Every ``(key, value)`` of a table, in order.

    Raises:
      DataLossError: The bytes are not a complete, undamaged table.
    """
    buf = memoryview(buf)
    if len(buf) < FOOTER_SIZE:
        raise _corrupt("file is too short to be an sstable")
    (magic,) = struct.unpack_from("<Q", buf, len(buf) - 8)
    if magic != MAGIC:
        raise _corrupt("not an sstable (bad magic number)")
    footer_start = len(buf) - FOOTER_SIZE
    _, _, pos = _read_handle(buf, footer_start, len(buf) - 8)
    index_offset, index_size, _ = _read_handle(buf, pos, len(buf) - 8)
    items = []
    for _, handle in _entries(_block(buf, index_offset, index_size)):
        offset, size, _ = _read_handle(handle, 0, len(handle))
        items.extend(_entries(_block(buf, offset, size)))
    return items
