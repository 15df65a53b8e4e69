"""Workers of one cluster on one machine share its CPUs (torchrun's default).

torch's CPU kernels would otherwise give every worker a thread per core; on a
2-CPU machine two workers' threads stall each other (measured: a 2-worker
``fit`` ran at half the speed). TF has no such setting; the user's own choice
(``OMP_NUM_THREADS`` or ``tf.config.threading``) always wins.
"""

import os

import pytest

pytestmark = pytest.mark.multiprocess

SCRIPT = """
import json, os, sys
os.environ.pop("OMP_NUM_THREADS", None)  # before torch loads: the default count
import torch
import torchflow as tf
if sys.argv[1] == "config":
    tf.config.threading.set_intra_op_parallelism_threads(os.cpu_count())
before = torch.get_num_threads()
strategy = tf.distribute.MultiWorkerMirroredStrategy()
total = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
    "SUM", tf.constant(float(strategy.cluster_resolver.task_id + 1))))
print("RESULT " + json.dumps({"before": before, "after": torch.get_num_threads(),
                              "sum": float(total)}))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs 2 CPUs to share")
def test_two_local_workers_split_the_cpus_unless_the_user_chose(run_cluster):
    cpus = os.cpu_count() or 1
    for mode, expected in (("default", max(1, cpus // 2)), ("config", cpus)):
        outs = run_cluster(SCRIPT, 2, timeout=90, args=(mode,))
        for o in outs:
            assert o["rc"] == 0, o["err"][-2000:]
            r = o["result"]
            assert r["sum"] == 3.0
            assert r["after"] == expected, (mode, r)
            if mode == "default":
                assert r["before"] == cpus  # torchflow's own default, before the split
