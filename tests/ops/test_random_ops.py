"""tf.random: TF's seed rules (compared with real TF's behaviour), distributions
against analytic moments, shapes/dtypes/errors against real TF."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import torchflow as tfl
from torchflow._src.testing import real_tf

N = 200_000


# --- seed rules -----------------------------------------------------------------------
def _seed_program(m):
    """A fixed sequence of random calls; returns the values drawn."""
    u = lambda **k: m.random.uniform([4], **k).numpy()  # noqa: E731
    n = lambda **k: m.random.normal([4], **k).numpy()  # noqa: E731
    out = []
    m.random.set_seed(1)
    out += [u(), u(seed=5), u(), u(seed=5), n(seed=5), n()]
    m.random.set_seed(1)
    out += [u(), u(), u(seed=5), u(seed=5), n(seed=5), u(seed=6)]
    m.random.set_seed(2)
    out += [u(), u(seed=5)]
    return out


def _pattern(values):
    """Which draws repeat which: the part of the behaviour TF documents."""
    k = len(values)
    return [[bool(np.array_equal(values[i], values[j])) for j in range(k)] for i in range(k)]


def test_seed_rules_match_tf_behaviour():
    ours = _pattern(_seed_program(tfl))
    theirs = _pattern(_seed_program(real_tf()))
    assert ours == theirs
    # The program does exercise repeats (and non-repeats):
    assert ours[0][6] and ours[1][8] and ours[3][9] and not ours[1][3]


def test_no_seed_draws_differ():
    a = tfl.random.uniform([8]).numpy()
    b = tfl.random.uniform([8]).numpy()
    assert not np.array_equal(a, b)


def test_op_seed_without_global_seed_is_a_stream_reset_by_set_seed():
    a1 = tfl.random.uniform([4], seed=3).numpy()
    a2 = tfl.random.uniform([4], seed=3).numpy()
    assert not np.array_equal(a1, a2)  # a stream, as in TF
    from torchflow._src.core import context

    context.reset()  # a fresh program
    assert np.array_equal(tfl.random.uniform([4], seed=3).numpy(), a1)
    assert np.array_equal(tfl.random.uniform([4], seed=3).numpy(), a2)


_PROC = """
import torchflow as tf
print(tf.random.uniform([3], seed=7).numpy().tolist())
print(tf.random.stateless_normal([3], seed=[4, 2]).numpy().tolist())
tf.random.set_seed(11)
print(tf.random.normal([3]).numpy().tolist())
print(tf.random.Generator.from_seed(5).normal([3]).numpy().tolist())
tf.random.set_seed(None)
print(tf.random.uniform([3]).numpy().tolist())
"""


def test_reproducible_across_processes():
    other = subprocess.run([sys.executable, "-c", _PROC], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    mine = []
    exec(_PROC, {"print": lambda v: mine.append(str(v))})
    assert other[:4] == mine[:4]  # seeded: identical in another process
    assert other[4] != mine[4]  # unseeded: differs


# --- distributions ----------------------------------------------------------------------
def test_normal_moments():
    tfl.random.set_seed(0)
    x = tfl.random.normal([N], mean=2.0, stddev=3.0).numpy().astype(np.float64)
    assert abs(x.mean() - 2.0) < 0.05 and abs(x.std() - 3.0) < 0.05


def test_uniform_float_moments():
    tfl.random.set_seed(0)
    x = tfl.random.uniform([N], minval=-1.0, maxval=3.0).numpy().astype(np.float64)
    assert x.min() >= -1.0 and x.max() < 3.0
    assert abs(x.mean() - 1.0) < 0.02 and abs(x.var() - 16 / 12) < 0.02


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_uniform_int_half_open(dtype):
    tfl.random.set_seed(0)
    x = tfl.random.uniform([N], minval=-2, maxval=3, dtype=dtype).numpy()
    assert x.dtype == np.dtype(dtype)
    assert sorted(set(x.tolist())) == [-2, -1, 0, 1, 2]
    counts = np.bincount(x + 2) / N
    assert np.all(np.abs(counts - 0.2) < 0.01)


@pytest.mark.parametrize("fn", ["truncated_normal", "stateless"])
def test_truncated_normal_moments(fn):
    tfl.random.set_seed(0)
    if fn == "stateless":
        x = tfl.random.stateless_truncated_normal([N], seed=[1, 2], mean=1.0, stddev=2.0)
    else:
        x = tfl.random.truncated_normal([N], mean=1.0, stddev=2.0)
    x = (x.numpy().astype(np.float64) - 1.0) / 2.0
    phi2 = math.exp(-2.0) / math.sqrt(2 * math.pi)
    var = 1 - 2 * 2 * phi2 / math.erf(2 / math.sqrt(2))  # variance of N(0,1) cut at +-2
    assert x.min() >= -2.0 and x.max() <= 2.0
    assert abs(x.mean()) < 0.01 and abs(x.var() - var) < 0.01


def test_categorical_frequencies():
    tfl.random.set_seed(0)
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    with np.errstate(divide="ignore"):
        logits = np.log(p).astype(np.float32)
    s = tfl.random.categorical(logits, 50_000).numpy()
    assert s.shape == (2, 50_000) and s.dtype == np.int64
    for row in range(2):
        freq = np.bincount(s[row], minlength=3) / s.shape[1]
        assert np.all(np.abs(freq - p[row]) < 0.01)


def test_shuffle_permutes_first_dim():
    x = np.arange(20).reshape(10, 2)
    tfl.random.set_seed(3)
    y = tfl.random.shuffle(x).numpy()
    assert sorted(map(tuple, y.tolist())) == sorted(map(tuple, x.tolist()))
    assert not np.array_equal(x, y)
    s = tfl.random.shuffle(tfl.constant(["a", "b", "c", "d"])).numpy()
    assert sorted(s.tolist()) == [b"a", b"b", b"c", b"d"]


def test_poisson_and_gamma_moments():
    tfl.random.set_seed(0)
    x = tfl.random.poisson([N // 2], [3.0, 10.0]).numpy().astype(np.float64)
    assert x.shape == (N // 2, 2)
    assert np.all(np.abs(x.mean(0) - [3, 10]) < 0.05) and np.all(np.abs(x.var(0) - [3, 10]) < 0.2)
    g = tfl.random.gamma([N // 2], [0.5, 4.0], beta=[1.0, 2.0]).numpy().astype(np.float64)
    assert g.shape == (N // 2, 2) and g.min() >= 0
    assert np.all(np.abs(g.mean(0) - [0.5, 2.0]) < 0.02)
    assert np.all(np.abs(g.var(0) - [0.5, 1.0]) < 0.03)


def test_stateless_binomial_and_poisson_moments():
    b = tfl.random.stateless_binomial([N], seed=[1, 2], counts=10.0, probs=0.3).numpy()
    assert b.dtype == np.int32 and abs(b.mean() - 3.0) < 0.03 and abs(b.var() - 2.1) < 0.05
    p = tfl.random.stateless_poisson([N], seed=[1, 2], lam=4.0).numpy()
    assert abs(p.mean() - 4.0) < 0.03


# --- shapes, dtypes and errors against TF -------------------------------------------------
_CALLS = [
    ("normal", ([2, 3],), {}),
    ("normal", ([2],), {"dtype": "float64"}),
    ("normal", ([3],), {"dtype": "float16"}),
    ("uniform", ([4, 1],), {}),
    ("uniform", ([2],), {"dtype": "int64", "maxval": 7}),
    ("uniform", ([2],), {"dtype": "bfloat16"}),
    ("uniform", ([0, 2],), {}),
    ("truncated_normal", ([5],), {"dtype": "float64"}),
    ("categorical", ([[0.0, 1.0]], 3), {}),
    ("categorical", ([[0.0, 1.0]], 3), {"dtype": "int32"}),
    ("shuffle", ([[1, 2], [3, 4]],), {}),
    ("poisson", ([3], [1.0, 2.0]), {}),
    ("poisson", ([3], [1.0, 2.0]), {"dtype": "int32"}),
    ("gamma", ([3], [1.0, 2.0]), {"beta": [[1.0], [2.0]]}),
    ("stateless_normal", ([2, 2], [1, 2]), {}),
    ("stateless_uniform", ([3], [1, 2]), {"minval": None, "maxval": None, "dtype": "int32"}),
    ("stateless_uniform", ([3], [1, 2]), {"minval": 2, "maxval": 9, "dtype": "int64"}),
    ("stateless_uniform", ([3], [1, 2]), {"dtype": "float64"}),
    ("stateless_truncated_normal", ([4], [1, 2]), {}),
    ("stateless_categorical", ([[0.0, 1.0]], 3, [1, 2]), {}),
    ("stateless_binomial", ([2], [1, 2], 10.0, 0.5), {}),
    ("stateless_poisson", ([2], [1, 2], 3.0), {}),
    ("stateless_gamma", ([2], [1, 2], 3.0), {}),
]


def _conv(m, kwargs):
    return {k: (getattr(m, v) if k == "dtype" and isinstance(v, str) else v)
            for k, v in kwargs.items()}


@pytest.mark.parametrize("fn,args,kwargs", _CALLS, ids=[c[0] for c in _CALLS])
def test_shape_dtype_like_tf(fn, args, kwargs):
    tf = real_tf()
    ours = getattr(tfl.random, fn)(*args, **_conv(tfl, kwargs))
    theirs = getattr(tf.random, fn)(*args, **_conv(tf, kwargs))
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == theirs.dtype.name


_BAD = [
    ("normal", ([2],), {"dtype": "int32"}),
    ("uniform", ([2],), {"dtype": "int32"}),
    ("uniform", ([2],), {"dtype": "int32", "minval": 5, "maxval": 5}),
    ("uniform", ([2],), {"dtype": "int32", "minval": [0, 1], "maxval": 5}),
    ("uniform", ([2],), {"dtype": "bool"}),
    ("uniform", ([-1],), {}),
    ("categorical", ([0.0, 1.0], 3), {}),
    ("categorical", ([[0.0, 1.0]], 3), {"dtype": "float32"}),
    ("stateless_normal", ([2], [1, 2, 3]), {}),
    ("stateless_uniform", ([2], [1, 2]), {"dtype": "int32"}),
]


@pytest.mark.parametrize("fn,args,kwargs", _BAD, ids=[c[0] for c in _BAD])
def test_errors_like_tf(fn, args, kwargs):
    tf = real_tf()
    with pytest.raises(Exception) as theirs:
        getattr(tf.random, fn)(*args, **_conv(tf, kwargs))
    with pytest.raises(Exception) as ours:
        getattr(tfl.random, fn)(*args, **_conv(tfl, kwargs))
    assert type(ours.value).__name__ == type(theirs.value).__name__, str(ours.value)


def test_parameter_dtype_mismatch_like_tf():
    for m in (real_tf(), tfl):
        with pytest.raises(ValueError):
            m.random.normal([2], mean=m.constant([1.0, 2.0], dtype=m.float64))


# --- stateless and Generator ---------------------------------------------------------------
@pytest.mark.parametrize("fn,extra", [("stateless_normal", ()), ("stateless_uniform", ()),
                                      ("stateless_truncated_normal", ())])
def test_stateless_same_seed_same_values(fn, extra):
    f = getattr(tfl.random, fn)
    a = f([5], seed=[3, 4]).numpy()
    tfl.random.uniform([3])  # stateful draws in between change nothing
    tfl.random.set_seed(9)
    assert np.array_equal(a, f([5], seed=tfl.constant([3, 4], dtype=tfl.int64)).numpy())
    assert not np.array_equal(a, f([5], seed=[3, 5]).numpy())


def test_stateless_categorical_values_are_tfs():
    lg = np.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]).astype(np.float32)
    for seed in ([1, 2], [-3, 2**33]):
        ours = tfl.random.stateless_categorical(lg, 11, seed=seed).numpy()
        theirs = real_tf().random.stateless_categorical(lg, 11, seed=seed).numpy()
        assert ours.tolist() == theirs.tolist()


def test_stateless_categorical_deterministic():
    lg = [[0.0, 1.0, 2.0]]
    a = tfl.random.stateless_categorical(lg, 20, seed=[1, 2]).numpy()
    assert np.array_equal(a, tfl.random.stateless_categorical(lg, 20, seed=[1, 2]).numpy())


def test_generator_reproducible_and_splittable():
    g1 = tfl.random.Generator.from_seed(42)
    g2 = tfl.random.Generator.from_seed(42)
    a = [g1.normal([3]).numpy(), g1.uniform([3]).numpy()]
    b = [g2.normal([3]).numpy(), g2.uniform([3]).numpy()]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(g1.normal([3]).numpy(), a[0])  # the state advanced
    g1.reset_from_seed(42)
    assert np.array_equal(g1.normal([3]).numpy(), a[0])
    state = g1.state
    assert state.dtype == tfl.int64 and tuple(state.shape) == (3,)
    again = tfl.random.Generator.from_state(state, alg=g1.algorithm)
    assert np.array_equal(again.normal([3]).numpy(), g1.normal([3]).numpy())
    seeds = g1.make_seeds(4)
    assert seeds.dtype == tfl.int64 and tuple(seeds.shape) == (2, 4)
    s1, s2 = g1.split(2)
    assert not np.array_equal(s1.normal([3]).numpy(), s2.normal([3]).numpy())
    x = g1.truncated_normal([1000]).numpy()
    assert x.min() >= -2 and x.max() <= 2


def test_generator_from_seed_state_matches_tf_and_int_errors():
    tf = real_tf()
    assert tfl.random.Generator.from_seed(1).state.numpy().tolist() == \
        tf.random.Generator.from_seed(1).state.numpy().tolist()
    with pytest.raises(ValueError):
        tf.random.Generator.from_seed(1).uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError):
        tfl.random.Generator.from_seed(1).uniform([2], dtype=tfl.int32)
    x = tfl.random.Generator.from_seed(1).uniform([1000], minval=0, maxval=5, dtype=tfl.int32)
    assert sorted(set(x.numpy().tolist())) == [0, 1, 2, 3, 4]
    assert tfl.random.Generator.from_seed(1).uniform_full_int([2]).dtype == tfl.uint64


def test_global_generator():
    g = tfl.random.get_global_generator()
    assert g is tfl.random.get_global_generator()
    mine = tfl.random.Generator.from_seed(3)
    tfl.random.set_global_generator(mine)
    assert tfl.random.get_global_generator() is mine


def test_parameterized_truncated_normal_bounds_and_mean():
    x = tfl.random.stateless_parameterized_truncated_normal(
        [N], seed=[1, 2], means=1.0, stddevs=2.0, minvals=0.0, maxvals=10.0).numpy()
    assert x.dtype == np.float32 and x.min() >= 0.0 and x.max() <= 10.0
    # mean of N(1, 2) cut to [0, 10]: mu + s * (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    a, b = -0.5, 4.5
    phi = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    Phi = lambda t: 0.5 * (1 + math.erf(t / math.sqrt(2)))  # noqa: E731
    assert abs(x.mean() - (1 + 2 * (phi(a) - phi(b)) / (Phi(b) - Phi(a)))) < 0.02


@pytest.mark.parametrize("fn,args", [
    ("uniform_candidate_sampler", (5, False, 10)),
    ("log_uniform_candidate_sampler", (5, False, 10)),
    ("all_candidate_sampler", (5, True)),
    ("uniform_candidate_sampler", (4, True, 6)),
])
def test_candidate_samplers_like_tf(fn, args):
    tf = real_tf()
    tc = np.array([[1, 2], [3, 4]], np.int64)
    ours = getattr(tfl.random, fn)(tfl.constant(tc), 2, *args, seed=1)
    theirs = getattr(tf.random, fn)(tf.constant(tc), 2, *args, seed=1)
    for a, b in zip(ours, theirs):
        assert a.dtype.name == b.dtype.name and tuple(a.shape) == tuple(b.shape)
    ids = ours.sampled_candidates.numpy()
    assert ids.min() >= 0 and ids.max() < (args[2] if len(args) > 2 else args[0])
    if not args[1]:  # with replacement the expected counts are deterministic
        np.testing.assert_allclose(ours.true_expected_count.numpy(),
                                   theirs.true_expected_count.numpy(), rtol=1e-6)
    else:
        assert len(set(ids.tolist())) == len(ids)
    if fn == "all_candidate_sampler":
        assert ids.tolist() == theirs.sampled_candidates.numpy().tolist()


def test_candidate_sampler_true_class_range_error_like_tf():
    tf = real_tf()
    tc = np.array([[1, 9]], np.int64)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.uniform_candidate_sampler(tf.constant(tc), 2, 3, True, 6)
    with pytest.raises(tfl.errors.InvalidArgumentError):
        tfl.random.uniform_candidate_sampler(tfl.constant(tc), 2, 3, True, 6)


def test_fixed_unigram_frequencies():
    tfl.random.set_seed(0)
    tc = tfl.constant([[0]], dtype=tfl.int64)
    r = tfl.random.fixed_unigram_candidate_sampler(tc, 1, 20_000, False, 4,
                                                   unigrams=[1, 1, 4, 9], distortion=0.5)
    freq = np.bincount(r.sampled_candidates.numpy(), minlength=4) / 20_000
    assert np.all(np.abs(freq - np.array([1, 1, 2, 3]) / 7) < 0.02)


_EXACT = [
    ("stateless_uniform", {}),
    ("stateless_uniform", {"dtype": "float64", "minval": -2.0, "maxval": 5.0}),
    ("stateless_uniform", {"dtype": "int32", "minval": 3, "maxval": 17}),
    ("stateless_uniform", {"dtype": "int64", "minval": -2**35, "maxval": 2**35}),
    ("stateless_uniform", {"dtype": "int32", "minval": None, "maxval": None}),
    ("stateless_uniform", {"dtype": "int64", "minval": None, "maxval": None}),
    ("stateless_uniform", {"dtype": "uint64", "minval": None, "maxval": None}),
    ("stateless_normal", {}),
    ("stateless_normal", {"dtype": "float64", "mean": 2.0, "stddev": 3.0}),
    ("stateless_truncated_normal", {}),
    ("stateless_truncated_normal", {"dtype": "float64", "mean": -1.0, "stddev": 0.5}),
]


@pytest.mark.parametrize("seed", [[1, 2], [-7, 2**40], [0, 0]])
@pytest.mark.parametrize("fn,kwargs", _EXACT)
def test_stateless_values_are_tfs(fn, kwargs, seed):
    """TF's Philox numbers, not just the same rules."""
    tf = real_tf()
    ours = getattr(tfl.random, fn)([3, 5], seed=seed, **_conv(tfl, kwargs)).numpy()
    theirs = getattr(tf.random, fn)([3, 5], seed=seed, **_conv(tf, kwargs)).numpy()
    assert ours.dtype == theirs.dtype
    if ours.dtype.kind == "f":  # Box-Muller's sin/log may differ in the last bit
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)
    else:
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_stateless_large_values_are_tfs(dtype):
    tf = real_tf()
    kw = {"minval": -5, "maxval": 9} if dtype == "int32" else {}
    ours = tfl.random.stateless_uniform([1001], seed=[3, 4], dtype=getattr(tfl, dtype), **kw)
    theirs = tf.random.stateless_uniform([1001], seed=[3, 4], dtype=getattr(tf, dtype), **kw)
    assert ours.numpy().tolist() == theirs.numpy().tolist()
    if dtype != "int32":
        for fn in ("stateless_normal", "stateless_truncated_normal"):
            np.testing.assert_allclose(
                getattr(tfl.random, fn)([999], [5, 6], dtype=getattr(tfl, dtype)).numpy(),
                getattr(tf.random, fn)([999], [5, 6], dtype=getattr(tf, dtype)).numpy(),
                rtol=2e-6, atol=2e-6)


def _seeded_program(m):
    out = []
    m.random.set_seed(1)
    out += [m.random.uniform([5]), m.random.uniform([3], seed=5), m.random.normal([4]),
            m.random.normal([4], seed=5), m.random.uniform([3], seed=5),
            m.random.truncated_normal([7]),
            m.random.truncated_normal([6], seed=2, dtype=m.float64),
            m.random.uniform([4], maxval=10, dtype=m.int32),
            m.random.uniform([4], minval=-3, maxval=2**40, dtype=m.int64, seed=9),
            m.random.normal([3], dtype=m.float64, mean=1.0, stddev=2.0),
            m.random.uniform([2, 3], minval=-1.0, maxval=4.0),
            m.random.categorical(np.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]), 7),
            m.random.categorical([[0.0, -np.inf, 1.0, 2.0]], 9, seed=4, dtype=m.int32),
            m.random.categorical([[0.0, -np.inf, 1.0, 2.0]], 9, seed=4, dtype=m.int32),
            m.random.shuffle(m.range(10), seed=5), m.random.shuffle(m.range(10), seed=5),
            m.random.shuffle(np.arange(14).reshape(7, 2)), m.random.uniform([2])]
    m.random.set_seed(None)
    out += [m.random.uniform([2], seed=3), m.random.uniform([2], seed=3)]
    return [o.numpy() for o in out]


def test_seeded_stateful_values_are_tfs():
    for ours, theirs in zip(_seeded_program(tfl), _seeded_program(real_tf())):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)


def test_philox_torch_path_equals_numpy_path():
    """The GPU code path (torch int64 rounds) computes the same words as the host path."""
    import torch

    from torchflow._src.ops import philox

    key, counter = philox.key_counter(3, -9)
    idx = np.array([0, 1, 2, 255, 256, 2**33 + 5])
    a = philox._blocks_np(key, (2**32 - 3, 0, counter[2], counter[3]), 0, idx)
    b = philox._blocks_torch(key, (2**32 - 3, 0, counter[2], counter[3]), 0,
                             torch.device("cpu"), idx).numpy()
    assert (a == b).all()


def _generator_program(m):
    g = m.random.Generator.from_seed(1)
    out = [g.normal([5]), g.uniform([3]), g.uniform([3], minval=0, maxval=10, dtype=m.int32),
           g.truncated_normal([3]), g.uniform([2], dtype=m.float64, minval=-1.0, maxval=2.0),
           g.uniform_full_int([3], dtype=m.int64), g.make_seeds(3)]
    out = [o.numpy() for o in out] + [g.state.numpy().copy()]
    s1, s2 = g.split(2)
    out += [s1.state.numpy().copy(), s2.normal([4]).numpy(), g.state.numpy().copy()]
    g.reset_from_seed(7)
    return out + [g.normal([2], dtype=m.float64).numpy(), g.state.numpy().copy()]


def test_generator_values_and_states_are_tfs():
    for ours, theirs in zip(_generator_program(tfl), _generator_program(real_tf())):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)
