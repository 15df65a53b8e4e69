"""tf.nn.embedding_lookup_sparse / safe_embedding_lookup_sparse training steps/s:
torchflow vs real TF 2.21 (tf-keras legacy Adam), eager and inside ``tf.function``.

The step: a SparseTensor of ids [BATCH, up to K per row] (safe: every 7th id is -1,
dropped) -> mean-combined lookup of a [VOCAB, DIM] variable -> matmul -> MSE;
GradientTape gradient (an IndexedSlices for the table) -> Adam's sparse update.
Every batch has its own number of ids, as real data does, so a traced function
sees a new ``indices``/``values`` shape on each of the 8 batches. Each library runs
in its own child process.

``python benchmarks/bench_sparse_lookup.py [--quick] [--no-tf]``
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

VOCAB, DIM, BATCH, K = 20000, 64, 256, 20


def _child(lib_name: str, safe: bool, use_function: bool, steps: int) -> float:
    import numpy as np

    lib, opts = _common.framework(lib_name)
    rng = np.random.default_rng(0)
    table = lib.Variable(rng.standard_normal((VOCAB, DIM)).astype(np.float32) * 0.05)
    w = lib.Variable(rng.standard_normal((DIM, 1)).astype(np.float32) * 0.05)

    def batch():
        lens = rng.integers(1, K, BATCH)
        idx = np.array([[r, j] for r in range(BATCH) for j in range(lens[r])], np.int64)
        vals = rng.integers(0, VOCAB, len(idx)).astype(np.int64)
        if safe:
            vals[::7] = -1
        return (lib.sparse.SparseTensor(idx, vals, [BATCH, K]),
                lib.constant(rng.standard_normal((BATCH, 1)).astype(np.float32)))

    batches = [batch() for _ in range(8)]
    opt = opts.Adam(1e-3)
    lookup = lib.nn.safe_embedding_lookup_sparse if safe else lib.nn.embedding_lookup_sparse

    def step(ids, y):
        with lib.GradientTape() as tape:
            h = lookup(table, ids, None, combiner="mean")
            loss = lib.reduce_mean((h @ w - y) ** 2)
        grads = tape.gradient(loss, [table, w])
        opt.apply_gradients(zip(grads, [table, w]))
        return loss

    if use_function:
        step = lib.function(step)
    for i in range(8):
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
        lib, safe, fn, steps = a.child
        print(json.dumps(_child(lib, safe == "1", fn == "1", int(steps))))
        return
    steps = 16 if a.quick else 64
    libs = ["torchflow"] + ([] if a.no_tf else ["tf"])
    print(f"embedding_lookup_sparse step, vocab {VOCAB} x {DIM}, batch {BATCH} x <{K} ids; "
          "steps/s")
    print(f"{'case':<34}" + "".join(f"{n:>12}" for n in libs) + ("   ratio" if len(libs) > 1
                                                                 else ""))
    for safe in ("0", "1"):
        for fn in ("0", "1"):
            row = {}
            for lib in libs:
                out = subprocess.run([sys.executable, __file__, "--child", lib, safe, fn,
                                      str(steps)], capture_output=True, text=True)
                try:
                    row[lib] = float(out.stdout.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    row[lib] = None
                    print(f"  ({lib} safe={safe} function={fn} failed: "
                          f"{out.stderr.strip().splitlines()[-1:]})")
            case = (f"{'safe_' if safe == '1' else ''}embedding_lookup_sparse "
                    f"{'fn' if fn == '1' else 'eager'}")
            cells = "".join(f"{row[n]:>12.1f}" if row[n] else f"{'-':>12}" for n in libs)
            r = (f"   {row['torchflow'] / row['tf']:.2f}x" if len(libs) > 1 and row.get("tf")
                 and row.get("torchflow") else "")
            print(f"{case:<34}{cells}{r}")


if __name__ == "__main__":
    main()
