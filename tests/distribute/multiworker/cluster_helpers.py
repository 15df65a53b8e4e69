"""Helpers for tests that start worker processes on 127.0.0.1 (free ports, the
``TF_CONFIG`` of a local cluster, a child environment). A module of its own name,
not conftest: under xdist another directory's conftest may own that module name."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def free_ports(n: int) -> list[int]:
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


def tf_config(n: int, index: int, ports: list[int], job: str = "worker") -> str:
    return json.dumps({"cluster": {job: [f"127.0.0.1:{p}" for p in ports[:n]]},
                       "task": {"type": job, "index": index}})


def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK", "TF_CONFIG"):
        env.pop(var, None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.update(extra or {})
    return env
