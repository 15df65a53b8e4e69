"""Parameter-server training: async steps/s with 1 and 2 workers, torchflow vs TF.

Each contender runs in its own process with TF's tutorial cluster: the servers of
all tasks (N workers + 2 ps) in that process, on free ports, a Keras model
(Dense 64-64-1 on 32 features, batch 64, RMSprop) trained by a tf.function step
that ``ClusterCoordinator.schedule`` sends to the workers. Contenders:

- ``torchflow``: as a user runs it; channels to servers of the same process call
  them in-process (``core/rpc.py``: no gRPC, same checks);
- ``torchflow/grpc``: the same with ``TORCHFLOW_RPC_LOCAL=0``, every call over
  gRPC, as between processes;
- ``TF``: real TensorFlow's ParameterServerStrategy, same program.

Runs are interleaved (``--repeats`` rounds); medians are reported. Also:

- the raw gRPC round trip (grpcio alone, no torchflow framing): empty, and one call
  carrying the step's bytes (the weights' bytes each way: a step reads the
  weights and sends the gradients);
- torchflow's bytes per step (payloads sent, both directions) and its per-step RPC
  overhead: a 1-worker step's time minus the same step's compute run locally
  (same model, optimizer and data, no strategy), against that raw round trip
  (goal: within 2x), and the scaling from 1 to 2 workers.

    .venv/bin/python benchmarks/bench_ps.py [--steps 200] [--repeats 3] [--workers 1,2]
        [--processes]   # also torchflow and TF with one process per task (all gRPC)
        [--only torchflow/procs,TF/procs]   # a subset of the contenders

Caveat: in-process workers share one Python interpreter; torchflow's run their
steps in Python (GIL-bound), TF's in C++ threads, so 2 in-process workers favour TF.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time

PROGRAM = r'''
import importlib, json, os, sys, time
import numpy as np
import portpicker
os.environ["GRPC_FAIL_FAST"] = "use_caller"
tf = importlib.import_module(sys.argv[1])
workers, steps = int(sys.argv[2]), int(sys.argv[3])
if len(sys.argv) > 4:  # the tasks run in their own processes (SERVER)
    spec = tf.train.ClusterSpec(json.loads(sys.argv[4]))
else:  # TF's tutorial: every task's server in this process
    ports = [portpicker.pick_unused_port() for _ in range(workers + 2)]
    spec = tf.train.ClusterSpec({"worker": ["localhost:%d" % p for p in ports[:workers]],
                                 "ps": ["localhost:%d" % p for p in ports[workers:]]})
    config = None
    if hasattr(tf, "compat"):
        config = tf.compat.v1.ConfigProto()
        config.inter_op_parallelism_threads = workers + 1
    for i in range(workers):
        tf.distribute.Server(spec, job_name="worker", task_index=i, config=config,
                             protocol="grpc")
    for i in range(2):
        tf.distribute.Server(spec, job_name="ps", task_index=i, protocol="grpc")
strategy = tf.distribute.experimental.ParameterServerStrategy(
    tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc"))
rng = np.random.default_rng(0)
x = rng.normal(size=(4096, 32)).astype(np.float32)
y = (x[:, :1] > 0).astype(np.float32)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)),
                                 tf.keras.layers.Dense(64, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.RMSprop(0.001)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

def dataset_fn(_=None):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(64).repeat()

@tf.function
def per_worker_dataset_fn():
    return strategy.distribute_datasets_from_function(dataset_fn)

it = iter(coordinator.create_per_worker_dataset(per_worker_dataset_fn))

@tf.function
def step(iterator):
    def replica_fn(batch):
        xb, yb = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(replica_fn, args=(next(iterator),))

for _ in range(20):
    coordinator.schedule(step, args=(it,))
coordinator.join()
moved, calls = [0], [0]
if sys.argv[1] == "torchflow":  # count the payload bytes of the timed steps
    from torchflow._src.core import rpc
    _encode = rpc.encode
    def counting_encode(obj):
        out = _encode(obj)
        moved[0] += len(out)
        return out
    rpc.encode = counting_encode
    _submit = rpc.Server._submit_local
    def counting_submit(self, *a, **k):
        calls[0] += 1
        return _submit(self, *a, **k)
    rpc.Server._submit_local = counting_submit
t0 = time.perf_counter()
for _ in range(steps):
    coordinator.schedule(step, args=(it,))
coordinator.join()
dt = time.perf_counter() - t0
result = {"steps_per_s": steps / dt, "bytes_per_step": moved[0] / steps or None,
          "calls_per_step": calls[0] / steps or None}
if sys.argv[1] == "torchflow" and workers == 1:
    # The step's compute alone: the same Python, model and optimizer, no strategy.
    local_model = tf.keras.Sequential([
        tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)),
        tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
    local_opt = tf.keras.optimizers.RMSprop(0.001)
    local_it = iter(dataset_fn())
    def local_step():
        xb, yb = next(local_it)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(local_model(xb, training=True) - yb))
        grads = tape.gradient(loss, local_model.trainable_variables)
        local_opt.apply_gradients(zip(grads, local_model.trainable_variables))
        return loss.numpy()
    for _ in range(20):
        local_step()
    t0 = time.perf_counter()
    for _ in range(steps):
        local_step()
    result["local_step_s"] = (time.perf_counter() - t0) / steps
print("RESULT " + json.dumps(result), flush=True)
os._exit(0)
'''


SERVER = r'''
import importlib, json, sys
tf = importlib.import_module(sys.argv[1])
tf.distribute.Server(tf.train.ClusterSpec(json.loads(sys.argv[2])), job_name=sys.argv[3],
                     task_index=int(sys.argv[4]), protocol="grpc").join()
'''

# label, module, extra environment, one process per task
CONTENDERS = (("torchflow", "torchflow", {}, False),
              ("torchflow/grpc", "torchflow", {"TORCHFLOW_RPC_LOCAL": "0"}, False),
              ("TF", "tensorflow", {}, False))
PROCESS_CONTENDERS = (("torchflow/procs", "torchflow", {}, True),
                      ("TF/procs", "tensorflow", {}, True))
# (contender, its TF reference) for the ratio columns
RATIOS = (("torchflow", "TF"), ("torchflow/grpc", "TF"), ("torchflow/procs", "TF/procs"))


def _wait_listening(ports, timeout=60.0) -> None:
    end = time.monotonic() + timeout
    for port in ports:
        while time.monotonic() < end:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)


def _run(module: str, extra_env: dict, workers: int, steps: int,
         processes: bool = False) -> dict | None:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="", TORCHFLOW_CLUSTER_TOKEN=secrets.token_hex(16),
               **extra_env)
    argv = [sys.executable, "-c", PROGRAM, module, str(workers), str(steps)]
    servers = []
    if processes:  # one process per task, as a real cluster (every call over gRPC)
        ports = [_free_port() for _ in range(workers + 2)]
        cluster = {"worker": [f"localhost:{p}" for p in ports[:workers]],
                   "ps": [f"localhost:{p}" for p in ports[workers:]]}
        tasks = [("worker", i) for i in range(workers)] + [("ps", i) for i in range(2)]
        servers = [subprocess.Popen([sys.executable, "-c", SERVER, module, json.dumps(cluster),
                                     job, str(i)], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for job, i in tasks]
        _wait_listening(ports)
        argv.append(json.dumps(cluster))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        for line in proc.stdout:
            if line.startswith("RESULT "):
                return json.loads(line[7:])
        return None
    finally:
        for p in (proc, *servers):
            if p.poll() is None:
                p.kill()
            p.wait()
        proc.stdout.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raw_grpc_round_trips(nbytes: int) -> dict:
    """grpcio alone (a generic echo method, no torchflow framing or checks): seconds
    per unary round trip, empty and with ``nbytes`` each way."""
    from concurrent import futures

    import grpc

    def echo(request, ctx):
        return request

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = channel.unary_unary("/bench.Echo/Echo")
    out = {}
    for name, payload in (("empty", b""), ("step_bytes", b"\0" * nbytes)):
        for _ in range(50):
            stub(payload, timeout=10)
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(100):
                stub(payload, timeout=10)
            times.append((time.perf_counter() - t0) / 100)
        out[name] = statistics.median(times)
    channel.close()
    server.stop(None)
    return out


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _fmt(x, spec=".1f"):
    return "n/a" if x is None else format(x, spec)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workers", default="1,2", help="worker counts, e.g. 1,2,4")
    p.add_argument("--processes", action="store_true",
                   help="also run torchflow and TF with one process per task")
    p.add_argument("--only", default="",
                   help="comma-separated contender labels to run (default: all)")
    ns = p.parse_args()
    counts = sorted({1, *(int(w) for w in ns.workers.split(","))})
    contenders = CONTENDERS + (PROCESS_CONTENDERS if ns.processes else ())
    if ns.only:
        keep = set(ns.only.split(","))
        contenders = tuple(c for c in contenders if c[0] in keep)
    # The model's weights (float32): 32x64+64 + 64x64+64 + 64x1+1.
    weight_bytes = 4 * (32 * 64 + 64 + 64 * 64 + 64 + 64 + 1)
    rt = _raw_grpc_round_trips(weight_bytes)
    print(f"raw gRPC round trip: empty {rt['empty'] * 1e3:.3f} ms, {weight_bytes} bytes "
          f"each way {rt['step_bytes'] * 1e3:.3f} ms")
    runs: dict = {}
    for _ in range(ns.repeats):  # interleaved, so load drift hits every contender
        for workers in counts:
            for label, module, env, procs in contenders:
                runs.setdefault((label, workers), []).append(
                    _run(module, env, workers, ns.steps, procs))
    sps = {k: _median([r and r["steps_per_s"] for r in v]) for k, v in runs.items()}
    labels = [c[0] for c in contenders]
    ratios = [(a, b) for a, b in RATIOS if a in labels and b in labels]
    print(f"steps/s, median of {ns.repeats} (each {ns.steps} steps; 2 ps):")
    print(f"{'workers':>8} " + " ".join(f"{x:>15}" for x in labels) + " " +
          " ".join(f"{a + '/' + b:>22}" for a, b in ratios))
    for workers in counts:
        cells = [_fmt(sps[(x, workers)]) for x in labels]
        rs = [sps[(a, workers)] / sps[(b, workers)] if sps[(a, workers)] and sps[(b, workers)]
              else None for a, b in ratios]
        print(f"{workers:>8} " + " ".join(f"{c:>15}" for c in cells) + " " +
              " ".join(f"{_fmt(r, '.2f') + 'x':>22}" for r in rs))
    for workers in counts[1:]:
        line = ", ".join(
            f"{x} {sps[(x, workers)] / sps[(x, 1)]:.2f}x" if sps[(x, workers)] and sps[(x, 1)]
            else f"{x} n/a" for x in labels)
        print(f"scaling 1 -> {workers} workers: {line}")
    if 2 in counts:
        for a, b in ratios:
            if sps[(a, 2)] and sps[(b, 2)]:
                r = sps[(a, 2)] / sps[(b, 2)]
                print(f"goal >= 1.5x TF's steps/s at 2 workers, {a} vs {b}: {r:.2f}x "
                      f"({'met' if r >= 1.5 else 'NOT met'})")
    local = _median([r and r.get("local_step_s") for r in runs.get(("torchflow", 1), [])])
    for label in labels:
        if not label.startswith("torchflow"):
            continue
        step = sps[(label, 1)]
        # (counted where the payloads are made: in this process for in-process runs)
        moved = None if label.endswith("procs") else _median(
            [r and r.get("bytes_per_step") for r in runs[(label, 1)]])
        ncalls = _median([r and r.get("calls_per_step") for r in runs[(label, 1)]])
        if ncalls:
            print(f"{label}: {ncalls:.2f} calls per step (a run, and per ps task an update, "
                  "plus a read where the worker's snapshot is older than what the program "
                  "has seen: 3 to 5 with 2 ps)")
        if not step or local is None:
            continue
        overhead = 1.0 / step - local
        ratio = overhead / rt["step_bytes"]
        print(f"{label}: 1-worker step {1e3 / step:.3f} ms = compute {local * 1e3:.3f} ms + "
              f"RPC overhead {overhead * 1e3:.3f} ms ({_fmt(moved, '.0f')} payload bytes/step;"
              f" calls in sequence: run, reads if needed, updates) = {ratio:.2f}x the raw gRPC round "
              f"trip of the step's bytes ({'within' if ratio <= 2 else 'NOT within'} 2x)")


if __name__ == "__main__":
    main()
