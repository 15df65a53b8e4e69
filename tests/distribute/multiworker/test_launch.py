"""``torchflow launch``: a local cluster on torchrun's elastic agent, and the ps mode.

Every launcher run has a bounded wait and its process group is killed in a finally.
"""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from cluster_helpers import child_env

pytestmark = pytest.mark.multiprocess


def _launch(args, cwd, timeout):
    env = child_env()
    proc = subprocess.Popen([sys.executable, "-m", "torchflow.launch", *map(str, args)],
                            cwd=str(cwd), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    t0 = time.monotonic()
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        raise AssertionError(f"launcher did not finish within {timeout} s") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _results(out):
    res = {}
    for line in out.splitlines():
        if "] RESULT " in line:
            role, _, body = line.partition("] RESULT ")
            res[role.lstrip("[")] = json.loads(body)
    return res


ROLES = """
import json, os, sys, time
cfg = json.loads(os.environ["TF_CONFIG"])
task = cfg["task"]
print("RESULT " + json.dumps({"task": task, "cluster": cfg["cluster"],
                              "rank": os.environ.get("RANK"),
                              "world": os.environ.get("WORLD_SIZE"),
                              "master": os.environ.get("MASTER_ADDR")}), flush=True)
open(f"ready-{task['type']}-{task['index']}", "w").close()
if task["type"] == sys.argv[1] and task["index"] == int(sys.argv[2]):
    # Exits once every task has printed (a loaded machine starts them slowly), so
    # that the launcher's ending of the others is what the test sees.
    n = sum(len(v) for v in cfg["cluster"].values())
    end = time.monotonic() + 30
    while len([f for f in os.listdir(".") if f.startswith("ready-")]) < n and \
            time.monotonic() < end:
        time.sleep(0.05)
    sys.exit(int(sys.argv[3]))
time.sleep(float(sys.argv[4]))
"""


def test_sync_job_prefixes_roles_and_ends_everyone_when_a_task_fails(tmp_path):
    (tmp_path / "roles.py").write_text(ROLES)
    # worker 1 fails at once; the chief and worker 0 would sleep 120 s.
    code, out, elapsed = _launch(["--workers", 2, "--chief", "roles.py", "worker", 1, 3, 120],
                                 tmp_path, timeout=90)
    assert code == 3, out[-3000:]
    assert elapsed < 60
    res = _results(out)
    assert set(res) == {"chief 0", "worker 0", "worker 1"}, out[-3000:]
    for role, r in res.items():
        job, index = role.split()
        assert r["task"] == {"type": job, "index": int(index)}
        assert r["cluster"].keys() == {"chief", "worker"} and len(r["cluster"]["worker"]) == 2
        # TF's rank order: the chief is rank 0, then the workers.
        assert int(r["rank"]) == (0 if job == "chief" else 1 + int(index))
        assert (r["world"], r["master"]) == ("3", "127.0.0.1")
    assert "task worker 1 (rank 2) failed with exit code 3" in out


def test_ps_job_ends_when_the_chief_exits(tmp_path):
    (tmp_path / "roles.py").write_text(ROLES)
    # The chief exits 0 at once; the ps tasks and the worker would serve for 120 s.
    code, out, elapsed = _launch(["--workers", 1, "--ps", 2, "--chief", "roles.py",
                                  "chief", 0, 0, 120], tmp_path, timeout=90)
    assert code == 0, out[-3000:]
    assert elapsed < 60
    res = _results(out)
    assert set(res) == {"chief 0", "worker 0", "ps 0", "ps 1"}, out[-3000:]
    assert all(r["rank"] is None for r in res.values())  # not a torchrun group
    assert res["ps 1"]["cluster"]["ps"][1].startswith("127.0.0.1:")


RESTART = """
import json, os, signal, sys
import numpy as np
import torchflow as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
tf.random.set_seed(0)
x = (np.arange(48 * 3).reshape(48, 3) % 7 / 7).astype(np.float32)
y = (x @ np.array([1., 2., 3.], np.float32) + 0.5).astype(np.float32)[:, None]
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
tid = strategy.cluster_resolver.task_id
epochs = []
class Crash(tf.keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        epochs.append(epoch)
        if sys.argv[2] == "crash" and attempt == "0" and tid == 1 and epoch == 2:
            os.kill(os.getpid(), signal.SIGKILL)
model.fit(ds, epochs=4, verbose=0,
          callbacks=[tf.keras.callbacks.experimental.BackupAndRestore(sys.argv[1]), Crash()])
print("RESULT " + json.dumps({"w": [w.tolist() for w in model.get_weights()],
                              "attempt": attempt, "epochs": epochs}), flush=True)
"""


def test_max_restarts_survives_a_killed_worker_with_backup_and_restore(tmp_path):
    (tmp_path / "restart.py").write_text(RESTART)
    # The uninterrupted reference: the same program, one process, same global batches.
    ref = subprocess.Popen([sys.executable, "restart.py", str(tmp_path / "ref_backup"), "no"],
                           cwd=str(tmp_path), env=child_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        code, out, _ = _launch(["--workers", 2, "--max-restarts", 1, "restart.py",
                                tmp_path / "backup", "crash"], tmp_path, timeout=150)
        ref_out, ref_err = ref.communicate(timeout=60)
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.wait(timeout=10)
    assert code == 0, out[-4000:]
    assert "failed (exitcode: -9)" in out  # the agent saw the SIGKILL and restarted
    res = _results(out)
    assert set(res) == {"worker 0", "worker 1"}, out[-4000:]
    assert all(r["attempt"] == "1" for r in res.values())
    # BackupAndRestore resumed after the last completed epoch, not from the start.
    assert all(r["epochs"][0] >= 1 and r["epochs"][-1] == 3 for r in res.values())
    assert res["worker 0"]["w"] == res["worker 1"]["w"]
    want = json.loads(ref_out.splitlines()[-1][len("RESULT "):])["w"]
    for a, b in zip(res["worker 0"]["w"], want):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-5, atol=1e-6)
    assert not (tmp_path / "backup").exists()  # the chief deleted the backup at the end


def test_torchflow_cli_runs_launch(capsys):
    from torchflow._src import cli

    with pytest.raises(SystemExit) as e:
        cli.main(["launch", "--help"])
    assert e.value.code == 0 and "--max-restarts" in capsys.readouterr().out
    assert cli.main(["nope"]) == 2

TORCHRUN = """
import json, os
import torchflow as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
r = strategy.cluster_resolver
tf.random.set_seed(r.task_id + 1)
with strategy.scope():
    v = tf.Variable(tf.random.normal([3]))
s = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
    "SUM", tf.constant(float(r.task_id + 1))))
print("RESULT " + json.dumps({"task": [r.task_type, r.task_id], "v": v.numpy().tolist(),
                              "sum": float(s), "nrep": strategy.num_replicas_in_sync,
                              "workers": r.cluster_spec().num_tasks("worker")}), flush=True)
"""


def test_plain_torchrun_without_tf_config(tmp_path):
    from cluster_helpers import free_ports

    (tmp_path / "tr.py").write_text(TORCHRUN)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
           "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{free_ports(1)[0]}",
           "--tee", "3", "tr.py"]
    proc = subprocess.Popen(cmd, cwd=str(tmp_path), env=child_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    assert proc.returncode == 0, out[-3000:]
    res = [json.loads(line.partition("RESULT ")[2]) for line in out.splitlines()
           if "RESULT " in line]
    assert sorted(r["task"][1] for r in res) == [0, 1], out[-3000:]
    for r in res:
        assert r["task"][0] == "worker" and r["workers"] == 2 and r["nrep"] == 2
        assert r["sum"] == 3.0
        assert r["v"] == res[0]["v"]  # rank 0's initial value, broadcast
