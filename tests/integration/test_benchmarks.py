"""benchmarks/_common.py helpers and a smoke run of bench_eager_ops.py."""

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_common():
    spec = importlib.util.spec_from_file_location("_bench_common", BENCH / "_common.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_compare_ranks_a_slow_function_slower():
    c = _load_common()

    def slow():
        t = time.perf_counter() + 2e-4
        while time.perf_counter() < t:
            pass

    times = c.compare({"fast": lambda: None, "slow": slow, "absent": None},
                      repeat=3, target_s=0.005)
    assert set(times) == {"fast", "slow"}
    assert times["slow"] >= 2e-4 > times["fast"] > 0


def test_targets_are_checked_both_ways():
    c = _load_common()
    row = c.Row("x", {"torch": 1.0, "torchflow": 2.0, "TF": 9.0, "none": None},
                [("torchflow", "torch", 2.5, "max"), ("torchflow", "torch", 1.5, "max"),
                 ("TF", "torchflow", 3.0, "min"), ("TF", "torchflow", 5.0, "min"),
                 ("none", "torch", 1.0, "max")])
    assert [met for _, met in c.check(row)] == [True, False, True, False, None]
    assert c.print_table("t", [row], ["torch", "torchflow"], [("torchflow", "torch")]) is False
    assert c.fmt_time(2.5e-6) == "2.50 us" and c.fmt_time(None) == "n/a"


def test_bench_eager_ops_runs():
    r = subprocess.run([sys.executable, str(BENCH / "bench_eager_ops.py"), "--quick", "--no-tf",
                        "--repeat", "1"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4x4 f32 tf.add" in r.stdout and "256^2 f32 matmul" in r.stdout


def test_bench_train_step_runs_against_tf_in_a_child_process():
    # The script first checks that torchflow, raw torch and real TF (in its child
    # process) reach the same weights after three steps; then it times them.
    r = subprocess.run([sys.executable, str(BENCH / "bench_train_step.py"), "--quick",
                        "--repeat", "1"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "runs in a child process" in r.stdout
    for name in ("torch", "torchflow", "torchflow fn", "TF", "TF fn"):
        assert f"  {name} " in r.stdout
