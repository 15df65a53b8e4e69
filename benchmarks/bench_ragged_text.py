"""Ragged text pipeline throughput: torchflow vs real TF 2.21 (tf-keras).

Two workloads on synthetic sentences (3-20 words from a 5,000-word vocabulary):

* ``data``: ``from_tensor_slices(texts).batch(64).map(split -> to_hash_bucket_fast)``,
  one pass; sentences/s.
* ``fit``: ``Input(shape=[None], dtype=int64, ragged=True) -> Embedding(5000, 32) ->
  mean over the words -> Dense(1, sigmoid)``, ``fit`` one epoch on the hashed
  ragged batches of the pipeline above; sentences/s.

Each library runs in its own child process, one after the other. Goal (issue 16):
torchflow >= TF on both.

``python benchmarks/bench_ragged_text.py [--quick] [--no-tf]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

VOCAB, BUCKETS, BATCH = 5000, 5000, 64


def _texts(n):
    import numpy as np

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(VOCAB)]
    return [" ".join(rng.choice(words, rng.integers(3, 21))) for _ in range(n)], \
        rng.integers(0, 2, n).astype(np.float32)


def _child(lib_name: str, workload: str, n: int) -> float:
    if lib_name == "tf":
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as lib
    else:
        import torchflow as lib
    texts, labels = _texts(n)

    def pipeline(with_labels):
        src = (texts, labels) if with_labels else texts
        ds = lib.data.Dataset.from_tensor_slices(src).batch(BATCH)
        if with_labels:
            return ds.map(lambda x, y: (lib.strings.to_hash_bucket_fast(
                lib.strings.split(x), BUCKETS), y))
        return ds.map(lambda x: lib.strings.to_hash_bucket_fast(lib.strings.split(x), BUCKETS))

    if workload == "data":
        for _ in pipeline(False).take(2):
            pass
        t0 = time.perf_counter()
        for _ in pipeline(False):
            pass
        return n / (time.perf_counter() - t0)
    model = lib.keras.Sequential([
        lib.keras.layers.Input(shape=[None], dtype=lib.int64, ragged=True),
        lib.keras.layers.Embedding(BUCKETS, 32),
        lib.keras.layers.Lambda(lambda t: lib.reduce_mean(t, axis=1)),
        lib.keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy")
    batches = list(pipeline(True))
    warm = lib.data.Dataset.from_tensor_slices((texts[:BATCH * 2], labels[:BATCH * 2])).batch(
        BATCH).map(lambda x, y: (lib.strings.to_hash_bucket_fast(lib.strings.split(x),
                                                                  BUCKETS), y))
    model.fit(warm, epochs=1, verbose=0)
    t0 = time.perf_counter()
    for x, y in batches:
        model.train_on_batch(x, y)
    return n / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-tf", action="store_true")
    p.add_argument("--child", nargs=3)
    a = p.parse_args()
    if a.child:
        lib, workload, n = a.child
        print(json.dumps(_child(lib, workload, int(n))))
        return
    n = 1280 if a.quick else 6400
    libs = ["torchflow"] + ([] if a.no_tf else ["tf"])
    print(f"ragged text pipeline, {n} sentences, batch {BATCH}; sentences/s")
    print(f"{'workload':<12}" + "".join(f"{x:>12}" for x in libs) +
          ("   ratio" if len(libs) > 1 else ""))
    for workload in ("data", "fit"):
        rates = []
        for lib in libs:
            out = subprocess.run([sys.executable, __file__, "--child", lib, workload, str(n)],
                                 capture_output=True, text=True, check=True)
            rates.append(float(out.stdout.strip().splitlines()[-1]))
        line = f"{workload:<12}" + "".join(f"{r:>12.0f}" for r in rates)
        if len(rates) > 1:
            line += f"   {rates[0] / rates[1]:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
