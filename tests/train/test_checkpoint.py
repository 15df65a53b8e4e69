"""tf.train.Checkpoint / CheckpointManager: round trips, deferred restore, crash safety.

References: the values saved (NumPy copies taken before the save) and TF 2.4's
documented semantics (save numbering, state file, max_to_keep).
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import torchflow as tf


class Net(tf.Module):
    def __init__(self, n=3):
        super().__init__()
        self.w = tf.Variable(np.arange(n * 2, dtype=np.float32).reshape(n, 2))
        self.layers = [tf.Variable(1.0), tf.Variable([1, 2, 3])]
        self.table = {"b": tf.Variable(np.float64(2.5))}


class Lazy(tf.Module):
    """Builds its variable on first call, like a Keras layer."""

    def __init__(self):
        super().__init__()
        self.kernel = None

    def build(self):
        self.kernel = tf.Variable(np.zeros((2, 2), np.float32))


def _values(m):
    return [v.numpy().copy() for v in m.variables]


def test_save_restore_round_trip(tmp_path):
    net = Net()
    ckpt = tf.train.Checkpoint(model=net)
    before = _values(net)
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    assert os.path.exists(path + ".index")
    assert [n for n in os.listdir(tmp_path) if n.startswith("ckpt-1.data-")]
    for v in net.variables:
        v.assign(tf.zeros_like(v) if v.dtype != tf.int32 else tf.constant([0, 0, 0]))
    status = ckpt.restore(path)
    status.assert_consumed()
    for a, b in zip(_values(net), before):
        np.testing.assert_array_equal(a, b)
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")


def test_restore_into_new_objects_and_save_counter(tmp_path):
    net = Net()
    ckpt = tf.train.Checkpoint(model=net)
    ckpt.save(str(tmp_path / "c"))
    path = ckpt.save(str(tmp_path / "c"))
    net2 = Net()
    for v in net2.variables:
        v.assign(tf.zeros_like(v))
    ckpt2 = tf.train.Checkpoint(model=net2)
    ckpt2.restore(path).assert_consumed()
    for a, b in zip(_values(net2), _values(net)):
        np.testing.assert_array_equal(a, b)
    assert int(ckpt2.save_counter.numpy()) == 2
    assert ckpt2.save(str(tmp_path / "c")).endswith("c-3")


def test_deferred_restore_on_create(tmp_path):
    m = Lazy()
    m.build()
    m.kernel.assign(np.array([[1, 2], [3, 4]], np.float32))
    path = tf.train.Checkpoint(m=m).save(str(tmp_path / "c"))
    fresh = Lazy()
    status = tf.train.Checkpoint(m=fresh).restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    fresh.build()  # the value waits until the variable exists
    np.testing.assert_array_equal(fresh.kernel.numpy(), [[1, 2], [3, 4]])
    status.assert_consumed()


def test_expect_partial_and_mismatch(tmp_path):
    net = Net()
    path = tf.train.Checkpoint(model=net, extra=tf.Variable(3.0)).save(str(tmp_path / "c"))
    net2 = Net()
    status = tf.train.Checkpoint(model=net2).restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    status.expect_partial().assert_existing_objects_matched()
    status.assert_nontrivial_match()
    bad = Net(n=4)
    with pytest.raises(ValueError, match="shape"):
        tf.train.Checkpoint(model=bad).restore(path)


def test_missing_checkpoint_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nope-1"))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_non_trackable_argument_raises():
    with pytest.raises(ValueError):
        tf.train.Checkpoint(x=3)


def test_write_read_and_reader(tmp_path):
    v = tf.Variable([[1.5, 2.5]])
    ck = tf.train.Checkpoint(v=v)
    p = ck.write(str(tmp_path / "w"))
    assert p == str(tmp_path / "w")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # write() keeps no state file
    names = dict(tf.train.list_variables(p))
    # TF lists the object graph too (a scalar string)
    assert names == {"v/.ATTRIBUTES/VARIABLE_VALUE": [1, 2], "_CHECKPOINTABLE_OBJECT_GRAPH": []}
    np.testing.assert_array_equal(tf.train.load_variable(p, "v"), [[1.5, 2.5]])
    v.assign([[0.0, 0.0]])
    ck.read(p).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [[1.5, 2.5]])


def test_manager_max_to_keep_and_restore_or_initialize(tmp_path):
    v = tf.Variable(0)
    ck = tf.train.Checkpoint(v=v)
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=2)
    assert mgr.restore_or_initialize() is None
    paths = []
    for i in range(4):
        v.assign(i)
        paths.append(mgr.save())
    assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3", "ckpt-4"]
    assert mgr.checkpoints == paths[-2:]
    assert not os.path.exists(paths[0] + ".index")
    assert os.path.exists(paths[-1] + ".index")
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    v2 = tf.Variable(-1)
    ck2 = tf.train.Checkpoint(v=v2)
    mgr2 = tf.train.CheckpointManager(ck2, str(tmp_path), max_to_keep=2)
    assert mgr2.checkpoints == paths[-2:]
    assert mgr2.restore_or_initialize() == paths[-1]
    assert int(v2.numpy()) == 3
    assert os.path.basename(mgr2.save(checkpoint_number=10)) == "ckpt-10"


def test_manager_keep_every_n_hours(tmp_path):
    ck = tf.train.Checkpoint(v=tf.Variable(0))
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=1,
                                     keep_checkpoint_every_n_hours=0.0)
    p1 = mgr.save()
    mgr.save()
    assert os.path.exists(p1 + ".index")  # preserved by the hours rule


def test_checkpoints_iterator(tmp_path):
    ck = tf.train.Checkpoint(v=tf.Variable(0))
    mgr = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=3)
    p = mgr.save()
    it = tf.train.checkpoints_iterator(str(tmp_path), timeout=0.3)
    assert next(it) == p
    t0 = time.time()
    assert list(it) == []
    assert time.time() - t0 < 5


def test_optimizer_style_slots_restore_deferred(tmp_path):
    """An object exposing slots through the checkpoint protocol (as Keras
    optimizers do) gets its slot values back when it creates them later."""
    from torchflow._src.core import tracking

    class Opt:
        def __init__(self):
            self.slots = {}
            self.iterations = tf.Variable(0, dtype=tf.int64)

        def _checkpoint_dependencies(self):
            return [("iter", self.iterations)]

        def _checkpoint_slots(self):
            return [(n, v, s) for (n, vid), (v, s) in self.slots.items()]

        def _lookup_slot(self, var, name):
            item = self.slots.get((name, id(var)))
            return None if item is None else item[1]

        def make_slot(self, var, name):
            s = tf.Variable(tf.zeros_like(var))
            self.slots[(name, id(var))] = (var, s)
            tracking.restore_slot(self, name, var, s)
            return s

    w = tf.Variable([1.0, 2.0])
    opt = Opt()
    opt.make_slot(w, "m").assign([7.0, 8.0])
    opt.iterations.assign(5)
    path = tf.train.Checkpoint(w=w, opt=opt).save(str(tmp_path / "c"))
    keys = dict(tf.train.list_variables(path))
    assert any(".OPTIMIZER_SLOT" in k for k in keys)
    w2, opt2 = tf.Variable([0.0, 0.0]), Opt()
    tf.train.Checkpoint(w=w2, opt=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 5
    np.testing.assert_array_equal(opt2.make_slot(w2, "m").numpy(), [7.0, 8.0])


CRASH_SCRIPT = textwrap.dedent("""
    import sys, os
    import numpy as np
    import torchflow as tf
    v = tf.Variable(np.full((1000,), float(sys.argv[2]), np.float32))
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), sys.argv[1], max_to_keep=5)
    print(mgr.save(), flush=True)
""")


def test_killed_mid_save_keeps_last_good_checkpoint(tmp_path):
    script = tmp_path / "save.py"
    script.write_text(CRASH_SCRIPT)
    d = str(tmp_path / "ck")
    env = dict(os.environ)
    out = subprocess.run([sys.executable, str(script), d, "1"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    good = out.stdout.strip().splitlines()[-1]
    env["TORCHFLOW_TEST_CKPT_SAVE_DELAY"] = "30"
    proc = subprocess.Popen([sys.executable, str(script), d, "2"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 90
        while time.time() < deadline:  # wait until the new save's data file landed
            if len([n for n in os.listdir(d) if ".data-" in n and ".tmp" not in n]) == 2:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert tf.train.latest_checkpoint(d) == good
    v = tf.Variable(np.zeros((1000,), np.float32))
    tf.train.Checkpoint(v=v).restore(tf.train.latest_checkpoint(d)).assert_consumed()
    assert float(v.numpy()[0]) == 1.0


def test_dataset_iterator_position_round_trips(tmp_path):
    ds = tf.data.Dataset.range(10).shuffle(10, seed=3).batch(2)
    it = iter(ds)
    next(it)
    ckpt = tf.train.Checkpoint(iterator=it)
    path = ckpt.save(str(tmp_path / "it"))
    expected = [b.numpy().tolist() for b in it]
    it2 = iter(ds)
    tf.train.Checkpoint(iterator=it2).restore(path).assert_consumed()
    assert [b.numpy().tolist() for b in it2] == expected


def test_relative_prefix_round_trip(tmp_path, monkeypatch):
    # A prefix without a directory ("ckpt", as the Keras save guide writes) keeps its data file.
    monkeypatch.chdir(tmp_path)
    v = tf.Variable([1.0, 2.0])
    tf.train.Checkpoint(v=v).write("ckpt")
    assert sorted(os.listdir(tmp_path)) == ["ckpt.data-00000-of-00001", "ckpt.index"]
    v.assign([0.0, 0.0])
    tf.train.Checkpoint(v=v).read("ckpt").assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
