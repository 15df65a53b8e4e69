"""The all-reduce's copy paths between 2 real processes, checked against NumPy.

One pack may mix dtypes Gloo reduces natively, ones it reduces in a wider type
(bool, int8) and half types; its pieces may be non-contiguous views, scalars or
empty; the pack travels in chunks that straddle its tensors. Every result must
equal NumPy's sum of both ranks' inputs in the input's dtype and shape, and the
inputs must stay untouched. The same batch through MultiWorkerMirroredStrategy's
``batch_reduce_to`` gives SUM and MEAN.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.multiprocess


def _inputs(rank):
    rng = np.random.default_rng(rank)
    return {
        "t": rng.standard_normal((4, 3)).astype(np.float32),   # sent transposed
        "f16": (rng.integers(-8, 8, 5) / 4).astype(np.float16),
        "bf16": rng.integers(-50, 50, 6).astype(np.float32),   # exact in bfloat16
        "i8": rng.integers(-60, 60, 4).astype(np.int8),
        "b": np.array([rank == 1, False, True]),
        "s": np.float32(rank + 0.5),
        "empty": np.zeros((0, 3), np.float32),
        "i64": np.arange(7, dtype=np.int64) * (rank + 1),
        "strided": rng.standard_normal((2, 4)),                # sent as [:, ::2]
    }


SCRIPT = """
import json, os, sys
import numpy as np
import torch
import torchflow as tf
from torchflow._src.core import collective
from torchflow._src.core.tensor import wrap
sys.path.insert(0, os.environ["TEST_DIR"])
from test_collective_fast_paths import _inputs
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
g = strategy.extended._group
inp = _inputs(rank)
def tensors():
    v = dict(inp)
    out = {k: tf.constant(a) for k, a in v.items() if k not in ("t", "bf16", "strided")}
    out["t"] = wrap(torch.from_numpy(inp["t"].copy()).t())
    out["bf16"] = tf.cast(tf.constant(inp["bf16"]), tf.bfloat16)
    out["strided"] = wrap(torch.from_numpy(inp["strided"].copy())[:, ::2])
    return out
xs = tensors()
keys = sorted(xs)
assert not xs["t"]._t.is_contiguous() and not xs["strided"]._t.is_contiguous()
def plain(r):
    r = tf.cast(r, tf.float32) if r.dtype == tf.bfloat16 else r
    return r.numpy().tolist()
res = {}
for chunk in (10, 4 << 20):
    collective._PIPELINE_BYTES = chunk
    for pack in (0, 16):
        outs = g.all_reduce([xs[k] for k in keys], bytes_per_pack=pack)
        res[f"{chunk}/{pack}"] = {k: [plain(r), r.dtype.name, r.shape.as_list()]
                                   for k, r in zip(keys, outs)}
collective._PIPELINE_BYTES = 4 << 20
res["bcast"] = [plain(r) for r in g.broadcast([xs["t"], xs["i8"]], src_rank=1)]
res["unchanged"] = all(np.array_equal(plain(xs[k]), plain(tensors()[k])) for k in keys)
for op in ("SUM", "MEAN"):
    got = strategy.extended.batch_reduce_to(op, [(xs[k], xs[k]) for k in keys
                                                 if k not in ("b",)])
    res[op] = {k: plain(strategy.experimental_local_results(r)[0])
               for k, r in zip([k for k in keys if k != "b"], got)}
print("RESULT " + json.dumps(res))
"""


def _want(k, a, b):
    if k == "t":
        return (a + b).T
    if k == "strided":
        return (a + b)[:, ::2]
    if k == "b":
        return a | b
    return a + b


def test_mixed_views_scalars_and_empty_match_numpy(run_cluster):
    import os

    outs = run_cluster(SCRIPT, 2, timeout=90, extra_env={"TEST_DIR": os.path.dirname(__file__)})
    a, b = _inputs(0), _inputs(1)
    dtypes = {"t": "float32", "f16": "float16", "bf16": "bfloat16", "i8": "int8",
              "b": "bool", "s": "float32", "empty": "float32", "i64": "int64",
              "strided": "float64"}
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
        r = o["result"]
        assert r["unchanged"]
        np.testing.assert_array_equal(np.asarray(r["bcast"][0], np.float32), b["t"].T)
        assert r["bcast"][1] == b["i8"].tolist()
        for case in ("10/0", "10/16", "4194304/0", "4194304/16"):
            for k, (value, dtype, shape) in r[case].items():
                want = _want(k, a[k], b[k])
                assert dtype == dtypes[k], (case, k)
                assert shape == list(np.shape(want)), (case, k)
                got = np.asarray(value, dtype=np.asarray(want).dtype).reshape(np.shape(want))
                np.testing.assert_array_equal(got, want, err_msg=f"{case} {k}")
        for k, value in r["SUM"].items():
            want = _want(k, a[k], b[k])
            np.testing.assert_allclose(np.reshape(value, np.shape(want)), want, rtol=1e-6)
        for k, value in r["MEAN"].items():
            want = _want(k, a[k], b[k])
            if np.asarray(want).dtype.kind in "iu":
                continue  # TF's integer MEAN: a floor division, checked elsewhere
            np.testing.assert_allclose(np.reshape(value, np.shape(want)),
                                       np.asarray(want, np.float64) / 2, rtol=1e-3)
