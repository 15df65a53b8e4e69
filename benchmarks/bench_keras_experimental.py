"""TF 2.4's experimental Keras layers: a training step, torchflow vs real tf.keras vs raw torch.

One step = forward, mean-square loss, gradients, plain SGD update, on a batch of 32:
``LocallyConnected2D(8, 3)`` over 12x12x3 inputs in implementations 1, 2 and 3, and
``EinsumDense("abc,cde->abde", (16, 4, 8))`` over [32, 16, 24] inputs. torchflow and
tf.keras run the same code (``tf.GradientTape``, ``assign_sub``; tf.keras in
``tf.function``); raw torch computes the same functions (implementation 1 as
``unfold`` + per-position ``einsum``; EinsumDense as ``torch.einsum``).

``python benchmarks/bench_keras_experimental.py [--quick] [--no-tf] [--stat min|median]``
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH, LR = 32, 0.01


def _layer(lib, kind):
    L = lib.keras.layers
    if kind.startswith("lc"):
        return L.LocallyConnected2D(8, 3, implementation=int(kind[-1])), (BATCH, 12, 12, 3)
    ed = L.experimental.EinsumDense
    return ed("abc,cde->abde", (16, 4, 8), bias_axes="de"), (BATCH, 16, 24)


def make_keras_step(lib, kind):
    layer, shape = _layer(lib, kind)
    x = lib.constant(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    layer(x)
    variables = layer.trainable_variables

    @lib.function
    def step():
        with lib.GradientTape() as tape:
            loss = lib.reduce_mean(layer(x) ** 2)
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(LR * g)
        return loss

    step()
    return lambda: step().numpy()


def make_torch_step(kind):
    import torch

    rng = np.random.default_rng(0)
    if kind == "lc1":
        x = torch.from_numpy(rng.standard_normal((BATCH, 3, 12, 12)).astype(np.float32))
        k = torch.zeros(100, 27, 8, requires_grad=True)
        b = torch.zeros(10, 10, 8, requires_grad=True)

        def fwd():
            patches = torch.nn.functional.unfold(x, 3).transpose(1, 2)  # [N, 100, 27]
            return torch.einsum("npk,pkf->npf", patches, k).reshape(BATCH, 10, 10, 8) + b
        params = [k, b]
    else:
        x = torch.from_numpy(rng.standard_normal((BATCH, 16, 24)).astype(np.float32))
        k = torch.zeros(24, 4, 8, requires_grad=True)
        b = torch.zeros(4, 8, requires_grad=True)

        def fwd():
            return torch.einsum("abc,cde->abde", x, k) + b
        params = [k, b]

    def step():
        with torch.enable_grad():
            loss = (fwd() ** 2).mean()
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
    ap.add_argument("--stat", choices=("min", "median"), default="median")
    args = ap.parse_args()
    import torchflow as tf

    rtf = None if args.no_tf else _common.real_tf()
    print(_common.describe_machine())
    print(f"train step (batch {BATCH}), ms ({args.stat} of the timed repeats):")
    for kind in ("lc1", "lc2", "lc3", "einsum_dense"):
        contenders = {"torchflow": make_keras_step(tf, kind)}
        if rtf is not None:
            contenders["tf.keras function"] = make_keras_step(rtf, kind)
        if kind in ("lc1", "einsum_dense"):
            contenders["torch"] = make_torch_step(kind)
        times = _common.compare(contenders, repeat=5 if args.quick else 11, target_s=0.05,
                                stat=args.stat)
        row = "  ".join(f"{k} {t * 1e3:7.3f}" for k, t in times.items())
        print(f"  {kind:13s} {row}")


if __name__ == "__main__":
    main()
