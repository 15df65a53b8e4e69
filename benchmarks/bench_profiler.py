"""tf.profiler overhead on a training step (issue 17): profiling off vs on.

Workloads (``--steps`` steps per run, MLP 784-128-10 with ReLU, batch 64, Adam, sparse
categorical cross-entropy from logits):

* ``fit``: Keras ``model.fit`` (its traced train step), ``epochs=1``, ``verbose=0``.
* ``loop``: a custom loop: a ``tf.function`` step with a ``GradientTape`` and
  ``optimizer.apply_gradients``, each step inside TF's step marker
  ``tf.profiler.experimental.Trace("train", step_num=i, _r=1)``.

Contenders per workload, timed alternately, median of ``--repeat`` runs:

* ``off``: no profiler.
* ``on``: the steps inside a running capture (default ``ProfilerOptions``:
  host_tracer_level=2, python tracer off, device tracer on): what profiling costs each
  training step. Target: on/off <= 1.10 (the issue's goal). ``start`` and
  ``stop(save=False)`` are outside this time.
* ``on-L1``: the same with ``host_tracer_level=1`` (step markers and the library's
  ranges, no per-op events).
* ``run+save``: ``start``, the steps, ``stop()`` writing the ``.xplane.pb``: the whole
  profiled run, with the export of every captured op at ``stop``.

Real TF 2.21 (tf.keras, its own profiler) runs the same workloads in a child process
(``--impl tensorflow``), so its ratios are shown beside ours; ``--no-tf`` skips it.
The last table is what the library's hooks cost with no profiler running (the step
marker, ``host_range`` for checkpoints, ``function_call`` for tf.function, the
``active()`` check a tf.data iterator makes per element, a collective's event hook and
the transport's per-call check), and a 4-byte all-reduce on a one-member Gloo group
with the collective's event hook and with it replaced by a bare ``nullcontext``.

``python benchmarks/bench_profiler.py [--steps N] [--repeat R] [--stat median|min]
[--clock wall|thread] [--no-tf] [--strict]``
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

BATCH = 64


def _model(tf):
    model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu",
                                                       input_shape=(784,)),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _workloads(tf, steps: int) -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps * BATCH, 784)).astype(np.float32)
    y = rng.integers(0, 10, size=(steps * BATCH,)).astype(np.int32)
    fit_model = _model(tf)

    def fit():
        fit_model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)

    loop_model = _model(tf)
    opt = tf.keras.optimizers.Adam()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, loop_model(xb, training=True))
        grads = tape.gradient(loss, loop_model.trainable_variables)
        opt.apply_gradients(zip(grads, loop_model.trainable_variables))
        return loss

    batches = [(tf.constant(x[i * BATCH:(i + 1) * BATCH]),
                tf.constant(y[i * BATCH:(i + 1) * BATCH])) for i in range(steps)]

    def loop():
        for i, (xb, yb) in enumerate(batches):
            with tf.profiler.experimental.Trace("train", step_num=i, _r=1):
                train_step(xb, yb)

    return {"fit": fit, "loop": loop}


def _measure(tf, steps: int, repeat: int, stat: str = "median", clock: str = "wall") -> dict:
    """{workload: {contender: median (or min) seconds per run}} for one implementation."""
    now = time.thread_time if clock == "thread" else time.perf_counter
    logdir = tempfile.mkdtemp(prefix="bench_profiler_")
    exp = tf.profiler.experimental
    level1 = exp.ProfilerOptions(host_tracer_level=1)
    out = {}
    for name, run in _workloads(tf, steps).items():
        run()
        run()
        exp.start(logdir)  # the first capture of a process sets the profiler up
        run()
        exp.stop(save=False)

        def on(options=None, run=run):
            exp.start(logdir, options=options)
            try:
                t0 = now()
                run()
                return now() - t0
            finally:
                exp.stop(save=False)

        def off(run=run):
            t0 = now()
            run()
            return now() - t0

        def saved(run=run):
            t0 = now()
            exp.start(logdir)
            run()
            exp.stop()
            return now() - t0

        contenders = {"off": off, "on": on, "on-L1": lambda on=on: on(level1),
                      "run+save": saved}
        samples: dict[str, list[float]] = {k: [] for k in contenders}
        keys = list(contenders)
        for r in range(repeat):
            for k in keys[r % len(keys):] + keys[:r % len(keys)]:  # rotate the order
                samples[k].append(contenders[k]())
        pick = min if stat == "min" else statistics.median
        out[name] = {k: pick(v) for k, v in samples.items()}
    return out


def _hooks_idle():
    import torchflow as tf
    from torchflow._src.core import collective, profiler_backend, rpc

    group = collective.CollectiveGroup(0, 1, ["/job:worker/replica:0/task:0"],
                                       master_addr="127.0.0.1",
                                       master_port=rpc.pick_unused_port())
    small = [tf.constant([1.0])]
    raw = [small[0]._t]

    class _NoHook(collective.CollectiveGroup):  # the same group, without the event hook
        def _event(self, op_type, tensors):
            return contextlib.nullcontext()

    bare = object.__new__(_NoHook)
    bare.__dict__.update(group.__dict__)

    def collective_hook():
        with group._event("CollectiveReduceV2", raw):
            pass

    def rpc_check():  # what Channel.call and the served call add
        if profiler_backend._active:
            pass

    trace = tf.profiler.experimental.Trace
    null = contextlib.nullcontext()

    def count():
        return 0

    def marker():
        with trace("train", step_num=1, _r=1):
            pass

    def host_range():
        with profiler_backend.host_range("Iterator::Root"):
            pass

    def function_call():
        with profiler_backend.function_call("train_step", count):
            pass

    def get_next_check():  # what an iterator's next() adds
        with null:
            if profiler_backend.active():
                pass

    def empty():
        with null:
            pass

    return {"Trace": marker, "host_range": host_range, "function_call": function_call,
            "active()": get_next_check, "collective": collective_hook, "rpc check": rpc_check,
            "nullcontext": empty}, {
            "all_reduce 4 B": lambda: group.all_reduce(small),
            "no hook": lambda: bare.all_reduce(small)}


def _export_cost(tf, steps: int, repeat: int) -> dict:
    """Seconds of each phase of ``stop()`` (median of ``repeat`` captures of ``steps``
    custom-loop steps at host_tracer_level=2) and the events per capture."""
    from torchflow._src.core import profiler_backend
    from torchflow._src.profiler import session as session_lib
    from torchflow._src.profiler import xspace as xspace_lib

    loop = _workloads(tf, steps)["loop"]
    loop()
    logdir = tempfile.mkdtemp(prefix="bench_profiler_export_")
    phases: dict[str, list[float]] = {k: [] for k in (
        "kineto disable", "RawEvents", "XSpace build", "serialize+write", "stop() total")}
    counts = []
    for r in range(repeat + 1):
        tf.profiler.experimental.start(logdir)
        loop()
        session = session_lib._current
        session_lib._current = None
        session_lib._logdir = None
        gc.disable()  # as stop() does
        t0 = time.perf_counter()
        results = session.capture._disable()
        t1 = time.perf_counter()
        events = session.capture.convert(results)
        t2 = time.perf_counter()
        session.user_names |= profiler_backend.range_names()
        space = xspace_lib.build_xspace(events, session.start_ns, time.time_ns(),
                                        user_names=session.user_names,
                                        thread_names=xspace_lib.thread_names_from(events))
        t3 = time.perf_counter()
        xspace_lib.write_xspace(space, os.path.join(logdir, str(r)))
        t4 = time.perf_counter()
        gc.enable()
        tf.profiler.experimental.start(logdir)  # the whole stop() of the same steps
        loop()
        t5 = time.perf_counter()
        tf.profiler.experimental.stop()
        t6 = time.perf_counter()
        if r == 0:
            continue  # warm-up
        counts.append(len(events))
        for key, value in zip(phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t6 - t5)):
            phases[key].append(value)
    out = {k: statistics.median(v) for k, v in phases.items()}
    out["events"] = statistics.median(counts)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--part", default="all", choices=["all", "hooks", "export"],
                        help="hooks: only the idle hooks; export: only the cost of stop() "
                             "by phase (--steps loop steps per capture)")
    parser.add_argument("--no-tf", action="store_true", help="skip real TensorFlow")
    parser.add_argument("--impl", default="torchflow", choices=["torchflow", "tensorflow"])
    parser.add_argument("--stat", default="median", choices=["median", "min"],
                        help="min estimates the undisturbed cost on a shared machine")
    parser.add_argument("--clock", default="wall", choices=["wall", "thread"],
                        help="thread: the main thread's CPU time (steadier when the machine "
                             "is loaded; leaves out torch's worker threads)")
    args = parser.parse_args(argv)
    if args.impl == "tensorflow":  # the child: real TF's numbers as JSON
        print(json.dumps(_measure(_common.real_tf(), args.steps, args.repeat, args.stat,
                                  args.clock)))
        return 0
    import torchflow as tf

    print(_common.describe_machine())
    if args.part == "export":
        cost = _export_cost(tf, args.steps, args.repeat)
        n = cost.pop("events")
        print(f"stop() of {args.steps} loop steps, {n:.0f} events (median of "
              f"{args.repeat}; the phases of one stop, then a whole stop() of the same steps):")
        for key, value in cost.items():
            print(f"  {key:16s} {value * 1e3:8.1f} ms  ({value / n * 1e6:.2f} us/event)")
        return 0
    idle, reduce = _hooks_idle()
    hooks = _common.compare(idle, repeat=args.repeat, target_s=0.05, stat=args.stat)
    reduces = _common.compare(reduce, repeat=max(args.repeat, 15), target_s=0.1,
                              stat=args.stat)
    if args.part == "hooks":
        _common.print_table(f"Hooks with no profiler running ({args.stat} per use)",
                            [_common.Row("idle", hooks)], list(hooks),
                            [(k, "nullcontext") for k in hooks if k != "nullcontext"])
        _common.print_table(f"Collective on a one-member Gloo group, idle profiler "
                            f"({args.stat} per call)", [_common.Row("all_reduce", reduces)],
                            list(reduces), [("all_reduce 4 B", "no hook")])
        return 0
    ours = _measure(tf, args.steps, args.repeat, args.stat, args.clock)
    theirs = None
    if not args.no_tf and _common.real_tf_available():
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--impl",
                              "tensorflow", "--steps", str(args.steps), "--repeat",
                              str(args.repeat), "--stat", args.stat, "--clock", args.clock],
                             capture_output=True, text=True,
                             env=dict(os.environ, TF_USE_LEGACY_KERAS="1",
                                      TF_CPP_MIN_LOG_LEVEL="3"), check=False)
        lines = out.stdout.strip().splitlines()
        theirs = json.loads(lines[-1]) if out.returncode == 0 and lines else None
    rows = []
    for name in ours:
        rows.append(_common.Row(f"{name} (torchflow)", ours[name],
                                [("on", "off", 1.10, "max")]))
        if theirs:
            rows.append(_common.Row(f"{name} (TF 2.21)", theirs[name]))
    cols = ["off", "on", "on-L1", "run+save"]
    ok = _common.print_table(
        f"MLP 784-128-10, batch {BATCH}, {args.steps} steps per run ({args.stat} of "
        f"{args.repeat}, {args.clock} clock)", rows, cols, [("on", "off"), ("on-L1", "off"), ("run+save", "off")])
    _common.print_table(f"Hooks with no profiler running ({args.stat} per use)",
                        [_common.Row("idle", hooks)], list(hooks),
                        [(k, "nullcontext") for k in hooks if k != "nullcontext"])
    _common.print_table(f"Collective on a one-member Gloo group, idle profiler ({args.stat} "
                        "per call)", [_common.Row("all_reduce", reduces)], list(reduces),
                        [("all_reduce 4 B", "no hook")])
    step_us = ours["fit"]["off"] / args.steps * 1e6
    worst = max(hooks[k] - hooks["nullcontext"] for k in hooks if k != "nullcontext") * 1e6
    print(f"\nIdle hooks: at most {worst:.2f} us each over an empty with; a fit step here "
          f"takes {step_us:.0f} us ({worst / step_us * 100:.3f}% per hook).")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())
