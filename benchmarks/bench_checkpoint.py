"""Checkpoint save and load of a ~100 MB model: torchflow against real TensorFlow.

The model is the same Keras program in both: a Sequential of six
Dense(2048) layers on 2048 inputs (25.2 M float32 weights, 100.7 MB), saved
with ``tf.train.Checkpoint(model=model).write(prefix)`` and restored with
``.read(prefix)`` into the built model, both in TF's tensor-bundle format (the
files are interchangeable). Each contender writes to its own directory under
``--dir`` (default: a temporary directory). Median of ``--repeat`` interleaved
runs.

torchflow flushes both files to disk (``fsync``) before renaming them into place
(its crash-safety rule, docs/checkpoints.md); TF does not, so on a slow disk the
save column includes time TF leaves to the page cache. ``--no-fsync`` is not
offered: the guarantee is part of what is measured.

    python benchmarks/bench_checkpoint.py [--repeat 5] [--dir /tmp/ckbench]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Row, compare, describe_machine, print_table, real_tf

UNITS, LAYERS = 2048, 6


def _model(lib):
    layers = [lib.keras.layers.Dense(UNITS, input_shape=(UNITS,))]
    layers += [lib.keras.layers.Dense(UNITS) for _ in range(LAYERS - 1)]
    model = lib.keras.Sequential(layers)
    model(np.zeros((1, UNITS), np.float32))
    return model


def _contenders(lib, directory):
    model = _model(lib)
    ckpt = lib.train.Checkpoint(model=model)
    prefix = os.path.join(directory, "ckpt")
    ckpt.write(prefix)

    def save():
        ckpt.write(prefix)

    def load():
        ckpt.read(prefix).assert_consumed()

    nbytes = sum(w.size * w.itemsize for w in model.get_weights())
    return save, load, nbytes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args(argv)
    root = args.dir or tempfile.mkdtemp(prefix="bench_checkpoint_")
    os.makedirs(root, exist_ok=True)
    try:
        import torchflow as tf

        rtf = real_tf()
        ours_save, ours_load, nbytes = _contenders(tf, os.path.join(root, "torchflow"))
        saves = {"torchflow": ours_save}
        loads = {"torchflow": ours_load}
        if rtf is not None:
            tf_save, tf_load, _ = _contenders(rtf, os.path.join(root, "TF"))
            saves["TF"] = tf_save
            loads["TF"] = tf_load
        save_t = compare(saves, repeat=args.repeat, target_s=0.0)
        load_t = compare(loads, repeat=args.repeat, target_s=0.0)
        print(describe_machine())
        print(f"model: {LAYERS} x Dense({UNITS}), {nbytes / 1e6:.1f} MB of float32 weights")
        rows = [Row(f"save {nbytes / 1e6:.0f} MB", save_t, [("torchflow", "TF", 1.5, "max")]),
                Row(f"load {nbytes / 1e6:.0f} MB", load_t, [("torchflow", "TF", 1.5, "max")])]
        for row in rows:
            t = row.times.get("torchflow")
            print(f"{row.case}: torchflow {nbytes / t / 1e9:.2f} GB/s" if t else row.case)
        ok = print_table("tf.train.Checkpoint write/read (median)", rows,
                         ["torchflow", "TF"], [("torchflow", "TF")])
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
