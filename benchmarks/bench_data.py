"""tf.data input pipeline throughput: torchflow vs real tf.data vs torch DataLoader.

Pipeline (the issue's): 60k 28x28 uint8 images + int labels ->
``map(cast to float32, / 255, num_parallel_calls=AUTOTUNE)`` -> ``shuffle(10000)``
-> ``batch(128)`` -> ``prefetch(AUTOTUNE)``; elements/s for one full pass (the
dataset is built once; each pass makes a new iterator). Contenders are timed
interleaved, pass by pass; medians are printed with ratios.

A second table shows how a parallel ``map`` scales with a CPU-heavy function
(a 128x128 matmul chain per element, map vectorization switched off so each
element is one call) for num_parallel_calls 1, 2, 4, AUTOTUNE.

    .venv/bin/python benchmarks/bench_data.py [--repeat 5] [--no-tf] [--no-torch]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import _common
import numpy as np

import torchflow as tf

N, H, W, BATCH, SHUFFLE = 60000, 28, 28, 128, 10000


def data():
    rng = np.random.default_rng(0)
    return (rng.integers(0, 256, size=(N, H, W), dtype=np.uint8),
            rng.integers(0, 10, size=(N,), dtype=np.int64))


def make_pipeline(mod, images, labels):
    ds = mod.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.map(lambda x, y: (mod.cast(x, mod.float32) / 255.0, y),
                num_parallel_calls=mod.data.AUTOTUNE)
    return ds.shuffle(SHUFFLE).batch(BATCH).prefetch(mod.data.AUTOTUNE)


def one_pass(ds) -> int:
    n = 0
    for x, _ in ds:
        n += x.shape[0]
    return n


def torch_loader(images, labels, workers):
    import torch
    from torch.utils.data import DataLoader, Dataset

    class Mnist(Dataset):
        def __init__(self):
            self.x = torch.from_numpy(images)
            self.y = torch.from_numpy(labels)

        def __len__(self):
            return N

        def __getitem__(self, i):
            return self.x[i].float() / 255.0, self.y[i]

    return DataLoader(Mnist(), batch_size=BATCH, shuffle=True, num_workers=workers,
                      persistent_workers=workers > 0)


def rates(contenders: dict, repeat: int) -> dict:
    samples = {k: [] for k in contenders}
    for f in contenders.values():  # warm-up pass (imports, thread start, caches)
        f()
    for _ in range(repeat):
        for k, f in contenders.items():
            t0 = time.perf_counter()
            n = f()
            samples[k].append(n / (time.perf_counter() - t0))
    return {k: statistics.median(v) for k, v in samples.items()}


def heavy_map_scaling(repeat: int) -> None:
    n = 256
    # Per-element calls (vectorization off) so that the thread pool is what is measured.
    opts = tf.data.Options()
    opts.experimental_optimization.map_vectorization.enabled = False
    base = tf.data.Dataset.from_tensor_slices(np.random.default_rng(1).standard_normal(
        (n, 128, 128)).astype(np.float32)).with_options(opts)

    def heavy(x):
        for _ in range(8):
            x = tf.tanh(tf.matmul(x, x) * 0.01)
        return tf.reduce_sum(x)

    cont = {}
    for p in (None, 1, 2, 4, tf.data.AUTOTUNE):
        name = {None: "sequential", tf.data.AUTOTUNE: "AUTOTUNE"}.get(p, f"parallel={p}")
        ds = base.map(heavy, num_parallel_calls=p)
        cont[name] = lambda ds=ds: sum(1 for _ in ds)
    import torch

    r = rates(cont, repeat)
    seq = r["sequential"]
    print(f"\nCPU-heavy map (8 x [128x128 matmul + tanh] per element, {n} elements, "
          f"{torch.get_num_threads()} torch intra-op threads, {os.cpu_count()} CPUs):")
    for k, v in r.items():
        print(f"  {k:<12} {v:>10,.0f} elements/s   x{v / seq:.2f} vs sequential")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-heavy", action="store_true")
    args = ap.parse_args()
    images, labels = data()
    cont = {"torchflow": (lambda ds=make_pipeline(tf, images, labels): one_pass(ds))}  # noqa: B008 (evaluated once, on purpose)
    if not args.no_tf:
        real = _common.real_tf()
        if real is not None:
            real_ds = make_pipeline(real, images, labels)
            cont["tf.data"] = lambda: one_pass(real_ds)
    if not args.no_torch:
        for w in (0, 2):
            loader = torch_loader(images, labels, w)
            cont[f"DataLoader(num_workers={w})"] = lambda ld=loader: one_pass(ld)
    r = rates(cont, args.repeat)
    print(f"MNIST-like pipeline, {N} elements/pass, median of {args.repeat} passes:")
    for k, v in r.items():
        extra = ""
        if k != "torchflow":
            extra = f"   torchflow / {k} = {r['torchflow'] / v:.2f}x"
        print(f"  {k:<26} {v:>10,.0f} elements/s{extra}")
    if not args.no_heavy:
        import torch

        heavy_map_scaling(max(3, args.repeat // 2))
        # The same with one intra-op thread per op: the map's thread pool is then the
        # only source of parallelism (TF's tf.data default, max_intra_op_parallelism=1).
        n = torch.get_num_threads()
        torch.set_num_threads(1)
        heavy_map_scaling(max(3, args.repeat // 2))
        torch.set_num_threads(n)


if __name__ == "__main__":
    main()
