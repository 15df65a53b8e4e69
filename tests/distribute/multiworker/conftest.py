"""Helpers for tests that start worker processes on 127.0.0.1.

``run_cluster(script, n)`` writes ``script`` to a file, starts ``n`` Python
processes on it with ``TF_CONFIG`` set for a cluster of ``n`` workers on free
ports (``extra_env`` and per-task ``env_fn(index, ports)`` add variables), waits at most
``timeout`` seconds for all of them, and ends every one still running by its
PID. Each process's last stdout line that starts with ``RESULT `` is parsed as
JSON and returned with its exit code and output.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from cluster_helpers import child_env, free_ports, tf_config


def _result(out: str):
    for line in reversed(out.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return None


def end_processes(procs) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


@pytest.fixture
def run_cluster(tmp_path):
    def run(script: str, n: int = 2, *, timeout: float = 60, extra_env: dict | None = None,
            env_fn=None, args=()):
        path = tmp_path / "worker_script.py"
        path.write_text(script)
        ports = free_ports(n)
        procs = []
        try:
            for i in range(n):
                env = child_env({"TF_CONFIG": tf_config(n, i, ports), **(extra_env or {})})
                if env_fn is not None:
                    env.update(env_fn(i, ports))
                procs.append(subprocess.Popen(
                    [sys.executable, str(path), *map(str, args)], env=env, cwd=str(tmp_path),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            deadline = time.monotonic() + timeout
            outs = []
            for p in procs:
                try:
                    out, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    end_processes(procs)
                    out, err = p.communicate()
                    raise AssertionError(f"worker did not finish within {timeout} s:\n"
                                         f"{out[-3000:]}\n{err[-3000:]}") from None
                outs.append({"rc": p.returncode, "out": out, "err": err,
                             "result": _result(out)})
            return outs
        finally:
            end_processes(procs)

    return run
