"""Parameter-server training: async steps/s with 1 and 2 workers, torchflow vs TF.

Each contender runs in its own process with TF's tutorial cluster: the servers of
all tasks (N workers + 2 ps) in that process, on free ports, a Keras model
(Dense 64-64-1 on 32 features, batch 64, RMSprop) trained by a tf.function step
that ``ClusterCoordinator.schedule`` sends to the workers. Also the raw round trip
of the transport (a 0-byte call, and a call carrying the model's weights).

    .venv/bin/python benchmarks/bench_ps.py [--steps 200]

Caveat: in-process workers share one Python interpreter; torchflow's run their
steps in Python (GIL-bound), TF's in C++ threads, so 2 in-process workers favour TF.
"""

from __future__ import annotations

import argparse
import json
import os
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
ports = [portpicker.pick_unused_port() for _ in range(workers + 2)]
spec = tf.train.ClusterSpec({"worker": ["localhost:%d" % p for p in ports[:workers]],
                             "ps": ["localhost:%d" % p for p in ports[workers:]]})
config = None
if hasattr(tf, "compat"):
    config = tf.compat.v1.ConfigProto()
    config.inter_op_parallelism_threads = workers + 1
for i in range(workers):
    tf.distribute.Server(spec, job_name="worker", task_index=i, config=config, protocol="grpc")
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
t0 = time.perf_counter()
for _ in range(steps):
    coordinator.schedule(step, args=(it,))
coordinator.join()
dt = time.perf_counter() - t0
print("RESULT " + json.dumps({"steps_per_s": steps / dt}), flush=True)
os._exit(0)
'''


def _run(module: str, workers: int, steps: int) -> float | None:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="")
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM, module, str(workers), str(steps)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for line in proc.stdout:
            if line.startswith("RESULT "):
                return json.loads(line[7:])["steps_per_s"]
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()


def _round_trips() -> dict:
    import numpy as np

    from torchflow._src.core import rpc

    srv = rpc.Server("127.0.0.1:0", token="bench").start()
    srv.add_method("Echo", lambda req, ctx: req)
    ch = rpc.Channel(srv.address, token="bench")
    weights = rpc.encode([np.zeros((32, 64), np.float32), np.zeros(64, np.float32),
                          np.zeros((64, 64), np.float32), np.zeros(64, np.float32),
                          np.zeros((64, 1), np.float32), np.zeros(1, np.float32)])
    out = {}
    for name, payload in (("empty", b""), ("weights", weights)):
        for _ in range(50):
            ch.call("Echo", payload)
        t0 = time.perf_counter()
        n = 500
        for _ in range(n):
            ch.call("Echo", payload)
        out[name] = (time.perf_counter() - t0) / n
    out["weights_bytes"] = len(weights)
    ch.close()
    srv.stop()
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    ns = p.parse_args()
    rt = _round_trips()
    print(f"raw round trip: empty {rt['empty'] * 1e3:.3f} ms, model weights "
          f"({rt['weights_bytes']} bytes) {rt['weights'] * 1e3:.3f} ms")
    rows = {}
    for workers in (1, 2):
        for module in ("torchflow", "tensorflow"):
            rows[(module, workers)] = _run(module, workers, ns.steps)
    print(f"{'workers':>8} {'torchflow steps/s':>18} {'TF steps/s':>11} {'ratio':>6}")
    for workers in (1, 2):
        ours, theirs = rows[("torchflow", workers)], rows[("tensorflow", workers)]
        ratio = f"{ours / theirs:.2f}x" if ours and theirs else "n/a"
        print(f"{workers:>8} {ours or float('nan'):>18.1f} {theirs or float('nan'):>11.1f} "
              f"{ratio:>6}")
    t1, t2 = rows[("torchflow", 1)], rows[("torchflow", 2)]
    if t1 and t2:
        print(f"torchflow scaling 1 -> 2 workers: {t2 / t1:.2f}x")


if __name__ == "__main__":
    main()
