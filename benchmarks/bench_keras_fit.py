"""Keras ``fit``: torchflow vs real tf.keras 2.21 vs a hand-written raw torch loop.

Cases (issue 7):

* ``mlp``: 784-128-10 (ReLU) on MNIST-shaped random data, batch 64, Adam,
  sparse categorical cross-entropy from logits, ``accuracy`` metric.
  Target: torchflow no more than 15% below raw torch (steps/s).
* ``cnn``: 28x28x1, Conv32(3x3,relu)-MaxPool-Conv64(3x3,relu)-MaxPool-Flatten-
  Dense10, batch 128, same loss/optimizer/metric. Target: no more than 10%
  below raw torch. The raw torch loop is run in NCHW (torch's default) and in
  channels_last; tf.keras runs NHWC with oneDNN.

One measurement = one ``fit`` call of ``--steps`` steps (``epochs=1``,
``verbose=0``) on ``steps * batch`` samples, so ``fit``'s own set-up per call is
included for both Keras contenders; the raw torch loop shuffles once per call
too and accumulates loss/accuracy as tensors (read once at the end), as
Keras' metrics do. Contenders are interleaved repeat by repeat (median and min
reported) so machine load hits them alike. tf.keras runs in a child process
(driven call by call, so still interleaved): with TF and torch in one process
the two OpenMP/oneDNN runtimes slowed raw torch down several times.

``--spe`` adds ``steps_per_execution=10`` for both Keras contenders, and both
step counts with a callback reading every batch hook's logs (``reader``), then
prints the spe=10 / spe=1 steps/s ratios of torchflow beside tf.keras'. A group
of 10 steps is one replayed call, so spe=10 saves the per-call dispatch; with no
callback reading batch logs ``fit`` already reads the metrics once per epoch, so
grouping pays most where the batch hooks read the logs (once per group).

``python benchmarks/bench_keras_fit.py [--case mlp|cnn|all] [--steps N]
[--repeat R] [--no-tf] [--spe]``
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

CASES = {
    "mlp": dict(batch=64, steps=300, target=0.85),
    "cnn": dict(batch=128, steps=20, target=0.90),
}


def _data(case, n):
    rng = np.random.default_rng(0)
    shape = (n, 784) if case == "mlp" else (n, 28, 28, 1)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, 10, size=(n,)).astype(np.int32)
    return x, y


def keras_model(keras, case):
    L = keras.layers
    if case == "mlp":
        layers = [L.Dense(128, activation="relu", input_shape=(784,)), L.Dense(10)]
    else:
        layers = [L.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
                  L.MaxPooling2D(), L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(),
                  L.Flatten(), L.Dense(10)]
    model = keras.Sequential(layers)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def make_keras_fit(keras, case, x, y, batch, **fit_kwargs):
    model = keras_model(keras, case)

    def run():
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=True, **fit_kwargs)
    return run


def _quiet_fit(model, x, y, batch, verbose, callbacks=None):
    """``fit`` with its progress bar (if any) written to a string, not the terminal."""
    with contextlib.redirect_stdout(io.StringIO()):
        model.fit(x, y, batch_size=batch, epochs=1, verbose=verbose, callbacks=callbacks)


def _log_reader(keras):
    """A callback reading every batch hook's logs (so fit reads the metrics back)."""
    return keras.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: logs["loss"])


def make_torch_fit(case, x, y, batch, channels_last=False):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    nn = torch.nn
    if case == "mlp":
        model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
        xt = torch.from_numpy(x)
    else:
        model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Linear(64 * 5 * 5, 10))
        xt = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()
        if channels_last:
            model = model.to(memory_format=torch.channels_last)
            xt = xt.contiguous(memory_format=torch.channels_last)
    yt = torch.from_numpy(y).long()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    n = xt.shape[0]

    def run():
        perm = torch.randperm(n)
        xs, ys = xt[perm], yt[perm]
        loss_sum = torch.zeros(())
        correct = torch.zeros((), dtype=torch.long)
        for i in range(0, n, batch):
            xb, yb = xs[i:i + batch], ys[i:i + batch]
            with torch.enable_grad():
                logits = model(xb)
                loss = F.cross_entropy(logits, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * xb.shape[0]
            correct += (logits.detach().argmax(1) == yb).sum()
        return float(loss_sum) / n, int(correct) / n
    return run


def _tf_worker(conn, case, steps, batch, threads, variant):
    """Child process: real tf.keras fit, timed on request (TF's and torch's
    OpenMP/oneDNN runtimes in one process slow torch down several times)."""
    tf_ref = _common.real_tf()
    if threads:
        tf_ref.config.threading.set_intra_op_parallelism_threads(threads)
        tf_ref.config.threading.set_inter_op_parallelism_threads(threads)
    x, y = _data(case, steps * batch)
    policy, spe = variant[:2]
    reader = variant[2] if len(variant) > 2 else False
    callbacks = [_log_reader(tf_ref.keras)] if reader else None
    mp = tf_ref.keras.mixed_precision
    mp.set_global_policy(policy)
    model = keras_model(tf_ref.keras, case)
    mp.set_global_policy("float32")
    model.compile(optimizer=tf_ref.keras.optimizers.Adam(1e-3),
                  loss=tf_ref.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], steps_per_execution=spe)
    while conn.recv():
        start = _clock()
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=True,
                  callbacks=callbacks)
        conn.send(_clock() - start)


class TFKerasProcess:
    """A callable timing one tf.keras fit call in its own process; returns seconds."""

    def __init__(self, case, steps, batch, threads=None, variant=("float32", 1)):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_tf_worker, daemon=True,
                                args=(child, case, steps, batch, threads, variant))
        self.proc.start()

    def __call__(self):
        self.conn.send(True)
        return self.conn.recv()

    def close(self):
        self.conn.send(False)
        self.proc.join(10)


def interleaved(contenders, repeat):
    """{name: [seconds per call]} with the contenders interleaved per repeat."""
    live = {k: f for k, f in contenders.items() if f is not None}
    for f in live.values():
        f()
    samples = {k: [] for k in live}
    names = list(live)
    for r in range(repeat):
        # Each round starts one contender later, and a pause follows tf.keras' runs
        # (its thread pool keeps spinning after a fit, slowing whoever comes next).
        for k in names[r % len(names):] + names[:r % len(names)]:
            f = live[k]
            start = _clock()
            took = f()
            # a TFKerasProcess reports its own time (the pipe's cost excluded)
            samples[k].append(took if isinstance(took, float) and isinstance(
                f, TFKerasProcess) else _clock() - start)
            if isinstance(f, TFKerasProcess):
                time.sleep(0.05)
    return samples


def report(title, samples, steps, baseline, target=None, ours="torchflow"):
    print(f"\n{title}  ({steps} steps per call; steps/s median [best])")
    med = {k: steps / statistics.median(v) for k, v in samples.items()}
    best = {k: steps / min(v) for k, v in samples.items()}
    for k in samples:
        r = f"  {med[k] / med[baseline]:.2f}x {baseline}" if baseline in med else ""
        print(f"  {k:28s} {med[k]:8.1f} [{best[k]:8.1f}]{r}")
    if target is not None and ours in med and baseline in med:
        ratio = med[ours] / med[baseline]
        print(f"  target {ours} >= {target:.2f}x {baseline}: "
              f"{'OK' if ratio >= target else 'MISSED'} ({ratio:.2f}x median, "
              f"{best[ours] / best[baseline]:.2f}x best)")
    return med


def _spe_name(who, spe, reader):
    return who if spe == 1 and not reader else \
        f"{who} spe={spe}" + (" reader" if reader else "")


def _clock() -> float:
    """Seconds: wall time, or with ``--cpu-time`` the CPU time of the whole process
    (its threads summed; real TF's children clock themselves alike). On a shared
    machine a contender's wall time counts the time others held the CPU; its CPU
    time counts its own work (with one thread, nothing spins waiting)."""
    return time.process_time() if os.environ.get("BENCH_CPU_TIME") else time.perf_counter()


def _loadavg() -> str:
    """The 1/5/15-minute load averages (the machine is shared: figures need them)."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", default="all", choices=["mlp", "cnn", "all"])
    p.add_argument("--steps", type=int, default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-tf", action="store_true")
    p.add_argument("--spe", action="store_true",
                   help="also steps_per_execution=10, and both with a batch-log reader")
    p.add_argument("--cpu-time", action="store_true",
                   help="time CPU seconds, not wall seconds (a loaded machine)")
    p.add_argument("--threads", type=int, default=None,
                   help="intra-op threads for torch and TF (e.g. 1 on a loaded machine)")
    args = p.parse_args(argv)
    if args.cpu_time:
        os.environ["BENCH_CPU_TIME"] = "1"  # read by _clock, here and in the children
    import torch

    import torchflow as tf

    if args.threads:
        torch.set_num_threads(args.threads)

    print(_common.describe_machine() + " (tf.keras runs in a child process)")
    print(f"load average at start: {_loadavg()}")
    cases = ["mlp", "cnn"] if args.case == "all" else [args.case]
    ok = True
    for case in cases:
        cfg = CASES[case]
        steps = args.steps or cfg["steps"]
        x, y = _data(case, steps * cfg["batch"])
        contenders = {
            "torch": make_torch_fit(case, x, y, cfg["batch"]),
            "torchflow": make_keras_fit(tf.keras, case, x, y, cfg["batch"]),
        }
        if case == "cnn":
            contenders["torch channels_last"] = make_torch_fit(case, x, y, cfg["batch"],
                                                               channels_last=True)
        variants = ((10, False), (1, True), (10, True)) if args.spe else ()
        for spe, reader in variants:
            tf.keras.backend.clear_session()
            m = keras_model(tf.keras, case)
            m.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss=m.loss,
                      metrics=["accuracy"], steps_per_execution=spe)
            contenders[_spe_name("torchflow", spe, reader)] = functools.partial(
                _quiet_fit, m, x, y, cfg["batch"], 0, [_log_reader(tf.keras)] if reader else None)
        procs = []
        if not args.no_tf:
            procs.append(TFKerasProcess(case, steps, cfg["batch"], args.threads))
            contenders["tf.keras"] = procs[-1]
            for spe, reader in variants:
                procs.append(TFKerasProcess(case, steps, cfg["batch"], args.threads,
                                            ("float32", spe, reader)))
                contenders[_spe_name("tf.keras", spe, reader)] = procs[-1]
        samples = interleaved(contenders, args.repeat)
        for proc in procs:
            proc.close()
        med = report(f"{case}: fit", samples, steps, "torch", cfg["target"])
        ok &= med["torchflow"] / med["torch"] >= cfg["target"]
        if args.spe:
            print("  steps_per_execution=10 vs 1 (steps/s ratio, medians):")
            for who in ("torchflow", "tf.keras"):
                if who not in med:
                    continue
                quiet = med[_spe_name(who, 10, False)] / med[who]
                read = med[_spe_name(who, 10, True)] / med[_spe_name(who, 1, True)]
                print(f"    {who:10s} {quiet:5.2f}x   with a batch-log reader {read:5.2f}x")
    print(f"load average at end: {_loadavg()}")
    print(f"\ntorch threads: {torch.get_num_threads()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
