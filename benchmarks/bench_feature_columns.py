"""DenseFeatures over the structured-data tutorial's columns: torchflow vs real TF
2.21 (tf-keras) vs raw torch, per call of the layer on one batch.

The columns: 7 numeric, age bucketized (11 buckets), thal by vocabulary as an
indicator and an 8-d embedding, and the age-bucket x thal cross hashed into
1000 buckets as an indicator (1029 outputs). Inputs: a dict of BATCH rows (int64
and float64 columns, thal strings), as ``tf.data`` gives the tutorial's pandas
frame. Eager calls, and calls of a ``tf.function`` around the layer.

Raw torch does the same computation by hand: ``torch.bucketize``, a dict lookup
of the strings, ``one_hot``, ``embedding_bag`` and the cross's FarmHash
combination in Python (torch has no string ops), then ``cat``. The three are
timed interleaved in one process (``_common.compare``); medians reported.

``python benchmarks/bench_feature_columns.py [--quick] [--no-tf]``
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH = 256
NUMERIC = ["age", "trestbps", "chol", "thalach", "oldpeak", "slope", "ca"]
BOUNDARIES = [18, 25, 30, 35, 40, 45, 50, 55, 60, 65]
VOCAB = ["fixed", "normal", "reversible"]


def _frame():
    rng = np.random.RandomState(0)
    cols = {k: rng.randint(1, 80, BATCH).astype(np.int64) for k in NUMERIC}
    cols["oldpeak"] = rng.uniform(0, 6, BATCH)
    cols["thal"] = rng.choice(VOCAB + ["1", "2"], BATCH).astype(object)
    return cols


def _layer(m):
    fc = m.feature_column
    cols = [fc.numeric_column(k) for k in NUMERIC]
    age = fc.bucketized_column(fc.numeric_column("age"), BOUNDARIES)
    thal = fc.categorical_column_with_vocabulary_list("thal", VOCAB)
    cols += [age, fc.indicator_column(thal), fc.embedding_column(thal, 8),
             fc.indicator_column(fc.crossed_column([age, thal], 1000))]
    return m.keras.layers.DenseFeatures(cols)


def _contender(m, frame, traced):
    layer = _layer(m)
    feats = {k: m.constant(v) for k, v in frame.items()}
    layer(feats)
    fn = m.function(lambda f: layer(f)) if traced else layer
    fn(feats)
    return lambda: fn(feats).numpy()


def _raw_torch(frame):
    import torch

    from torchflow._src.ops.sparse.sparse_cross import hash_combiner

    table = torch.randn(len(VOCAB), 8)
    index = {w.encode(): i for i, w in enumerate(VOCAB)}
    combine = hash_combiner(1000, None)
    numeric = {k: torch.from_numpy(np.asarray(frame[k])) for k in NUMERIC}
    thal = [s.encode() for s in frame["thal"]]
    bounds = torch.tensor(BOUNDARIES, dtype=torch.float32)

    def run():
        age = numeric["age"].float()
        buckets = torch.bucketize(age, bounds, right=True)
        ids = torch.tensor([index.get(s, -1) for s in thal])
        valid = ids >= 0
        onehot = torch.zeros(BATCH, len(VOCAB))
        onehot[valid, ids[valid]] = 1.0
        emb = torch.zeros(BATCH, 8)
        emb[valid] = torch.nn.functional.embedding_bag(
            ids[valid].unsqueeze(1), table, mode="mean")
        cross = torch.zeros(BATCH, 1000)
        hashed = [combine((b, i)) for b, i in zip(buckets.tolist(), ids.tolist())]
        rows = torch.nonzero(valid).squeeze(1)
        cross[rows, torch.tensor(hashed)[valid]] = 1.0
        parts = [age[:, None], torch.nn.functional.one_hot(buckets, 11).float(), cross,
                 numeric["ca"].float()[:, None], numeric["chol"].float()[:, None],
                 numeric["oldpeak"].float()[:, None], numeric["slope"].float()[:, None],
                 emb, onehot, numeric["thalach"].float()[:, None],
                 numeric["trestbps"].float()[:, None]]
        return torch.cat(parts, 1)

    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-tf", action="store_true")
    args = ap.parse_args()
    import torchflow

    rtf = None if args.no_tf else _common.real_tf()
    frame = _frame()
    for traced in (False, True):
        contenders = {"torchflow": _contender(torchflow, frame, traced),
                      "raw torch": _raw_torch(frame)}
        if rtf is not None:
            contenders["tf"] = _contender(rtf, frame, traced)
        times = _common.compare(contenders, repeat=3 if args.quick else 7)
        label = "tf.function" if traced else "eager"
        line = ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in times.items())
        ratio = (f"; tf/torchflow {times['tf'] / times['torchflow']:.2f}x"
                 if "tf" in times else "")
        print(f"DenseFeatures {label}, batch {BATCH}: {line}{ratio}")
    with open("/proc/loadavg") as f:
        print("load:", f.read().strip())


if __name__ == "__main__":
    main()
