"""A task for the profiler capture tests: serves the profiler and trains until killed.

Usage: python profiler_worker.py MODULE PORT [SECONDS]. MODULE is ``torchflow`` or
``tensorflow`` (real TF, for the cross-implementation test). Prints READY once the
server listens; steps are Trace("train", step_num=, _r=1) ranges holding matmuls. Exits
by itself after SECONDS (default 120) so a lost parent leaves nothing behind.
"""

import importlib
import sys
import time

tf = importlib.import_module(sys.argv[1])
port = int(sys.argv[2])
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 120.0
tf.profiler.experimental.server.start(port)
a = tf.ones((64, 64))
print("READY", flush=True)
deadline = time.time() + limit
step = 0
while time.time() < deadline:
    with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
        b = tf.matmul(a, a)
        _ = tf.nn.relu(b)
    step += 1
    time.sleep(0.005)
