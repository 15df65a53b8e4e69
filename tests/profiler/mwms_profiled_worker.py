"""One task of a MultiWorkerMirroredStrategy job that serves the profiler (capture tests).

Usage (TF_CONFIG set): python mwms_profiled_worker.py PROFILER_PORT STEPS. Builds the
strategy, starts ``tf.profiler.experimental.server.start(PROFILER_PORT)``, prints READY,
then runs a Keras ``fit`` of STEPS steps (each batch end sleeps 20 ms, so the job lasts
long enough to be captured; every worker runs the same steps, so the collectives pair).
"""

import sys
import time

import numpy as np

import torchflow as tf

port, steps = int(sys.argv[1]), int(sys.argv[2])
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    communication_options=tf.distribute.experimental.CommunicationOptions(timeout_seconds=120))
tf.profiler.experimental.server.start(port)
x = np.random.default_rng(0).normal(size=(64, 8)).astype("float32")
y = x.sum(axis=1, keepdims=True)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).repeat()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu",
                                                       input_shape=(8,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
print("READY", flush=True)
slow = tf.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: time.sleep(0.02))
model.fit(ds, steps_per_epoch=steps, epochs=1, verbose=0, callbacks=[slow])
print("DONE", flush=True)
