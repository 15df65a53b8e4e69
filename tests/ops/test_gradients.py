"""Gradients of every differentiable op family against real TensorFlow.

One row per op: a function written against the TF API (run once with torchflow,
once with real TF), and the inputs' shapes/ranges. Each case checks the value,
the first derivative of ``sum(w * f(x))`` (random ``w``, so symmetric errors do
not cancel) with respect to every float input, and — for rows marked ``second``
— the second derivative. Rows whose op torchflow does not have (yet) are
skipped with the missing name, so re-running this file shows the coverage.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf


def _get(lib, dotted):
    obj = lib
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class Case:
    def __init__(self, id, fn, inputs, needs, second=False, rtol=1e-4, atol=1e-5,  # noqa: A002 (TF's argument name)
                 dtype="float32"):
        self.id, self.fn, self.inputs, self.needs = id, fn, inputs, needs
        self.second, self.rtol, self.atol, self.dtype = second, rtol, atol, dtype


def F(shape, lo=-2.0, hi=2.0):
    """A float input spec."""
    return ("f", shape, lo, hi)


def I(values):  # noqa: E743 - short on purpose in the table
    """A constant integer input (not differentiated)."""
    return ("i", np.asarray(values, np.int32))


def B(values):
    """A constant boolean input."""
    return ("b", np.asarray(values, bool))


def unary(name, lo=-2.0, hi=2.0, shape=(3, 4), second=True, **kw):
    return Case(name, lambda lib, x, n=name: _get(lib, n)(x), [F(shape, lo, hi)], [name],
                second=second, **kw)


def binary(name, lo=-2.0, hi=2.0, shapes=((3, 4), (4,)), second=True, **kw):
    return Case(name, lambda lib, x, y, n=name: _get(lib, n)(x, y),
                [F(shapes[0], lo, hi), F(shapes[1], lo, hi)], [name], second=second, **kw)


CASES = [
    # --- elementwise unary (tf.math / tf.nn) ---
    unary("abs"), unary("math.acos", -0.9, 0.9), unary("math.acosh", 1.2, 3.0),
    unary("math.asin", -0.9, 0.9), unary("math.asinh"), unary("math.atan"),
    unary("math.atanh", -0.9, 0.9), unary("cos"), unary("math.cosh"),
    unary("math.digamma", 0.5, 3.0, second=False), unary("math.erf"), unary("math.erfc"),
    unary("exp"), unary("math.expm1"), unary("math.lgamma", 0.5, 3.0),
    unary("math.log", 0.2, 3.0), unary("math.log1p", -0.5, 3.0),
    unary("math.log_sigmoid"), unary("negative"), unary("math.reciprocal", 0.5, 3.0),
    unary("math.rsqrt", 0.5, 3.0), unary("sigmoid"), unary("sin"), unary("math.sinh"),
    unary("math.softplus"), unary("sqrt", 0.2, 3.0), unary("square"),
    unary("nn.softsign", second=False),  # TF has no gradient for SoftsignGrad
    unary("tan", -1.0, 1.0), unary("tanh"), unary("math.sign", second=False),
    unary("math.bessel_i0e"), unary("math.bessel_i1e"),
    unary("nn.relu", second=False), unary("nn.relu6", -3, 8, second=False),
    unary("nn.elu"), unary("nn.selu"), unary("nn.gelu"), unary("nn.silu"),
    unary("nn.leaky_relu", second=False), unary("nn.softmax"), unary("nn.log_softmax"),
    unary("math.softmax"), unary("nn.l2_normalize"), unary("math.l2_normalize"),
    Case("nn.gelu_approx", lambda lib, x: lib.nn.gelu(x, approximate=True), [F((5,))],
         ["nn.gelu"], second=True),
    # --- binary ---
    binary("add"), binary("subtract"), binary("multiply"), binary("divide", 0.5, 2.0),
    binary("math.truediv", 0.5, 2.0), binary("maximum", second=False),
    binary("minimum", second=False), binary("pow", 0.5, 2.0),
    binary("math.squared_difference"), binary("math.atan2", 0.5, 2.0),
    binary("math.xdivy", 0.5, 2.0), binary("math.xlogy", 0.5, 2.0),
    binary("math.divide_no_nan", 0.5, 2.0), binary("math.multiply_no_nan"),
    binary("math.floormod", 0.5, 2.0, second=False),
    Case("add_n", lambda lib, x, y: lib.add_n([x, y, x]), [F((3,)), F((3,))], ["add_n"]),
    Case("scalar_mul", lambda lib, x: lib.math.scalar_mul(3.0, x), [F((3,))],
         ["math.scalar_mul"]),
    Case("operators", lambda lib, x, y: (x * y - x / (y * y + 1.0)) ** 2.0 + -x,
         [F((2, 3)), F((3,))], [], second=True),
    # --- reductions and scans ---
    Case("reduce_sum", lambda lib, x: lib.reduce_sum(x, axis=1), [F((3, 4))],
         ["reduce_sum"], second=True),
    Case("reduce_mean", lambda lib, x: lib.reduce_mean(x, axis=[0, 2], keepdims=True),
         [F((2, 3, 4))], ["reduce_mean"]),
    Case("reduce_max", lambda lib, x: lib.reduce_max(x, axis=0), [F((3, 4))],
         ["reduce_max"]),
    Case("reduce_min", lambda lib, x: lib.reduce_min(x), [F((3, 4))], ["reduce_min"]),
    Case("reduce_prod", lambda lib, x: lib.reduce_prod(x, axis=1), [F((3, 4), 0.5, 1.5)],
         ["reduce_prod"], second=True),
    Case("reduce_logsumexp", lambda lib, x: lib.reduce_logsumexp(x, axis=-1),
         [F((3, 4))], ["reduce_logsumexp"], second=True),
    Case("reduce_std", lambda lib, x: lib.math.reduce_std(x, axis=1), [F((3, 4))],
         ["math.reduce_std"]),
    Case("reduce_variance", lambda lib, x: lib.math.reduce_variance(x), [F((3, 4))],
         ["math.reduce_variance"], second=True),
    Case("reduce_euclidean_norm", lambda lib, x: lib.math.reduce_euclidean_norm(x, 1),
         [F((3, 4))], ["math.reduce_euclidean_norm"]),
    Case("cumsum", lambda lib, x: lib.cumsum(x, axis=1, reverse=True), [F((3, 4))],
         ["cumsum"]),
    Case("cumprod", lambda lib, x: lib.math.cumprod(x, axis=1, exclusive=True),
         [F((3, 4), 0.5, 1.5)], ["math.cumprod"]),
    Case("cumulative_logsumexp", lambda lib, x: lib.math.cumulative_logsumexp(x, axis=0),
         [F((3, 4))], ["math.cumulative_logsumexp"]),
    Case("segment_sum", lambda lib, x: lib.math.segment_sum(x, lib.constant([0, 0, 1])),
         [F((3, 2))], ["math.segment_sum"]),
    Case("unsorted_segment_max", lambda lib, x: lib.math.unsorted_segment_max(
        x, lib.constant([1, 0, 1]), 2), [F((3, 2))], ["math.unsorted_segment_max"]),
    # --- array ops ---
    Case("reshape", lambda lib, x: lib.reshape(x, [4, 3]), [F((3, 4))], ["reshape"]),
    Case("transpose", lambda lib, x: lib.transpose(x, [2, 0, 1]), [F((2, 3, 4))],
         ["transpose"]),
    Case("concat", lambda lib, x, y: lib.concat([x, y, x], axis=0), [F((2, 3)), F((1, 3))],
         ["concat"]),
    Case("stack", lambda lib, x, y: lib.stack([x, y], axis=1), [F((2, 3)), F((2, 3))],
         ["stack"]),
    Case("unstack", lambda lib, x: lib.unstack(x, axis=1)[1], [F((2, 3))], ["unstack"]),
    Case("split", lambda lib, x: lib.split(x, [1, 2], axis=1)[1], [F((2, 3))], ["split"]),
    Case("tile", lambda lib, x: lib.tile(x, [2, 3]), [F((2, 3))], ["tile"]),
    Case("pad", lambda lib, x: lib.pad(x, [[1, 0], [2, 1]], mode="REFLECT"),
         [F((3, 4))], ["pad"]),
    Case("gather", lambda lib, x: lib.gather(x, [2, 0, 2], axis=0), [F((3, 4))],
         ["gather"]),
    Case("gather_axis1_batch", lambda lib, x: lib.gather(x, [[1, 0], [2, 2]], axis=1,
                                                         batch_dims=1),
         [F((2, 3, 2))], ["gather"]),
    Case("gather_nd", lambda lib, x: lib.gather_nd(x, [[0, 1], [2, 3], [0, 1]]),
         [F((3, 4))], ["gather_nd"]),
    Case("getitem", lambda lib, x: x[1:, ::2] * x[0, None, :2], [F((3, 4))], []),
    Case("slice", lambda lib, x: lib.slice(x, [1, 0], [2, 3]), [F((3, 4))], ["slice"]),
    Case("reverse", lambda lib, x: lib.reverse(x, [1]), [F((3, 4))], ["reverse"]),
    Case("squeeze_expand", lambda lib, x: lib.expand_dims(lib.squeeze(x), 0),
         [F((3, 1, 4))], ["squeeze", "expand_dims"]),
    Case("broadcast_to", lambda lib, x: lib.broadcast_to(x, [2, 3, 4]), [F((3, 1))],
         ["broadcast_to"]),
    Case("where", lambda lib, x, y: lib.where(lib.constant([[True, False, True]]), x, y),
         [F((2, 3)), F((2, 3))], ["where"]),
    Case("boolean_mask", lambda lib, x: lib.boolean_mask(x, lib.constant([True, False, True])),
         [F((3, 2))], ["boolean_mask"]),
    Case("tensor_scatter_nd_update", lambda lib, x, u: lib.tensor_scatter_nd_update(
        x, lib.constant([[0], [2]]), u), [F((3, 2)), F((2, 2))],
         ["tensor_scatter_nd_update"]),
    Case("tensor_scatter_nd_add", lambda lib, x, u: lib.tensor_scatter_nd_add(
        x, lib.constant([[0], [0]]), u), [F((3, 2)), F((2, 2))], ["tensor_scatter_nd_add"]),
    Case("clip_by_value", lambda lib, x: lib.clip_by_value(x, -1.0, 1.0), [F((3, 4))],
         ["clip_by_value"]),
    Case("clip_by_norm", lambda lib, x: lib.clip_by_norm(x, 1.0), [F((3, 4))],
         ["clip_by_norm"]),
    Case("clip_by_global_norm", lambda lib, x, y: lib.clip_by_global_norm([x, y], 1.0)[0][1],
         [F((3,)), F((2,))], ["clip_by_global_norm"]),
    Case("roll", lambda lib, x: lib.roll(x, shift=[1, -1], axis=[0, 1]), [F((3, 4))],
         ["roll"]),
    Case("repeat", lambda lib, x: lib.repeat(x, [1, 2, 3], axis=0), [F((3, 2))], ["repeat"]),
    Case("einsum", lambda lib, x, y: lib.einsum("ij,jk->ik", x, y), [F((2, 3)), F((3, 4))],
         ["einsum"], second=True),
    Case("cast", lambda lib, x: lib.cast(x, lib.float64), [F((3,))], ["cast"]),
    Case("identity", lambda lib, x: lib.identity(x) * 2.0, [F((3,))], ["identity"]),
    Case("one_hot_matmul", lambda lib, x: lib.matmul(lib.one_hot([0, 2], 3), x),
         [F((3, 2))], ["one_hot", "matmul"]),
    Case("sort", lambda lib, x: lib.sort(x, axis=-1), [F((3, 4))], ["sort"]),
    Case("top_k", lambda lib, x: lib.math.top_k(x, k=2).values, [F((3, 4))],
         ["math.top_k"]),
    # --- linear algebra ---
    Case("matmul", lambda lib, x, y: lib.matmul(x, y, transpose_b=True),
         [F((2, 3, 4)), F((2, 5, 4))], ["matmul"], second=True),
    Case("tensordot", lambda lib, x, y: lib.tensordot(x, y, axes=1), [F((2, 3)), F((3, 4))],
         ["tensordot"]),
    Case("linalg.inv", lambda lib, x: lib.linalg.inv(x + 4.0 * lib.eye(3)), [F((3, 3))],
         ["linalg.inv", "eye"], second=True),
    Case("linalg.det", lambda lib, x: lib.linalg.det(x + 3.0 * lib.eye(3)), [F((2, 3, 3))],
         ["linalg.det", "eye"]),
    Case("linalg.slogdet", lambda lib, x: lib.linalg.slogdet(x + 3.0 * lib.eye(3))[1],
         [F((3, 3))], ["linalg.slogdet", "eye"]),
    Case("linalg.solve", lambda lib, a, b: lib.linalg.solve(a + 4.0 * lib.eye(3), b),
         [F((3, 3)), F((3, 2))], ["linalg.solve", "eye"]),
    Case("linalg.cholesky", lambda lib, a: lib.linalg.cholesky(
        lib.matmul(a, a, transpose_b=True) + lib.eye(3)), [F((3, 3))],
         ["linalg.cholesky", "eye"]),
    Case("linalg.triangular_solve", lambda lib, a, b: lib.linalg.triangular_solve(
        lib.linalg.band_part(a, -1, 0) + 4.0 * lib.eye(3), b), [F((3, 3)), F((3, 2))],
         ["linalg.triangular_solve", "linalg.band_part"]),
    Case("linalg.trace", lambda lib, x: lib.linalg.trace(x), [F((2, 3, 3))],
         ["linalg.trace"]),
    Case("linalg.diag_part", lambda lib, x: lib.linalg.diag_part(x), [F((3, 3))],
         ["linalg.diag_part"]),
    Case("linalg.diag", lambda lib, x: lib.linalg.diag(x), [F((3,))], ["linalg.diag"]),
    Case("linalg.norm", lambda lib, x: lib.linalg.norm(x, axis=-1), [F((3, 4))],
         ["linalg.norm"]),
    Case("linalg.matvec", lambda lib, a, b: lib.linalg.matvec(a, b), [F((3, 4)), F((4,))],
         ["linalg.matvec"]),
    Case("linalg.eigh", lambda lib, a: lib.linalg.eigh(a + lib.transpose(a))[0],
         [F((3, 3))], ["linalg.eigh"]),
    Case("linalg.qr", lambda lib, a: lib.linalg.qr(a)[1], [F((4, 3))], ["linalg.qr"],
         rtol=1e-3, atol=1e-4),
    # --- nn ---
    Case("nn.bias_add", lambda lib, x, b: lib.nn.bias_add(x, b), [F((2, 3)), F((3,))],
         ["nn.bias_add"]),
    Case("nn.conv2d", lambda lib, x, w: lib.nn.conv2d(x, w, strides=1, padding="SAME"),
         [F((2, 5, 5, 3)), F((3, 3, 3, 4))], ["nn.conv2d"], second=True, rtol=1e-4),
    Case("nn.conv2d_valid_strided", lambda lib, x, w: lib.nn.conv2d(
        x, w, strides=2, padding="VALID"), [F((1, 7, 7, 2)), F((3, 3, 2, 3))], ["nn.conv2d"]),
    Case("nn.conv1d", lambda lib, x, w: lib.nn.conv1d(x, w, stride=1, padding="SAME"),
         [F((2, 6, 3)), F((3, 3, 2))], ["nn.conv1d"]),
    Case("nn.depthwise_conv2d", lambda lib, x, w: lib.nn.depthwise_conv2d(
        x, w, [1, 1, 1, 1], "SAME"), [F((1, 5, 5, 2)), F((3, 3, 2, 2))],
         ["nn.depthwise_conv2d"]),
    Case("nn.conv2d_transpose", lambda lib, x, w: lib.nn.conv2d_transpose(
        x, w, [1, 6, 6, 2], 2, "SAME"), [F((1, 3, 3, 3)), F((3, 3, 2, 3))],
         ["nn.conv2d_transpose"]),
    Case("nn.max_pool2d", lambda lib, x: lib.nn.max_pool2d(x, 2, 2, "VALID"),
         [F((2, 4, 4, 3))], ["nn.max_pool2d"]),
    Case("nn.avg_pool2d", lambda lib, x: lib.nn.avg_pool2d(x, 3, 1, "SAME"),
         [F((1, 4, 4, 2))], ["nn.avg_pool2d"]),
    Case("nn.softmax_xent", lambda lib, x: lib.nn.softmax_cross_entropy_with_logits(
        labels=lib.constant([[0.2, 0.8, 0.0], [1.0, 0.0, 0.0]]), logits=x), [F((2, 3))],
         ["nn.softmax_cross_entropy_with_logits"], second=True),
    Case("nn.sparse_softmax_xent", lambda lib, x:
         lib.nn.sparse_softmax_cross_entropy_with_logits(labels=lib.constant([2, 0]),
                                                         logits=x), [F((2, 3))],
         ["nn.sparse_softmax_cross_entropy_with_logits"]),
    Case("nn.sigmoid_xent", lambda lib, x: lib.nn.sigmoid_cross_entropy_with_logits(
        labels=lib.constant([[0.0, 1.0, 0.5]]), logits=x), [F((1, 3))],
         ["nn.sigmoid_cross_entropy_with_logits"], second=True),
    Case("nn.l2_loss", lambda lib, x: lib.nn.l2_loss(x), [F((3, 4))], ["nn.l2_loss"]),
    Case("nn.moments", lambda lib, x: lib.nn.moments(x, axes=[0])[1], [F((4, 3))],
         ["nn.moments"]),
    Case("nn.batch_normalization", lambda lib, x, s: lib.nn.batch_normalization(
        x, lib.reduce_mean(x, 0), lib.math.reduce_variance(x, 0), None, s, 1e-3),
         [F((4, 3)), F((3,))], ["nn.batch_normalization"]),
    Case("nn.embedding_lookup", lambda lib, p: lib.nn.embedding_lookup(p, [[0, 2], [2, 1]]),
         [F((3, 2))], ["nn.embedding_lookup"]),
    Case("nn.log_poisson_loss", lambda lib, x: lib.nn.log_poisson_loss(
        lib.constant([1.0, 2.0, 0.0]), x), [F((3,))], ["nn.log_poisson_loss"]),
    Case("float64_matmul", lambda lib, x, y: lib.matmul(x, y), [F((2, 3)), F((3, 2))],
         ["matmul"], second=True, dtype="float64", rtol=1e-10, atol=1e-10),
]
_ids = [c.id for c in CASES]
assert len(set(_ids)) == len(_ids), "duplicate case ids"


def _inputs(lib, case, seed):
    rng = np.random.default_rng(seed)
    out, diff = [], []
    for spec in case.inputs:
        if spec[0] == "f":
            _, shape, lo, hi = spec
            a = rng.uniform(lo, hi, size=shape).astype(case.dtype)
            out.append(lib.constant(a))
            diff.append(len(out) - 1)
        else:
            out.append(lib.constant(spec[1]))
    return out, diff


def _run(lib, case, seed=0, second=False):
    xs, diff = _inputs(lib, case, seed)
    watched = [xs[i] for i in diff]
    with lib.GradientTape(persistent=True) as outer:
        outer.watch(watched)
        with lib.GradientTape() as tape:
            tape.watch(watched)
            y = case.fn(lib, *xs)
            w = lib.constant(np.random.default_rng(seed + 100).uniform(
                0.5, 1.5, size=tuple(y.shape)).astype(y.dtype.as_numpy_dtype))
            loss = lib.reduce_sum(y * w)
        grads = tape.gradient(loss, watched)
        g2 = None
        if second:
            s = lib.add_n([lib.reduce_sum(g * g) for g in grads if g is not None])
    if second:
        g2 = outer.gradient(s, watched)
    return y, grads, g2


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_gradient_matches_tf(case):
    missing = [n for n in case.needs if _get(tf, n) is None]
    if missing:
        pytest.skip(f"torchflow has no {', '.join('tf.' + m for m in missing)} yet")
    rtf = real_tf()
    y_t, g_t, h_t = _run(rtf, case, second=case.second)
    # TF answers IndexedSlices for gathers; torchflow's gradients are dense.
    g_t = [rtf.convert_to_tensor(g) if g is not None else None for g in g_t]
    y_o, g_o, h_o = _run(tf, case, second=case.second)
    assert_close(y_o, y_t.numpy(), rtol=case.rtol, atol=case.atol)
    for a, b in zip(g_o, g_t):
        if b is None:
            assert a is None or np.all(np.asarray(a) == 0)
            continue
        assert a is not None, "torchflow gave no gradient where TF gives one"
        assert_close(a, np.asarray(b), rtol=case.rtol, atol=case.atol)
    if case.second:
        for a, b in zip(h_o, h_t):
            if b is None:
                assert a is None or np.all(np.asarray(a) == 0)
                continue
            assert a is not None, "torchflow gave no second derivative where TF gives one"
            assert_close(a, np.asarray(b), rtol=case.rtol * 10, atol=case.atol * 10)


def test_table_covers_the_main_families():
    families = {"exp", "matmul", "nn.conv2d", "gather", "where", "reduce_sum", "nn.softmax"}
    assert families <= {n for c in CASES for n in c.needs} | {c.id for c in CASES}


def _golden(ns):
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "api" / "golden" / f"tensorflow.{ns}.txt"
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


# Ops whose outputs are not a deterministic function of the inputs, or whose
# "gradient" is a documented TF-only construct.
_SWEEP_SKIP = {"random", "dropout", "stateless", "sample", "fractional", "ctc_", "nce_",
               "sampled_", "uniform_candidate", "log_uniform", "learned_unigram",
               "fixed_unigram", "all_candidate", "compute_accidental", "sobol"}
_SWEEP = [(ns, name) for ns in ("math", "nn", "linalg") for name in _golden(ns)
          if name[0].islower() and not any(s in name for s in _SWEEP_SKIP)]


# Divergences found by the sweep, reported to the op owners (xfail, not strict:
# an XPASS means it was fixed and the entry can go).
_KNOWN_DIFFS = {
    "math.add_n": "add_n(tensor) (a Tensor, not a list) is accepted by TF, rejected here",
}
_SWEEP_PARAMS = [pytest.param(ns, name, id=f"{ns}.{name}", marks=pytest.mark.xfail(
    reason=_KNOWN_DIFFS[f"{ns}.{name}"], strict=False)) if f"{ns}.{name}" in _KNOWN_DIFFS
    else pytest.param(ns, name, id=f"{ns}.{name}") for ns, name in _SWEEP]


@pytest.mark.parametrize("ns,name", _SWEEP_PARAMS)
def test_sweep_one_and_two_argument_ops(ns, name):
    """Every tf.math / tf.nn / tf.linalg op that real TF can call on one (or two)
    float tensors gets the same value and gradient from torchflow."""
    rtf = real_tf()
    ours = _get(tf, f"{ns}.{name}")
    theirs = _get(rtf, f"{ns}.{name}")
    if theirs is None:
        pytest.skip("not in this TensorFlow")
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    shapes = [(3, 3)]
    for nargs in (1, 2):
        arrays = [rng.uniform(0.2, 0.9, size=shapes[0]).astype(np.float32)
                  for _ in range(nargs)]
        try:
            xs = [rtf.constant(a) for a in arrays]
            with rtf.GradientTape() as tape:
                tape.watch(xs)
                y = theirs(*xs)
                if not hasattr(y, "dtype") or not y.dtype.is_floating:
                    continue
                loss = rtf.reduce_sum(y)
            g_t = tape.gradient(loss, xs)
        except Exception:  # noqa: BLE001 - this arity does not apply to the op
            continue
        if all(g is None for g in g_t) or not np.all(np.isfinite(y.numpy())):
            continue
        if ours is None:
            pytest.skip(f"torchflow has no tf.{ns}.{name} yet")
        xo = [tf.constant(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(xo)
            yo = ours(*xo)
            lo = tf.reduce_sum(yo)
        g_o = tape.gradient(lo, xo)
        assert_close(yo, y.numpy(), rtol=1e-4, atol=1e-5)
        for a, b in zip(g_o, g_t):
            if b is None:
                continue
            assert a is not None, "torchflow gave no gradient where TF gives one"
            assert_close(a, np.asarray(rtf.convert_to_tensor(b)), rtol=1e-3, atol=1e-4)
        return
    pytest.skip("not callable on plain float tensors in real TF")
