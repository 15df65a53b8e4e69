"""SavedModel save and load of a ~100 MB model: torchflow against real TensorFlow.

The model is bench_checkpoint.py's Keras program in both: a Sequential of six
Dense(2048) layers on 2048 inputs (25.2 M float32 weights, 100.7 MB). Measured:

* ``tf.saved_model.save(model, dir)`` (TF traces the Keras call functions and the
  serving signature, writes ``saved_model.pb`` and the variables' tensor bundle);
* ``tf.saved_model.load(dir)``;
* load + the first call of ``signatures["serving_default"]`` on one batch;
* Keras ``model.save(dir)`` and ``tf.keras.models.load_model(dir)``.

Each framework runs in its own child process (``--child tf|torchflow``), so each
side is measured with only its own import; every repeat writes a fresh directory
under ``--dir`` (default: a temporary directory) and loads a fresh object. The
first repeat of each case is a warm-up and is dropped; medians of the others.

    python benchmarks/bench_saved_model.py [--repeat 5] [--dir /tmp/smbench]
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
    """Times each case ``repeat + 1`` times in this process; ``{case: [seconds]}``."""
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
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--child", choices=("tf", "torchflow"), default=None)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(_child(args.child, args.repeat, args.dir)))
        return 0
    root = args.dir or tempfile.mkdtemp(prefix="bench_saved_model_")
    try:
        results = {"torchflow": _run_child("torchflow", args.repeat,
                                           os.path.join(root, "torchflow"))}
        if real_tf_available():
            results["TF"] = _run_child("tf", args.repeat, os.path.join(root, "TF"))
        nbytes = results["torchflow"]["nbytes"]
        print(describe_machine())
        print(f"model: {LAYERS} x Dense({UNITS}), {nbytes / 1e6:.1f} MB of float32 weights; "
              f"median of {args.repeat} (first run dropped), one process per framework")
        rows = []
        for case in CASES:
            times = {k: statistics.median(v["times"][case][1:]) for k, v in results.items()}
            rows.append(Row(case, times, [("torchflow", "TF", 1.0, "max")]))
        ok = print_table("SavedModel save/load (median seconds)", rows, ["torchflow", "TF"],
                         [("torchflow", "TF")])
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
