"""SavedModels of Keras models written by real TensorFlow (tf-keras) load in torchflow
with ``tf.saved_model.load`` and compute what TF computes.

One module-scoped fixture has real TF write each model once and record its
outputs; each test loads the directory and compares the restored ``__call__`` and
``signatures["serving_default"]`` with TF's (np.testing.assert_allclose).
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(11)
X2 = RNG.randn(3, 2).astype(np.float32)
IMG = RNG.randn(2, 8, 8, 3).astype(np.float32)
IDS = RNG.randint(0, 10, size=(2, 5)).astype(np.int32)
FEAT = RNG.randn(2, 6).astype(np.float32)
SEQ = RNG.randn(2, 5, 4).astype(np.float32)
SEQ6 = RNG.randn(2, 6, 4).astype(np.float32)
IMG2 = RNG.randn(2, 8, 8, 2).astype(np.float32)
WORDS = ["a", "c", "q", "y", "zz", "x"]


def _keras_functional(ttf):
    layers = ttf.keras.layers
    img = ttf.keras.Input((8, 8, 3), name="img")
    ids = ttf.keras.Input((5,), dtype="int32", name="ids")
    feat = ttf.keras.Input((6,), name="feat")
    h = layers.Conv2D(4, 3, padding="same", activation="relu")(img)
    h = layers.BatchNormalization()(h)
    h = layers.MaxPooling2D(2)(h)
    h = layers.Conv2D(3, 3, strides=2, padding="valid")(h)
    h = layers.Flatten()(h)
    h = layers.Dense(6, activation="tanh")(h)
    e = layers.Embedding(10, 3)(ids)
    e = layers.LayerNormalization()(e)
    e = layers.Flatten()(e)
    e = layers.Dense(6)(e)
    f = layers.BatchNormalization()(layers.Dense(6, activation="sigmoid")(feat))
    joined = layers.Concatenate()([layers.Add()([h, e]), f])
    joined = layers.Dropout(0.5)(joined)
    out = layers.Dense(4, activation="softmax", name="probs")(joined)
    model = ttf.keras.Model([img, ids, feat], out)
    # Non-trivial batch-norm statistics, so inference differs from training mode.
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            layer.set_weights([w + RNG.uniform(0.2, 1.0, w.shape).astype(np.float32)
                               for w in layer.get_weights()])
    return model


def _keras_sequential(ttf):
    layers = ttf.keras.layers
    model = ttf.keras.Sequential([
        layers.Dense(8, activation="relu", input_shape=(5, 4)),
        layers.LayerNormalization(),
        layers.Dense(3),
        layers.Flatten(),
        layers.Dense(2),
    ])
    return model


def _keras_rnn_conv(ttf):
    """Recurrent (While loops over TensorLists), attention and the other conv layers."""
    layers = ttf.keras.layers
    seq = ttf.keras.Input((6, 4), name="seq")
    img = ttf.keras.Input((8, 8, 2), name="img")
    a = layers.LSTM(5, return_sequences=True)(seq)
    b = layers.GRU(5)(a)
    c = layers.GlobalAveragePooling1D()(layers.MultiHeadAttention(2, 3)(seq, seq))
    d = layers.Flatten()(layers.MaxPooling1D(2)(layers.Conv1D(3, 2, activation="gelu")(seq)))
    e = layers.SeparableConv2D(3, 3, padding="same")(layers.DepthwiseConv2D(3)(img))
    e = layers.AveragePooling2D(2)(layers.Conv2DTranspose(2, 3, strides=2)(e))
    e = layers.GlobalMaxPooling2D()(layers.UpSampling2D(2)(e))
    f = layers.Reshape((3, 2))(layers.Dense(6, activation="elu")(b))
    f = layers.Flatten()(layers.Permute((2, 1))(f))
    out = layers.Concatenate()([b, c, d, e, f])
    out = layers.Dense(3, activation="softmax", name="out")(layers.LeakyReLU()(out))
    return ttf.keras.Model([seq, img], out)


def _trained_keras(ttf):
    layers = ttf.keras.layers
    inp = ttf.keras.Input((4,))
    h = layers.Dropout(0.3)(layers.BatchNormalization()(layers.Dense(5, activation="relu")(inp)))
    model = ttf.keras.Model(inp, layers.Dense(2)(h))
    model.compile("adam", "mse")
    model.fit(FEAT[:, :4].repeat(4, axis=0), X2[:2].repeat(4, axis=0), epochs=2, verbose=0)
    return model


def _keras_misc(ttf):
    """Preprocessing, padding/cropping, merging and activation layers."""
    layers = ttf.keras.layers
    img = ttf.keras.Input((8, 8, 2), name="img")
    seq = ttf.keras.Input((6, 4), name="seq")
    num = ttf.keras.Input((3,), name="num")
    a = layers.Rescaling(0.5, 0.1)(layers.Cropping2D(1)(layers.ZeroPadding2D(1)(img)))
    a = layers.CenterCrop(4, 4)(layers.Resizing(6, 6)(a))
    a = layers.GlobalAveragePooling2D()(layers.PReLU()(layers.Conv2D(2, 2)(a)))
    b = layers.Cropping1D(1)(layers.Conv1DTranspose(2, 2)(seq))
    b = layers.TimeDistributed(layers.Dense(2))(layers.ZeroPadding1D(1)(b))
    b = layers.Softmax(axis=1)(layers.Attention()([b, b]))
    b = layers.GlobalMaxPooling1D()(layers.ThresholdedReLU(0.1)(b))
    c = layers.Flatten()(layers.RepeatVector(2)(num))
    c = layers.Discretization(bin_boundaries=[0.0, 1.0])(
        layers.Normalization(mean=1.0, variance=2.0)(c))
    c = layers.CategoryEncoding(num_tokens=3, output_mode="count")(c)
    d = layers.Dot(axes=1, normalize=True)([num, num])
    e = layers.Subtract()([num, layers.Multiply()([num, num])])
    f = layers.Minimum()([num, layers.Maximum()([num, layers.Average()([num, e])])])
    out = layers.Concatenate()([a, b, c, d, f, layers.ELU()(num),
                                layers.ReLU(max_value=1.0)(num)])
    return ttf.keras.Model([img, seq, num], layers.Dense(2, name="out")(out))


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    ttf = real_tf()
    root = tmp_path_factory.mktemp("tf_keras_saved_models")
    out = {}

    fm = _keras_functional(ttf)
    fm.save(str(root / "functional"))
    out["functional"] = {
        "predict": fm([IMG, IDS, FEAT], training=False).numpy(),
        "sig_keys": sorted(fm.output_names),
    }

    rm = _keras_rnn_conv(ttf)
    rm.save(str(root / "rnn_conv"))
    out["rnn_conv"] = {"predict": rm([SEQ6, IMG2], training=False).numpy()}

    sm = _keras_sequential(ttf)
    sm.save(str(root / "sequential"))
    out["sequential"] = {"predict": sm(SEQ, training=False).numpy()}

    km = _trained_keras(ttf)
    km.save(str(root / "trained"))
    out["trained"] = {"predict": km(FEAT[:, :4], training=False).numpy()}

    inp = ttf.keras.Input((), dtype=ttf.string)
    lookup = ttf.keras.Model(inp, ttf.keras.layers.StringLookup(vocabulary=["a", "b", "c"])(inp))
    lookup.save(str(root / "string_lookup"))
    out["string_lookup"] = lookup(ttf.constant(WORDS)).numpy()
    mm = _keras_misc(ttf)
    mm.save(str(root / "misc"))
    out["misc"] = {"predict": mm([IMG2, SEQ6, FEAT[:, :3]], training=False).numpy()}
    out["dirs"] = {k: str(root / k) for k in ("functional", "rnn_conv", "sequential",
                                              "trained", "string_lookup", "misc")}
    return out


def test_keras_functional_model(saved):
    loaded = tf.saved_model.load(saved["dirs"]["functional"])
    inputs = {"img": tf.constant(IMG), "ids": tf.constant(IDS), "feat": tf.constant(FEAT)}
    out = loaded.signatures["serving_default"](**inputs)
    assert list(out) == ["probs"]
    np.testing.assert_allclose(out["probs"].numpy(), saved["functional"]["predict"],
                               rtol=1e-5, atol=1e-6)
    direct = loaded([tf.constant(IMG), tf.constant(IDS), tf.constant(FEAT)], training=False)
    np.testing.assert_allclose(direct.numpy(), saved["functional"]["predict"], rtol=1e-5,
                               atol=1e-6)
    names = sorted(v.name for v in loaded.variables)
    assert any("batch_normalization" in n and "moving_mean" in n for n in names)


def test_keras_sequential_model(saved):
    loaded = tf.saved_model.load(saved["dirs"]["sequential"])
    out = loaded.signatures["serving_default"](tf.constant(SEQ))
    (value,) = out.values()
    np.testing.assert_allclose(value.numpy(), saved["sequential"]["predict"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(loaded(SEQ, training=False).numpy(),
                               saved["sequential"]["predict"], rtol=1e-5, atol=1e-6)


def test_keras_recurrent_attention_and_conv_layers(saved):
    loaded = tf.saved_model.load(saved["dirs"]["rnn_conv"])
    seq, img = tf.constant(SEQ6), tf.constant(IMG2)
    out = loaded.signatures["serving_default"](seq=seq, img=img)
    np.testing.assert_allclose(out["out"].numpy(), saved["rnn_conv"]["predict"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(loaded([seq, img], training=False).numpy(),
                               saved["rnn_conv"]["predict"], rtol=1e-5, atol=1e-6)


def test_compiled_and_trained_keras_model(saved):
    loaded = tf.saved_model.load(saved["dirs"]["trained"])
    np.testing.assert_allclose(loaded(FEAT[:, :4], training=False).numpy(),
                               saved["trained"]["predict"], rtol=1e-5, atol=1e-6)
    assert loaded(FEAT[:, :4], training=True).shape == (2, 2)  # Dropout's random ops run


def test_string_lookup_layer(saved):
    layer = tf.saved_model.load(saved["dirs"]["string_lookup"])
    np.testing.assert_array_equal(layer(tf.constant(WORDS)).numpy(), saved["string_lookup"])


def test_preprocessing_merging_and_activation_layers(saved):
    loaded = tf.saved_model.load(saved["dirs"]["misc"])
    feeds = {"img": tf.constant(IMG2), "seq": tf.constant(SEQ6), "num": tf.constant(FEAT[:, :3])}
    out = loaded.signatures["serving_default"](**feeds)
    np.testing.assert_allclose(out["out"].numpy(), saved["misc"]["predict"], rtol=1e-5,
                               atol=1e-6)
