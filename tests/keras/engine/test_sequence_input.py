"""``fit``/``evaluate``/``predict`` on a ``tf.keras.utils.Sequence``, against real
tf.keras 2.21 (Keras 2): which batches are read, in which order, when
``on_epoch_end`` runs, and the trained values; ``shuffle`` (Python's ``random``, as
TF) and ``workers``/``use_multiprocessing``/``max_queue_size``."""

import random
import threading

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _program(mod, shuffle=False, workers=1, use_multiprocessing=False):
    k = mod.keras
    log = []

    class Batches(k.utils.Sequence):
        def __init__(self, name, n, labeled=True):
            self.name, self.n, self.labeled = name, n, labeled

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            log.append((self.name, "get", i))
            x = np.full((2, 3), i, "float32") + np.arange(3, dtype="float32")
            return (x, np.full((2, 1), i, "float32")) if self.labeled else x

        def on_epoch_end(self):
            log.append((self.name, "epoch_end"))

    model = k.Sequential([k.layers.Dense(1, input_shape=(3,), kernel_initializer="ones")])
    model.compile(k.optimizers.SGD(0.01), "mse")
    random.seed(0)
    kw = dict(workers=workers, use_multiprocessing=use_multiprocessing, max_queue_size=4)
    h = model.fit(Batches("train", 5), epochs=2, verbose=0, validation_data=Batches("val", 3),
                  shuffle=shuffle, **kw)
    log.append("evaluate")
    loss = model.evaluate(Batches("eval", 3), verbose=0, **kw)
    log.append("predict")
    pred = model.predict(Batches("predict", 3, labeled=False), **kw)
    return log, h.history, loss, pred


@pytest.mark.parametrize("shuffle", [False, True])
def test_sequence_reads_and_epoch_ends_match_tf(shuffle):
    log, hist, loss, pred = _program(tf, shuffle=shuffle)
    r_log, r_hist, r_loss, r_pred = _program(real_tf(), shuffle=shuffle)
    # TF reads batch 0 once more when it takes each Sequence (to learn its
    # structure), and calls on_epoch_end after every pass, validation included.
    assert log == r_log
    for key in r_hist:
        np.testing.assert_allclose(hist[key], r_hist[key], rtol=1e-5)
    np.testing.assert_allclose(loss, r_loss, rtol=1e-5)
    np.testing.assert_allclose(pred, r_pred, rtol=1e-5)


@pytest.mark.parametrize("use_multiprocessing", [False, True])
def test_workers_give_tf_results(use_multiprocessing):
    log, hist, loss, pred = _program(tf, workers=3, use_multiprocessing=use_multiprocessing)
    _, r_hist, r_loss, r_pred = _program(real_tf(), workers=3)
    for key in r_hist:
        np.testing.assert_allclose(hist[key], r_hist[key], rtol=1e-5)
    np.testing.assert_allclose(loss, r_loss, rtol=1e-5)
    np.testing.assert_allclose(pred, r_pred, rtol=1e-5)
    # Differences from TF 2.4: TF's enqueuer reads ahead into the next epoch (extra
    # reads and on_epoch_end calls from its thread); torchflow's workers read each
    # batch once per epoch, and on_epoch_end runs once per pass.
    train = [e for e in log if e[0] == "train"]
    assert sorted(train) == sorted([("train", "get", 0)] + [("train", "get", i) for i in
                                                            range(5)] * 2
                                   + [("train", "epoch_end")] * 2)


def test_workers_read_on_other_threads_in_order():
    main = threading.get_ident()
    threads = set()

    class Batches(tf.keras.utils.Sequence):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            threads.add(threading.get_ident())
            return np.full((1, 2), i, "float32")

    model = tf.keras.Sequential([tf.keras.layers.Lambda(lambda x: x * 1.0, input_shape=(2,))])
    out = model.predict(Batches(), workers=4, max_queue_size=2)
    np.testing.assert_array_equal(out[:, 0], np.arange(8))  # order kept
    assert threads - {main}


def test_worker_error_reaches_fit():
    class Broken(tf.keras.utils.Sequence):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise KeyError("batch 2 is missing")
            return np.ones((2, 3), "float32"), np.ones((2, 1), "float32")

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    with pytest.raises(KeyError, match="batch 2 is missing"):
        model.fit(Broken(), workers=2, verbose=0, shuffle=False)


def test_sequence_rejects_y_and_sample_weight_as_tf():
    class One(tf.keras.utils.Sequence):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            return np.ones((2, 3), "float32"), np.ones((2, 1), "float32")

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="`y` argument is not supported when using "
                                         "`keras.utils.Sequence` as input."):
        model.fit(One(), np.ones((2, 1)), verbose=0)
    with pytest.raises(ValueError, match="`sample_weight` argument is not supported"):
        model.fit(One(), sample_weight=np.ones(2), verbose=0)


def test_sequence_base_class():
    seq = tf.keras.utils.Sequence()
    with pytest.raises(NotImplementedError):
        len(seq)
    with pytest.raises(NotImplementedError):
        seq[0]
    assert seq.on_epoch_end() is None

    class Three(tf.keras.utils.Sequence):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i * 10

    assert list(Three()) == [0, 10, 20]


def test_ordered_enqueuer_alone():
    class Three(tf.keras.utils.Sequence):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return i

    enq = tf.keras.utils.OrderedEnqueuer(Three())
    enq.start(workers=3, max_queue_size=2)
    assert enq.is_running()
    assert list(enq.get()) == list(range(6))
    enq.stop()
    assert not enq.is_running()
    gen = tf.keras.utils.GeneratorEnqueuer(iter(range(4)))
    gen.start(workers=1, max_queue_size=1)
    assert list(gen.get()) == [0, 1, 2, 3]
    gen.stop()
