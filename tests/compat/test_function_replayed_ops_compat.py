"""Ops that used to send a traced ``tf.function`` eager (its Python on every call),
now replayed as in TF: ``tf.clip_by_global_norm`` (its NaN for an infinite norm is
computed, not read into Python) and ``tf.while_loop`` over Python numbers (TF's graph
loop makes them tensors, and its result has ``loop_vars``' structure). The same
programs under real TF and torchflow: values, result types, and how often the
Python ran.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _clip_program(m):
    runs = []

    @m.function
    def step(g1, g2):
        runs.append(1)
        (c1, c2), norm = m.clip_by_global_norm([g1, g2], 2.0)
        return c1, c2, norm

    out = []
    for scale in (0.1, 3.0, np.inf):
        g1 = m.constant(np.array([[3.0, -4.0], [1.0, 0.5]], np.float32) * scale)
        out += list(step(g1, m.constant(np.array([0.25, -2.0], np.float32))))
    return [np.asarray(t) for t in out], len(runs)


def test_clip_by_global_norm_replays_with_tf_values():
    rtf = real_tf()
    want, want_runs = _clip_program(rtf)
    got, runs = _clip_program(tf)
    assert runs == want_runs == 1
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)  # (NaN where TF has NaN)


def _loop_program(m):
    seen, runs = [], []

    @m.function
    def f(x):
        runs.append(1)
        return m.while_loop(lambda k, a: (seen.append(m.is_tensor(k)), k < 3)[1],
                            lambda k, a: (k + 1, a * 2.0), [0, x])

    out = [f(m.constant(v)) for v in (1.0, 2.5, -1.0)]
    return out, seen, len(runs)


def test_while_loop_over_python_numbers_in_a_function():
    rtf = real_tf()
    want, want_seen, want_runs = _loop_program(rtf)
    got, seen, runs = _loop_program(tf)
    assert runs == want_runs == 1 and seen == want_seen == [True]
    for g, w in zip(got, want):
        assert type(g) is type(w) is list  # loop_vars' structure, not the body's tuple
        assert [t.dtype.name for t in g] == [t.dtype.name for t in w] == ["int32", "float32"]
        np.testing.assert_allclose([t.numpy() for t in g], [t.numpy() for t in w])


@pytest.mark.parametrize("adjoint", [False, True])
def test_singular_matrix_on_a_replay_raises_tf_error(adjoint):
    """``inv``/``solve``/``cholesky`` of an invertible matrix at the trace, of a
    singular one on the next call: real TF's InvalidArgumentError and message, from
    the replay (the LAPACK info is checked on every call, not read at the trace)."""
    rtf = real_tf()
    good = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    bad = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    for m in (rtf, tf):
        runs = []

        @m.function
        def f(a):
            runs.append(1)
            return (m.linalg.inv(a, adjoint=adjoint), m.linalg.solve(a, m.ones([2, 1])),
                    m.linalg.cholesky(a))

        np.testing.assert_allclose(f(m.constant(good))[0].numpy(), np.linalg.inv(good),
                                   rtol=1e-5)
        with pytest.raises(m.errors.InvalidArgumentError, match="not invertible"):
            f(m.constant(bad))
        np.testing.assert_allclose(f(m.constant(good * 2))[2].numpy(),
                                   np.linalg.cholesky(good * 2), rtol=1e-5)
        assert len(runs) == 1, m.__name__


def test_random_image_ops_replay_with_fresh_draws():
    """Augmentation in a traced function (``random_flip_left_right``/``up_down``,
    ``random_crop``, ``random_brightness``, their stateless forms): the Python runs
    once, as in TF, and every call draws anew: both flips occur, crops are windows
    of the image at several offsets, brightness moves within its bound."""
    rtf = real_tf()
    img = np.arange(5 * 6 * 1, dtype=np.float32).reshape(5, 6, 1)

    def run(m):
        runs = []

        @m.function
        def aug(x, s):
            runs.append(1)
            return (m.image.random_flip_left_right(x), m.image.random_flip_up_down(x),
                    m.image.random_crop(x, [3, 4, 1]), m.image.random_brightness(x, 0.5),
                    m.image.stateless_random_flip_left_right(x, s),
                    m.image.stateless_random_crop(x, [2, 2, 1], s))

        outs = [[t.numpy() for t in aug(m.constant(img), m.constant([k, 7]))]
                for k in range(40)]
        return outs, len(runs)

    for m in (rtf, tf):
        outs, runs = run(m)
        assert runs == 1, m.__name__
        lr = {o[0].tobytes() for o in outs}
        assert lr == {img.tobytes(), img[:, ::-1].tobytes()}
        assert {o[1].tobytes() for o in outs} == {img.tobytes(), img[::-1].tobytes()}
        windows = {img[i:i + 3, j:j + 4].tobytes() for i in range(3) for j in range(3)}
        crops = {o[2].tobytes() for o in outs}
        assert crops <= windows and len(crops) >= 3
        deltas = [float((o[3] - img).mean()) for o in outs]
        assert all(-0.5 <= d < 0.5 for d in deltas) and len(set(deltas)) > 30
        small = {img[i:i + 2, j:j + 2].tobytes() for i in range(4) for j in range(5)}
        assert {o[5].tobytes() for o in outs} <= small and len({o[5].tobytes() for o in outs}) > 3
        assert {o[4].tobytes() for o in outs} == {img.tobytes(), img[:, ::-1].tobytes()}


def test_tf_data_augmentation_maps_trace_once():
    """The augmentation of TF's data-augmentation tutorial as ``Dataset.map``
    functions: ``rot90`` by a random tensor ``k``, a random JPEG quality, stateless
    ops under seeds from ``Generator.make_seeds``. Each function's Python runs once,
    as in TF; the elements are rotations / same-shape images of the inputs."""
    rtf = real_tf()
    images = np.random.default_rng(0).random((12, 8, 8, 3)).astype(np.float32)

    def run(m):
        runs = []
        rng = m.random.Generator.from_seed(5, alg="philox")

        def rotate(x):
            runs.append("rot")
            return m.image.rot90(x, m.random.uniform([], 0, 4, m.int32))

        def jpeg(x):
            runs.append("jpeg")
            return m.image.random_jpeg_quality(x, 70, 95)

        def seeded(x):
            runs.append("seeded")
            seed = rng.make_seeds(2)[0]
            x = m.image.stateless_random_crop(x, [6, 6, 3], seed=seed)
            return m.image.stateless_random_brightness(x, 0.2, seed=seed)

        ds = m.data.Dataset.from_tensor_slices(images)
        out = [[e.numpy() for e in ds.map(f)] for f in (rotate, jpeg, seeded)]
        return out, sorted(runs)

    want_out, want_runs = run(rtf)
    got, runs = run(tf)
    assert runs == want_runs == ["jpeg", "rot", "seeded"]
    ks = [[k for k in range(4) if np.array_equal(r, np.rot90(img, k))] for img, r in
          zip(images, got[0])]
    assert all(len(k) == 1 for k in ks) and len({k[0] for k in ks}) > 1  # drawn per element
    for g, w in zip(got[1] + got[2], want_out[1] + want_out[2]):
        assert g.shape == w.shape and g.dtype == w.dtype


def _mutation_program(m):
    """Which of these calls raise (the error type), as a list of names/None."""
    out = []

    @m.function
    def appends(x, log):
        log.append(1)
        return x * 2

    @m.function
    def pops(d):
        y = d.pop("y")
        return d["x"] + y

    @m.function
    def copies(d):
        d = dict(d)
        y = d.pop("y")
        return d["x"] + y

    for f, args in ((appends, (m.constant(1.0), [])), (pops, ({"x": 1.0, "y": m.constant(2.0)},)),
                    (copies, ({"x": m.constant(1.0), "y": m.constant(2.0)},))):
        try:
            out.append(float(f(*args)))
        except ValueError as e:
            out.append(("ValueError", "should not modify its Python input arguments" in str(e)))

    def parse(d):  # tf.data: changing the element's dict is fine in TF
        y = d.pop("y")
        return d, y

    ds = m.data.Dataset.from_tensor_slices({"x": [1.0, 2.0], "y": [3.0, 4.0]}).map(parse)
    out.append([(float(a["x"]), float(b)) for a, b in ds])

    log = []

    def logged(v, log=log):  # a list default a map function appends to: traced once
        log.append(1)
        return v + 1

    out.append(([int(v) for v in m.data.Dataset.range(4).map(logged)], len(log)))
    return out


def test_changing_python_arguments_in_a_function_is_tf_error():
    """A ``tf.function`` that changes a list or dict it was given raises TF's
    ValueError at its trace (a copy may change); tf.data map functions may change
    their element's dict, and a map function's own list default does not retrace it."""
    want = _mutation_program(real_tf())
    got = _mutation_program(tf)
    assert got == want
    assert got[0] == got[1] == ("ValueError", True) and got[2] == 3.0
