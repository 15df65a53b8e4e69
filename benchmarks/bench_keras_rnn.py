"""Keras LSTM forward: torchflow's fused path vs its step loop vs tf.keras vs raw torch.

The case of issue 6: ``LSTM(64)`` over inputs ``[32, 50, 32]`` (batch 32, 50 steps),
returning the last output, inference. Contenders:

- ``torchflow fused``: the default ``LSTM`` (TF 2.4's cuDNN conditions hold, so the
  whole sequence runs in one fused torch kernel, ``ops/rnn_ops.py``).
- ``torchflow loop``: the same layer forced onto the per-step ``RNN`` loop.
- ``tf.keras eager`` / ``tf.keras function``: real tf.keras' ``LSTM``.
- ``torch``: ``torch.nn.LSTM`` under ``no_grad``.

``python benchmarks/bench_keras_rnn.py [--quick] [--no-tf] [--threads N]
[--stat median|min]``
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH, STEPS, FEATURES, UNITS = 32, 50, 32, 64


def _data():
    return np.random.default_rng(0).standard_normal((BATCH, STEPS, FEATURES)).astype(
        np.float32)


def make_keras(lib, fused=True, use_function=False):
    x = lib.constant(_data())
    layer = lib.keras.layers.LSTM(UNITS)
    layer(x)
    if not fused:
        layer._use_fused = False
    fn = lib.function(lambda: layer(x)) if use_function else (lambda: layer(x))
    fn()
    return lambda: fn().numpy()


def make_torch():
    import torch

    x = torch.from_numpy(_data())
    net = torch.nn.LSTM(FEATURES, UNITS, batch_first=True)

    def run():
        with torch.no_grad():
            return net(x)[1][0][0].numpy()

    run()
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    import torchflow as tf

    contenders = {"torchflow fused": make_keras(tf), "torchflow loop": make_keras(tf, False),
                  "torch": make_torch()}
    if not args.no_tf:
        rtf = _common.real_tf()
        if rtf is not None:
            if args.threads:
                rtf.config.threading.set_intra_op_parallelism_threads(args.threads)
            contenders["tf.keras eager"] = make_keras(rtf)
            contenders["tf.keras function"] = make_keras(rtf, use_function=True)
    times = _common.compare(contenders, repeat=3 if args.quick else 7,
                            target_s=0.2 if args.quick else 0.5, stat=args.stat)
    print(_common.describe_machine())
    print(f"LSTM({UNITS}) forward, batch {BATCH}, {STEPS} steps, {FEATURES} features:")
    for k, t in times.items():
        print(f"  {k:20s} {t * 1e3:9.3f} ms")
    f = times["torchflow fused"]
    print(f"fused speedup over the step loop: {times['torchflow loop'] / f:.1f}x")
    for k in ("tf.keras eager", "tf.keras function", "torch"):
        if k in times:
            print(f"{k} / torchflow fused: {times[k] / f:.2f}x")


if __name__ == "__main__":
    main()
