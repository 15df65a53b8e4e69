"""The bulk encoding of a line's events is the message ``add()`` builds one event at a
time (the protobuf runtime's own encoding is the oracle), for every kind of value: small
and 10-byte varints, negative int64s, stats of each type, correlation ids."""

from __future__ import annotations

import numpy as np
import pytest

from torchflow._src.core import profiler_backend as backend
from torchflow._src.core.proto import xplane_pb2
from torchflow._src.profiler import xline_encode, xspace


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**35, 2**63 - 1, -1, -2**63])
def test_varint_is_protobufs(value):
    msg = xplane_pb2.XStat(int64_value=value)  # in a oneof: written even when 0
    assert bytes([0x20]) + xline_encode.varint(value) == msg.SerializeToString()


def _reference(meta_index, meta_ids, stats, offsets, durations, correlations, corr_sid):
    line = xplane_pb2.XLine()
    for i, m in enumerate(meta_index):
        event = line.events.add(metadata_id=int(meta_ids[m]), offset_ps=int(offsets[i]),
                                duration_ps=int(durations[i]))
        for sid, field, value in stats[m]:
            setattr(event.stats.add(metadata_id=sid), field, value)
        if correlations is not None and correlations[i]:
            event.stats.add(metadata_id=corr_sid, int64_value=int(correlations[i]))
    return line


@pytest.mark.parametrize("seed", range(4))
def test_bulk_encoded_events_equal_added_events(seed):
    rng = np.random.default_rng(seed)
    stats = [[], [(3, "int64_value", 7)], [(1, "str_value", "x" * 200), (2, "double_value", 0.5)],
             [(4, "int64_value", -5), (5, "uint64_value", 2**64 - 1)], [(6, "str_value", "é#,")]]
    meta_ids = np.array([1, 200, 3, 2**40, 5], np.int64)
    n = 500
    meta_index = rng.integers(0, len(stats), n).tolist()
    offsets = rng.integers(0, 2**50, n) * rng.integers(0, 2, n)
    durations = rng.integers(0, 2**20, n)
    durations[:3] = [0, -1, 2**62]
    correlations = rng.integers(0, 2**33, n) * rng.integers(0, 2, n)
    blobs = [b"".join(xline_encode.stat_bytes(*s) for s in ss) for ss in stats]
    for corr in (None, correlations):
        line = xplane_pb2.XLine()
        line.MergeFromString(xline_encode.encode_events(
            meta_index, meta_ids, blobs, offsets, durations, corr, 9))
        assert line == _reference(meta_index, meta_ids, stats, offsets, durations, corr, 9)


def test_build_xspace_orders_and_names_as_before():
    new = tuple.__new__
    ev = [new(backend.RawEvent, e) for e in [
        ("aten::mm", 1_000_200, 50, 7, -1, backend.KIND_OP, 0),
        ("train#step_num=1,_r=1#", 1_000_100, 500, 7, -1, backend.KIND_OP, 0),
        ("early", 999_000, 5, 7, -1, backend.KIND_OP, 0),          # before the window
        (xspace.thread_mark("main"), 1_000_050, 0, 7, -1, backend.KIND_OP, 0),
        ("aten::mm", 1_000_100, 600, 7, -1, backend.KIND_OP, 0),   # same start, longer
        ("cudaLaunchKernel", 1_000_300, 9, 3, -1, backend.KIND_RUNTIME, 42),
        ("kernel_a", 1_000_400, 20, 11, 0, backend.KIND_KERNEL, 42)]]
    space = xspace.build_xspace(ev, 1_000_000, 1_002_000, hostname="h",
                                user_names={"train#step_num=1,_r=1#"},
                                thread_names=xspace.thread_names_from(ev))
    host, gpu = space.planes
    assert [(line.id, line.name) for line in host.lines] == [(3, "thread 3"), (7, "main")]
    names = {k: v.name for k, v in host.event_metadata.items()}
    stat_names = {k: v.name for k, v in host.stat_metadata.items()}
    main = [(names[e.metadata_id], e.offset_ps, e.duration_ps,
             {stat_names[s.metadata_id]: s.int64_value for s in e.stats})
            for e in host.lines[1].events]
    assert main == [("aten.mm:Mm", 100_000, 600_000, {}),
                    ("train", 100_000, 500_000, {"step_num": 1, "_r": 1}),
                    ("aten.mm:Mm", 200_000, 50_000, {})]
    (launch,) = host.lines[0].events
    assert [(stat_names[s.metadata_id], s.int64_value) for s in launch.stats] == [
        ("correlation_id", 42)]
    assert gpu.name == "/device:GPU:0" and gpu.lines[0].name == "Stream #11"
    (kernel,) = gpu.lines[0].events
    assert gpu.event_metadata[kernel.metadata_id].name == "kernel_a"
    assert kernel.offset_ps == 400_000 and kernel.stats[0].int64_value == 42
