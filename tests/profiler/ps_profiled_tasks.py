"""The tasks of a parameter-server job that each serve the profiler (capture tests).

A zygote, as tests/distribute/ps/ps_cluster.py's: one process imports torchflow once and
forks each task (a real process, killed by PID). Each task is a ``tf.distribute.Server``
that also runs ``tf.profiler.experimental.server.start(port)``; its line on stdout
answers with the PID once the profiler serves.
"""

import json
import os
import signal
import sys

import torchflow as tf

signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forked tasks are reaped by the kernel
print("ready", flush=True)
for line in sys.stdin:
    cmd = json.loads(line)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            server = tf.distribute.Server(cmd["cluster"], job_name=cmd["job"],
                                          task_index=cmd["index"])
            tf.profiler.experimental.server.start(cmd["profiler_port"])
            os.write(write, b"up")
            os.close(write)
            server.join()
        finally:
            os._exit(0)
    os.close(write)
    up = os.read(read, 2)
    os.close(read)
    print(pid if up == b"up" else -1, flush=True)
