"""Keras layers: a small CNN training step, torchflow vs real tf.keras vs raw torch.

The model (issue 7's CNN): Conv2D(32, 3, relu) - MaxPooling2D - Conv2D(64, 3, relu) -
MaxPooling2D - Flatten - Dense(10), on 28x28x1 inputs, batch 128. One step =
forward, softmax cross-entropy, gradients, plain SGD update. torchflow and
tf.keras run the same code (``tf.GradientTape``, ``assign_sub``; tf.keras eager and
in ``tf.function``); raw torch runs an equivalent ``nn.Module`` in NCHW ("torch")
and in channels_last memory format ("torch cl").

Target (issue 7): torchflow within 10% of raw torch (the best of its two layouts).

``python benchmarks/bench_keras_layers.py [--quick] [--no-tf] [--threads N] [--stat min|median]``
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH, LR = 128, 0.01


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, 10, size=(BATCH,)).astype(np.int64)
    return x, y


def _model(layers):
    return [layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
            layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(), layers.Flatten(),
            layers.Dense(10)]


def make_keras_step(lib, use_function=False):
    x_np, y_np = _data()
    x, y = lib.constant(x_np), lib.constant(y_np)
    model = lib.keras.Sequential(_model(lib.keras.layers))
    model(x)
    variables = model.trainable_variables

    def step():
        with lib.GradientTape() as tape:
            logits = model(x, training=True)
            loss = lib.reduce_mean(
                lib.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(LR * g)
        return loss

    if use_function:
        step = lib.function(step)
    step()
    return lambda: step().numpy()


def make_torch_step(channels_last=False):
    import torch
    from torch import nn

    x_np, y_np = _data()
    x = torch.from_numpy(x_np).permute(0, 3, 1, 2).contiguous()
    y = torch.from_numpy(y_np)
    net = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3),
                        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(1600, 10))
    if channels_last:
        net = net.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    params = list(net.parameters())

    def step():
        with torch.enable_grad():
            loss = nn.functional.cross_entropy(net(x), y)
            grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p.sub_(LR * g)
        return loss.item()

    step()
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--stat", choices=("min", "median"), default="min",
                    help="min estimates the undisturbed cost on a shared machine")
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    import torchflow as tf

    contenders = {"torchflow": make_keras_step(tf), "torch": make_torch_step(False),
                  "torch cl": make_torch_step(True)}
    if not args.no_tf:
        rtf = _common.real_tf()
        if rtf is not None:
            if args.threads:
                rtf.config.threading.set_intra_op_parallelism_threads(args.threads)
            contenders["tf.keras eager"] = make_keras_step(rtf)
            contenders["tf.keras function"] = make_keras_step(rtf, use_function=True)
    times = _common.compare(contenders, repeat=5 if args.quick else 15, target_s=0.05,
                            stat=args.stat)
    print(_common.describe_machine())
    print(f"CNN train step (batch {BATCH}), steps/s ({args.stat} of the timed repeats):")
    for k, t in times.items():
        print(f"  {k:20s} {1.0 / t:8.1f}   ({t * 1e3:.2f} ms)")
    best_torch = min(times["torch"], times["torch cl"])
    r = best_torch / times["torchflow"]
    print(f"torchflow / best raw torch speed: {r:.2f} (target >= 0.90)")


if __name__ == "__main__":
    main()
