"""tf.experimental.numpy: torchflow's tnp vs NumPy vs TF's tnp vs raw torch.

* Small-op overhead: an 8-element float32 ``add``. Targets: torchflow's tnp within
  3x of raw torch, and at least 3x faster than TF's tnp.
* Elementwise chain on 1e6 float32 (``tanh(a) * exp(-a) + a * b - sqrt(abs(b))``)
  and a 512x512 float32 ``matmul``. Target: within 10% of raw torch. The chain is
  also run under ``tf.function(jit_compile=True)`` (torch.compile fuses it) to see
  whether fusion pays on this machine.

``python benchmarks/bench_numpy.py [--quick] [--no-tf] [--no-jit] [--stat min]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    parser.add_argument("--no-tf", action="store_true", help="skip real TensorFlow")
    parser.add_argument("--no-jit", action="store_true", help="skip the torch.compile case")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--stat", choices=["median", "min"], default="median")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 9
    target_s = 0.005 if args.quick else 0.1

    tf_real = None if args.no_tf else _common.real_tf()
    import torch

    import torchflow as tfw
    import torchflow.experimental.numpy as tnp

    rtnp = tf_real.experimental.numpy if tf_real is not None else None
    if rtnp is not None:
        rtnp.experimental_enable_numpy_behavior()  # TF 2.21's tnp needs it for sqrt/abs...
    print(f"bench_numpy: {_common.describe_machine()}; torch threads {torch.get_num_threads()}")

    def make(shape, seed):
        a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        return a, torch.from_numpy(a.copy()), tnp.asarray(a.copy()), (
            rtnp.asarray(a) if rtnp is not None else None)

    def cmp(d):
        return _common.compare(d, repeat=repeat, target_s=target_s, stat=args.stat)

    rows = []
    na, ta, wa, ra = make((8,), 0)
    nb, tb, wb, rb = make((8,), 1)
    rows.append(_common.Row("8-elem f32 add", cmp({
        "torch": lambda: torch.add(ta, tb),
        "tnp": lambda: tnp.add(wa, wb),
        "TF tnp": (lambda: rtnp.add(ra, rb)) if rtnp is not None else None,
        "NumPy": lambda: np.add(na, nb),
    }), [("tnp", "torch", 3.0, "max"), ("TF tnp", "tnp", 3.0, "min")]))
    rows.append(_common.Row("8-elem f32 sin", cmp({
        "torch": lambda: torch.sin(ta),
        "tnp": lambda: tnp.sin(wa),
        "TF tnp": (lambda: rtnp.sin(ra)) if rtnp is not None else None,
        "NumPy": lambda: np.sin(na),
    }), [("tnp", "torch", 3.0, "max"), ("TF tnp", "tnp", 3.0, "min")]))

    n = 10**5 if args.quick else 10**6
    na, ta, wa, ra = make((n,), 2)
    nb, tb, wb, rb = make((n,), 3)

    def chain(m, a, b):
        return m.subtract(m.add(m.multiply(m.tanh(a), m.exp(m.negative(a))), m.multiply(a, b)),
                          m.sqrt(m.abs(b)))

    def torch_chain(a, b):
        return torch.tanh(a) * torch.exp(-a) + a * b - torch.sqrt(torch.abs(b))

    contenders = {
        "torch": lambda: torch_chain(ta, tb),
        "tnp": lambda: chain(tnp, wa, wb),
        "TF tnp": (lambda: chain(rtnp, ra, rb)) if rtnp is not None else None,
        "NumPy": lambda: chain(np, na, nb),
    }
    jit_note = "skipped"
    if not args.no_jit:
        fused = tfw.function(lambda a, b: chain(tnp, a, b), jit_compile=True)
        start = time.perf_counter()
        try:
            got = fused(wa, wb)
            np.testing.assert_allclose(got.numpy(), chain(np, na, nb), rtol=1e-4, atol=1e-5)
            contenders["tnp jit"] = lambda: fused(wa, wb)
            jit_note = f"first call (compile) {time.perf_counter() - start:.1f} s"
        except Exception as e:  # noqa: BLE001 - report, do not fail the benchmark
            jit_note = f"failed: {type(e).__name__}: {str(e)[:120]}"
        if rtnp is not None:
            # TF's XLA on the same chain (issue 13's goal: torchflow's jit at least as fast).
            xla = tf_real.function(lambda a, b: chain(rtnp, a, b), jit_compile=True)
            try:
                xla(ra, rb)
                contenders["TF jit"] = lambda: xla(ra, rb)
            except Exception as e:  # noqa: BLE001 - report, do not fail the benchmark
                jit_note += f"; TF XLA failed: {type(e).__name__}"
    times = cmp(contenders)
    chain_goals = [("tnp", "torch", 1.10, "max")]
    if "tnp jit" in times and "TF jit" in times:
        chain_goals.append(("tnp jit", "TF jit", 1.0, "max"))
    rows.append(_common.Row(f"{n:.0e} f32 chain", times, chain_goals))

    mm = 128 if args.quick else 512
    na, ta, wa, ra = make((mm, mm), 4)
    nb, tb, wb, rb = make((mm, mm), 5)
    rows.append(_common.Row(f"{mm}x{mm} f32 matmul", cmp({
        "torch": lambda: torch.matmul(ta, tb),
        "tnp": lambda: tnp.matmul(wa, wb),
        "TF tnp": (lambda: rtnp.matmul(ra, rb)) if rtnp is not None else None,
        "NumPy": lambda: np.matmul(na, nb),
    }), [("tnp", "torch", 1.10, "max")]))
    cols = ["torch", "tnp", "tnp jit", "TF tnp", "TF jit", "NumPy"]
    ok = _common.print_table(f"tnp ({args.stat} per call)", rows, cols,
                             [("tnp", "torch"), ("TF tnp", "tnp"), ("tnp", "NumPy"),
                              ("tnp jit", "tnp"), ("tnp jit", "TF jit")])
    print(f"\ntf.function(jit_compile=True) chain: {jit_note}")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
