"""tf.profiler.experimental start/stop/Profile/Trace: files in TF's layout that XProf reads.

The oracle is XProf itself (its offline converter, ``xspace_to_tool_data``): the overview
page must list our steps, the op statistics our ops with their counts, the trace viewer
our events. Error types and messages are compared with real TensorFlow's.
"""

from __future__ import annotations

import os
import re
import socket
import threading

import pytest
from xprof_helpers import (
    events,
    host_plane,
    load_space,
    steps_with_ops,
    xplane_files,
    xprof_op_stats,
    xprof_step_names,
    xprof_tool,
)

import torchflow as tf
from torchflow._src.profiler import session as session_lib
from torchflow._src.testing import real_tf

prof = tf.profiler.experimental


def _end_any_session():
    if session_lib._current is not None:
        session_lib.end(session_lib._current)
    session_lib._logdir = None


@pytest.fixture(autouse=True)
def _no_session_left():
    # A fit that failed elsewhere in this process may have left the TensorBoard
    # callback's session running (as it would in TF); and a failed test here must not
    # leak its own.
    _end_any_session()
    yield
    _end_any_session()


def _custom_loop(steps=3):
    a = tf.ones((32, 32))
    for step in range(steps):
        with prof.Trace("train", step_num=step, _r=1):
            b = tf.matmul(a, a)
            _ = tf.nn.relu(b) + 1.0


def test_custom_loop_profile_is_read_by_xprof(tmp_path):
    prof.start(str(tmp_path))
    _custom_loop(3)
    prof.stop()
    files = xplane_files(tmp_path)
    assert len(files) == 1
    run = os.path.basename(os.path.dirname(files[0]))
    assert re.fullmatch(r"\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d", run)
    assert os.path.basename(files[0]) == socket.gethostname() + ".xplane.pb"

    space = load_space(files[0])
    assert list(space.hostnames) == [socket.gethostname()]
    plane = host_plane(space)
    # each step event carries TF's marker stats and holds the one matmul of that step
    assert steps_with_ops(plane, "aten.mm:Mm") == {0: 1, 1: 1, 2: 1}
    line_names = {line for line, *_ in events(plane)}
    assert threading.current_thread().name in line_names

    assert xprof_step_names(files) == ["train 0", "train 1", "train 2"]
    ops = xprof_op_stats(files)
    assert ops[("Mm", "aten.mm")] == 3
    assert ops[("Relu", "aten.relu")] == 3
    trace = xprof_tool(files, "trace_viewer")
    names = [e.get("name") for e in trace["traceEvents"]]
    assert names.count("train 1") == 1
    step = next(e for e in trace["traceEvents"] if e.get("name") == "train 1")
    assert step["args"]["step_num"] == "1"
    assert names.count("aten::mm") == 3  # the torch name is the display name


def test_profile_context_and_stop_without_save(tmp_path):
    with prof.Profile(str(tmp_path / "a")):
        _custom_loop(1)
    assert len(xplane_files(tmp_path / "a")) == 1
    prof.start(str(tmp_path / "b"))
    _custom_loop(1)
    prof.stop(save=False)
    assert xplane_files(tmp_path / "b") == []


def test_errors_match_tensorflow(tmp_path):
    rtf = real_tf()
    expected = []
    with pytest.raises(rtf.errors.UnavailableError) as e:
        rtf.profiler.experimental.stop()
    expected.append(("UnavailableError", e.value.message))
    rtf.profiler.experimental.start(str(tmp_path / "tf"))
    try:
        with pytest.raises(rtf.errors.AlreadyExistsError) as e:
            rtf.profiler.experimental.start(str(tmp_path / "tf"))
        expected.append(("AlreadyExistsError", e.value.message))
    finally:
        rtf.profiler.experimental.stop(save=False)

    got = []
    with pytest.raises(tf.errors.UnavailableError) as e:
        prof.stop()
    got.append(("UnavailableError", e.value.message))
    prof.start(str(tmp_path / "ours"))
    try:
        with pytest.raises(tf.errors.AlreadyExistsError) as e:
            prof.start(str(tmp_path / "ours"))
        got.append(("AlreadyExistsError", e.value.message))
    finally:
        prof.stop(save=False)
    assert got == expected
    with pytest.raises(tf.errors.UnavailableError):
        prof.stop()  # the session is over after the failed second start too


def test_options_match_tensorflow():
    rtf = real_tf()
    ours, theirs = prof.ProfilerOptions(), rtf.profiler.experimental.ProfilerOptions()
    assert ours._fields == theirs._fields
    assert tuple(ours) == tuple(theirs)
    assert prof.ProfilerOptions(3, 1, 0, 5).delay_ms == 5


def test_host_tracer_level_1_keeps_only_trace_events(tmp_path):
    prof.start(str(tmp_path), options=prof.ProfilerOptions(host_tracer_level=1))
    _custom_loop(2)
    prof.stop()
    plane = host_plane(load_space(xplane_files(tmp_path)[0]))
    names = {name for _, name, *_ in events(plane)}
    assert names == {"train"}


def test_trace_as_decorator_and_kwargs_as_stats(tmp_path):
    calls = []

    @prof.Trace("my_fn", batch=7, label="x y", ratio=0.5)
    def fn(v):
        calls.append(v)
        return tf.square(tf.constant(v))

    assert float(fn(3.0)) == 9.0  # no profiler: plain call
    prof.start(str(tmp_path))
    fn(2.0)
    fn(4.0)
    prof.stop()
    assert calls == [3.0, 2.0, 4.0]
    plane = host_plane(load_space(xplane_files(tmp_path)[0]))
    mine = [stats for _, name, _, _, stats in events(plane) if name == "my_fn"]
    assert mine == [{"batch": 7, "label": "x y", "ratio": 0.5}] * 2
    assert fn.__name__ == "fn"


def test_ops_in_another_thread_get_their_own_line(tmp_path):
    def work():
        with prof.Trace("worker_range"):
            tf.matmul(tf.ones((8, 8)), tf.ones((8, 8)))

    prof.start(str(tmp_path))
    t = threading.Thread(target=work, name="my-worker")
    t.start()
    t.join()
    work()
    prof.stop()
    plane = host_plane(load_space(xplane_files(tmp_path)[0]))
    by_line = {}
    for line, name, *_ in events(plane):
        by_line.setdefault(line, set()).add(name)
    assert {"worker_range", "aten.mm:Mm"} <= by_line["my-worker"]
    assert {"worker_range", "aten.mm:Mm"} <= by_line[threading.current_thread().name]


def test_trace_outside_a_session_records_nothing(tmp_path):
    with prof.Trace("before"):
        pass
    prof.start(str(tmp_path))
    with prof.Trace("during"):
        pass
    prof.stop()
    with prof.Trace("after"):
        pass
    names = {name for _, name, *_ in events(host_plane(load_space(xplane_files(tmp_path)[0])))}
    assert "during" in names and not {"before", "after"} & names


def test_bad_options_type():
    with pytest.raises(TypeError, match="ProfilerOptions"):
        prof.start("/tmp/unused", options={"host_tracer_level": 2})
    with pytest.raises(tf.errors.UnavailableError):
        prof.stop()


def test_python_tracer_records_python_functions(tmp_path):
    def my_python_function(a):
        return tf.matmul(a, a)

    prof.start(str(tmp_path), options=prof.ProfilerOptions(python_tracer_level=1))
    with prof.Trace("train", step_num=0, _r=1):
        my_python_function(tf.ones((4, 4)))
    prof.stop()
    files = xplane_files(tmp_path)
    names = [name for _, name, *_ in events(host_plane(load_space(files[0])))]
    assert any(n.endswith(": my_python_function") for n in names)
    assert xprof_step_names(files) == ["train 0"]
    prof.start(str(tmp_path / "off"))  # off by default
    my_python_function(tf.ones((4, 4)))
    prof.stop()
    names = [name for _, name, *_ in events(host_plane(load_space(
        xplane_files(tmp_path / "off")[0])))]
    assert not any("my_python_function" in n for n in names)


def test_library_host_ranges_keep_tf_names(tmp_path):
    from torchflow._src.core import profiler_backend

    assert profiler_backend.host_range("Iterator::GetNext") is profiler_backend.host_range("x")
    prof.start(str(tmp_path))
    with prof.Trace("train", step_num=0, _r=1):
        with profiler_backend.host_range("Iterator::GetNext#element_id=4#"):
            tf.ones((2, 2)) + 1.0
    prof.stop()
    files = xplane_files(tmp_path)
    evs = events(host_plane(load_space(files[0])))
    assert [s for _, n, _, _, s in evs if n == "Iterator::GetNext"] == [{"element_id": 4}]
    trace = xprof_tool(files, "trace_viewer")
    assert any(e.get("name") == "Iterator::GetNext" for e in trace["traceEvents"])
