"""Whole programs using TF 2.4's small namespaces (tf.sets, tf.audio, tf.queue, ...),
run under real TF and torchflow; everything they print is compared line by line."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _sparse_lines(st) -> list[str]:
    return [str(st.indices.numpy().tolist()), str(st.values.numpy().tolist()),
            str(st.dense_shape.numpy().tolist())]


def tag_overlap(m):
    """Which tags two users share, which only one has, and how many each has: tf.sets
    over dense string rows, a sparse tag table, and a tf.function."""
    out = []
    liked = m.constant([[b"jazz", b"rock", b"jazz"], [b"pop", b"folk", b"metal"]])
    seen = m.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [b"blues", b"rock", b"pop"],
                                 [2, 4])
    both = m.sets.intersection(liked, seen)
    out += _sparse_lines(both)
    out += _sparse_lines(m.sets.difference(liked, seen))
    out += _sparse_lines(m.sets.difference(seen, liked))
    everything = m.sets.union(liked, seen)
    out.append(str(m.sets.size(everything).numpy().tolist()))
    out.append(str(m.sparse.to_dense(everything, default_value=b"-").numpy().tolist()))

    @m.function
    def common_ids(a, b):
        r = m.sets.intersection(a, b)
        return m.sets.size(r), m.sparse.to_dense(r, default_value=-1)

    n, dense = common_ids(m.constant([[1, 2, 3, 4], [5, 6, 7, 8]], m.int64),
                          m.constant([[4, 3, 0, 0], [9, 9, 9, 9]], m.int64))
    out.append(f"{n.numpy().tolist()} {dense.numpy().tolist()} {dense.dtype.name}")
    try:
        m.sets.union(m.constant([[1.0]]), m.constant([[2.0]]))
    except TypeError as e:
        out.append(type(e).__name__)
    return out


def tone_files(m):
    """A two-channel tone written as WAV, read back whole, as mono and padded, and a
    corrupt header reported: the tf.audio steps of TF's audio tutorials."""
    out = []
    t = np.arange(400, dtype=np.float32) / 8000.0
    tone = np.stack([0.8 * np.sin(2 * np.pi * 440 * t), 0.3 * np.cos(2 * np.pi * 220 * t)], 1)
    wav = m.audio.encode_wav(m.constant(tone.astype(np.float32)), 8000)
    data = wav.numpy()
    out.append(f"{len(data)} {data[:4]!r} {wav.dtype.name} {wav.shape}")
    audio, rate = m.audio.decode_wav(wav)
    out.append(f"{audio.shape} {int(rate)} {audio.dtype.name} {float(m.reduce_max(audio)):.6f}")
    mono, _ = m.audio.decode_wav(data, desired_channels=1, desired_samples=512)
    out.append(f"{mono.shape} {float(m.reduce_sum(mono[400:])):.1f} "
               f"{np.array2string(mono[:3, 0].numpy(), precision=6)}")
    spectrum = m.abs(m.signal.rfft(audio[:, 0]))
    out.append(str(int(m.argmax(spectrum))))
    try:
        m.audio.decode_wav(b"RIFF" + data[4:8] + b"AVI " + data[12:])
    except m.errors.InvalidArgumentError as e:
        out.append(str(e).split("}} ")[-1].split(" [Op:")[0])
    return out


def producer_consumer(m):
    """Two producer threads fill a FIFO queue, the main thread batches it with
    dequeue_many until the queue is closed, then drains the rest with dequeue_up_to;
    a padding queue batches variable-length rows; a priority queue orders work."""
    import threading

    out = []
    q = m.queue.FIFOQueue(4, [m.int32, m.string], shapes=[[], []])

    def produce(start):
        for i in range(start, start + 5):
            q.enqueue((i, f"item{i}"))

    threads = [threading.Thread(target=produce, args=(s,)) for s in (0, 100)]
    for t in threads:
        t.start()
    seen = []
    for _ in range(3):
        ids, labels = q.dequeue_many(3)
        seen += ids.numpy().tolist()
        out.append(f"{ids.shape} {labels.dtype.name}")
    for t in threads:
        t.join()
    q.close()
    ids, _ = q.dequeue_up_to(10)
    seen += ids.numpy().tolist()
    out.append(str(sorted(seen)))
    try:
        q.dequeue()
    except m.errors.OutOfRangeError:
        out.append(f"closed, size {int(q.size())}, is_closed {bool(q.is_closed())}")
    pad = m.queue.PaddingFIFOQueue(5, [m.float32], shapes=[[None]])
    for n in (3, 1, 2):
        pad.enqueue([m.range(1.0, n + 1.0)])
    out.append(str(pad.dequeue_many(3).numpy().tolist()))
    work = m.queue.PriorityQueue(10, [m.string], shapes=[[]], names=["priority", "task"])
    work.enqueue_many({"priority": [3, 1, 2], "task": ["write", "read", "think"]})
    batch = work.dequeue_many(3)
    out.append(f"{batch['priority'].numpy().tolist()} {batch['task'].numpy().tolist()}")
    return out


def scripts_of_words(m):
    """Which writing system each word uses: UTF-8 decoded to code points, scripts
    looked up, the majority script of each word taken (TF's unicode guide)."""
    words = m.constant(["hello", "привет", "γειά", "你好", "مرحبا", "123", "héllo"])
    cps = m.strings.unicode_decode(words, "UTF-8")
    scripts = m.strings.unicode_script(cps.flat_values)
    per_word = m.RaggedTensor.from_row_splits(scripts, cps.row_splits)
    out = [str(per_word.to_list())]
    majority = [int(np.bincount(np.asarray(w) + 1).argmax()) - 1 for w in per_word.to_list()]
    out.append(str(majority))
    return out


def poisson_solve(m):
    """A 1-D Poisson system solved by preconditioned CG inside a tf.function."""
    n = 12
    a = (np.diag(np.full(n, 2.0)) - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)
         + np.diag(np.linspace(0.1, 1.0, n)))
    op = m.linalg.LinearOperatorFullMatrix(a, is_self_adjoint=True, is_positive_definite=True)
    pre = m.linalg.LinearOperatorDiag(1.0 / np.diag(a), is_self_adjoint=True,
                                      is_positive_definite=True)

    @m.function
    def solve(b):
        return m.linalg.experimental.conjugate_gradient(op, b, preconditioner=pre, tol=1e-10,
                                                        max_iter=40)

    state = solve(m.constant(np.sin(np.linspace(0, 3, n))))
    return [f"{int(state.i)} {np.array2string(state.x.numpy(), precision=6)}",
            str(float(m.norm(state.r)) < 1e-8)]


def compiled_step(m):
    """A dense step compiled with tf.xla.experimental.compile, run in an async scope
    and under a function executor type, as TF 2.4's XLA and eager guides do."""
    w = m.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))

    def step(x):
        h = m.nn.relu(m.matmul(x, w))
        return h, m.reduce_sum(h)

    out = []
    with m.experimental.async_scope():
        h, total = m.xla.experimental.compile(step, [m.ones([2, 3])])
    out.append(f"{np.array2string(h.numpy(), precision=5)} {float(total):.5f}")
    with m.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
        out.append(f"{float(m.function(lambda x: step(x)[1])(m.ones([2, 3]) * 2)):.5f}")
    try:
        with m.xla.experimental.jit_scope():
            pass
    except RuntimeError as e:
        out.append(str(e))
    return out


def exported_graph(m):
    """A traced function's graph written with tf.io.write_graph as text and binary,
    read back, its ops listed (TF's guide to inspecting graphs)."""
    import tempfile

    @m.function
    def model(x):
        return m.nn.softmax(m.matmul(x, m.ones([3, 2])) - 1.0)

    graph = model.get_concrete_function(m.TensorSpec([None, 3], m.float32)).graph
    d = tempfile.mkdtemp()
    text = m.io.write_graph(graph, os.path.join(d, "logs"), "model.pbtxt")
    binary = m.io.write_graph(graph.as_graph_def(), os.path.join(d, "logs"), "model.pb",
                              as_text=False)
    ops = sorted({line.split('"')[1] for line in open(text) if line.strip().startswith("op:")})
    return [os.path.relpath(text, d), os.path.relpath(binary, d), str(ops),
            str(os.path.getsize(binary) > 0)]


def mixed_precision_rewrite(m):
    """TF 2.4's mixed precision guide, graph-rewrite flavour, on CPU: the optimizer is
    wrapped for loss scaling and the model trains as in float32. Real TF 2.21 lacks the
    TF 2.4 endpoint for Keras optimizers, so its side wraps the optimizer as 2.4 did."""
    model = m.keras.Sequential([m.keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                m.keras.layers.Dense(1)])
    model.set_weights([np.full((3, 4), 0.1, np.float32), np.zeros(4, np.float32),
                       np.linspace(-1, 1, 4, dtype=np.float32).reshape(4, 1),
                       np.zeros(1, np.float32)])
    if hasattr(m.train.experimental, "enable_mixed_precision_graph_rewrite"):
        opt = m.train.experimental.enable_mixed_precision_graph_rewrite(
            m.keras.optimizers.SGD(0.1))
    else:
        opt = m.keras.mixed_precision.LossScaleOptimizer(m.keras.optimizers.SGD(0.1))
    model.compile(optimizer=opt, loss="mse")
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
    hist = model.fit(x, x[:, :1] * 2, batch_size=4, epochs=4, shuffle=False, verbose=0)
    if hasattr(m.train.experimental, "disable_mixed_precision_graph_rewrite"):
        m.train.experimental.disable_mixed_precision_graph_rewrite()
    return [" ".join(f"{v:.5f}" for v in hist.history["loss"]),
            str(type(opt).__name__.startswith("LossScaleOptimizer")),
            f"{float(opt.loss_scale):.1f}"]


def custom_op_gradients(m):
    """A library author's registrations: a gradient for a new op type, a
    non-differentiable op, and the errors TF gives for clashes."""
    import uuid

    suffix = uuid.uuid4().hex[:6]
    out = []

    @m.RegisterGradient(f"SquarePlus{suffix}")
    def _grad(op, grad):
        return grad * 2.0

    out.append(_grad.__name__)
    m.no_gradient(f"IndexLookup{suffix}")
    for op_type in (f"IndexLookup{suffix}", "Relu", "MatMul"):
        try:
            m.no_gradient(op_type)
        except KeyError as e:
            out.append(str(e).split(" (Previous")[0].replace(suffix, ""))
    try:
        m.RegisterGradient(None)
    except TypeError as e:
        out.append(str(e))
    return out


@pytest.mark.parametrize("program", [tag_overlap, tone_files, producer_consumer,
                                     scripts_of_words, poisson_solve, compiled_step,
                                     exported_graph, mixed_precision_rewrite,
                                     custom_op_gradients])
def test_program_prints_what_tf_prints(program):
    want = program(real_tf())
    got = program(torchflow)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == w
    assert np.all([isinstance(line, str) for line in got])
