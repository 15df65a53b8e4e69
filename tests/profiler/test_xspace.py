"""The XSpace builder on hand-made events: TraceMe name encoding, op naming, GPU planes.

The GPU plane is built from synthetic kernel events here (this machine has no GPU); XProf
is the oracle that it reads the plane, its stream lines and the kernels on them.
"""

from __future__ import annotations

from xprof_helpers import xprof_tool

from torchflow._src.core.profiler_backend import KIND_KERNEL, KIND_OP, KIND_RUNTIME, RawEvent
from torchflow._src.profiler import xspace


def test_traceme_encoding_round_trip():
    enc = xspace.encode_name("train", {"step_num": 3, "_r": 1})
    assert enc == "train#step_num=3,_r=1#"  # TF's TraceMe encoding
    assert xspace.decode_name(enc) == ("train", [("step_num", "3"), ("_r", "1")])
    assert xspace.encode_name("plain", {}) == "plain"
    assert xspace.decode_name("a#b") == ("a#b", [])


def test_torch_op_names_parse_as_tf_ops():
    assert xspace.tf_op_name("aten::addmm") == "aten.addmm:Addmm"
    assert xspace.tf_op_name("aten::fill_") == "aten.fill_:Fill"
    assert xspace.tf_op_name("aten::_to_copy") == "aten._to_copy:ToCopy"
    assert xspace.tf_op_name("custom") == "custom:Custom"


def test_gpu_plane_is_read_by_xprof(tmp_path):
    t0 = 1_700_000_000_000_000_000
    events = [
        RawEvent("train#step_num=0,_r=1#", t0 + 1_000, 900_000, 1, -1, KIND_OP, 0),
        RawEvent("aten::mm", t0 + 2_000, 300_000, 1, -1, KIND_OP, 0),
        RawEvent("cudaLaunchKernel", t0 + 3_000, 20_000, 1, -1, KIND_RUNTIME, 7),
        RawEvent("volta_sgemm_128x64_nn", t0 + 40_000, 200_000, 7, 0, KIND_KERNEL, 7),
    ]
    space = xspace.build_xspace(events, t0, t0 + 1_000_000, hostname="h",
                                user_names={"train#step_num=0,_r=1#"})
    planes = {p.name: p for p in space.planes}
    assert set(planes) == {"/host:CPU", "/device:GPU:0"}
    gpu = planes["/device:GPU:0"]
    (line,) = gpu.lines
    assert line.name == "Stream #7" and line.events[0].offset_ps == 40_000 * 1000
    stat = line.events[0].stats[0]
    assert gpu.stat_metadata[stat.metadata_id].name == "correlation_id"
    assert stat.int64_value == 7
    path = xspace.write_xspace(space, str(tmp_path), "h")
    trace = xprof_tool([path], "trace_viewer")["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in trace if e.get("name") == "process_name"}
    kernel = next(e for e in trace if e.get("name") == "volta_sgemm_128x64_nn")
    assert "/device:GPU:0" in processes[kernel["pid"]]
    assert kernel["dur"] == 200.0  # us
