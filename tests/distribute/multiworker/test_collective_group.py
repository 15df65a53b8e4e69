"""The torch.distributed adapter (_src/core/collective.py) between real processes.

Values are checked against NumPy on the same per-rank inputs; faults must raise
TF's errors naming the lost task within the timeout, never hang.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.multiprocess

PRELUDE = """
import json, os, sys, time
import numpy as np
import torchflow as tf
from torchflow._src.core.collective import CollectiveGroup
cfg = json.loads(os.environ["TF_CONFIG"])
rank, workers = cfg["task"]["index"], cfg["cluster"]["worker"]
names = [f"/job:worker/replica:0/task:{i}" for i in range(len(workers))]
host, port = workers[0].split(":")
def group(**kw):
    return CollectiveGroup(rank, len(workers), names, master_addr=host,
                           master_port=int(port), host="127.0.0.1", **kw)
def result(**kw):
    print("RESULT " + json.dumps(kw), flush=True)
"""


def _inputs(rank):
    rng = np.random.default_rng(rank)
    return [rng.standard_normal((3, 4)).astype(np.float32), np.arange(7, dtype=np.int64) * rank,
            rng.standard_normal(5).astype(np.float64), np.array(rank == 1)]


VALUES = PRELUDE + """
sys.path.insert(0, os.environ["TEST_DIR"])
from test_collective_group import _inputs
g = group(timeout_seconds=30)
xs = [tf.constant(v) for v in _inputs(rank)]
out = {}
for pack in (0, 16, 1 << 20):
    out[f"sum{pack}"] = [r.numpy().tolist() for r in g.all_reduce(xs, bytes_per_pack=pack)]
out["max"] = [r.numpy().tolist() for r in g.all_reduce(xs[:3], "max")]
import torchflow._src.core.collective as coll
coll._PIPELINE_BYTES = 20  # a pack's chunks: 5 float32s, straddling its tensors
out["chunked"] = [r.numpy().tolist() for r in g.all_reduce(xs)]
coll._PIPELINE_BYTES = 4 << 20
out["unchanged"] = all(np.array_equal(x.numpy(), v) for x, v in zip(xs, _inputs(rank)))
out["dtypes"] = [r.dtype.name for r in g.all_reduce(xs)]
out["bcast"] = [r.numpy().tolist() for r in g.broadcast(xs[:2], src_rank=1)]
out["gather"] = g.all_gather(tf.range(rank + 1) * 10).numpy().tolist()
out["gather1"] = g.all_gather(tf.fill([2, rank + 1], float(rank)), axis=1).numpy().tolist()
g.barrier()
# Then task 1 dies: the others must raise UnavailableError naming it, within the timeout.
if rank == 1:
    os.kill(os.getpid(), 9)
t0 = time.monotonic()
errs = []
for _ in range(2):
    try:
        g.all_reduce([tf.ones([4])])
        errs.append(None)
    except tf.errors.OpError as e:
        errs.append([type(e).__name__, str(e)])
result(errors=errs, elapsed=time.monotonic() - t0, **out)
"""


def test_values_match_numpy_then_a_killed_worker_is_named(run_cluster):
    import os

    n = 3
    outs = run_cluster(VALUES, n, timeout=90,
                       extra_env={"TEST_DIR": os.path.dirname(__file__)})
    assert outs[1]["rc"] == -9
    outs = [outs[0], outs[2]]
    for o in outs:
        assert o["rc"] == 0, o["err"][-2000:]
    inputs = [_inputs(r) for r in range(n)]
    want_sum = [sum(inp[i].astype(np.int64 if inp[i].dtype == bool else inp[i].dtype)
                    for inp in inputs) for i in range(4)]
    want_sum[3] = want_sum[3].astype(bool)
    want_max = [np.max([inp[i] for inp in inputs], axis=0) for i in range(3)]
    for o in outs:
        r = o["result"]
        assert r["unchanged"]  # the callers' tensors are never written to
        for pack in (0, 16, 1 << 20, "chunked"):
            key = pack if pack == "chunked" else f"sum{pack}"
            for got, want in zip(r[key], want_sum):
                np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                                           np.asarray(want, dtype=np.float64), rtol=1e-6)
        for got, want in zip(r["max"], want_max):
            np.testing.assert_array_equal(np.asarray(got, dtype=want.dtype), want)
        assert r["dtypes"] == ["float32", "int64", "float64", "bool"]
        np.testing.assert_allclose(r["bcast"][0], inputs[1][0], rtol=1e-6)
        assert r["bcast"][1] == inputs[1][1].tolist()
        assert r["gather"] == [10 * i for k in range(n) for i in range(k + 1)]
        assert r["gather1"] == np.concatenate(
            [np.full((2, k + 1), float(k)) for k in range(n)], axis=1).tolist()
        assert r["elapsed"] < 30  # the group's timeout
        for name, msg in r["errors"]:
            assert name == "UnavailableError"
            assert "/job:worker/replica:0/task:1" in msg
            assert "task:0 " not in msg and "task:2 " not in msg


STALLED = PRELUDE + """
g = group(timeout_seconds=2)
if rank == 1:
    time.sleep(5)  # alive and answering health checks, but never joins the collective
    result(done=True)
    sys.exit(0)
t0 = time.monotonic()
try:
    g.all_reduce([tf.ones([4])])
    result(error=None)
except tf.errors.OpError as e:
    result(error=type(e).__name__, msg=str(e), elapsed=time.monotonic() - t0)
"""


def test_stalled_worker_raises_deadline_exceeded_at_the_timeout(run_cluster):
    outs = run_cluster(STALLED, 2, timeout=60)
    r = outs[0]["result"]
    assert r is not None, outs[0]["err"][-2000:]
    assert r["error"] == "DeadlineExceededError", r
    assert 1.5 < r["elapsed"] < 7
    assert "timed out after 2 s" in r["msg"]


MISSING = PRELUDE + """
t0 = time.monotonic()
try:
    group(timeout_seconds=2)
    result(error=None)
except tf.errors.OpError as e:
    result(error=type(e).__name__, msg=str(e), elapsed=time.monotonic() - t0)
"""


def test_worker_that_never_starts_is_named_at_the_rendezvous_timeout(run_cluster):
    # Two tasks in TF_CONFIG, one process started: rank 0 waits for task 1.
    outs = run_cluster(MISSING, 1, timeout=60,
                       env_fn=lambda i, ports: {"TF_CONFIG": '{"cluster": {"worker": ['
                                         f'"127.0.0.1:{_port()}", "127.0.0.1:1"]}}, '
                                         '"task": {"type": "worker", "index": 0}}'})
    r = outs[0]["result"]
    assert r is not None, outs[0]["err"][-2000:]
    assert r["error"] == "DeadlineExceededError"
    assert "/job:worker/replica:0/task:1" in r["msg"] and r["elapsed"] < 10


def _port():
    from cluster_helpers import free_ports

    return free_ports(1)[0]
