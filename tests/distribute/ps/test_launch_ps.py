"""``torchflow launch --ps``: every task of the job gets the same cluster token (which
each task's gRPC servers and channels check on every call), a fresh one per job,
unless one is already set."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.multiprocess

# The launcher run by path imports no torchflow for a --ps job (only the standard
# library), so three launches cost seconds, not three torchflow imports.
LAUNCH = Path(__file__).resolve().parents[3] / "torchflow" / "_src" / "distribute" / "launch.py"

# The tasks import no torchflow: the test is about the environment the launcher gives.
SCRIPT = textwrap.dedent("""
    import json, os, sys, time
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    out = os.path.join(sys.argv[1], f"{task['type']}{task['index']}.json")
    with open(out + ".tmp", "w") as f:
        json.dump({"token": os.environ.get("TORCHFLOW_CLUSTER_TOKEN")}, f)
    os.replace(out + ".tmp", out)  # whole or absent
    if task["type"] == "chief":  # the job ends with the chief: wait for the others
        end = time.monotonic() + 60
        while len([n for n in os.listdir(sys.argv[1]) if n.endswith(".json")]) < 4 \\
                and time.monotonic() < end:
            time.sleep(0.05)
""")


def _launch(tmp_path, extra_env):
    script = tmp_path / "task.py"
    script.write_text(SCRIPT)
    out_dir = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    out_dir.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **extra_env}
    run = subprocess.run([sys.executable, str(LAUNCH), "--chief", "--workers", "2",
                          "--ps", "1", str(script), str(out_dir)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return {p.stem: json.loads(p.read_text())["token"] for p in out_dir.glob("*.json")}


def test_launch_gives_every_ps_task_one_fresh_token(tmp_path):
    first = _launch(tmp_path, {})
    assert sorted(first) == ["chief0", "ps0", "worker0", "worker1"]
    tokens = set(first.values())
    assert len(tokens) == 1 and len(tokens.pop()) == 64
    second = _launch(tmp_path, {})
    assert set(second.values()) != set(first.values())  # a new job, a new token
    kept = _launch(tmp_path, {"TORCHFLOW_CLUSTER_TOKEN": "given-by-the-user"})
    assert set(kept.values()) == {"given-by-the-user"}
