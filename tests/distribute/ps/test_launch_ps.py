"""``torchflow launch --ps``: a parameter-server job, the launcher's token shared by
every task (each task checks it on every call)."""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.multiprocess

SCRIPT = textwrap.dedent("""
    import os
    import torchflow as tf

    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver.task_type in ("worker", "ps"):
        tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                             task_index=resolver.task_id, protocol="grpc").join()
    else:
        assert len(os.environ["TORCHFLOW_CLUSTER_TOKEN"]) == 64
        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
        with strategy.scope():
            counter = tf.Variable(0, dtype=tf.int64)

        @tf.function
        def bump():
            counter.assign_add(1)
            return os.getpid()

        pids = {coordinator.schedule(bump) for _ in range(40)}
        coordinator.join()
        print("COUNTER", int(counter.numpy()), "WORKERS", len({p.fetch() for p in pids}))
""")


def test_launch_runs_a_ps_job_with_a_generated_token(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    out = subprocess.run([sys.executable, "-m", "torchflow.launch", "--chief", "--workers", "1",
                          "--ps", "1", str(script)], env=env, capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "[chief 0] COUNTER 40 WORKERS 1" in out.stdout, out.stdout[-3000:]
