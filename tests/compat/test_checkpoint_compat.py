"""Checkpoints move both ways between real TensorFlow and torchflow.

The same Keras programs (TF_USE_LEGACY_KERAS=1: tf-keras, the Keras 2 that TF 2.4
shipped; ``optimizers.legacy.Adam`` is TF 2.4's OptimizerV2 Adam, whose slots are
``.OPTIMIZER_SLOT/optimizer/m|v``) train a few steps in one library, save, restore
in the other, and train on; losses, weights and optimizer slots are compared.
"""

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

X = np.linspace(-1.0, 1.0, 64, dtype=np.float32).reshape(16, 4)
Y = (X @ np.array([[0.5], [-1.0], [2.0], [0.25]], np.float32) + 0.1).astype(np.float32)


def _adam(lib):
    return lib.keras.optimizers.legacy.Adam(0.05) if lib is real_tf() else \
        lib.keras.optimizers.Adam(0.05)


def _model(lib, kind):
    L = lib.keras.layers
    if kind == "sequential":
        return lib.keras.Sequential([L.Dense(5, activation="tanh", input_shape=(4,)),
                                     L.Dropout(0.0), L.Dense(1)])
    if kind == "functional":
        i = lib.keras.Input((4,))
        # no bias before the batch norm: its gradient is zero up to rounding, and Adam
        # would turn that rounding into different steps in each library
        h = L.Dense(5, use_bias=False)(i)
        h = L.BatchNormalization()(h, training=True)
        return lib.keras.Model(i, L.Dense(1)(h))

    class Sub(lib.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = L.Dense(5, activation="relu")
            self.out = L.Dense(1)

        def call(self, x):
            return self.out(self.hidden(x))

    return Sub()


def _train(lib, model, opt, steps):
    losses = []
    for _ in range(steps):
        with lib.GradientTape() as tape:
            loss = lib.reduce_mean((model(X) - Y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss.numpy()))
    return losses


def _pair(kind, writer_lib, reader_lib):
    """Model and optimizer in each library, the reader's with other initial weights."""
    w_model, w_opt = _model(writer_lib, kind), _adam(writer_lib)
    _train(writer_lib, w_model, w_opt, 3)
    r_model, r_opt = _model(reader_lib, kind), _adam(reader_lib)
    r_model(X)
    return w_model, w_opt, r_model, r_opt


def _assert_same(a_model, a_opt, b_model, b_opt):
    # float32 Adam steps accumulate in a different order in each library
    for x, y in zip(a_model.get_weights(), b_model.get_weights()):
        np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-5)
    assert int(a_opt.iterations.numpy()) == int(b_opt.iterations.numpy())
    assert len(a_model.trainable_variables) == len(b_model.trainable_variables)
    for av, bv in zip(a_model.trainable_variables, b_model.trainable_variables):
        for slot in ("m", "v"):
            np.testing.assert_allclose(a_opt.get_slot(av, slot).numpy(),
                                       b_opt.get_slot(bv, slot).numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
@pytest.mark.parametrize("direction", ["tf_to_torchflow", "torchflow_to_tf"])
def test_checkpoint_weights_and_slots_then_train_identically(tmp_path, kind, direction):
    rtf = real_tf()
    writer, reader = (rtf, tf) if direction == "tf_to_torchflow" else (tf, rtf)
    w_model, w_opt, r_model, r_opt = _pair(kind, writer, reader)
    path = writer.train.Checkpoint(model=w_model, optimizer=w_opt).save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    status = reader.train.Checkpoint(model=r_model, optimizer=r_opt).restore(
        reader.train.latest_checkpoint(str(tmp_path)))
    status.assert_existing_objects_matched()
    for x, y in zip(w_model.get_weights(), r_model.get_weights()):
        np.testing.assert_allclose(x, y, rtol=0, atol=0)
    # Slots restore when the optimizer makes them (first step); training agrees after.
    w_losses = _train(writer, w_model, w_opt, 3)
    r_losses = _train(reader, r_model, r_opt, 3)
    np.testing.assert_allclose(r_losses, w_losses, rtol=1e-4, atol=1e-6)
    assert int(r_opt.iterations.numpy()) == 6  # the restored step count went on
    _assert_same(w_model, w_opt, r_model, r_opt)
    status.assert_consumed()


@pytest.mark.parametrize("direction", ["tf_to_torchflow", "torchflow_to_tf"])
def test_keras_save_weights_tf_format(tmp_path, direction):
    rtf = real_tf()
    writer, reader = (rtf, tf) if direction == "tf_to_torchflow" else (tf, rtf)
    w_model, w_opt, r_model, r_opt = _pair("sequential", writer, reader)
    w_model.save_weights(str(tmp_path / "weights"))
    assert os.path.exists(tmp_path / "weights.index")
    assert os.path.exists(tmp_path / "weights.data-00000-of-00001")
    r_model.load_weights(str(tmp_path / "weights"))
    for x, y in zip(w_model.get_weights(), r_model.get_weights()):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_allclose(r_model(X).numpy(), w_model(X).numpy(), rtol=1e-6, atol=1e-6)


def _listing(lib, path):
    r = lib.train.load_checkpoint(path)
    shapes = r.get_variable_to_shape_map()
    dtypes = {k: v.name for k, v in r.get_variable_to_dtype_map().items()}
    return shapes, dtypes, sorted(lib.train.list_variables(path))


def test_load_checkpoint_listing_equal(tmp_path):
    rtf = real_tf()
    for lib, name in ((rtf, "tf"), (tf, "ours")):
        model, opt = _model(lib, "functional"), _adam(lib)
        _train(lib, model, opt, 1)
        lib.train.Checkpoint(model=model, optimizer=opt).write(str(tmp_path / name))
    for path in (str(tmp_path / "tf"), str(tmp_path / "ours")):
        assert _listing(tf, path) == _listing(rtf, path)
    theirs, ours = _listing(rtf, str(tmp_path / "tf")), _listing(rtf, str(tmp_path / "ours"))
    assert theirs == ours
    key = "model/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"
    assert key in ours[0]
    r = tf.train.load_checkpoint(str(tmp_path / "tf"))
    assert r.has_tensor(key) and not r.has_tensor("nope")
    np.testing.assert_array_equal(
        tf.train.load_variable(str(tmp_path / "tf"), key),
        rtf.train.load_variable(str(tmp_path / "tf"), key))
    graph = r.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert isinstance(graph, bytes)
    assert graph == rtf.train.load_checkpoint(str(tmp_path / "tf")).get_tensor(
        "_CHECKPOINTABLE_OBJECT_GRAPH")


class _TfNet:
    """The same tf.Module program in either library."""

    def __init__(self, lib):
        class Net(lib.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
                self.steps = lib.Variable(3, dtype=lib.int64)
                self.parts = [lib.Variable(1.5, dtype=lib.float64), lib.Variable([1, 2])]
                self.table = {"names": lib.Variable([b"a", b"bc"])}
        self.net = Net()


@pytest.mark.parametrize("direction", ["tf_to_torchflow", "torchflow_to_tf"])
def test_module_with_variables(tmp_path, direction):
    rtf = real_tf()
    writer, reader = (rtf, tf) if direction == "tf_to_torchflow" else (tf, rtf)
    src, dst = _TfNet(writer).net, _TfNet(reader).net
    src.w.assign(src.w * 2.0)
    src.steps.assign(9)
    src.parts[0].assign(-2.5)
    src.parts[1].assign([7, 8])
    src.table["names"].assign([b"xyz", b""])
    path = writer.train.Checkpoint(net=src).write(str(tmp_path / "m"))
    reader.train.Checkpoint(net=dst).read(path).assert_consumed()
    np.testing.assert_array_equal(dst.w.numpy(), src.w.numpy())
    assert int(dst.steps.numpy()) == 9
    assert float(dst.parts[0].numpy()) == -2.5
    np.testing.assert_array_equal(dst.parts[1].numpy(), [7, 8])
    assert list(dst.table["names"].numpy()) == [b"xyz", b""]
    assert sorted(tf.train.list_variables(path)) == sorted(rtf.train.list_variables(path))


@pytest.mark.parametrize("direction", ["tf_to_torchflow", "torchflow_to_tf"])
def test_checkpoint_manager_max_to_keep(tmp_path, direction):
    rtf = real_tf()
    writer, reader = (rtf, tf) if direction == "tf_to_torchflow" else (tf, rtf)
    v = writer.Variable(0.0)
    mgr = writer.train.CheckpointManager(writer.train.Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    for i in range(4):
        v.assign(float(i))
        mgr.save()
    files = sorted(f for f in os.listdir(tmp_path))
    assert files == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
                     "ckpt-4.data-00000-of-00001", "ckpt-4.index"]
    v2 = reader.Variable(-1.0)
    rmgr = reader.train.CheckpointManager(reader.train.Checkpoint(v=v2), str(tmp_path),
                                          max_to_keep=2)
    assert rmgr.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-4")]
    assert rmgr.restore_or_initialize() == str(tmp_path / "ckpt-4")
    assert float(v2.numpy()) == 3.0
    # The reader's manager goes on numbering from the restored save_counter and prunes.
    rmgr.save()
    assert reader.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-5")
    assert not os.path.exists(tmp_path / "ckpt-3.index")
    assert writer.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-5")


def _damaged_checkpoint(lib, tmp_path, how):
    from torchflow._src.train import tensor_bundle

    prefix = lib.train.Checkpoint(v=lib.Variable(np.arange(50, dtype=np.float32))).write(
        str(tmp_path / f"{how}_{'tf' if lib is real_tf() else 'ours'}"))
    entry = tensor_bundle.BundleReader(prefix).entries["v/.ATTRIBUTES/VARIABLE_VALUE"]
    data = prefix + ".data-00000-of-00001"
    if how == "variable_bytes":
        with open(data, "r+b") as f:
            f.seek(entry.offset + 3)
            f.write(b"\xff\xff")
    elif how == "index_bytes":
        with open(prefix + ".index", "r+b") as f:
            f.seek(3)
            f.write(b"\xff\xff")
    elif how == "missing":
        prefix += "-nope"
    return prefix


@pytest.mark.parametrize("how", ["variable_bytes", "index_bytes", "missing"])
def test_restore_of_damaged_checkpoint_raises_tf_error(tmp_path, how):
    rtf = real_tf()
    for writer in (rtf, tf):
        prefix = _damaged_checkpoint(writer, tmp_path, how)
        with pytest.raises(Exception) as theirs:
            rtf.train.Checkpoint(v=rtf.Variable(np.zeros(50, np.float32))).restore(prefix)
        with pytest.raises(Exception) as ours:
            tf.train.Checkpoint(v=tf.Variable(np.zeros(50, np.float32))).restore(prefix)
        assert type(ours.value).__name__ == type(theirs.value).__name__, (how, ours.value,
                                                                           theirs.value)
        assert getattr(ours.value, "error_code", None) == getattr(theirs.value, "error_code", None)


@pytest.mark.parametrize("direction", ["tf_to_torchflow", "torchflow_to_tf"])
def test_sharded_variable_partitioned_save(tmp_path, direction):
    from tensorflow.python.distribute.sharded_variable import ShardedVariable as TfSharded

    from torchflow._src.distribute.ps_values import ShardedVariable

    rtf = real_tf()
    full = np.arange(7 * 2, dtype=np.float32).reshape(7, 2)
    cuts = [(0, 3), (3, 5), (5, 7)]

    def sharded(lib, cls, value):
        return cls([lib.Variable(value[a:b], name=f"part_{i}") for i, (a, b) in enumerate(cuts)])

    writer, reader = (rtf, tf) if direction == "tf_to_torchflow" else (tf, rtf)
    classes = {rtf: TfSharded, tf: ShardedVariable}
    src = sharded(writer, classes[writer], full)
    path = writer.train.Checkpoint(table=src).write(str(tmp_path / "sharded"))
    key = "table/.ATTRIBUTES/VARIABLE_VALUE"
    assert dict(rtf.train.list_variables(path))[key] == [7, 2]
    np.testing.assert_array_equal(tf.train.load_variable(path, key), full)
    dst = sharded(reader, classes[reader], np.zeros_like(full))
    reader.train.Checkpoint(table=dst).read(path).assert_consumed()
    np.testing.assert_array_equal(np.concatenate([v.numpy() for v in dst.variables]), full)
    # ... and into one whole variable, as TF restores a partitioned tensor
    whole = reader.Variable(np.zeros_like(full))
    reader.train.Checkpoint(table=whole).read(path).assert_consumed()
    np.testing.assert_array_equal(whole.numpy(), full)


def test_tf_iterator_state_is_a_clear_error(tmp_path):
    # A tf.data iterator's state is a DT_VARIANT (TF runtime object): listed like TF,
    # get_tensor fails as TF's does, restore says why instead of misreading bytes.
    rtf = real_tf()
    it = iter(rtf.data.Dataset.range(10))
    next(it)
    path = rtf.train.Checkpoint(it=it).write(str(tmp_path / "it"))
    assert tf.train.list_variables(path) == rtf.train.list_variables(path)
    key = "it/.ATTRIBUTES/ITERATOR_STATE"
    with pytest.raises(rtf.errors.InternalError) as theirs:
        rtf.train.load_checkpoint(path).get_tensor(key)
    with pytest.raises(tf.errors.InternalError) as ours:
        tf.train.load_checkpoint(path).get_tensor(key)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(tf.errors.UnimplementedError, match="variant"):
        tf.train.Checkpoint(it=iter(tf.data.Dataset.range(10))).restore(path)
