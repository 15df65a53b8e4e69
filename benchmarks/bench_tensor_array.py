"""A hand-written RNN over ``tf.TensorArray`` in a ``tf.function``: torchflow vs real
TF 2.21 vs raw torch, ms per call.

The function (the style of TF's RNN and text tutorials): inputs ``[T, B, F]``
unstacked into an array, ``for t in tf.range(T)`` reading step ``t``, ``h = tanh(x_t
W + h U)``, each ``h`` written to a second array, which is stacked. T = 50, B = 32,
F = 32, 64 units; the signature leaves T and B unknown. Contenders:

- ``torchflow``: the traced function (its arrays and loop are replayed, the Python
  body runs at its traces only);
- ``torchflow eager``: the same under ``tf.config.run_functions_eagerly(True)``,
  i.e. the Python body on every call (what a TensorArray function did before it
  replayed);
- ``TF``: real TF's ``tf.function`` (a ``While`` over TensorLists), in a child
  process, so that this process imports torchflow alone;
- ``torch``: the same loop in Python over ``torch.Tensor``s, a list and
  ``torch.stack``, under ``no_grad``.

``python benchmarks/bench_tensor_array.py [--quick] [--no-tf]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

T, B, F, UNITS = 50, 32, 32, 64


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((T, B, F)).astype(np.float32)
    w = (rng.standard_normal((F, UNITS)) * 0.1).astype(np.float32)
    u = (rng.standard_normal((UNITS, UNITS)) * 0.1).astype(np.float32)
    return x, w, u


def make_function(lib):
    """The RNN written once against the TF API; returns (function, its input)."""
    x_np, w_np, u_np = _data()
    w, u = lib.constant(w_np), lib.constant(u_np)

    @lib.function(input_signature=[lib.TensorSpec([None, None, F], lib.float32)])
    def rnn(x):
        n = lib.shape(x)[0]
        steps = lib.TensorArray(lib.float32, size=n).unstack(x)
        out = lib.TensorArray(lib.float32, size=n)
        h = lib.zeros([lib.shape(x)[1], UNITS])
        for t in lib.range(n):
            h = lib.tanh(lib.matmul(steps.read(t), w) + lib.matmul(h, u))
            out = out.write(t, h)
        return out.stack()

    return rnn, lib.constant(x_np)


def make_torch():
    import torch

    x_np, w_np, u_np = _data()
    x, w, u = torch.from_numpy(x_np), torch.from_numpy(w_np), torch.from_numpy(u_np)

    def rnn():
        with torch.no_grad():
            h = torch.zeros(x.shape[1], UNITS)
            out = []
            for t in range(x.shape[0]):
                h = torch.tanh(x[t] @ w + h @ u)
                out.append(h)
            return torch.stack(out)

    return rnn


def _child(repeat: int) -> None:
    tf = _common.real_tf()
    fn, x = make_function(tf)
    times = _common.compare({"TF": lambda: fn(x).numpy()}, repeat=repeat)
    print(json.dumps({"TF": times["TF"], "value": fn(x).numpy().sum().item()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    repeat = 3 if args.quick else 9
    if args.child:
        _child(repeat)
        return
    import torchflow as tf

    fn, x = make_function(tf)
    torch_rnn = make_torch()
    want = torch_rnn().numpy()
    np.testing.assert_allclose(fn(x).numpy(), want, rtol=1e-4, atol=1e-5)

    def eager():
        tf.config.run_functions_eagerly(True)
        try:
            return fn(x).numpy()
        finally:
            tf.config.run_functions_eagerly(False)

    times = _common.compare({"torchflow": lambda: fn(x).numpy(), "torchflow eager": eager,
                             "torch": lambda: torch_rnn().numpy()}, repeat=repeat)
    times["TF"] = None
    if not args.no_tf and _common.real_tf_available():
        out = subprocess.run([sys.executable, __file__, "--child"] +
                             (["--quick"] if args.quick else []),
                             capture_output=True, text=True, timeout=600, check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
        np.testing.assert_allclose(res["value"], float(want.sum()), rtol=1e-3)
        times["TF"] = res["TF"]
    print(_common.describe_machine())
    row = _common.Row(f"TensorArray RNN T={T} B={B} F={F} units={UNITS}", times,
                      [("torchflow", "TF", 1.0, "max")])
    _common.print_table("tf.TensorArray in tf.function (median per call)", [row],
                        ["torchflow", "torchflow eager", "TF", "torch"],
                        [("torchflow", "TF"), ("torchflow", "torch"),
                         ("torchflow eager", "torchflow")])


if __name__ == "__main__":
    main()
