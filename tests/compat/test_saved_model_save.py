"""``tf.saved_model.save`` (torchflow -> TF): SavedModels torchflow writes load in real TF.

Each test saves a model with torchflow, loads the directory with real TF's
``tf.saved_model.load`` and with torchflow's, and compares the functions' and
signatures' outputs with torchflow's own (and, where the model can be built in
both, with real TF's).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

X = np.array([[1.0, -2.0], [0.5, 1.0], [3.0, 0.25]], np.float32)


def _two_var_module(m):
    class Affine(m.Module):
        def __init__(self):
            super().__init__()
            self.w = m.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
            self.b = m.Variable([0.5, -0.5], name="b")

        @m.function(input_signature=[m.TensorSpec([None, 2], m.float32)])
        def __call__(self, x):
            return m.nn.relu(m.matmul(x, self.w) + self.b)

    return Affine()


def _read_saved_model(path):
    sm = tf_saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    return sm


def test_module_with_two_variables_and_input_signature(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "affine")
    ours = _two_var_module(tf)
    tf.saved_model.save(ours, path)
    expected = _two_var_module(rtf)(X).numpy()
    np.testing.assert_allclose(ours(X).numpy(), expected, rtol=1e-6)

    assert sorted(os.listdir(path)) == ["assets", "saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(path, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    meta = _read_saved_model(path).meta_graphs[0]
    assert list(meta.meta_info_def.tags) == ["serve"]
    sig = meta.signature_def["serving_default"]
    assert list(sig.inputs) == ["x"] and list(sig.outputs) == ["output_0"]
    assert sig.method_name == "tensorflow/serving/predict"
    node_names = {n.name for n in meta.graph_def.node}
    for info in list(sig.inputs.values()) + list(sig.outputs.values()):
        assert info.name.split(":")[0] in node_names
    ops = {n.op for f in meta.graph_def.library.function for n in f.node_def}
    assert {"MatMul", "AddV2", "Relu", "ReadVariableOp"} <= ops

    loaded = rtf.saved_model.load(path)
    np.testing.assert_allclose(loaded(X).numpy(), expected, rtol=1e-6)
    out = loaded.signatures["serving_default"](x=rtf.constant(X))
    assert list(out) == ["output_0"]
    np.testing.assert_allclose(out["output_0"].numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(loaded.w.numpy(), ours.w.numpy())
    assert loaded.b.name == "b:0"

    # TF 1-style loading (TF Serving's path): saver_def restores the variables.
    with rtf.compat.v1.Session(graph=rtf.Graph()) as sess:
        mg = rtf.compat.v1.saved_model.loader.load(sess, ["serve"], path)
        s = mg.signature_def["serving_default"]
        got = sess.run(s.outputs["output_0"].name, feed_dict={s.inputs["x"].name: X})
        np.testing.assert_allclose(got, expected, rtol=1e-6)

    back = tf.saved_model.load(path)
    np.testing.assert_allclose(back(X).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(
        back.signatures["serving_default"](x=tf.constant(X))["output_0"].numpy(), expected,
        rtol=1e-6)
    # A signature takes its inputs by position too (TF writes allowed_positional_arguments).
    for lib, sm in ((rtf, loaded), (tf, back)):
        np.testing.assert_allclose(
            sm.signatures["serving_default"](lib.constant(X))["output_0"].numpy(), expected,
            rtol=1e-6)


def _two_function_module(m):
    class Two(m.Module):
        def __init__(self):
            super().__init__()
            self.scale = m.Variable(2.0, name="scale")
            self.count = m.Variable(0, name="count")

        @m.function(input_signature=[m.TensorSpec([None], m.float32),
                                     m.TensorSpec([None], m.float32)])
        def a(self, y, x):
            z = m.reduce_sum(x * self.scale - y, axis=0, keepdims=True)
            return {"sum": z, "where": m.where(x > y, x, m.zeros_like(x))}

        @m.function(input_signature=[m.TensorSpec([None, 3], m.float32)])
        def b(self, x):
            self.count.assign_add(1)
            s = m.reshape(m.cast(m.reduce_max(x, axis=1), m.float64), [-1])
            return s / 3.0, m.transpose(x) * self.scale, self.count.read_value()

    return Two()


def test_two_functions_and_two_signatures(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "two")
    ours = _two_function_module(tf)
    ref = _two_function_module(rtf)
    tf.saved_model.save(ours, path, signatures={"a": ours.a, "b": ours.b.get_concrete_function()})
    x = np.array([1.0, -2.0, 3.0], np.float32)
    y = np.array([0.5, 0.5, 4.0], np.float32)
    m3 = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.0

    loaded = rtf.saved_model.load(path)
    assert sorted(loaded.signatures) == ["a", "b"]
    exp_a = ref.a(y, x)
    got_a = loaded.a(y, x)
    for k in ("sum", "where"):
        np.testing.assert_allclose(got_a[k].numpy(), exp_a[k].numpy(), rtol=1e-6)
    sig_a = loaded.signatures["a"](x=rtf.constant(x), y=rtf.constant(y))
    assert sorted(sig_a) == ["sum", "where"]
    for k in ("sum", "where"):
        np.testing.assert_allclose(sig_a[k].numpy(), exp_a[k].numpy(), rtol=1e-6)

    exp_b = ref.b(m3)
    got_b = loaded.b(m3)
    for e, g in zip(exp_b, got_b):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)
    assert got_b[0].dtype == rtf.float64
    sig_b = loaded.signatures["b"](x=rtf.constant(m3))
    assert sorted(sig_b) == ["output_0", "output_1", "output_2"]
    np.testing.assert_allclose(sig_b["output_1"].numpy(), exp_b[1].numpy(), rtol=1e-6)
    # The assign_add ran before the read in each call, as in TF.
    assert int(sig_b["output_2"].numpy()) == 2 and int(loaded.count.numpy()) == 2

    back = tf.saved_model.load(path)
    got = back.signatures["a"](x=tf.constant(x), y=tf.constant(y))
    for k in ("sum", "where"):
        np.testing.assert_allclose(got[k].numpy(), exp_a[k].numpy(), rtol=1e-6)
    for e, g in zip(exp_b, back.b(m3)):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)


def _keras_wrapper(m, weights=None):
    model = m.keras.Sequential([
        m.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
        m.keras.layers.Dense(3, activation="tanh"),
        m.keras.layers.Dense(2),
    ])
    if weights is not None:
        model.set_weights(weights)

    class Serving(m.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        @m.function(input_signature=[m.TensorSpec([None, 3], m.float32)])
        def serve(self, x):
            return self.model(x)

    return Serving(model)


def test_keras_sequential_in_a_module(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "keras")
    ours = _keras_wrapper(tf)
    weights = ours.model.get_weights()
    ref = _keras_wrapper(rtf, weights)
    x = np.linspace(-2.0, 2.0, 15, dtype=np.float32).reshape(5, 3)
    expected = ref.serve(x).numpy()
    np.testing.assert_allclose(ours.serve(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    tf.saved_model.save(ours, path)

    loaded = rtf.saved_model.load(path)
    np.testing.assert_allclose(loaded.serve(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    out = loaded.signatures["serving_default"](x=rtf.constant(x))["output_0"]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)

    back = tf.saved_model.load(path)
    np.testing.assert_allclose(back.serve(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_function_traced_without_signature_keeps_every_trace(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "traces")
    m = tf.Module()
    m.v = tf.Variable([1.0, 2.0, 3.0])
    m.f = tf.function(lambda x: x * m.v + 1.0)
    m.f(tf.constant([1.0, 2.0, 3.0]))
    m.f(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    tf.saved_model.save(m, path)
    loaded = rtf.saved_model.load(path)
    assert len(loaded.f.concrete_functions) == 2
    np.testing.assert_allclose(loaded.f(rtf.constant([2.0, 2.0, 2.0])).numpy(), [3.0, 5.0, 7.0])
    np.testing.assert_allclose(loaded.f(rtf.constant([[1.0, 1.0, 1.0]] * 2)).numpy(),
                               [[2.0, 3.0, 4.0]] * 2)
    assert not loaded.signatures  # no input_signature: no default signature


def test_signature_errors(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.f = tf.function(lambda x: x + m.v)
    with pytest.raises(ValueError, match="Only `tf.functions` with an input signature"):
        tf.saved_model.save(m, str(tmp_path / "e1"), signatures=m.f)
    with pytest.raises(ValueError, match="Expected a TensorFlow function"):
        tf.saved_model.save(m, str(tmp_path / "e2"), signatures={"s": lambda x: x})
    with pytest.raises(ValueError, match="Expected a Trackable object"):
        tf.saved_model.save(object(), str(tmp_path / "e3"))


def test_untracked_variable_is_an_error(tmp_path):
    outside = tf.Variable(3.0)
    m = tf.Module()
    m.f = tf.function(lambda x: x * outside, input_signature=[tf.TensorSpec([], tf.float32)])
    with pytest.raises(AssertionError, match="untracked"):
        tf.saved_model.save(m, str(tmp_path / "u"))


def _conv_model(m, weights=None):
    L = m.keras.layers
    image = m.keras.Sequential([
        L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 2)),
        L.MaxPooling2D(),
        L.Conv2D(3, 2, padding="same", strides=1),
        L.AveragePooling2D(pool_size=2, strides=1),
        L.BatchNormalization(),
        L.Dropout(0.5),
        L.GlobalAveragePooling2D(),  # Flatten bakes the traced batch size in: see docs
        L.Dense(5),
        L.Softmax(),
    ])
    seq = m.keras.Sequential([
        L.Conv1D(3, 3, padding="same", activation="tanh", input_shape=(6, 2)),
        L.MaxPooling1D(2),
        L.Conv1D(2, 2, dilation_rate=1),
        L.AveragePooling1D(2, padding="same"),
        L.GlobalMaxPooling1D(),
    ])
    if weights is not None:
        image.set_weights(weights[0])
        seq.set_weights(weights[1])

    class Serving(m.Module):
        def __init__(self):
            super().__init__()
            self.image, self.seq = image, seq

        @m.function(input_signature=[m.TensorSpec([None, 8, 8, 2], m.float32),
                                     m.TensorSpec([None, 6, 2], m.float32)])
        def serve(self, img, series):
            return {"image": self.image(img, training=False),
                    "series": self.seq(series, training=False)}

    return Serving()


def test_keras_conv_pool_batchnorm_layers(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "conv")
    rng = np.random.default_rng(0)
    ours = _conv_model(tf)
    weights = []
    for model in (ours.image, ours.seq):
        ws = [rng.uniform(0.2, 1.5, w.shape).astype(np.float32) for w in model.get_weights()]
        model.set_weights(ws)
        weights.append(ws)
    ref = _conv_model(rtf, weights)
    img = rng.normal(size=(3, 8, 8, 2)).astype(np.float32)
    series = rng.normal(size=(4, 6, 2)).astype(np.float32)
    expected = ref.serve(img, series)
    got = ours.serve(img, series)
    for k in ("image", "series"):
        np.testing.assert_allclose(got[k].numpy(), expected[k].numpy(), rtol=1e-4, atol=1e-5)
    tf.saved_model.save(ours, path)

    loaded = rtf.saved_model.load(path)
    out = loaded.signatures["serving_default"](img=rtf.constant(img), series=rtf.constant(series))
    for k in ("image", "series"):
        np.testing.assert_allclose(out[k].numpy(), expected[k].numpy(), rtol=1e-4, atol=1e-5)
    back = tf.saved_model.load(path).serve(img, series)
    for k in ("image", "series"):
        np.testing.assert_allclose(back[k].numpy(), expected[k].numpy(), rtol=1e-4, atol=1e-5)


def test_graph_without_tf_ops_is_a_clear_error(tmp_path):
    m = tf.Module()
    m.v = tf.Variable([3.0, 1.0, 2.0])
    m.sorted = tf.function(lambda x: tf.signal.dct(x * m.v),
                           input_signature=[tf.TensorSpec([3], tf.float32)])
    path = tmp_path / "bad"
    with pytest.raises(tf.errors.UnimplementedError, match="tf.function <lambda>"):
        tf.saved_model.save(m, str(path))
    assert not (path / "saved_model.pb").exists()


def _embedding_model(m, weights=None):
    L = m.keras.layers
    inp = m.keras.Input((5,), dtype="int32")
    e = L.Embedding(10, 4)(inp)
    a = L.LayerNormalization()(e)
    b = L.Dense(4, activation="gelu")(a)
    c = L.Add()([a, b])
    d = L.Concatenate()([c, e])
    out = L.GlobalAveragePooling1D()(d)
    model = m.keras.Model(inp, out)
    if weights is not None:
        model.set_weights(weights)

    class Serving(m.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @m.function(input_signature=[m.TensorSpec([None, 5], m.int32)])
        def serve(self, ids):
            y = self.model(ids, training=False)
            mean, var = m.nn.moments(y, axes=[1], keepdims=False)
            return [m.nn.gelu(y, approximate=True), mean, var]

    return Serving()


def test_keras_embedding_layernorm_dense3d_add_concat(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "emb")
    rng = np.random.default_rng(1)
    ours = _embedding_model(tf)
    weights = [rng.normal(size=w.shape).astype(np.float32) for w in ours.model.get_weights()]
    ours.model.set_weights(weights)
    ref = _embedding_model(rtf, weights)
    ids = rng.integers(0, 10, size=(3, 5)).astype(np.int32)
    expected = [t.numpy() for t in ref.serve(ids)]
    for g, e in zip(ours.serve(ids), expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-4, atol=1e-5)
    tf.saved_model.save(ours, path)

    loaded = rtf.saved_model.load(path)
    out = loaded.signatures["serving_default"](ids=rtf.constant(ids))
    assert sorted(out) == ["output_0", "output_1", "output_2"]
    for k, e in enumerate(expected):
        np.testing.assert_allclose(out[f"output_{k}"].numpy(), e, rtol=1e-4, atol=1e-5)
    for g, e in zip(tf.saved_model.load(path).serve(ids), expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-4, atol=1e-5)


def test_keras_model_saved_directly(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "seq")
    ours = _keras_wrapper(tf).model
    ref = _keras_wrapper(rtf, ours.get_weights()).model
    x = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(4, 3)
    expected = ref(x).numpy()
    tf.saved_model.save(ours, path)
    in_name, out_name = ours.input_names[0], ours.output_names[0]

    loaded = rtf.saved_model.load(path)
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    out = loaded.signatures["serving_default"](**{in_name: rtf.constant(x)})
    assert list(out) == [out_name]  # TF keys a Keras model's outputs by layer name
    np.testing.assert_allclose(out[out_name].numpy(), expected, rtol=1e-5, atol=1e-6)
    back = tf.saved_model.load(path)
    np.testing.assert_allclose(back(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_keras_model_whose_call_has_no_tf_ops_saves_its_variables(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "sorted")
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(3,)),
                                 tf.keras.layers.Lambda(
                                     lambda t: tf.signal.dct(t))])
    with pytest.warns(UserWarning, match="without its __call__"):
        tf.saved_model.save(model, path)
    loaded = rtf.saved_model.load(path)
    assert not loaded.signatures
    kernel, bias = model.layers[0].get_weights()
    reader = rtf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    values = [reader.get_tensor(k) for k in reader.get_variable_to_shape_map()
              if k.endswith("VARIABLE_VALUE")]
    assert any(np.array_equal(v, kernel) for v in values)
    assert any(np.array_equal(v, bias) for v in values)


def test_function_returning_a_variable_is_an_error_not_a_constant(tmp_path):
    m = tf.Module()
    m.v = tf.Variable([1.0, 2.0])
    m.f = tf.function(lambda: m.v)
    m.f.get_concrete_function()
    with pytest.raises(tf.errors.UnimplementedError, match="returns a tf.Variable"):
        tf.saved_model.save(m, str(tmp_path / "v"))
    m.g = tf.function(lambda: m.v.read_value())
    del m.f
    m.g.get_concrete_function()
    tf.saved_model.save(m, str(tmp_path / "g"))
    back = tf.saved_model.load(str(tmp_path / "g"))
    back.v.assign([5.0, 6.0])
    np.testing.assert_array_equal(back.g().numpy(), [5.0, 6.0])


def _defaults_module(m):
    class M(m.Module):
        def __init__(self):
            super().__init__()
            self.v = m.Variable(2.0)

        @m.function
        def f(self, x, training=False, scale=1.0):
            y = x * self.v * scale
            return y + 1.0 if training else y

        @m.function(input_signature=[[m.TensorSpec([None], m.float32),
                                      m.TensorSpec([None], m.float32)]])
        def pair(self, xs):
            return xs[0] + xs[1] * self.v

    return M()


def test_python_arguments_nested_inputs_and_their_signature_names(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "defaults")
    x = np.array([1.0, 2.0], np.float32)
    ours, ref = _defaults_module(tf), _defaults_module(rtf)
    for mod in (ours, ref):
        mod.f(x)
        mod.f(x, training=True)
        mod.f(x, scale=3.0)
    tf.saved_model.save(ours, path, signatures={
        "pair": ours.pair, "f": ours.f.get_concrete_function(tf.TensorSpec([None], tf.float32))})
    loaded = rtf.saved_model.load(path)
    for kwargs in ({}, {"training": True}, {"scale": 3.0}):
        np.testing.assert_allclose(loaded.f(rtf.constant(x), **kwargs).numpy(),
                                   ref.f(x, **kwargs).numpy())
    pair_in = [rtf.constant([1.0]), rtf.constant([2.0])]
    np.testing.assert_allclose(loaded.pair(pair_in).numpy(), ref.pair(pair_in).numpy())
    sig = loaded.signatures["pair"]
    assert sorted(sig.structured_input_signature[1]) == ["xs", "xs_1"]  # TF's names
    np.testing.assert_allclose(sig(xs=pair_in[0], xs_1=pair_in[1])["output_0"].numpy(), [5.0])
    assert sorted(loaded.signatures["f"].structured_input_signature[1]) == ["x"]
    back = tf.saved_model.load(path)
    np.testing.assert_allclose(back.f(tf.constant(x), training=True).numpy(), [3.0, 5.0])


def test_integer_arguments_that_ops_read_as_shapes(tmp_path):
    """Functions whose integer arguments are shapes or sizes (``tf.reshape(x, shape)``,
    ``tf.zeros(shape)``, ``tf.split(x, sizes)``): the dry traces that write the graph
    give them stand-ins the ops take (zeros do not reshape), and the SavedModel serves
    other shapes in real TF and in torchflow."""
    rtf = real_tf()

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                      tf.TensorSpec([2], tf.int32)])
        def reshape(self, x, shape):
            return tf.reshape(x, shape) * 2.0

        @tf.function(input_signature=[tf.TensorSpec([3], tf.int64)])
        def zeros(self, shape):
            return tf.zeros(shape) + 1.0

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                      tf.TensorSpec([2], tf.int32)])
        def split(self, x, sizes):
            a, b = tf.split(x, sizes, axis=0)
            return tf.reduce_sum(a, axis=0) - tf.reduce_sum(b, axis=0)

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32),
                                      tf.TensorSpec([1], tf.int32)])
        def reverse(self, x, axis):
            return tf.reverse(x, axis)

        @tf.function(input_signature=[tf.TensorSpec([4, 6], tf.float32),
                                      tf.TensorSpec([2], tf.int32)])
        def resize(self, x, size):
            return tf.image.resize(x[None, :, :, None], size)

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                      tf.TensorSpec([2], tf.int64)])
        def dropout(self, x, noise_shape):
            return tf.nn.dropout(x, 0.5, noise_shape=noise_shape)

    tf.saved_model.save(M(), str(tmp_path))
    x = np.arange(12, dtype=np.float32)
    m2 = np.arange(15, dtype=np.float32).reshape(5, 3)
    for lib in (rtf, tf):
        loaded = lib.saved_model.load(str(tmp_path))
        np.testing.assert_array_equal(loaded.reshape(lib.constant(x), lib.constant([3, 4]))
                                      .numpy(), x.reshape(3, 4) * 2.0)
        np.testing.assert_array_equal(loaded.reshape(lib.constant(x[:6]), lib.constant(
            [-1, 2])).numpy(), x[:6].reshape(3, 2) * 2.0)
        np.testing.assert_array_equal(loaded.zeros(lib.constant([2, 1, 3], lib.int64))
                                      .numpy(), np.ones((2, 1, 3), np.float32))
        np.testing.assert_array_equal(loaded.split(lib.constant(m2), lib.constant([2, 3]))
                                      .numpy(), m2[:2].sum(0) - m2[2:].sum(0))
        for axis in (0, 1):
            np.testing.assert_array_equal(loaded.reverse(lib.constant(m2[:2]), lib.constant(
                [axis])).numpy(), np.flip(m2[:2], axis))
        img = m2[:4, :3].repeat(2, axis=1)
        want = rtf.image.resize(img[None, :, :, None], [3, 5]).numpy()
        np.testing.assert_allclose(loaded.resize(lib.constant(img), lib.constant([3, 5]))
                                   .numpy(), want, rtol=1e-6, atol=1e-5)
        # One keep/drop decision per row ([rows, 1] noise), kept entries doubled.
        ones = np.ones((64, 4), np.float32)
        out = loaded.dropout(lib.constant(ones), lib.constant([64, 1], lib.int64)).numpy()
        assert set(np.unique(out)) <= {0.0, 2.0} and 0 < (out == 0).sum() < out.size
        assert (out == out[:, :1]).all()


@pytest.mark.parametrize("result", ["nested", "flat"])
def test_the_one_signature_function_is_the_default_only_if_its_outputs_can_be(result,
                                                                              tmp_path):
    """TF's rule (``_valid_signature``): the single function with an input signature is
    ``serving_default`` only if its outputs are a tensor, a flat sequence or a dict of
    tensors; a nested result saves with no signature, not an error."""
    rtf = real_tf()
    for lib, path in ((rtf, tmp_path / "tf"), (tf, tmp_path / "torchflow")):
        mod = lib.Module()

        def body(x):
            return (x, [x * 2.0]) if result == "nested" else (x, x * 2.0)

        mod.f = lib.function(body, input_signature=[lib.TensorSpec([3], lib.float32)])
        lib.saved_model.save(mod, str(path))
    for lib in (rtf, tf):
        for path in (tmp_path / "tf", tmp_path / "torchflow"):
            loaded = lib.saved_model.load(str(path))
            assert list(loaded.signatures) == ([] if result == "nested" else
                                               ["serving_default"])
            got = lib.nest.flatten(loaded.f(lib.constant([1.0, 2.0, 3.0])))
            np.testing.assert_allclose(np.asarray(got[-1]), [2.0, 4.0, 6.0])
