"""SavedModel save and load of a ~100 MB model: torchflow against real TensorFlow.

The model is bench_checkpoint.py's Keras program in both: a Sequential of six
Dense(2048) layers on 2048 inputs (25.2 M float32 weights, 100.7 MB). Measured:

* ``tf.saved_model.save(model, dir)`` (TF traces the Keras call functions and the
  serving signature, writes ``saved_model.pb`` and the variables' tensor bundle);
* ``tf.saved_model.load(dir)``;
* load + the first call of ``signatures["serving_default"]`` on one batch;
* Keras ``model.save(dir)`` and ``tf.keras.models.load_model(dir)``.

Each framework runs in its own child process (``--child tf|torchflow``), so each
side is measured with only its own import; every run writes a fresh directory
under ``--dir`` (default: a temporary directory) and loads a fresh object. A child
times each case ``--inner`` times after one warm-up run and reports their median;
``--repeat`` rounds start one child of each framework in turn, so load on a shared
machine hits both alike; the table shows the median over the rounds.

    python benchmarks/bench_saved_model.py [--repeat 3] [--inner 3] [--dir /tmp/smbench]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Row, describe_machine, print_table, real_tf_available

UNITS, LAYERS = 2048, 6
CASES = ("save", "load", "load + first call", "keras save", "keras load_model")


def _model(lib):
    layers = [lib.keras.layers.Dense(UNITS, input_shape=(UNITS,))]
    layers += [lib.keras.layers.Dense(UNITS) for _ in range(LAYERS - 1)]
    model = lib.keras.Sequential(layers)
    model(np.zeros((1, UNITS), np.float32))
    return model


def _child(name: str, repeat: int, directory: str) -> dict:
    """Times each case ``repeat + 1`` times in this process; ``{case: [seconds]}``
    (the first is the warm-up)."""
    if name == "tf":
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as lib

        lib.get_logger().setLevel("ERROR")
    else:
        import torchflow as lib
    model = _model(lib)
    x = np.random.RandomState(0).rand(8, UNITS).astype(np.float32)
    want = model(x).numpy()
    times: dict = {c: [] for c in CASES}
    nbytes = sum(w.size * w.itemsize for w in model.get_weights())
    for r in range(repeat + 1):
        path = os.path.join(directory, f"sm_{r}")
        t0 = time.perf_counter()
        lib.saved_model.save(model, path)
        times["save"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        loaded = lib.saved_model.load(path)
        times["load"].append(time.perf_counter() - t0)
        del loaded
        t0 = time.perf_counter()
        loaded = lib.saved_model.load(path)
        out = loaded.signatures["serving_default"](lib.constant(x))
        got = next(iter(out.values())).numpy()
        times["load + first call"].append(time.perf_counter() - t0)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        del loaded
        kpath = os.path.join(directory, f"keras_{r}")
        t0 = time.perf_counter()
        model.save(kpath)
        times["keras save"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        back = lib.keras.models.load_model(kpath)
        times["keras load_model"].append(time.perf_counter() - t0)
        del back
        shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree(kpath, ignore_errors=True)
    return {"times": times, "nbytes": nbytes}


def _run_child(name: str, repeat: int, directory: str) -> dict:
    """``_child``'s result, run in a new process."""
    os.makedirs(directory, exist_ok=True)
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name,
                           "--repeat", str(repeat), "--dir", directory],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} child failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--inner", type=int, default=3)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--child", choices=("tf", "torchflow"), default=None)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(_child(args.child, args.repeat, args.dir)))
        return 0
    root = args.dir or tempfile.mkdtemp(prefix="bench_saved_model_")
    try:
        sides = {"torchflow": "torchflow"}
        if real_tf_available():
            sides["TF"] = "tf"
        samples: dict = {k: {c: [] for c in CASES} for k in sides}
        nbytes = 0
        for r in range(args.repeat):
            for label, child in sides.items():
                out = _run_child(child, args.inner, os.path.join(root, f"{label}_{r}"))
                nbytes = out["nbytes"]
                for case in CASES:
                    samples[label][case].append(statistics.median(out["times"][case][1:]))
        print(describe_machine())
        print(f"model: {LAYERS} x Dense({UNITS}), {nbytes / 1e6:.1f} MB of float32 weights; "
              f"median of {args.repeat} rounds (one process per framework and round, each the "
              f"median of {args.inner} runs after a warm-up)")
        rows = []
        for case in CASES:
            times = {k: statistics.median(v[case]) for k, v in samples.items()}
            rows.append(Row(case, times, [("torchflow", "TF", 1.0, "max")]))
        ok = print_table("SavedModel save/load (median seconds)", rows, ["torchflow", "TF"],
                         [("torchflow", "TF")])
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
