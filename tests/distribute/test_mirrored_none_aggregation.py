"""MirroredStrategy variables with NONE aggregation written per replica, as TF 2.4.

TF 2.4 keeps one copy of a mirrored variable per replica: a write in a replica
context with ``VariableAggregation.NONE`` (the default of ``tf.Variable``) changes
that replica's copy alone, replicas then read their own copy, a cross-replica
``assign`` and ``strategy.extended.update`` write every copy. torchflow's local
replicas share one storage until the first such write (then each gets its own);
the program below runs under real TF and under torchflow, each in a fresh process
(the logical CPUs must be set before the runtime starts), and prints the same.
"""

import json
import os
import subprocess
import sys

import pytest

PROGRAM = r'''
import json, sys
if sys.argv[1] == "tensorflow":
    import tensorflow as tf
else:
    import torchflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with s.scope():
    v = tf.Variable([1.0, 2.0])
    n = tf.Variable(0.0, aggregation=tf.VariableAggregation.NONE)
    mean = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
out = {}
def local(x):
    return [c.numpy().tolist() for c in s.experimental_local_results(x)]
def rid():
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
s.run(lambda: v.assign_add([rid() + 1.0, 10 * rid()]))
out["assign_add"] = local(v)
out["cross_read"] = v.numpy().tolist()
out["replica_reads"] = local(s.run(lambda: v.read_value() * 1.0))
v.assign([5.0, 6.0])
out["cross_assign"] = local(v)
s.extended.update(v, lambda var, d: var.assign_sub(d), args=(tf.constant([1.0, 1.0]),))
out["update"] = local(v)
s.run(lambda: n.assign(rid() + 1.0))
out["scalar_assign"] = local(n)
out["reduce_sum"] = float(s.reduce("SUM", s.run(lambda: n.read_value()), axis=None))
s.run(lambda: mean.assign(rid() + 1.0))
out["mean_assign"] = local(mean)
@tf.function
def step():
    s.run(lambda: v.assign_add([1.0, rid()]))
step()
step()
out["in_function"] = local(v)
print("RESULT " + json.dumps(out))
'''


def _run(module: str) -> dict:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, "-c", PROGRAM, module], capture_output=True,
                       text=True, env=env, timeout=240)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


def test_none_aggregation_writes_each_replicas_copy_as_tf():
    pytest.importorskip("tensorflow")
    ours = _run("torchflow")
    theirs = _run("tensorflow")
    assert ours == theirs
    # the values themselves, so that a change in both cannot pass unseen
    assert ours["assign_add"] == [[2.0, 2.0], [3.0, 12.0]]
    assert ours["scalar_assign"] == [1.0, 2.0] and ours["reduce_sum"] == 3.0
    assert ours["in_function"] == [[6.0, 5.0], [6.0, 7.0]]
