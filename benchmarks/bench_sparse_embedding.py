"""Sparse embedding training steps/s: torchflow vs real TF 2.21 (tf-keras legacy optimizer).

The step: ids [BATCH, SEQ] -> tf.nn.embedding_lookup of a [VOCAB, DIM] variable
-> mean over the sequence -> Dense(1) -> MSE; GradientTape gradient (the
table's gradient is an IndexedSlices on both sides) -> Keras Adam or SGD with
momentum ``apply_gradients`` (TF 2.4's sparse updates). Eager, and inside
``tf.function``. Each library runs in its own child process, one after the
other, so they do not share threads.

Goal (issue 16): torchflow >= TF.

``python benchmarks/bench_sparse_embedding.py [--quick] [--no-tf]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

VOCAB, DIM, BATCH, SEQ = 20000, 64, 256, 20


def _child(lib_name: str, opt_name: str, use_function: bool, steps: int) -> float:
    import numpy as np

    lib, opts = _common.framework(lib_name)
    rng = np.random.default_rng(0)
    table = lib.Variable(rng.standard_normal((VOCAB, DIM)).astype(np.float32) * 0.05)
    w = lib.Variable(rng.standard_normal((DIM, 1)).astype(np.float32) * 0.05)
    batches = [(lib.constant(rng.integers(0, VOCAB, (BATCH, SEQ)).astype(np.int64)),
                lib.constant(rng.standard_normal((BATCH, 1)).astype(np.float32)))
               for _ in range(8)]
    opt = opts.Adam(1e-3) if opt_name == "adam" else opts.SGD(0.1, momentum=0.9)

    def step(ids, y):
        with lib.GradientTape() as tape:
            h = lib.reduce_mean(lib.nn.embedding_lookup(table, ids), axis=1)
            loss = lib.reduce_mean((h @ w - y) ** 2)
        grads = tape.gradient(loss, [table, w])
        opt.apply_gradients(zip(grads, [table, w]))
        return loss

    if use_function:
        step = lib.function(step)
    for i in range(5):
        step(*batches[i % 8])
    t0 = time.perf_counter()
    for i in range(steps):
        loss = step(*batches[i % 8])
    float(loss.numpy())
    return steps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-tf", action="store_true")
    p.add_argument("--child", nargs=4)
    a = p.parse_args()
    if a.child:
        lib, opt, fn, steps = a.child
        print(json.dumps(_child(lib, opt, fn == "1", int(steps))))
        return
    steps = 20 if a.quick else 100
    libs = ["torchflow"] + ([] if a.no_tf else ["tf"])
    print(f"sparse embedding step, vocab {VOCAB} x {DIM}, batch {BATCH} x {SEQ} ids; steps/s")
    print(f"{'case':<28}" + "".join(f"{n:>12}" for n in libs) + ("   ratio" if len(libs) > 1
                                                                 else ""))
    for opt in ("adam", "sgd_momentum"):
        for fn in ("0", "1"):
            row = {}
            for lib in libs:
                out = subprocess.run([sys.executable, __file__, "--child", lib, opt, fn,
                                      str(steps)], capture_output=True, text=True)
                try:
                    row[lib] = float(out.stdout.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    row[lib] = None
                    print(f"  ({lib} {opt} function={fn} failed: "
                          f"{out.stderr.strip().splitlines()[-1:]})")
            case = f"{opt} {'tf.function' if fn == '1' else 'eager'}"
            cells = "".join(f"{row[n]:>12.1f}" if row[n] else f"{'-':>12}" for n in libs)
            r = (f"   {row['torchflow'] / row['tf']:.2f}x" if len(libs) > 1 and row.get("tf")
                 and row.get("torchflow") else "")
            print(f"{case:<28}{cells}{r}")


if __name__ == "__main__":
    main()
