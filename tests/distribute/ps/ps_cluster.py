"""A local parameter-server cluster of real processes for tests (127.0.0.1, free ports,
bounded waits, every child killed by PID). A module of its own name, not conftest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from torchflow._src.core import rpc

REPO = Path(__file__).resolve().parents[3]
TOKEN = "ps-test-token-0123456789abcdef"
MAX_BYTES = 4 << 20

# One process imports torchflow once and forks each task (a real process, killed by
# PID): ten starts cost one import, on a machine where an import takes seconds.
_ZYGOTE = """
import json, os, signal, sys
import torchflow as tf
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forked tasks are reaped by the kernel
print("ready", flush=True)
for line in sys.stdin:
    cmd = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            tf.distribute.Server(cmd["cluster"], job_name=cmd["job"],
                                 task_index=cmd["index"]).join()
        finally:
            os._exit(0)
    print(pid, flush=True)
"""


class Zygote:
    """The forking parent of the task processes."""

    def __init__(self):
        env = dict(os.environ, TORCHFLOW_CLUSTER_TOKEN=TOKEN, OMP_NUM_THREADS="1",
                   CUDA_VISIBLE_DEVICES="", TORCHFLOW_RPC_MAX_MESSAGE_BYTES=str(MAX_BYTES),
                   PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("TF_CONFIG", None)
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            self.close()
            raise RuntimeError(f"the task zygote did not start: {line!r}")

    def fork(self, cluster: dict, job: str, index: int) -> int:
        self.proc.stdin.write(json.dumps({"cluster": cluster, "job": job, "index": index}) + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        for f in (self.proc.stdin, self.proc.stdout):
            f.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class Cluster:
    """``workers`` worker and ``ps`` ps processes, each a ``tf.distribute.Server``."""

    def __init__(self, zygote: Zygote, workers: int, ps: int):
        self.zygote = zygote
        ports = [rpc.pick_unused_port() for _ in range(workers + ps)]
        self.spec = {"worker": [f"127.0.0.1:{p}" for p in ports[:workers]],
                     "ps": [f"127.0.0.1:{p}" for p in ports[workers:]]}
        self.pids: dict = {}
        try:
            for job, addrs in self.spec.items():
                for i in range(len(addrs)):
                    self.start(job, i, wait=False)
            for job, addrs in self.spec.items():
                for i in range(len(addrs)):
                    self.wait_ready(job, i)
        except BaseException:
            self.close()
            raise

    def address(self, job: str, i: int) -> str:
        return self.spec[job][i]

    def start(self, job: str, i: int, wait: bool = True) -> None:
        self.pids[(job, i)] = self.zygote.fork(self.spec, job, i)
        if wait:
            self.wait_ready(job, i)

    def wait_ready(self, job: str, i: int, timeout: float = 30.0) -> None:
        ch = rpc.Channel(self.address(job, i), token=TOKEN)
        end = time.monotonic() + timeout
        try:
            while time.monotonic() < end:
                if not _alive(self.pids[(job, i)]):
                    raise RuntimeError(f"{job} {i} exited")
                if ch.ping(timeout=1.0):
                    return
                time.sleep(0.2)
            raise TimeoutError(f"{job} {i} did not come up in {timeout} s")
        finally:
            ch.close()

    def kill(self, job: str, i: int) -> None:
        """SIGKILLs the task and waits (10 s at most) until it is gone."""
        pid = self.pids[(job, i)]
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        end = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < end:
            time.sleep(0.01)

    def close(self) -> None:
        for job, i in list(self.pids):
            self.kill(job, i)
