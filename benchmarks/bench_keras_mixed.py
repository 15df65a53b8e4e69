"""Keras ``fit`` variants on CPU: ``steps_per_execution`` 1 vs 10, float32 vs mixed_bfloat16.

Same models, data and measurement as ``bench_keras_fit.py`` (MLP 784-128-10,
batch 64; small CNN, batch 128; Adam, sparse CE from logits, ``accuracy``),
for torchflow and real tf.keras 2.21. Every variant of a case runs in one
interleaved loop (median and best steps/s). Issue 7 asks for these figures to
be reported; there is no target.

``python benchmarks/bench_keras_mixed.py [--case mlp|cnn|all] [--steps N]
[--repeat R] [--no-tf]``
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common
import bench_keras_fit as fit_bench

VARIANTS = (("float32", 1), ("float32", 10), ("mixed_bfloat16", 1))


def make_variant(keras, case, x, y, batch, policy="float32", spe=1):
    """A zero-argument fit call for one (policy, steps_per_execution) variant."""
    mp = keras.mixed_precision
    old = mp.global_policy()
    mp.set_global_policy(policy)
    try:
        model = fit_bench.keras_model(keras, case)
    finally:
        mp.set_global_policy(old)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], steps_per_execution=spe)

    def run():
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=True)
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", default="all", choices=["mlp", "cnn", "all"])
    p.add_argument("--steps", type=int, default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-tf", action="store_true")
    p.add_argument("--threads", type=int, default=None,
                   help="intra-op threads for torch and TF (see bench_keras_fit.py)")
    args = p.parse_args(argv)
    import torch

    import torchflow as tf

    if args.threads:
        torch.set_num_threads(args.threads)

    print(_common.describe_machine())
    for case in (["mlp", "cnn"] if args.case == "all" else [args.case]):
        cfg = fit_bench.CASES[case]
        steps = args.steps or cfg["steps"]
        x, y = fit_bench._data(case, steps * cfg["batch"])
        contenders, procs = {}, []
        for policy, spe in VARIANTS:
            contenders[f"torchflow {policy} spe={spe}"] = make_variant(
                tf.keras, case, x, y, cfg["batch"], policy, spe)
            if not args.no_tf:  # in a child process, as in bench_keras_fit.py
                procs.append(fit_bench.TFKerasProcess(case, steps, cfg["batch"], args.threads,
                                                      (policy, spe)))
                contenders[f"tf.keras {policy} spe={spe}"] = procs[-1]
        samples = fit_bench.interleaved(contenders, args.repeat)
        for proc in procs:
            proc.close()
        fit_bench.report(f"{case}: fit variants", samples, steps, "torchflow float32 spe=1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
