"""Per-call time of loaded SavedModels: torchflow's graph interpreter against real TF.

Issue 15: a SavedModel runs its functions from their graphs. Models (written once
into a temporary directory, then loaded by each side):

* ``lstm (tf.keras)``: tf.keras ``Input((50, 32)) -> LSTM(64) -> Dense(1)`` saved by
  real TF (its graph is a ``While`` loop over TensorLists); batch 32.
* ``lstm (torchflow)``: the same model saved by torchflow's ``model.save``.
* ``15 layers``: a tf.keras Sequential of Conv2D / BatchNormalization / pooling /
  Flatten / Dense (15 layers) on ``[16, 16, 16, 3]`` images, saved by real TF.
* ``while_loop``: a ``tf.Module`` whose ``tf.function`` runs ``tf.while_loop`` 100
  times over ``x = tanh(x @ w + b)`` on ``[8, 32]``, saved by real TF.

Each is called through ``signatures["serving_default"]`` (the ``while_loop`` module
through its function) after ``tf.saved_model.load`` in torchflow and in real TF, and
the same computation runs in raw torch (``no_grad``). Contenders are interleaved
(``_common.compare``); the table shows median per-call times.

``--threads N`` sets torch's and TF's intra-op threads (on a small shared machine
``--threads 1`` keeps both from spinning on tiny kernels).

    python benchmarks/bench_saved_model_run.py [--quick] [--threads N] [--stat median|min]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH, STEPS, FEATURES, UNITS = 32, 50, 32, 64
LOOP_N, LOOP_D = 100, 32


def _lstm(lib):
    inp = lib.keras.Input((STEPS, FEATURES))
    h = lib.keras.layers.LSTM(UNITS)(inp)
    return lib.keras.Model(inp, lib.keras.layers.Dense(1)(h))


def _deep(lib):
    L = lib.keras.layers
    return lib.keras.Sequential([
        L.Conv2D(8, 3, padding="same", activation="relu", input_shape=(16, 16, 3)),
        L.BatchNormalization(), L.Conv2D(8, 3, padding="same", activation="relu"),
        L.MaxPooling2D(), L.Conv2D(16, 3, padding="same", activation="relu"),
        L.BatchNormalization(), L.MaxPooling2D(), L.Flatten(), L.Dense(64, activation="relu"),
        L.Dropout(0.1), L.Dense(64, activation="relu"), L.Dense(32, activation="relu"),
        L.LayerNormalization(), L.Dense(16, activation="relu"), L.Dense(10)])


def _loop_module(lib):
    rng = np.random.default_rng(1)

    class Loop(lib.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.Variable(rng.standard_normal((LOOP_D, LOOP_D)).astype(np.float32)
                                  * 0.2)
            self.b = lib.Variable(np.zeros(LOOP_D, np.float32))

        @lib.function(input_signature=[lib.TensorSpec([None, LOOP_D], lib.float32)])
        def __call__(self, x):
            def body(i, x):
                return i + 1, lib.tanh(lib.matmul(x, self.w) + self.b)

            return lib.while_loop(lambda i, x: i < LOOP_N, body, (lib.constant(0), x))[1]

    return Loop()


def _inputs():
    rng = np.random.default_rng(0)
    return {"lstm": rng.standard_normal((BATCH, STEPS, FEATURES)).astype(np.float32),
            "deep": rng.standard_normal((BATCH // 2, 16, 16, 3)).astype(np.float32),
            "loop": rng.standard_normal((8, LOOP_D)).astype(np.float32)}


def _serving(lib, path, x):
    fn = lib.saved_model.load(path).signatures["serving_default"]
    t = lib.constant(x)
    fn(t)
    return lambda: next(iter(fn(t).values())).numpy()


def _module_call(lib, path, x):
    obj = lib.saved_model.load(path)
    t = lib.constant(x)
    obj(t)
    return lambda: obj(t).numpy()


def _torch_lstm(torch, x):
    net, head = torch.nn.LSTM(FEATURES, UNITS, batch_first=True), torch.nn.Linear(UNITS, 1)
    t = torch.from_numpy(x)

    def run():
        with torch.no_grad():
            return head(net(t)[1][0][0]).numpy()

    return run


def _torch_deep(torch, x):
    nn = torch.nn
    net = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.BatchNorm2d(8), nn.Conv2d(8, 8, 3, padding=1),
        nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.BatchNorm2d(16),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 64), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.LayerNorm(32),
        nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 10)).eval()
    t = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))

    def run():
        with torch.no_grad():
            return net(t).numpy()

    return run


def _torch_loop(torch, x):
    w, b = torch.randn(LOOP_D, LOOP_D) * 0.2, torch.zeros(LOOP_D)
    t = torch.from_numpy(x)

    def run():
        with torch.no_grad():
            y = t
            for _ in range(LOOP_N):
                y = torch.tanh(y @ w + b)
            return y.numpy()

    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    import torch

    import torchflow as tf

    rtf = _common.real_tf()
    if rtf is None:
        print("real TensorFlow is not installed: nothing to compare")
        return 0
    if args.threads:
        torch.set_num_threads(args.threads)  # after torchflow's import, which sets its own
        rtf.config.threading.set_intra_op_parallelism_threads(args.threads)
        rtf.config.threading.set_inter_op_parallelism_threads(args.threads)
    data = _inputs()
    root = tempfile.mkdtemp(prefix="bench_saved_model_run_")
    try:
        paths = {k: os.path.join(root, k) for k in ("lstm_tf", "lstm_tflow", "deep", "loop")}
        lstm = _lstm(rtf)
        lstm.save(paths["lstm_tf"])
        _lstm(tf).save(paths["lstm_tflow"])
        deep = _deep(rtf)
        deep(data["deep"])
        deep.save(paths["deep"])
        rtf.saved_model.save(_loop_module(rtf), paths["loop"])
        cases = [
            ("lstm (tf.keras)", _serving, paths["lstm_tf"], data["lstm"], _torch_lstm),
            ("lstm (torchflow)", _serving, paths["lstm_tflow"], data["lstm"], _torch_lstm),
            ("15 layers", _serving, paths["deep"], data["deep"], _torch_deep),
            ("while_loop", _module_call, paths["loop"], data["loop"], _torch_loop),
        ]
        rows = []
        for name, make, path, x, make_torch in cases:
            contenders = {"torchflow": make(tf, path, x), "TF": make(rtf, path, x),
                          "torch": make_torch(torch, x)}
            np.testing.assert_allclose(contenders["torchflow"](), contenders["TF"](),
                                       rtol=1e-4, atol=1e-4)
            times = _common.compare(contenders, repeat=3 if args.quick else 7,
                                    target_s=0.1 if args.quick else 0.3, stat=args.stat)
            rows.append(_common.Row(name, times, [("torchflow", "TF", 1.0, "max")]))
        print(_common.describe_machine() + f", TF intra-op threads {args.threads or 'default'}")
        print(f"load: {open('/proc/loadavg').read().strip()}")
        ok = _common.print_table(f"loaded SavedModel, per call ({args.stat})", rows,
                                 ["torchflow", "TF", "torch"],
                                 [("torchflow", "TF"), ("torchflow", "torch")])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
