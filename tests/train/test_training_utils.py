"""tf.train names beyond Checkpoint, against real TF: get_checkpoint_state, Coordinator,
ExponentialMovingAverage, CheckpointOptions, PythonState, the 2.4 loss scales, and the
dtype/shape checks of a restore."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def test_get_checkpoint_state_matches_tf(tmp_path):
    rtf = real_tf()
    out = {}
    for m in (tf, rtf):
        d = tmp_path / m.__name__
        ck = m.train.Checkpoint(v=m.Variable(1.0))
        ck.save(str(d / "c"))
        ck.save(str(d / "c"))
        st = m.train.get_checkpoint_state(str(d))
        out[m] = (os.path.basename(st.model_checkpoint_path),
                  [os.path.basename(p) for p in st.all_model_checkpoint_paths])
        assert m.train.get_checkpoint_state(str(tmp_path / "none")) is None
    assert out[tf] == out[rtf]
    # The same proto: TF parses our message's bytes.
    st = tf.train.get_checkpoint_state(str(tmp_path / "torchflow"))
    from tensorflow.python.training import checkpoint_state_pb2  # the test's reference only

    ref = checkpoint_state_pb2.CheckpointState.FromString(st.SerializeToString())
    assert ref.model_checkpoint_path == st.model_checkpoint_path


@pytest.mark.parametrize("num_updates", [None, 3])
def test_exponential_moving_average_matches_tf(num_updates):
    rtf = real_tf()
    res = {}
    for m in (tf, rtf):
        v = m.Variable([1.0, 2.0])
        ema = m.train.ExponentialMovingAverage(0.9, num_updates=num_updates)
        ema.apply([v])
        trace = []
        for x in ([3.0, 0.0], [5.0, -1.0], [4.0, 4.0]):
            v.assign(x)
            ema.apply([v])
            trace.append(ema.average(v).numpy().tolist())
        res[m] = (trace, ema.average_name(v))
    np.testing.assert_allclose(res[tf][0], res[rtf][0], rtol=1e-6)
    if num_updates is None:  # TF uniquifies the name differently once num_updates is set
        assert res[tf][1] == res[rtf][1]


def test_ema_rejects_integer_variables():
    rtf = real_tf()
    for m in (tf, rtf):
        with pytest.raises(TypeError, match="must be half, float, or double"):
            m.train.ExponentialMovingAverage(0.9).apply([m.Variable(1)])


def test_coordinator_relays_exception_and_stops_threads():
    rtf = real_tf()
    for m in (tf, rtf):
        coord = m.train.Coordinator()
        seen = []

        def work(i, coord=coord, seen=seen):
            with coord.stop_on_exception():
                while not coord.should_stop():
                    if i == 1:
                        raise ValueError("worker failed")
                    coord.wait_for_stop(0.01)
                seen.append(i)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        with pytest.raises(ValueError, match="worker failed"):
            coord.join(threads, stop_grace_period_secs=5)
        assert coord.should_stop() and coord.joined
        assert sorted(seen) == [0, 2]
        clean = m.train.Coordinator()
        clean.request_stop(m.errors.OutOfRangeError(None, None, "end"))
        clean.join([])  # a clean-stop exception is not re-raised


def test_coordinator_reports_stragglers():
    rtf = real_tf()
    for m in (tf, rtf):
        coord = m.train.Coordinator()
        ev = threading.Event()
        t = threading.Thread(target=ev.wait, name="straggler")
        t.start()
        coord.request_stop()
        with pytest.raises(RuntimeError, match="Coordinator stopped with threads still "
                                               "running: straggler"):
            coord.join([t], stop_grace_period_secs=0.1)
        ev.set()
        t.join()


def test_restore_into_other_dtype_or_shape_raises_as_tf(tmp_path):
    rtf = real_tf()
    for m in (tf, rtf):
        p = m.train.Checkpoint(v=m.Variable([1.0, 2.0])).save(str(tmp_path / m.__name__ / "c"))
        with pytest.raises(m.errors.InvalidArgumentError,
                           match="expected dtype int32 does not equal original dtype float"):
            m.train.Checkpoint(v=m.Variable([0, 0])).restore(p)
        with pytest.raises(m.errors.InvalidArgumentError,
                           match="expected dtype double does not equal original dtype float"):
            m.train.Checkpoint(v=m.Variable([0.0, 0.0], dtype=m.float64)).restore(p)
        with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(2,\) "
                                             r"when attempting to restore variable with shape "
                                             r"\(3,\)"):
            m.train.Checkpoint(v=m.Variable([0.0, 0.0, 0.0])).restore(p)


def test_python_state_round_trips_through_checkpoint(tmp_path):
    class Counter(tf.train.experimental.PythonState):
        def __init__(self):
            self.n = 0

        def serialize(self):
            return str(self.n)

        def deserialize(self, s):
            self.n = int(s)

    c = Counter()
    c.n = 41
    path = tf.train.Checkpoint(c=c).save(str(tmp_path / "c"))
    d = Counter()
    tf.train.Checkpoint(c=d).restore(path)
    assert d.n == 41


def test_loss_scales_follow_tf_2_4():
    # tf.train.experimental.DynamicLossScale is gone from TF 2.21; the expected values
    # are TF 2.4's documented rule: halve on a non-finite step, multiply after
    # increment_period finite steps.
    ls = tf.train.experimental.DynamicLossScale(initial_loss_scale=8.0, increment_period=2,
                                                multiplier=2.0)
    seq = []
    for g in ([1.0], [np.inf], [1.0], [1.0], [1.0], [np.nan]):
        _, ok = ls.update([tf.constant(g)])
        seq.append((float(ls()), bool(ok)))
    assert seq == [(8.0, True), (4.0, False), (4.0, True), (8.0, True), (8.0, True),
                   (4.0, False)]
    f = tf.train.experimental.FixedLossScale(128)
    assert float(f()) == 128.0 and bool(f.update([tf.constant([np.inf])])[1])
    with pytest.raises(ValueError):
        tf.train.experimental.FixedLossScale(0.5)
    assert tf.train.experimental.DynamicLossScale.from_config(ls.get_config()).multiplier == 2.0
    assert tf.train.CheckpointOptions(experimental_io_device="/job:localhost") \
        .experimental_io_device == "/job:localhost"


def test_list_attribute_restores_elements_appended_later(tmp_path):
    rtf = real_tf()
    for m in (tf, rtf):
        save = m.train.Checkpoint()
        save.listed = [m.Variable(1.0)]
        save.listed.append(m.Variable(2.0))
        path = save.save(str(tmp_path / m.__name__ / "c"))
        restore = m.train.Checkpoint()
        restore.listed = []
        assert repr(restore.listed) == "ListWrapper([])"
        restore.restore(path)
        v1, v2 = m.Variable(0.0), m.Variable(0.0)
        restore.listed.append(v1)
        restore.listed.extend([v2])
        assert (float(v1.numpy()), float(v2.numpy())) == (1.0, 2.0)


def test_cluster_and_server_def_protos_are_tfs():
    rtf = real_tf()
    cd = tf.train.ClusterDef()
    job = cd.job.add(name="worker")
    job.tasks[0] = "localhost:2222"
    job.tasks[1] = "localhost:2223"
    assert rtf.train.ClusterDef.FromString(cd.SerializeToString()) == \
        rtf.train.ClusterSpec({"worker": ["localhost:2222", "localhost:2223"]}).as_cluster_def()
    sd = tf.train.ServerDef(cluster=cd, job_name="worker", task_index=1, protocol="grpc",
                            port=2223)
    ref = rtf.train.ServerDef.FromString(sd.SerializeToString())
    assert (ref.job_name, ref.task_index, ref.protocol, ref.port) == ("worker", 1, "grpc", 2223)
    assert ref.cluster.job[0].tasks[1] == "localhost:2223"
    back = tf.train.ServerDef.FromString(ref.SerializeToString())
    assert back == sd
    assert isinstance(tf.train.JobDef(name="ps"), tf.train.JobDef)
