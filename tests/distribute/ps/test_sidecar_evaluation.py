"""Side-car evaluation (issue 14), as TF's parameter-server tutorial does it: the
coordinator trains a Keras model whose variables live on the ps tasks and saves
checkpoints; an ``evaluator`` task (its own process, ``TF_CONFIG`` task type
``evaluator``) follows them with ``tf.train.checkpoints_iterator``, restores each into
its own copy of the model and evaluates it. Real processes on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from ps_cluster import REPO, TOKEN, Cluster, Zygote

import torchflow as tf
from torchflow._src.core import rpc

_EVALUATOR = r"""
import json, os, sys
import numpy as np
import torchflow as tf
d = sys.argv[1]
resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
checkpoint = tf.train.Checkpoint(model=model)
rng = np.random.RandomState(1)
x = rng.rand(64, 3).astype(np.float32)
y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
seen = []
for path in tf.train.checkpoints_iterator(
        d, timeout=1, timeout_fn=lambda: os.path.exists(os.path.join(d, "DONE"))):
    checkpoint.restore(path).expect_partial()
    w, b = model.get_weights()
    seen.append({"path": os.path.basename(path), "w": w.ravel().tolist(), "b": float(b[0]),
                 "loss": float(np.mean((model(x).numpy() - y) ** 2))})
print("RESULT " + json.dumps({"task": [resolver.task_type, resolver.task_id], "seen": seen}))
"""


@pytest.fixture(scope="module")
def zygote():
    old = os.environ.get(rpc.TOKEN_ENV)
    os.environ[rpc.TOKEN_ENV] = TOKEN
    z = Zygote()
    try:
        yield z
    finally:
        z.close()
        if old is None:
            os.environ.pop(rpc.TOKEN_ENV, None)
        else:
            os.environ[rpc.TOKEN_ENV] = old


def test_evaluator_task_follows_the_coordinators_checkpoints(zygote, tmp_path):
    cluster = Cluster(zygote, workers=2, ps=1)
    evaluator = None
    coordinator = None
    try:
        ckpt_dir = str(tmp_path / "ckpt")
        env = dict(os.environ, TORCHFLOW_CLUSTER_TOKEN=TOKEN, OMP_NUM_THREADS="1",
                   CUDA_VISIBLE_DEVICES="",
                   PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   TF_CONFIG=json.dumps({"cluster": dict(cluster.spec, evaluator=[
                       f"127.0.0.1:{rpc.pick_unused_port()}"]),
                       "task": {"type": "evaluator", "index": 0}}))
        evaluator = subprocess.Popen([sys.executable, "-c", _EVALUATOR, ckpt_dir], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
            tf.train.ClusterSpec(cluster.spec), rpc_layer="grpc")
        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
        rng = np.random.RandomState(1)
        x = rng.rand(64, 3).astype(np.float32)
        y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
            optimizer = tf.keras.optimizers.SGD(0.3)
        checkpoint = tf.train.Checkpoint(model=model)
        manager = tf.train.CheckpointManager(checkpoint, ckpt_dir, max_to_keep=None)

        def dataset_fn():
            return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)

        iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))

        @tf.function
        def train_step(it):
            def step(batch):
                bx, by = batch
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(bx, training=True) - by))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss
            return strategy.run(step, args=(next(it),))

        for _ in range(4):
            for _ in range(15):
                coordinator.schedule(train_step, args=(iterator,))
            coordinator.join()
            manager.save()
        (tmp_path / "ckpt" / "DONE").write_text("")
        out, err = evaluator.communicate(timeout=120)
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert evaluator.returncode == 0 and lines, err[-3000:]
        result = json.loads(lines[-1][len("RESULT "):])
        w, b = model.get_weights()  # read from the ps task
    finally:
        if evaluator is not None and evaluator.poll() is None:
            evaluator.kill()
            evaluator.wait(timeout=10)
        if coordinator is not None:
            coordinator._stop()
        cluster.close()

    assert result["task"] == ["evaluator", 0]
    seen = result["seen"]
    # every checkpoint it saw is one the coordinator wrote, the last one among them
    assert 1 <= len(seen) <= 4 and seen[-1]["path"] == "ckpt-4"
    np.testing.assert_allclose(seen[-1]["w"], w.ravel(), rtol=1e-6)
    np.testing.assert_allclose(seen[-1]["b"], b[0], rtol=1e-6)
    # its evaluation is that of the restored weights (NumPy), and training helped
    want = float(np.mean((x @ w + b - y) ** 2))
    np.testing.assert_allclose(seen[-1]["loss"], want, rtol=1e-5)
    assert seen[-1]["loss"] < 0.5 * float(np.mean(y ** 2))
