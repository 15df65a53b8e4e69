"""Every common Keras layer's SavedModel runs both ways with real TF (issue 15).

One table of small Keras models (one per layer and option group), each built with
the same code under torchflow and real TF (2.21 with tf-keras, the reference):

- torchflow -> TF: ``tf.saved_model.save`` by torchflow, loaded by real TF's
  ``tf.saved_model.load``; ``signatures["serving_default"]`` gives torchflow's
  outputs (and the saved graph holds no ``Unlowered`` node).
- TF -> torchflow: written by real TF, loaded by torchflow's ``tf.saved_model.load``
  (the graph is interpreted, no Keras revival); its ``serving_default`` gives TF's
  outputs.
- ``ConcreteFunction.graph.as_graph_def()`` of torchflow's traced call imports into a
  real TF graph (its variable handles mapped onto TF resource variables holding the
  same values) and runs to torchflow's outputs.

Outputs are compared with rtol 1e-5. LSTM/GRU are covered by the recurrent tests.
"""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(5)
SEQ = RNG.randn(2, 5, 6).astype(np.float32)
SEQ_K = RNG.randn(2, 3, 6).astype(np.float32)
IMG = RNG.randn(2, 8, 8, 3).astype(np.float32)
VEC = RNG.randn(3, 6).astype(np.float32)
IDS = np.array([[1, 4, 0, 0], [3, 2, 5, 0]], np.int32)
MASK = (RNG.rand(2, 5, 3) > 0.3).astype(np.float32)
VOL = RNG.randn(2, 4, 6, 6, 2).astype(np.float32)
MASK6 = (RNG.rand(2, 5, 6) > 0.3).astype(np.float32)
SEQ_MASKED = SEQ.copy()
SEQ_MASKED[0, 3:] = 0.0
ATOL = 1e-5  # outputs are O(1); stacked convolutions sum in another order than TF's


def _seq(lib, layers, shape=(5, 6)):
    return lib.keras.Sequential([lib.keras.Input(shape)] + layers)


def _mha(lib, **kw):
    L = lib.keras.layers
    q = lib.keras.Input((5, 6), name="q")
    v = lib.keras.Input((3, 6), name="v")
    m = lib.keras.Input((5, 3), name="m")
    layer = L.MultiHeadAttention(2, 3, **kw)
    out, scores = layer(q, v, attention_mask=m, return_attention_scores=True)
    return lib.keras.Model([q, v, m], [out, scores])


def _self_mha(lib):
    q = lib.keras.Input((5, 6))
    return lib.keras.Model(q, lib.keras.layers.MultiHeadAttention(2, 3)(q, q))


def _mha_axes(lib):
    q = lib.keras.Input((4, 4, 3))
    layer = lib.keras.layers.MultiHeadAttention(2, 2, attention_axes=(1, 2), output_shape=5)
    return lib.keras.Model(q, layer(q, q))


def _embedding_masked(lib):
    L = lib.keras.layers
    ids = lib.keras.Input((4,), dtype="int32")
    h = L.Embedding(6, 3, mask_zero=True)(ids)
    return lib.keras.Model(ids, L.GlobalAveragePooling1D()(h))


def L(lib):  # the usual ``L = keras.layers``, for either library
    return lib.keras.layers


def _dense_bn(lib):
    x = lib.keras.Input((5, 6))
    a = L(lib).Dense(4, activation="relu")(x)
    b = L(lib).Dense(2)(L(lib).Flatten()(L(lib).BatchNormalization()(a)))
    return lib.keras.Model(x, [a, b])


def _conv3d(lib):
    # (Conv2D(groups=2) is left out: TF's CPU kernels cannot run a grouped convolution.)
    v = lib.keras.Input((4, 6, 6, 2))
    h = L(lib).MaxPooling3D(2)(L(lib).Conv3D(3, 2, padding="same")(v))
    return lib.keras.Model(v, L(lib).GlobalAveragePooling3D()(L(lib).AveragePooling3D(1)(h)))


def _masking_noise(lib):
    """Masking into a mask-aware pooling; noise layers (identity at inference);
    an activity regularizer's loss (run with the call, by the run-time batch);
    TimeDistributed."""
    x = lib.keras.Input((5, 6))
    m = L(lib).GlobalAveragePooling1D()(L(lib).Masking(0.0)(x))
    h = L(lib).GaussianNoise(0.5)(L(lib).GaussianDropout(0.3)(L(lib).AlphaDropout(0.2)(x)))
    h = L(lib).ActivityRegularization(0.1)(h)
    t = L(lib).TimeDistributed(L(lib).Dense(3))(h)
    return lib.keras.Model(x, [m, t])


def _attention_scores(lib):
    """Attention's scores and a separate key; MultiHeadAttention(q, v, k); Softmax
    with a mask."""
    q, v, k = (lib.keras.Input(s) for s in ((5, 6), (3, 6), (3, 6)))
    m = lib.keras.Input((5, 6))
    out, scores = L(lib).Attention()([q, v, k], return_attention_scores=True)
    mha = L(lib).MultiHeadAttention(2, 3)(q, v, k)
    soft = L(lib).Softmax()(q, mask=lib.cast(m, "bool"))
    return lib.keras.Model([q, v, k, m], [out, scores, mha, soft])


def _image_preprocessing(lib):
    x = lib.keras.Input((8, 8, 3))
    P = lib.keras.layers.experimental.preprocessing
    outs = [P.Rescaling(1 / 255.0, offset=-1)(x), P.CenterCrop(4, 4)(x)]
    outs += [P.Resizing(h, w, interpolation=i)(x) for h, w, i in (
        (4, 6, "bilinear"), (4, 6, "nearest"), (12, 10, "bicubic"), (4, 4, "area"))]
    return lib.keras.Model(x, outs)


def _dropouts(lib):
    x = lib.keras.Input((5, 6))
    h = L(lib).SpatialDropout1D(0.3)(L(lib).Dropout(0.5)(x))
    h = L(lib).Dropout(0.5)(L(lib).Dense(4)(h), training=False)
    return lib.keras.Model(x, L(lib).Dense(2)(h))


def _attentions(lib):
    q = lib.keras.Input((5, 6), name="q")
    v = lib.keras.Input((3, 6), name="v")
    k = lib.keras.Input((5, 6), name="k")
    a = L(lib).Attention(use_scale=True)([q, v])
    b = L(lib).AdditiveAttention()([q, v])
    c = L(lib).Attention(causal=True)([q, k])
    return lib.keras.Model([q, v, k], [a, b, c])


def _merge(lib):
    L = lib.keras.layers
    x = lib.keras.Input((5, 6))
    a = L.Dense(4)(x)
    b = L.Dense(4, activation="relu")(x)
    c = L.Concatenate(axis=-1)([L.Add()([a, b]), x])
    d = L.Concatenate(axis=1)([a, b])
    flat = L.Flatten()(d)
    more = [L.Multiply()([b, a]), L.Subtract()([a, b]), L.Average()([a, b]),
            L.Maximum()([a, b]), L.Minimum()([a, b]), L.Dot(axes=(2, 2))([a, b]),
            L.Permute((2, 1))(a), L.RepeatVector(3)(L.Flatten()(a))]
    return lib.keras.Model(x, [L.Reshape((-1, 2))(c), flat] + more)


def _dense_acts(lib):
    L = lib.keras.layers
    x = lib.keras.Input((6,))
    outs = [L.Dense(3, activation=a)(x) for a in
            ("gelu", "swish", "softplus", "elu", "selu", "sigmoid", "tanh", "softsign",
             "exponential", "hard_sigmoid", "linear", "relu")]
    return lib.keras.Model(x, outs)


def _act_layers(lib):
    L = lib.keras.layers
    x = lib.keras.Input((5, 6))
    outs = [L.Softmax()(x), L.Softmax(axis=1)(x), L.Activation("softmax")(x),
            L.ReLU(max_value=1.0, negative_slope=0.1)(x), L.LeakyReLU(0.2)(x), L.ELU()(x),
            L.Activation("gelu")(x)]
    return lib.keras.Model(x, outs)


CASES = {
    "dense_batch_norm": (_dense_bn, [SEQ]),
    "dense_activations": (_dense_acts, [VEC]),
    "activation_layers": (_act_layers, [SEQ]),
    "conv1d_pooling1d": (lambda lib: _seq(lib, [
        L(lib).Conv1D(4, 3, padding="same", activation="relu"),
        L(lib).Conv1D(3, 2, strides=2), L(lib).MaxPooling1D(2, padding="same"),
        L(lib).Conv1D(2, 2, dilation_rate=2, padding="causal"),
        L(lib).AveragePooling1D(2, padding="same"), L(lib).GlobalMaxPooling1D()]), [SEQ]),
    "conv2d_pooling2d": (lambda lib: _seq(lib, [
        L(lib).Conv2D(4, 3, padding="same", activation="swish"), L(lib).BatchNormalization(),
        L(lib).Conv2D(3, 3, strides=2), L(lib).MaxPooling2D(2, 1),
        L(lib).Conv2D(2, 2, dilation_rate=2, padding="same"),
        L(lib).AveragePooling2D(3, 1, "same"), L(lib).GlobalAveragePooling2D()],
        (8, 8, 3)), [IMG]),
    "conv1d_extra": (lambda lib: _seq(lib, [
        L(lib).SeparableConv1D(4, 3, padding="same"), L(lib).Conv1DTranspose(3, 2, strides=2),
        L(lib).UpSampling1D(2), L(lib).ZeroPadding1D((1, 2)), L(lib).Cropping1D((2, 1)),
        L(lib).GlobalAveragePooling1D()]), [SEQ]),
    "conv3d": (_conv3d, [VOL]),
    "conv2d_extra": (lambda lib: _seq(lib, [
        L(lib).SpatialDropout2D(0.3), L(lib).DepthwiseConv2D(3, padding="same"),
        L(lib).SeparableConv2D(4, 3, activation="selu"), L(lib).ReLU(6.0), L(lib).PReLU(),
        L(lib).Conv2DTranspose(2, 3, strides=2, padding="same")], (8, 8, 3)), [IMG]),
    "reshaping2d": (lambda lib: _seq(lib, [
        L(lib).ZeroPadding2D(((1, 0), (2, 1))), L(lib).Cropping2D(1),
        L(lib).UpSampling2D(2), L(lib).GlobalMaxPooling2D()], (8, 8, 3)), [IMG]),
    # (torchflow's bilinear upsampling is one three-operand einsum: two Einsum nodes.)
    "upsampling2d_bilinear": (lambda lib: _seq(lib, [
        L(lib).UpSampling2D((2, 3), interpolation="bilinear"), L(lib).Conv2D(2, 3)],
        (8, 8, 3)), [IMG]),
    "dropout": (_dropouts, [SEQ]),
    "masking_noise_time_distributed": (_masking_noise, [SEQ_MASKED]),
    "embedding_mask_zero": (_embedding_masked, [IDS]),
    "layer_norm": (lambda lib: _seq(lib, [
        L(lib).LayerNormalization(), L(lib).LayerNormalization(axis=[1, 2]),
        L(lib).BatchNormalization(axis=1), L(lib).LayerNormalization(center=False, scale=False),
        L(lib).Dense(3, use_bias=False)]), [SEQ]),
    "merge_reshape": (_merge, [SEQ]),
    "mha_self": (_self_mha, [SEQ]),
    "mha_mask_scores_dropout": (lambda lib: _mha(lib, dropout=0.3, value_dim=4),
                                [SEQ, SEQ_K, MASK]),
    "mha_attention_axes": (_mha_axes, [IMG[:, :4, :4, :]]),
    "attention": (_attentions, [SEQ, SEQ_K, SEQ[::-1]]),
    "attention_scores_key_mask": (_attention_scores, [SEQ, SEQ_K, SEQ_K[::-1], MASK6]),
    "image_preprocessing": (_image_preprocessing, [IMG]),
}

# Saved whole by TF (the Keras object graph, every layer's traced call functions).
KERAS_SAVE = {"mha_self", "conv2d_pooling2d", "embedding_mask_zero"}


def _fill(model, seed=3):
    """Random weights (positive moving variances, so inference normalizes for real)."""
    rng = np.random.RandomState(seed)
    for w in model.weights:
        v = rng.uniform(-1.0, 1.0, size=w.shape)
        w.assign((np.abs(v) + 0.5 if "variance" in w.name else v).astype(np.float32))


def _flat(out):
    out = out if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(o) for o in out]


def _run_signature(lib, sig, model_input_names, inputs):
    feed = {n: lib.constant(x) for n, x in zip(model_input_names, inputs)}
    out = sig(**feed)
    return [np.asarray(out[k]) for k in sorted(out)]


def _keyed(model, inputs):
    """The model's outputs keyed as its serving signature keys them, in key order."""
    outs = _flat(model(inputs if len(inputs) > 1 else inputs[0], training=False))
    return [o for _, o in sorted(zip(model.output_names, outs))]


@pytest.mark.parametrize("case", sorted(CASES))
def test_torchflow_saved_model_serves_in_real_tf(tmp_path, case):
    rtf = real_tf()
    build, inputs = CASES[case]
    model = build(tf)
    _fill(model)
    expected = _keyed(model, inputs)
    path = str(tmp_path / case)
    tf.saved_model.save(model, path)
    loaded = rtf.saved_model.load(path)
    got = _run_signature(rtf, loaded.signatures["serving_default"], model.input_names, inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=ATOL)


@pytest.mark.parametrize("case", sorted(CASES))
def test_tf_saved_model_serves_in_torchflow(tmp_path, case):
    rtf = real_tf()
    build, inputs = CASES[case]
    ref = build(rtf)
    _fill(ref)
    expected = _keyed(ref, inputs)
    path = str(tmp_path / case)
    # The serving graph as TF's Keras save writes it, without the per-layer call
    # functions Keras' save also traces (slow; test_saved_model_load_keras has them).
    specs = [rtf.TensorSpec([None] + list(x.shape[1:]), x.dtype, name=n)
             for x, n in zip(inputs, ref.input_names)]

    @rtf.function(input_signature=specs)
    def serve(*xs):
        outs = ref(xs[0] if len(xs) == 1 else list(xs), training=False)
        return dict(zip(ref.output_names, outs if isinstance(outs, list) else [outs]))

    if case in KERAS_SAVE:
        rtf.saved_model.save(ref, path)
    else:
        holder = rtf.Module()
        holder.variables_ = list(ref.variables)
        rtf.saved_model.save(holder, path, signatures=serve.get_concrete_function())
    loaded = tf.saved_model.load(path)
    got = _run_signature(tf, loaded.signatures["serving_default"], ref.input_names, inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=ATOL)


@pytest.mark.parametrize("case", sorted(CASES))
def test_graph_def_runs_in_real_tf(case):
    rtf = real_tf()
    build, inputs = CASES[case]
    model = build(tf)
    _fill(model)
    specs = [tf.TensorSpec([None] + list(x.shape[1:]), tf.as_dtype(x.dtype)) for x in inputs]
    single = len(specs) == 1

    @tf.function(input_signature=specs)
    def call(*xs):
        return model(xs[0] if single else list(xs), training=False)

    concrete = call.get_concrete_function()
    graph = concrete.graph
    assert graph.exportable, graph.unexportable
    expected = _flat(concrete(*[tf.constant(x) for x in inputs]))
    gd = rtf.compat.v1.GraphDef.FromString(graph.as_graph_def().SerializeToString())
    handles = {ep: var for var, ep in graph.captures if isinstance(var, tf.Variable)}
    g = rtf.Graph()
    with g.as_default():
        tf_vars = {ep: rtf.Variable(var.numpy()) for ep, var in handles.items()}
        rtf.graph_util.import_graph_def(
            gd, input_map={ep: v.handle for ep, v in tf_vars.items()}, name="g")
        init = rtf.compat.v1.global_variables_initializer()
    with rtf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        feed = {f"g/{ep}": x for ep, x in zip(graph.inputs, inputs)}
        got = sess.run([f"g/{ep}" for ep in graph.outputs], feed_dict=feed)
    assert len(got) == len(expected)
    for a, e in zip(got, expected):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=ATOL)


def test_a_save_without_serving_default_names_what_has_no_tf_op(tmp_path, caplog):
    """An op with no TF lowering: the save error and the Keras save's WARNING log name
    the torchflow function that made the value (expected text: the function's name)."""
    x = tf.keras.Input((3,))
    model = tf.keras.Model(x, tf.keras.layers.Lambda(
        lambda t: tf.signal.dct(t))(x))
    with caplog.at_level(logging.WARNING, logger="tensorflow"), \
            pytest.warns(UserWarning, match="without its __call__"):
        tf.saved_model.save(model, str(tmp_path / "keras"))
    logged = [r for r in caplog.records if r.name == "tensorflow" and
              r.levelno == logging.WARNING and "serving_default" in r.getMessage()]
    # The function's public name (torchflow.signal.dct), or its module's where
    # another object holds the module-level name.
    made_by = r"Unlowered \(made by torchflow\.(signal|_src\.ops\.[a-z_]+)\.dct\)"
    assert len(logged) == 1 and re.search(made_by, logged[0].getMessage())

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        model.save(str(tmp_path / "keras_model_save"))
    logged = [r.getMessage() for r in caplog.records if r.name == "tensorflow" and
              r.levelno == logging.WARNING and "serving_default" in r.getMessage()]
    assert len(logged) == 1 and re.search(made_by, logged[0])

    module = tf.Module()
    module.f = tf.function(lambda t: tf.signal.dct(t * 2.0) + 1.0,
                           input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    graph = module.f.get_concrete_function().graph
    sources = [op.get_attr("source") for op in graph.get_operations()
               if op.type == "Unlowered"]
    assert len(sources) == 1 and re.fullmatch(made_by, f"Unlowered (made by {sources[0]})")
    with pytest.raises(tf.errors.UnimplementedError, match=made_by):
        tf.saved_model.save(module, str(tmp_path / "module"))
