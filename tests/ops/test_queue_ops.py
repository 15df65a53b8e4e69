"""tf.queue against real TensorFlow: each scenario runs the same queue program with
``tf`` = real TF and ``tf`` = torchflow and compares every result (values, dtypes,
shapes) and every error (type and message; a queue's resource id, a process-wide
counter in both, is masked). Thread scenarios check the blocking semantics: who
waits, who is woken by what, and with which error.

Where TF 2.21's Python wording differs from TF 2.4's (data_flow_ops.py of 2.4),
the 2.4 text is expected: the dictionary-keys and names-length messages, and an
eager queue's ``name`` (2.4: the name scope, "" at top level; 2.21: "Empty")."""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _canon(x):
    if hasattr(x, "queue_ref"):
        return type(x).__name__
    if hasattr(x, "as_numpy_dtype"):
        return x.name
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, dict):
        return {k: _canon(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    a = x.numpy()
    return (np.asarray(a).tolist(), x.dtype.name, x.shape.as_list())


def _msg(e: Exception) -> str:
    m = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", str(e))
    m = re.sub(r" name: \S*$", "", m)
    return re.sub(r"'\d+'", "'<id>'", m)


def _tf24(msg: str) -> str:
    """TF 2.4's wording of the Python-level messages TF 2.21 reworded."""
    msg = re.sub(r"^((List of names|Queue (names|shapes)) must have the same length as .*dtypes)"
                 r",\s?received.*", r"\1", msg)
    return re.sub(r"Dictionary: (\[.*\]),Queue: (\[.*\])$", r"Dictionary: (\1), Queue: (\2)",
                  msg)


def _step(out: list, fn) -> None:
    try:
        out.append(("ok", _canon(fn())))
    except Exception as e:  # noqa: BLE001 - both sides' errors are compared
        out.append(("err", type(e).__name__, _msg(e)))


def fifo_basics(tf):
    out = []
    q = tf.queue.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]])
    _step(out, lambda: (q.dtypes, [s.as_list() for s in q.shapes], q.names))
    _step(out, lambda: q.enqueue((1, [1.0, 2.0])))
    _step(out, lambda: q.enqueue_many(([2, 3], [[3.0, 4.0], [5.0, 6.0]])))
    _step(out, lambda: (q.size(), q.is_closed()))
    _step(out, q.dequeue)
    _step(out, lambda: q.dequeue_many(2))
    _step(out, lambda: q.dequeue_many(0))
    _step(out, lambda: q.dequeue_up_to(0))
    _step(out, lambda: q.dequeue_many(-1))
    _step(out, lambda: q.enqueue((1, [1.0])))
    _step(out, lambda: q.enqueue((1.5, [1.0, 2.0])))
    _step(out, lambda: q.enqueue((1,)))
    _step(out, lambda: q.enqueue((1, [1.0, 2.0], 7)))
    _step(out, lambda: q.enqueue_many(([1, 2], [[1.0, 2.0]])))
    _step(out, lambda: q.enqueue_many((1, [1.0, 2.0])))
    _step(out, lambda: q.enqueue_many(([4], [[1, 2]])))
    _step(out, lambda: q.enqueue(None))
    _step(out, lambda: q.enqueue({"a": 1}))
    _step(out, lambda: q.close())
    _step(out, lambda: (q.is_closed(), q.size()))
    _step(out, lambda: q.enqueue((1, [1.0, 2.0])))
    _step(out, lambda: q.dequeue_many(2))
    _step(out, q.size)
    _step(out, lambda: q.dequeue_up_to(5))
    _step(out, q.dequeue)
    _step(out, lambda: q.dequeue_up_to(5))
    _step(out, lambda: q.close())
    return out


def fifo_unshaped(tf):
    out = []
    q = tf.queue.FIFOQueue(5, tf.int32)
    _step(out, lambda: (q.dtypes, [s.rank for s in q.shapes]))
    _step(out, lambda: (q.enqueue(5), q.enqueue([6, 7]), q.enqueue_many([[1, 2], [3, 4]])))
    _step(out, lambda: [q.dequeue() for _ in range(4)])
    _step(out, lambda: q.dequeue_many(1))
    _step(out, lambda: q.dequeue_up_to(1))
    _step(out, lambda: q.enqueue(tf.constant(1.0)))
    _step(out, lambda: q.enqueue("x"))
    return out


def construction_errors(tf):
    out = []
    F, P = tf.queue.FIFOQueue, tf.queue.PaddingFIFOQueue
    _step(out, lambda: F(3, [tf.int32], shapes=[[], []]))
    _step(out, lambda: F(3, [tf.int32, tf.float64], shapes=[[2], [3]] + [[1]]))
    _step(out, lambda: F(3, [tf.int32], names=["a", "b"]))
    _step(out, lambda: F(3, [tf.int32], shapes=[[None]]))
    _step(out, lambda: F(3, "foo"))
    _step(out, lambda: F(3, "int32").dtypes)
    _step(out, lambda: F(3, tf.int32, shapes=[2, 3]).shapes[0].as_list())
    _step(out, lambda: F(3, tf.int32, shapes=tf.TensorShape([4])).shapes[0].as_list())
    _step(out, lambda: P(5, tf.int32, None))
    _step(out, lambda: P(5, tf.int32, shapes=[None]))
    _step(out, lambda: P(5, [tf.int32, tf.int32], shapes=[[None]]))
    _step(out, lambda: tf.queue.RandomShuffleQueue(3, 5, tf.int32))
    _step(out, lambda: tf.queue.RandomShuffleQueue(3, 3, tf.int32))
    _step(out, lambda: tf.queue.PriorityQueue(3, [tf.int32]))
    _step(out, lambda: tf.queue.PriorityQueue(3, [tf.int32], shapes=[[]], names=["v"]))
    _step(out, lambda: tf.queue.PriorityQueue(3, [tf.int32], shapes=[[]],
                                              names=["p", "v"]).names)
    q = F(3, tf.int32)
    _step(out, lambda: tf.queue.QueueBase([tf.int32], [[], []], None, q.queue_ref))
    _step(out, lambda: tf.queue.QueueBase([tf.int32], None, ["a", "b"], q.queue_ref))
    _step(out, lambda: tf.queue.QueueBase.from_list(0, [q, F(3, tf.float32)]))
    _step(out, lambda: tf.queue.QueueBase.from_list(0, []))
    _step(out, lambda: tf.queue.QueueBase.from_list(0, [q, F(3, tf.int32, names=["a"])]))
    return out


def names(tf):
    out = []
    q = tf.queue.FIFOQueue(5, [tf.int32, tf.string], shapes=[[], []], names=["a", "b"])
    _step(out, lambda: q.names)
    _step(out, lambda: q.enqueue({"a": 1, "b": "x"}))
    _step(out, q.dequeue)
    _step(out, lambda: q.enqueue([1, "x"]))
    _step(out, lambda: q.enqueue({"a": 1}))
    _step(out, lambda: q.enqueue_many({"b": ["x", "y"], "a": [1, 2]}))
    _step(out, lambda: q.dequeue_many(2))
    return out


def padding(tf):
    out = []
    q = tf.queue.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None, 2]])
    _step(out, lambda: [s.as_list() for s in q.shapes])
    _step(out, lambda: q.enqueue(([1], [["a", "b"]])))
    _step(out, lambda: q.enqueue(([1, 2, 3], [["c", "d"], ["e", "f"]])))
    _step(out, lambda: q.dequeue_many(2))
    _step(out, lambda: q.dequeue_many(0))
    _step(out, lambda: q.enqueue(([5, 6], [["x", "y"]])))
    _step(out, q.dequeue)
    _step(out, lambda: q.enqueue(([[1]], [["a", "b"]])))
    _step(out, lambda: q.enqueue(([1], [["a", "b", "c"]])))
    _step(out, lambda: q.enqueue_many(([[1, 2], [3, 4]], [[["a", "b"]], [["c", "d"]]])))
    _step(out, lambda: q.enqueue(([9], [["q", "r"]])))
    _step(out, lambda: q.close())
    _step(out, lambda: q.dequeue_many(4))
    _step(out, lambda: q.dequeue_up_to(4))
    _step(out, lambda: q.dequeue_up_to(4))
    f = tf.queue.PaddingFIFOQueue(3, tf.float32, shapes=[[None, None]])
    _step(out, lambda: (f.enqueue(tf.ones([1, 3])), f.enqueue(tf.ones([2, 1])),
                        f.dequeue_many(2)))
    return out


def priority(tf):
    out = []
    q = tf.queue.PriorityQueue(5, [tf.string], shapes=[[]])
    _step(out, lambda: (q.dtypes, [s.as_list() for s in q.shapes], q.names))
    _step(out, lambda: q.enqueue((5, "five")))
    _step(out, lambda: q.enqueue((tf.constant(1, tf.int64), "one")))
    _step(out, lambda: q.enqueue_many(([3, -2], ["three", "minus"])))
    _step(out, q.dequeue)
    _step(out, lambda: q.dequeue_many(3))
    _step(out, lambda: q.enqueue((tf.constant(1), "x")))
    _step(out, lambda: q.enqueue(("x", "y")))
    _step(out, lambda: q.enqueue_many(([1, 2, 3], ["a", "b", "c"])))
    _step(out, lambda: q.close())
    _step(out, lambda: q.dequeue_many(4))
    # TF's PriorityQueue drops the rest of a closed queue when dequeue_up_to cannot
    # fill its batch, and reports a request of 1.
    _step(out, lambda: q.dequeue_up_to(4))
    _step(out, q.dequeue)
    _step(out, lambda: q.dequeue_up_to(4))
    return out


def random_shuffle(tf):
    out = []
    q = tf.queue.RandomShuffleQueue(10, 2, [tf.int32, tf.string], shapes=[[], [2]], seed=3)
    _step(out, lambda: q.enqueue_many((list(range(5)), [[str(i), "x"] for i in range(5)])))
    _step(out, q.size)

    def take(n):
        v, s = q.dequeue_many(n)
        pairs = sorted(zip(v.numpy().tolist(), s.numpy()[:, 0].tolist()))
        return [all(str(a).encode() == b for a, b in pairs), len(pairs), v.shape.as_list(),
                s.shape.as_list(), v.dtype.name, q.size()]
    _step(out, lambda: take(3))
    _step(out, lambda: q.close())
    _step(out, lambda: q.dequeue_many(3))
    _step(out, lambda: take(2))
    _step(out, q.dequeue)
    _step(out, lambda: q.enqueue((1, ["a", "b"])))
    u = tf.queue.RandomShuffleQueue(5, 0, tf.int32)
    _step(out, lambda: (u.enqueue([1, 2]), u.dequeue_many(1)))
    return out


def _wait_alive(th: threading.Thread) -> bool:
    time.sleep(0.3)
    return th.is_alive()


def blocking_enqueue(tf):
    out = []
    q = tf.queue.FIFOQueue(2, tf.int32, shapes=[[]])
    q.enqueue_many([[1, 2]])
    log: list = []

    def producer(vals):
        try:
            q.enqueue_many([vals])
            log.append(("done", vals))
        except Exception as e:  # noqa: BLE001 - both sides' errors are compared
            log.append((type(e).__name__, _msg(e)))

    th = threading.Thread(target=producer, args=([3, 4, 5],))
    th.start()
    out.append(_wait_alive(th))
    _step(out, q.dequeue)
    out.append(_wait_alive(th))
    _step(out, lambda: q.dequeue_many(3))
    th.join(5)
    out.append(list(log))
    _step(out, q.size)
    th = threading.Thread(target=producer, args=([6, 7, 8],))
    th.start()
    out.append(_wait_alive(th))
    _step(out, lambda: q.dequeue_many(2))
    out.append(_wait_alive(th))
    _step(out, lambda: q.dequeue_many(2))
    th.join(5)
    out.append(list(log))
    _step(out, lambda: q.close())
    _step(out, lambda: q.dequeue_up_to(3))
    th = threading.Thread(target=producer, args=([9],))
    th.start()
    th.join(5)
    out.append(list(log))
    return out


def cancel_pending(tf):
    out = []
    q = tf.queue.FIFOQueue(1, tf.int32)
    q.enqueue(1)
    log: list = []

    def producer():
        try:
            q.enqueue(2)
            log.append("done")
        except Exception as e:  # noqa: BLE001 - both sides' errors are compared
            log.append((type(e).__name__, _msg(e)))

    th = threading.Thread(target=producer)
    th.start()
    out.append(_wait_alive(th))
    _step(out, lambda: q.close(cancel_pending_enqueues=True))
    th.join(5)
    out.append(list(log))
    _step(out, lambda: (q.size(), q.dequeue()))
    _step(out, q.dequeue)
    return out


def blocking_dequeue(tf):
    out = []
    q = tf.queue.FIFOQueue(3, tf.int32, shapes=[[]])
    log: list = []

    def consumer(n):
        try:
            log.append(("got", q.dequeue_many(n).numpy().tolist()))
        except Exception as e:  # noqa: BLE001 - both sides' errors are compared
            log.append((type(e).__name__, _msg(e)))

    # A batch larger than the capacity fills while a producer keeps up.
    th = threading.Thread(target=consumer, args=(5,))
    th.start()
    out.append(_wait_alive(th))
    for v in range(5):
        q.enqueue(v)
    th.join(5)
    out.append(list(log))
    th = threading.Thread(target=consumer, args=(2,))
    th.start()
    q.enqueue(10)
    out.append(_wait_alive(th))
    _step(out, lambda: q.close())
    th.join(5)
    out.append(list(log))
    _step(out, q.size)
    _step(out, q.dequeue)
    return out


def shuffle_min_after_dequeue(tf):
    out = []
    q = tf.queue.RandomShuffleQueue(10, 3, tf.int32, shapes=[[]], seed=5)
    q.enqueue_many([[1, 2, 3]])
    log: list = []

    def consumer():
        try:
            log.append(("got", int(q.dequeue()) in (1, 2, 3, 4)))
        except Exception as e:  # noqa: BLE001 - both sides' errors are compared
            log.append((type(e).__name__, _msg(e)))

    th = threading.Thread(target=consumer)
    th.start()
    out.append(_wait_alive(th))
    q.enqueue(4)
    th.join(5)
    out.append(list(log))
    _step(out, q.size)
    _step(out, lambda: q.close())
    _step(out, lambda: sorted(q.dequeue_up_to(10).numpy().tolist()).__len__())
    return out


SCENARIOS = [fifo_basics, fifo_unshaped, construction_errors, names, padding, priority,
             random_shuffle, blocking_enqueue, cancel_pending, blocking_dequeue,
             shuffle_min_after_dequeue]


def _normalise(steps):
    return [(s[0], s[1], _tf24(s[2])) if isinstance(s, tuple) and s[0] == "err" else s
            for s in steps]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_queue_program_matches_tf(scenario):
    want = _normalise(scenario(real_tf()))
    got = scenario(torchflow)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, (i, g, w)


def test_eager_queue_name_is_the_name_scope():
    # TF 2.4 names an eager queue after the name scope (data_flow_ops.QueueBase).
    assert torchflow.queue.FIFOQueue(2, torchflow.int32).name == ""


def test_queue_ops_run_on_every_call_of_a_function():
    q = torchflow.queue.FIFOQueue(10, torchflow.int32, shapes=[[]])

    @torchflow.function
    def push(x):
        q.enqueue(x * 2)
        return q.size()

    sizes = [int(push(torchflow.constant(i))) for i in range(4)]
    assert sizes == [1, 2, 3, 4]
    assert q.dequeue_many(4).numpy().tolist() == [0, 2, 4, 6]
