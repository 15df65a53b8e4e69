"""Events the library records for TF's profiler: tf.function calls, checkpoints, tf.data.

Each is compared with what real TensorFlow's profiler records for the same program (its
own ``.xplane.pb``, read with the same helpers), and read back through XProf's converter.
"""

from __future__ import annotations

import inspect
import os
import time

import pytest
from xprof_helpers import events, host_plane, load_space, xplane_files, xprof_tool

import torchflow as tf
from torchflow._src.core import function as function_module
from torchflow._src.core import profiler_backend
from torchflow._src.profiler import session as session_lib
from torchflow._src.profiler import view
from torchflow._src.testing import real_tf

prof = tf.profiler.experimental


@pytest.fixture(autouse=True)
def _no_session_left():
    def end_any():
        if session_lib._current is not None:
            session_lib.end(session_lib._current, collect=False)
        session_lib._logdir = None

    end_any()
    yield
    end_any()


def _host_events(logdir):
    (path,) = xplane_files(logdir)
    return events(host_plane(load_space(path)))


def _function_calls(module, logdir, hook):
    """Calls a tf.function three times (trace, replay, retrace for a new dtype) in a profile."""
    @module.function
    def double(x):
        return x * 2

    module.profiler.experimental.start(str(logdir))
    for value in (module.constant(1.0), module.constant(2.0), module.constant(3)):
        if hook:  # what core/function.py's __call__ does (TF's Function.__call__)
            with profiler_backend.function_call("double", double.experimental_get_tracing_count):
                double(value)
        else:
            double(value)
    module.profiler.experimental.stop()
    calls = [(s.get("tf_function_call"), s.get("tracing_count"))
             for _, name, _, _, s in _host_events(logdir) if name == "double"]
    return calls


def test_function_call_events_match_tensorflow(tmp_path):
    ours = _function_calls(tf, tmp_path / "ours", hook=False)  # tf.function records itself
    theirs = _function_calls(real_tf(), tmp_path / "tf", hook=False)
    assert theirs == [("traced-nonXla", 1), ("notTraced-nonXla", 1), ("traced-nonXla", 2)]
    assert ours == theirs
    trace = xprof_tool(xplane_files(tmp_path / "ours"), "trace_viewer")
    assert sum(e.get("name") == "double" for e in trace["traceEvents"]) == 3


def test_tf_function_calls_are_recorded_without_a_wrapper(tmp_path):
    # Once core/function.py's __call__ calls the hook, a plain tf.function call is
    # recorded as TF records it (until then this says what is missing).
    if "profiler_backend.function_call" not in inspect.getsource(function_module):
        pytest.skip("core/function.py does not call profiler_backend.function_call yet")
    ours = _function_calls(tf, tmp_path / "ours", hook=False)
    theirs = _function_calls(real_tf(), tmp_path / "tf", hook=False)
    assert ours == theirs


def test_function_call_idle_is_a_shared_noop():
    counted = []

    def count():
        counted.append(1)
        return 0

    # idle: the shared no-op, the counter never called
    assert profiler_backend.function_call("f", count) is profiler_backend.host_range("x")
    with profiler_backend.function_call("f", count):
        pass
    assert counted == []


def test_function_call_eager_mode_stat(tmp_path):
    prof.start(str(tmp_path))
    with profiler_backend.function_call("g", None):  # run_functions_eagerly, as TF marks it
        tf.ones((2,)) + 1.0
    prof.stop()
    assert [s for _, n, _, _, s in _host_events(tmp_path) if n == "g"] == [
        {"tf_function_call": "eager"}]


def _checkpoint_names(module, logdir):
    v = module.Variable(3.0)
    ckpt = module.train.Checkpoint(v=v)
    module.profiler.experimental.start(str(logdir))
    path = ckpt.save(os.path.join(str(logdir), "ckpt"))
    v.assign(5.0)
    ckpt.restore(path)
    module.profiler.experimental.stop()
    assert float(v.numpy()) == 3.0
    return {name.rpartition(": ")[2] for _, name, *_ in _host_events(logdir)}


def test_checkpoint_save_and_restore_events_match_tensorflow(tmp_path):
    ours = _checkpoint_names(tf, tmp_path / "ours")
    theirs = _checkpoint_names(real_tf(), tmp_path / "tf")  # "EagerLocalExecute: SaveV2"
    assert {"SaveV2", "RestoreV2"} <= theirs
    assert {"SaveV2", "RestoreV2"} <= ours
    trace = xprof_tool(xplane_files(tmp_path / "ours"), "trace_viewer")
    assert {"SaveV2", "RestoreV2"} <= {e.get("name") for e in trace["traceEvents"]}


def test_level_1_ranges_nest_without_torch_ops(tmp_path):
    # host_tracer_level=1: no torch profiler on the host; ranges are kept in Python and
    # still nest (the step holds the tf.function call and the checkpoint write).
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    prof.start(str(tmp_path / "run"), options=prof.ProfilerOptions(host_tracer_level=1))
    with prof.Trace("train", step_num=0, _r=1):
        with profiler_backend.function_call("step_fn", lambda: 1):
            tf.matmul(tf.ones((4, 4)), tf.ones((4, 4)))
        ckpt.write(str(tmp_path / "ck"))
    prof.stop()
    evs = _host_events(tmp_path / "run")
    names = {name for _, name, *_ in evs}
    assert names == {"train", "step_fn", "SaveV2"}
    (step,) = [e for e in evs if e[1] == "train"]
    assert step[4] == {"step_num": 0, "_r": 1}
    for e in evs:
        assert e[0] == step[0] and step[2] <= e[2] and e[2] + e[3] <= step[2] + step[3]


def test_stop_without_save_then_profile_again(tmp_path):
    prof.start(str(tmp_path / "a"))
    tf.ones((3,)) * 2.0
    prof.stop(save=False)
    assert xplane_files(tmp_path / "a") == []
    prof.start(str(tmp_path / "b"))
    with prof.Trace("train", step_num=1, _r=1):
        tf.ones((3,)) * 2.0
    prof.stop()
    assert "train" in {name for _, name, *_ in _host_events(tmp_path / "b")}


def _iterate(module, logdir, pipeline):
    ds = pipeline(module.data.Dataset)
    options = module.data.Options()
    options.experimental_optimization.apply_default_optimizations = False
    try:
        options.experimental_optimization.autotune = False  # TF 2.4's spelling
    except AttributeError:
        options.autotune.enabled = False  # TF 2.21's
    ds = ds.with_options(options)
    module.profiler.experimental.start(str(logdir))
    it = iter(ds)
    got = [next(it).numpy().tolist(), it.get_next().numpy().tolist()]
    module.profiler.experimental.stop()
    return got, _host_events(logdir)


@pytest.mark.parametrize("pipeline", [
    lambda D: D.range(20).batch(4),
    lambda D: D.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).map(lambda x: x * 2).prefetch(1),
    lambda D: D.range(6).shuffle(3, seed=1).repeat(2).padded_batch(2),
], ids=["batch", "map-prefetch", "padded_batch"])
def test_iterator_get_next_events_match_tensorflow(tmp_path, pipeline):
    ours, our_events = _iterate(tf, tmp_path / "ours", pipeline)
    theirs, their_events = _iterate(real_tf(), tmp_path / "tf", pipeline)
    if "shuffle" not in str(pipeline.__code__.co_names):
        assert ours == theirs
    # TF 2.21's root iterator is "Iterator::Root"; TF 2.4's was its ModelDataset,
    # "Iterator::Model". The stage under the root carries TF's dataset type name.
    their_stages = {n.split("::")[2] for _, n, *_ in their_events
                    if n.startswith("Iterator::") and n.count("::") == 2}
    our_names = [n for _, n, *_ in our_events]
    assert our_names.count("Iterator::Model") == 2
    (our_stage,) = {n.split("::")[2] for n in our_names
                    if n.startswith("Iterator::Model::")}
    assert their_stages == {our_stage}
    steps = [s["iter_num"] for _, n, _, _, s in our_events if n == "IteratorGetNext::DoCompute"]
    assert steps == [0, 1]
    trace = xprof_tool(xplane_files(tmp_path / "ours"), "trace_viewer")
    assert "Iterator::Model::" + our_stage in {e.get("name") for e in trace["traceEvents"]}


def test_view_counts_tf_data_waits_as_input(tmp_path):
    # A step that waits on a slow pipeline: the GetNext events make that wait "input"
    # in `torchflow profile view` (at least the 20 ms the map sleeps per element).
    def slow(x):
        def read(v):  # a py_function runs per element (the map's Python only at trace)
            time.sleep(0.02)
            return v

        return tf.py_function(read, [x], tf.int64) * 2

    it = iter(tf.data.Dataset.range(4).map(slow))
    next(it)
    prof.start(str(tmp_path))
    for step in range(2):
        with prof.Trace("train", step_num=step, _r=1):
            x = next(it)
            tf.matmul(tf.ones((8, 8)), tf.ones((8, 8))) + tf.cast(x, tf.float32)
    prof.stop()
    (run,) = view.analyze(tmp_path).values()
    (worker,) = run["workers"].values()
    for step in ("0", "1"):
        split = worker["steps"][step]
        assert 20_000 <= split["input_us"] <= split["total_us"]
        assert run["steps"][step]["biggest"] == "input"
