"""The per-step caches of the training loop follow every change of the model.

``fit`` caches a model's flattened layers, its trainable weights, the Functional
call plan, the last input shape that passed ``input_spec`` and the optimizer's
slot lists. Each test changes the model (or the variables) after a first
training step and checks what the next step trains against NumPy.
"""

import copy

import numpy as np
import pytest

import torchflow as tf

L = tf.keras.layers


def _data(n=32, d=4, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    y = rng.standard_normal((n, 1)).astype(np.float32)
    return x, y


def _sgd_model(model, lr=0.1):
    model.compile(optimizer=tf.keras.optimizers.SGD(lr), loss="mse")
    return model


def _snapshot(layer):
    return [w.numpy().copy() for w in layer.weights]


def _changed(before, layer):
    return [not np.array_equal(b, w.numpy()) for b, w in zip(before, layer.weights)]


def test_trainable_flag_flipped_after_a_step_takes_effect_at_compile():
    # As tf.keras (checked against it): fit's traced step keeps the weights it was
    # traced with until compile() is called again.
    x, y = _data()
    d1, d2 = L.Dense(3, input_shape=(4,)), L.Dense(1)
    model = _sgd_model(tf.keras.Sequential([d1, d2]))
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert len(model.trainable_weights) == 4
    d1.trainable = False
    assert len(model.trainable_weights) == 2
    b1 = _snapshot(d1)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert _changed(b1, d1) == [True, True]
    _sgd_model(model)
    b1, b2 = _snapshot(d1), _snapshot(d2)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert _changed(b1, d1) == [False, False]
    assert _changed(b2, d2) == [True, True]
    d1.trainable = True
    _sgd_model(model)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert _changed(b1, d1) == [True, True]


class _Gated(tf.keras.Model):
    """Uses ``self.extra`` once it is set (a layer added after training started)."""

    def __init__(self):
        super().__init__()
        self.first = L.Dense(1, kernel_initializer="ones")
        self.extra = None

    def call(self, x):
        y = self.first(x)
        return y if self.extra is None else self.extra(y)


class _Scale(L.Layer):
    def build(self, input_shape):
        self.s = self.add_weight("s", (), initializer="ones")

    def call(self, x):
        return x * self.s


def test_layer_added_after_a_step_is_trained_after_compile():
    # As in tf.keras (checked with TF 2.21): the traced step replays, so a layer
    # set after training started is not called (its weights are not built) until
    # compile() makes new step functions; then it trains.
    x, y = _data()
    model = _sgd_model(_Gated())
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert len(model.trainable_weights) == 2
    model.extra = _Scale()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert not model.extra.built
    _sgd_model(model)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert len(model.trainable_weights) == 3
    s = model.extra.s.numpy()
    # one SGD step on s by hand: loss = mean((s * f(x) - y)^2)
    f = model.first(x).numpy()
    before = float(model.extra.s.numpy())
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    grad = np.mean(2.0 * (before * f - y) * f)
    np.testing.assert_allclose(model.extra.s.numpy(), before - 0.1 * grad, rtol=1e-5)
    assert s != 1.0


def test_weight_added_to_a_built_layer_is_trained():
    x, y = _data()
    layer = _Scale()
    model = _sgd_model(tf.keras.Sequential([L.Dense(1, input_shape=(4,)), layer]))
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    extra = layer.add_weight("t", (), initializer="zeros")
    assert any(w is extra for w in model.trainable_weights)
    frozen = layer.add_weight("u", (), initializer="zeros", trainable=False)
    assert not any(w is frozen for w in model.trainable_weights)
    assert any(w is frozen for w in model.non_trainable_weights)


def test_sequential_add_and_pop_after_a_step():
    x, y = _data()
    model = _sgd_model(tf.keras.Sequential([L.Dense(2, input_shape=(4,))]))
    model.fit(x, np.zeros((32, 2), np.float32), batch_size=8, epochs=1, verbose=0)
    top = L.Dense(1)
    model.add(top)
    _sgd_model(model)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert len(model.trainable_weights) == 4
    assert any(w is top.kernel for w in model.trainable_weights)
    model.pop()
    assert len(model.trainable_weights) == 2
    flat = model._flatten_layers()
    # as tf.keras: the stack's InputLayer (made from input_shape) is tracked first
    assert len(flat) == 3 and flat[0] is model and flat[2] is model.layers[0]
    assert isinstance(flat[1], L.InputLayer)


def test_loss_added_by_a_new_layer_after_a_step_counts():
    class AddsLoss(L.Layer):
        def call(self, x):
            self.add_loss(100.0 * tf.reduce_mean(x * 0.0 + 1.0))
            return x

    x, y = _data()
    model = _sgd_model(tf.keras.Sequential([L.Dense(1, input_shape=(4,))]), lr=0.0)
    base = model.evaluate(x, y, verbose=0)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    model.add(AddsLoss())
    _sgd_model(model, lr=0.0)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(base + 100.0, rel=1e-5)
    assert len(model.losses) == 1


def test_copied_layer_lists_itself():
    d = L.Dense(2)
    d(np.zeros((1, 3), np.float32))
    assert d._flatten_layers()[0] is d
    c = copy.copy(d)
    assert c._flatten_layers()[0] is c


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("kind", ["sequential", "functional"])
def test_model_copied_after_a_call_predicts_like_the_original(how, kind):
    """A model called once (its call plan cached) and then deep-copied or pickled, as a
    model sent to a parameter-server worker is, computes what NumPy computes."""
    import pickle
    if kind == "sequential":
        model = tf.keras.Sequential([L.Dense(3, activation="relu", input_shape=(4,)),
                                     L.Dense(1)])
    else:
        inp = tf.keras.Input((4,))
        model = tf.keras.Model(inp, L.Dense(1)(L.Dense(3, activation="relu")(inp)))
    x, _ = _data(n=6)
    model(x)
    clone = copy.deepcopy(model) if how == "deepcopy" else pickle.loads(pickle.dumps(model))
    k1, b1, k2, b2 = [w.numpy() for w in model.weights]
    expected = np.maximum(x @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(clone(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(clone(x[:2]).numpy(), expected[:2], rtol=1e-5, atol=1e-6)


def test_input_spec_still_checked_after_a_passing_call():
    d = L.Dense(2)
    d(np.zeros((3, 4), np.float32))
    d(np.zeros((5, 4), np.float32))
    with pytest.raises(ValueError, match="incompatible"):
        d(np.zeros((3, 5), np.float32))
    d.input_spec = tf.keras.layers.InputSpec(ndim=3)
    with pytest.raises(ValueError, match="ndim"):
        d(np.zeros((3, 4), np.float32))


def test_adam_slots_follow_changing_variable_lists():
    """Slots are looked up per variable even when the list changes between steps."""
    opt = tf.keras.optimizers.Adam(0.1)
    v1, v2 = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
    g1, g2 = tf.constant([0.5, -1.0]), tf.constant([2.0])
    # NumPy Adam (TF's form); the step count t is the optimizer's, shared by all
    ref = {id(v1): [np.array([1.0, 2.0]), np.zeros(2), np.zeros(2)],
           id(v2): [np.array([3.0]), np.zeros(1), np.zeros(1)]}
    steps = [[(g1, v1)], [(g2, v2)], [(g1, v1), (g2, v2)], [(g2, v2), (g1, v1)]]
    for t, pairs in enumerate(steps, start=1):
        opt.apply_gradients(pairs)
        lr_t = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        for g, v in pairs:
            p, m, vv = ref[id(v)]
            g = g.numpy()
            m = 0.9 * m + 0.1 * g
            vv = 0.999 * vv + 0.001 * g * g
            ref[id(v)] = [p - lr_t * m / (np.sqrt(vv) + 1e-7), m, vv]
        np.testing.assert_allclose(v1.numpy(), ref[id(v1)][0], rtol=1e-5)
        np.testing.assert_allclose(v2.numpy(), ref[id(v2)][0], rtol=1e-5)
        for _, v in pairs:
            np.testing.assert_allclose(opt.get_slot(v, "m").numpy(), ref[id(v)][1], rtol=1e-5)
            np.testing.assert_allclose(opt.get_slot(v, "v").numpy(), ref[id(v)][2], rtol=1e-4)
    assert int(opt.iterations.numpy()) == 4


def test_loss_metric_averages_over_samples_with_a_short_last_batch():
    x, y = _data(n=10)
    model = _sgd_model(tf.keras.Sequential([L.Dense(1, input_shape=(4,))]))
    pred = model.predict(x)
    expected = float(np.mean((pred - y) ** 2))
    # batches of 4, 4 and 2 samples: per-batch means weighted by batch size
    assert model.evaluate(x, y, batch_size=4, verbose=0) == pytest.approx(expected, rel=1e-5)


def test_iterations_of_another_integer_dtype_still_counts():
    opt = tf.keras.optimizers.SGD(0.1)
    opt.iterations = tf.Variable(0, dtype=tf.int32)
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(1.0), v)])
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert int(opt.iterations.numpy()) == 2
    assert opt.iterations.dtype == tf.int32


def _batch_logs(spe, train_step=None, optimizer=None):
    x, y = _data(n=40)
    cls = tf.keras.Sequential
    if train_step is not None:
        cls = type("Counting", (tf.keras.Sequential,), {"train_step": train_step})
    model = cls([L.Dense(1, input_shape=(4,), kernel_initializer="ones")])
    model.compile(optimizer=optimizer() if optimizer else tf.keras.optimizers.SGD(0.05),
                  loss="mse", metrics=["mae"], steps_per_execution=spe)
    seen = {}
    cb = tf.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.__setitem__(batch, dict(logs)))
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False, callbacks=[cb])
    return seen, model


def test_steps_per_execution_groups_report_the_same_running_metrics():
    """With N steps per execution every step still trains and updates the metrics;
    the batch logs of a group are those of its last step with N=1."""
    one, m1 = _batch_logs(1)
    four, m4 = _batch_logs(4)
    assert sorted(four) == [3, 7, 9]  # 10 batches in groups of 4 (the last has 2)
    for b in four:
        for k in ("loss", "mae"):
            assert four[b][k] == pytest.approx(one[b][k], rel=1e-6)
    np.testing.assert_allclose(m4.get_weights()[0], m1.get_weights()[0], rtol=1e-6)
    assert int(m4.optimizer.iterations.numpy()) == 10


def test_overridden_train_step_runs_every_batch_of_a_group_and_its_python_at_trace(capsys):
    """A group of N steps is one traced call: the custom train_step's Python runs at
    traces only, its ops (tf.print, the update) on every batch."""
    calls = []

    def train_step(self, data):
        calls.append(1)
        tf.print("a step")
        return tf.keras.Sequential.train_step(self, data)

    grouped, model = _batch_logs(4, train_step)
    assert capsys.readouterr().err.count("a step") == 10
    assert int(model.optimizer.iterations.numpy()) == 10
    # The single step traces twice (its first trace creates variables; tf.keras 2.21
    # calls it twice with N=1 too); the group function's traces replay the traced
    # step inside, so they run no Python of it, nor do replayed groups.
    assert len(calls) == 2
    calls.clear()
    single, model1 = _batch_logs(1, train_step)
    assert capsys.readouterr().err.count("a step") == 10
    assert len(calls) == 2
    assert sorted(grouped) == [3, 7, 9]
    for b in grouped:
        assert grouped[b] == pytest.approx(single[b], rel=1e-6)
    np.testing.assert_allclose(model.get_weights()[0], model1.get_weights()[0], rtol=1e-6)


@pytest.mark.parametrize("optimizer", [
    lambda: tf.keras.optimizers.Adam(0.05),
    lambda: tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.ExponentialDecay(
        0.05, decay_steps=2, decay_rate=0.5)),
    lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9, decay=0.3),
], ids=["adam", "adam-schedule", "sgd-decay"])
def test_grouped_steps_use_each_steps_count_and_hyperparameters(optimizer):
    """A group reads the optimizer's scalars once and counts its steps on the host:
    Adam's bias correction, schedules and ``decay`` still see every step's count."""
    _, m1 = _batch_logs(1, optimizer=optimizer)
    _, m4 = _batch_logs(4, optimizer=optimizer)
    for a, b in zip(m4.get_weights(), m1.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert int(m4.optimizer.iterations.numpy()) == 10


def test_learning_rate_set_between_groups_is_used():
    x, y = _data(n=16)

    def run(spe):
        model = tf.keras.Sequential([L.Dense(1, input_shape=(4,), kernel_initializer="ones")])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse",
                      steps_per_execution=spe)
        cb = tf.keras.callbacks.LambdaCallback(
            on_train_batch_end=lambda b, logs: model.optimizer.learning_rate.assign(0.0))
        model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False, callbacks=[cb])
        return model.get_weights()[0]

    # with groups of 2, the first group trains twice at 0.05, then nothing moves
    x2 = x[:8]
    ref = tf.keras.Sequential([L.Dense(1, input_shape=(4,), kernel_initializer="ones")])
    ref.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    ref.fit(x2, y[:8], batch_size=4, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose(run(2), ref.get_weights()[0], rtol=1e-6)


def _progbar_run(monkeypatch, extra_callbacks, spe=1):
    import contextlib
    import io
    import re

    from torchflow._src.keras.utils import progbar

    # redraw at every batch, so that every batch's values are printed
    monkeypatch.setattr(progbar.Progbar.__init__, "__defaults__", (30, 1, 0.0, None, "step"))
    x, y = _data(n=48)
    model = tf.keras.Sequential([L.Dense(1, input_shape=(4,), kernel_initializer="ones")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"],
                  steps_per_execution=spe)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        hist = model.fit(x, y, batch_size=4, epochs=2, verbose=1, shuffle=False,
                         callbacks=extra_callbacks)
    rows = re.findall(r"(\d+)/12 \[[=>.]*\].*? - loss: ([\d.]+) - mae: ([\d.]+)",
                      out.getvalue())
    return rows, hist.history


@pytest.mark.parametrize("spe", [1, 5])
def test_progress_bar_shows_the_same_values_when_it_reads_the_metrics_lazily(monkeypatch, spe):
    """With the progress bar as the only batch-log reader, fit reads the metrics only
    when the bar redraws; every redraw shows what eager logs would have shown."""
    lazy_rows, lazy_hist = _progbar_run(monkeypatch, [], spe)
    reader = tf.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: None)
    eager_rows, eager_hist = _progbar_run(monkeypatch, [reader], spe)
    per_epoch = 12 // spe + (12 % spe > 0) + 1  # one line per group, then the final one
    assert len(lazy_rows) == 2 * per_epoch
    assert lazy_rows == eager_rows
    assert lazy_hist == eager_hist


def test_evaluate_reads_metrics_lazily_with_the_same_results(capsys):
    x, y = _data(n=30)
    model = tf.keras.Sequential([L.Dense(1, input_shape=(4,))])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    pred = model.predict(x)
    want = [float(np.mean((pred - y) ** 2)), float(np.mean(np.abs(pred - y)))]
    seen = []
    reader = tf.keras.callbacks.LambdaCallback(
        on_test_batch_end=lambda b, logs: seen.append(dict(logs)))
    for kwargs in ({"verbose": 1}, {"verbose": 0}, {"verbose": 1, "callbacks": [reader]}):
        got = model.evaluate(x, y, batch_size=8, **kwargs)
        np.testing.assert_allclose(got, want, rtol=1e-5)
    assert "loss:" in capsys.readouterr().out
    # the reader saw running values: the last batch's are the final ones
    assert len(seen) == 4
    np.testing.assert_allclose([seen[-1]["loss"], seen[-1]["mae"]], want, rtol=1e-5)


@pytest.mark.parametrize("optimizer", [
    lambda: tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.ExponentialDecay(
        0.05, decay_steps=2, decay_rate=0.5)),
    lambda: tf.keras.optimizers.SGD(0.05, decay=0.3),
], ids=["adam-schedule", "sgd-decay"])
def test_quiet_epochs_train_like_epochs_with_batch_callbacks(optimizer):
    """verbose=0 with no batch hooks reads the optimizer's scalars once per epoch; a
    learning rate set at an epoch's start still applies to that epoch."""
    x, y = _data(n=24)

    def run(batch_hook):
        model = tf.keras.Sequential([L.Dense(1, input_shape=(4,), kernel_initializer="ones")])
        model.compile(optimizer=optimizer(), loss="mse")

        def set_lr(epoch, logs):  # assigned to the variable directly, as users do
            lr = model.optimizer.learning_rate
            if hasattr(lr, "assign"):
                lr.assign(0.05 / (epoch + 1))

        cbs = [tf.keras.callbacks.LambdaCallback(on_epoch_begin=set_lr)]
        if batch_hook:  # makes fit feed batch hooks (step by step, nothing read ahead)
            cbs.append(tf.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, l: None))
        model.fit(x, y, batch_size=4, epochs=3, verbose=0, shuffle=False, callbacks=cbs)
        return model

    quiet, ref = run(False), run(True)
    for a, b in zip(quiet.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert int(quiet.optimizer.iterations.numpy()) == 18


@pytest.mark.parametrize("optimizer", [
    lambda: tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.ExponentialDecay(
        0.05, decay_steps=2, decay_rate=0.5)),
    lambda: tf.keras.optimizers.SGD(0.05, decay=0.3),
], ids=["adam-schedule", "sgd-decay"])
@pytest.mark.parametrize("spe", [1, 3])
def test_progress_bar_epochs_train_like_epochs_with_batch_callbacks(optimizer, spe):
    """With the progress bar as the only batch-log reader the optimizer's scalars are
    read once per epoch; every step still sees its own count, and a learning rate
    set by an epoch hook applies to that epoch."""
    import contextlib
    import io

    x, y = _data(n=24)

    def run(batch_hook):
        model = tf.keras.Sequential([L.Dense(1, input_shape=(4,), kernel_initializer="ones")])
        model.compile(optimizer=optimizer(), loss="mse", steps_per_execution=spe)

        def set_lr(epoch, logs):
            lr = model.optimizer.learning_rate
            if hasattr(lr, "assign"):
                lr.assign(0.05 / (epoch + 1))

        cbs = [tf.keras.callbacks.LambdaCallback(on_epoch_begin=set_lr)]
        if batch_hook:
            cbs.append(tf.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, l: None))
        with contextlib.redirect_stdout(io.StringIO()):
            hist = model.fit(x, y, batch_size=4, epochs=3, verbose=1, shuffle=False,
                             callbacks=cbs)
        return model, hist.history

    (bar, bar_hist), (ref, ref_hist) = run(False), run(True)
    for a, b in zip(bar.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(bar_hist["loss"], ref_hist["loss"], rtol=1e-6)
    assert int(bar.optimizer.iterations.numpy()) == 18


def test_groups_longer_than_one_traced_call_train_and_predict_as_single_steps(monkeypatch):
    """A group longer than the most steps one traced call holds runs as consecutive
    traced calls: the same training, hooks and predictions as steps of one."""
    from torchflow._src.keras.engine import step_groups

    monkeypatch.setattr(step_groups, "MAX_TRACED_STEPS", 3)
    one, m1 = _batch_logs(1)
    eight, m8 = _batch_logs(8)  # 10 batches: a group of 8 (3 + 3 + 2 per call), then 2
    assert sorted(eight) == [7, 9]
    for b in eight:
        assert eight[b] == pytest.approx(one[b], rel=1e-6)
    np.testing.assert_allclose(m8.get_weights()[0], m1.get_weights()[0], rtol=1e-6)
    x, _ = _data(n=40)
    for _ in range(2):  # the first call's group runs single steps, the second's is traced
        np.testing.assert_allclose(m8.predict(x, batch_size=4), m1.predict(x, batch_size=4),
                                   rtol=1e-6)


def test_grouped_steps_train_batch_normalization_as_eager_steps():
    """Groups replayed as one call keep every step's whole backward pass (the
    variance's rsqrt in BatchNormalization has its own gradient function) and its
    moving statistics; the reference runs each step's Python eagerly."""
    x, y = _data(n=36)

    def run(spe, run_eagerly=False):
        model = tf.keras.Sequential([
            L.Dense(6, input_shape=(4,), kernel_initializer="glorot_uniform"),
            L.BatchNormalization(), L.ReLU(), L.Dense(1)])
        model.set_weights([np.linspace(-1, 1, 24, dtype="float32").reshape(4, 6),
                           np.zeros(6, "float32"), np.ones(6, "float32"),
                           np.zeros(6, "float32"), np.zeros(6, "float32"),
                           np.ones(6, "float32"), np.full((6, 1), 0.3, "float32"),
                           np.zeros(1, "float32")])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse",
                      steps_per_execution=spe, run_eagerly=run_eagerly)
        hist = model.fit(x, y, batch_size=4, epochs=3, verbose=0, shuffle=False)
        return hist.history["loss"], model.get_weights()

    ref_loss, ref_weights = run(1, run_eagerly=True)
    for spe in (1, 2, 4):
        loss, weights = run(spe)
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-6)
        for a, b in zip(weights, ref_weights):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
