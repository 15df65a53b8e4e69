"""The events of one ``XLine`` encoded in bulk: NumPy writes the wire bytes, upb parses them.

Filling ``line.events`` one ``add()`` at a time costs about a microsecond per event; a
capture holds tens of thousands. Here every event of a line becomes its protobuf wire
form at once (``XLine.events`` is field 4; each ``XEvent`` is ``metadata_id`` (1),
``offset_ps`` (2), ``duration_ps`` (3) and ``stats`` (4)), with the stats of each event
metadata encoded once and copied, and ``line.MergeFromString`` appends them all: the
same message as the ``add()`` loop's, built about four times faster.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core.proto import xplane_pb2

_LINE_EVENT_TAG = 0x22   # XLine.events: field 4, length-delimited
_META_TAG = 0x08         # XEvent.metadata_id / XStat.metadata_id: field 1, varint
_OFFSET_TAG = 0x10       # XEvent.offset_ps: field 2, varint
_DURATION_TAG = 0x18     # XEvent.duration_ps: field 3, varint
_STAT_TAG = 0x22         # XEvent.stats: field 4, length-delimited
_INT64_TAG = 0x20        # XStat.int64_value: field 4, varint


def varint(value: int) -> bytes:
    """The protobuf varint of ``value`` (an int64: negatives take ten bytes)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def stat_bytes(metadata_id: int, field: str, value) -> bytes:
    """One ``XEvent.stats`` entry, framed: an ``XStat`` of ``field`` (as ``typed_stat``)."""
    body = xplane_pb2.XStat(metadata_id=metadata_id, **{field: value}).SerializeToString()
    return bytes([_STAT_TAG]) + varint(len(body)) + body


def _lengths(v: np.ndarray) -> np.ndarray:
    n = np.ones(v.shape, np.int64)
    for k in range(1, 10):
        n += v >= np.uint64(1 << (7 * k))
    return n


def _put(out: np.ndarray, pos: np.ndarray, v: np.ndarray, n: np.ndarray) -> None:
    """Writes the varints ``v`` (uint64) of lengths ``n`` at ``out[pos]`` onwards."""
    for k in range(10):
        live = n > k
        if not live.any():
            return
        if not live.all():
            pos, v, n = pos[live], v[live], n[live]
        byte = (v >> np.uint64(7 * k)) & np.uint64(0x7F)
        byte |= np.where(n > k + 1, np.uint64(0x80), np.uint64(0))
        out[pos + k] = byte.astype(np.uint8)


def encode_events(meta_index: list, meta_ids: np.ndarray, blobs: list, offsets_ps,
                  durations_ps, correlations=None, correlation_sid: int = 0) -> bytes:
    """The wire bytes of ``XLine.events`` for events in order.

    Args:
      meta_index: per event, the index of its metadata in ``meta_ids`` / ``blobs``.
      meta_ids: the ``XEventMetadata`` id of each metadata.
      blobs: the framed ``stats`` bytes every event of each metadata carries.
      offsets_ps, durations_ps: per event (int64).
      correlations: per event, a ``correlation_id`` stat value (0: none), or None.
      correlation_sid: the stat metadata id of ``correlation_id``.
    """
    count = len(meta_index)
    if not count:
        return b""
    idx = np.asarray(meta_index, np.int64)
    mid = np.asarray(meta_ids, np.int64)[idx].view(np.uint64)
    off = np.asarray(offsets_ps, np.int64).view(np.uint64)
    dur = np.asarray(durations_ps, np.int64).view(np.uint64)
    blob_len = np.fromiter((len(b) for b in blobs), np.int64, len(blobs))
    blob_start = np.cumsum(blob_len) - blob_len
    flat = np.frombuffer(b"".join(blobs), np.uint8) if blob_len.sum() else None
    ls = blob_len[idx]
    lm, lo, ld = _lengths(mid), _lengths(off), _lengths(dur)
    body = 3 + lm + lo + ld + ls
    if correlations is not None:
        corr = np.asarray(correlations, np.int64).view(np.uint64)
        has = corr != 0
        sid = np.uint64(correlation_sid)
        lsid = int(_lengths(np.array([sid]))[0])
        lcv = _lengths(corr)
        stat_len = 2 + lsid + lcv            # XStat: tag, id, tag, value
        corr_len = np.where(has, 1 + _lengths(stat_len.view(np.uint64)) + stat_len, 0)
        body = body + corr_len
    le = _lengths(body.view(np.uint64))
    size = 1 + le + body
    pos = np.cumsum(size) - size
    out = np.empty(int(size.sum()), np.uint8)
    out[pos] = _LINE_EVENT_TAG
    p = pos + 1
    _put(out, p, body.view(np.uint64), le)
    p = p + le
    out[p] = _META_TAG
    _put(out, p + 1, mid, lm)
    p = p + 1 + lm
    out[p] = _OFFSET_TAG
    _put(out, p + 1, off, lo)
    p = p + 1 + lo
    out[p] = _DURATION_TAG
    _put(out, p + 1, dur, ld)
    p = p + 1 + ld
    if flat is not None:
        some = ls > 0
        lens = ls[some]
        rows = np.repeat(np.arange(len(lens)), lens)
        within = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        out[p[some][rows] + within] = flat[blob_start[idx[some]][rows] + within]
    p = p + ls
    if correlations is not None and has.any():
        q, v, n, sl = p[has], corr[has], lcv[has], stat_len[has]
        out[q] = _STAT_TAG
        lsl = _lengths(sl.view(np.uint64))
        _put(out, q + 1, sl.view(np.uint64), lsl)
        q = q + 1 + lsl
        out[q] = _META_TAG
        _put(out, q + 1, np.full(len(q), sid), np.full(len(q), lsid))
        q = q + 1 + lsid
        out[q] = _INT64_TAG
        _put(out, q + 1, v, n)
    return out.tobytes()
