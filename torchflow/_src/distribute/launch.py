"""``torchflow launch``: a local cluster for a multi-worker program, one command.

::

    torchflow launch --workers 2 [--chief] [--max-restarts 1] train.py --epochs 3
    python -m torchflow.launch --workers 2 train.py

Every task runs ``train.py`` with ``TF_CONFIG`` describing the cluster (tasks
on 127.0.0.1, free ports) and naming the task, so ``TFConfigClusterResolver``
and ``MultiWorkerMirroredStrategy`` find it; each output line is prefixed with
the task (``[worker 1] ...``).

Synchronous jobs (no ``--ps``) run on PyTorch's elastic agent (torchrun's):
each task also gets torchrun's variables (``RANK``, ``WORLD_SIZE``,
``MASTER_ADDR``, ``MASTER_PORT``, ``LOCAL_RANK``), the agent hosts the
rendezvous, and when a task fails it ends the others; with ``--max-restarts K``
it then starts the whole group again (up to K times), and a program using
``tf.keras.callbacks.experimental.BackupAndRestore`` resumes where the backup
left it. Ranks follow TF's order: the chief (``--chief``) is rank 0.

With ``--ps M`` (parameter-server training) the tasks are independent
processes: the chief, the workers and the ps tasks. A failed worker or ps task
is restarted alone while restarts are left; a failed chief ends the job. The
job ends when the chief exits (the ps tasks and workers serve until then).

The exit status is 0 when the job succeeded, else the failed task's (1 when it
died from a signal); signals to the launcher (SIGINT, SIGTERM) end every task.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import runpy
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time

_CLUSTER_ENV = "TORCHFLOW_LAUNCH_CLUSTER"
_ROLES_ENV = "TORCHFLOW_LAUNCH_ROLES"
_ROLE_ENV = "TORCHFLOW_LAUNCH_ROLE"
_TOKEN_ENV = "TORCHFLOW_CLUSTER_TOKEN"  # rpc.TOKEN_ENV; this file imports no torchflow


def _parser(prog="torchflow launch") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Run a TensorFlow-style multi-worker "
                                "program on a local cluster (TF_CONFIG and torchrun's variables "
                                "set for every task).")
    p.add_argument("--workers", type=int, default=2, help="number of worker tasks (default 2)")
    p.add_argument("--ps", type=int, default=0, help="number of parameter-server tasks")
    p.add_argument("--chief", action="store_true", help="add a chief task (rank 0)")
    p.add_argument("--max-restarts", type=int, default=0,
                   help="restarts allowed after a task fails (default 0)")
    p.add_argument("script", help="the Python program every task runs")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return p


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def cluster_for(workers: int, ps: int = 0, chief: bool = False) -> tuple[dict, list]:
    """The cluster dict (127.0.0.1, free ports) and the ``(job, index)`` of each task.

    Tasks are ordered as TF ranks them: chief, workers, then ps.
    """
    roles = ([("chief", 0)] if chief else []) + [("worker", i) for i in range(workers)] + \
        [("ps", i) for i in range(ps)]
    ports = iter(_free_ports(len(roles)))
    cluster: dict = {}
    for job, _ in roles:
        cluster.setdefault(job, []).append(f"127.0.0.1:{next(ports)}")
    return cluster, roles


def main(argv=None, prog="torchflow launch") -> int:
    """Runs the launcher with command-line ``argv``; returns the exit status."""
    ns = _parser(prog).parse_args(argv)
    if ns.workers < 0 or ns.ps < 0 or ns.max_restarts < 0:
        raise SystemExit(f"{prog}: --workers, --ps and --max-restarts must be >= 0")
    if ns.workers + int(ns.chief) == 0:
        raise SystemExit(f"{prog}: the cluster needs at least one worker or a chief")
    if not os.path.isfile(ns.script):
        raise SystemExit(f"{prog}: no such script: {ns.script}")
    cluster, roles = cluster_for(ns.workers, ns.ps, ns.chief)
    # The cluster token every task's gRPC servers and channels check (core/rpc.py);
    # the tasks inherit it. A token already set (a cluster spanning launchers) is kept.
    if not os.environ.get(_TOKEN_ENV):
        os.environ[_TOKEN_ENV] = secrets.token_hex(32)
    # Each task runs this file by path: the wrapper sets TF_CONFIG with the standard
    # library only, and the script imports torchflow (and torch) if it needs them.
    task_cmd = [sys.executable, os.path.abspath(__file__), "--task",
                os.path.abspath(ns.script), *ns.args]
    if ns.ps:
        return _run_processes(task_cmd, cluster, roles, ns.max_restarts)
    return _run_elastic(task_cmd, cluster, roles, ns.max_restarts)


# --- synchronous jobs: torchrun's agent ----------------------------------------------


def _run_elastic(task_cmd, cluster, roles, max_restarts) -> int:
    # Imported here, not at the top: the per-task wrapper (this file run by path)
    # must not import torchflow and torch just to set TF_CONFIG.
    from torchflow._src.core import elastic

    os.environ[_CLUSTER_ENV] = json.dumps(cluster)
    os.environ[_ROLES_ENV] = json.dumps(roles)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    try:
        elastic.run_group(task_cmd, len(roles), max_restarts=max_restarts,
                          rdzv_port=_free_ports(1)[0])
    except elastic.GroupFailed as e:
        for rank, (code, _) in sorted(e.failures.items()):
            job, index = roles[rank]
            print(f"[launch] task {job} {index} (rank {rank}) failed with exit code {code}",
                  file=sys.stderr, flush=True)
        codes = [c for c, _ in e.failures.values()]
        return next((c for c in codes if c > 0), 1)
    return 0


# --- parameter-server jobs: one process per task ------------------------------------


def _start(task_cmd, cluster, job, index):
    env = dict(os.environ, **{_CLUSTER_ENV: json.dumps(cluster), _ROLE_ENV: f"{job}:{index}",
                              "PYTHONUNBUFFERED": "1"})
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"):
        env.pop(var, None)
    return subprocess.Popen(task_cmd, env=env)


def _end(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + 10
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _run_processes(task_cmd, cluster, roles, max_restarts) -> int:
    procs = {role: _start(task_cmd, cluster, *role) for role in roles}
    restarts = 0
    got_signal: list = []

    def on_signal(signum, frame):
        got_signal.append(signum)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    leader = ("chief", 0) if ("chief", 0) in procs else None
    try:
        while True:
            if got_signal:
                for p in procs.values():
                    if p.poll() is None:
                        p.send_signal(got_signal[0])
                return 128 + int(got_signal[0])
            done = {r: p.returncode for r, p in procs.items() if p.poll() is not None}
            for role, code in done.items():
                if code == 0:
                    continue
                if role[0] in ("worker", "ps") and restarts < max_restarts:
                    restarts += 1
                    print(f"[launch] task {role[0]} {role[1]} failed with exit code {code}; "
                          f"restarting it ({restarts}/{max_restarts})", file=sys.stderr,
                          flush=True)
                    procs[role] = _start(task_cmd, cluster, *role)
                    continue
                print(f"[launch] task {role[0]} {role[1]} failed with exit code {code}; "
                      "ending the job", file=sys.stderr, flush=True)
                return code if code > 0 else 1
            if leader is not None and done.get(leader) == 0:
                return 0
            if leader is None and all(done.get(r) == 0 for r in procs if r[0] == "worker"):
                return 0
            time.sleep(0.2)
    finally:
        _end(list(procs.values()))
        for s, h in old.items():
            signal.signal(s, h)


# --- inside each task ------------------------------------------------------------------


def _pump(read_fd: int, out_fd: int, prefix: bytes) -> None:
    pending = b""
    with os.fdopen(read_fd, "rb", buffering=0) as r:
        while True:
            chunk = r.read(65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            if lines:
                os.write(out_fd, b"".join(prefix + line + b"\n" for line in lines))
    if pending:
        os.write(out_fd, prefix + pending + b"\n")


def _prefix_output(prefix: str) -> None:
    """Prefixes every line this process writes to fds 1 and 2 (C code's included)."""
    threads = []
    restore = []
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        stream.flush()
        r, w = os.pipe()
        orig = os.dup(fd)
        os.dup2(w, fd)
        os.close(w)
        t = threading.Thread(target=_pump, args=(r, orig, prefix.encode()), daemon=True)
        t.start()
        threads.append(t)
        restore.append((fd, orig))
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True)

    def flush_all():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        for fd, orig in restore:
            os.dup2(orig, fd)  # closes the pipe's write end: the pump sees EOF
        for t in threads:
            t.join(timeout=2)

    atexit.register(flush_all)


def _task_main(argv: list[str]) -> None:
    """Runs ``argv[0]`` (a script) as this task: TF_CONFIG set, output prefixed."""
    cluster = json.loads(os.environ[_CLUSTER_ENV])
    if _ROLE_ENV in os.environ:
        job, _, index = os.environ[_ROLE_ENV].partition(":")
        index = int(index)
    else:
        job, index = json.loads(os.environ[_ROLES_ENV])[int(os.environ["RANK"])]
    os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster,
                                          "task": {"type": job, "index": index}})
    _prefix_output(f"[{job} {index}] ")
    script = argv[0]
    sys.argv = list(argv)
    # Run by path, this file's directory is sys.path[0]; the script's takes its place.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--task":
        _task_main(sys.argv[2:])
    else:
        sys.exit(main(sys.argv[1:], prog="python -m torchflow.launch"))
