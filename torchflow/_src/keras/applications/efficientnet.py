"""``tf.keras.applications.efficientnet``: EfficientNetB0-B7 (Tan & Le, ICML 2019).

The models take RGB pixels in [0, 255]: rescaling and normalization are layers
of the model, so ``preprocess_input`` passes its input through.
"""

from __future__ import annotations

import math

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.convolutional.separable_conv import DepthwiseConv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.core.dense import Dense
from torchflow._src.keras.layers.core.dropout import Dropout
from torchflow._src.keras.layers.core.reshaping import Reshape
from torchflow._src.keras.layers.merging.merging import add, multiply
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAveragePooling2D
from torchflow._src.keras.layers.preprocessing.image_preprocessing import Rescaling
from torchflow._src.keras.layers.preprocessing.normalization import Normalization
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.efficientnet"
_BASE = "https://storage.googleapis.com/keras-applications/"
_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}
# (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides) per stage;
# every block has id_skip and se_ratio 0.25.
_STAGES = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
           (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
           (3, 1, 192, 320, 6, 1)]
# variant: (width coefficient, depth coefficient, default input size, top dropout rate)
_VARIANTS = {
    "b0": (1.0, 1.0, 224, 0.2),
    "b1": (1.0, 1.1, 240, 0.2),
    "b2": (1.1, 1.2, 260, 0.3),
    "b3": (1.2, 1.4, 300, 0.3),
    "b4": (1.4, 1.8, 380, 0.4),
    "b5": (1.6, 2.2, 456, 0.4),
    "b6": (1.8, 2.6, 528, 0.5),
    "b7": (2.0, 3.1, 600, 0.5),
}
_CONV_INIT = {"class_name": "VarianceScaling",
              "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
_DENSE_INIT = {"class_name": "VarianceScaling",
               "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}}


def _bn_axis():
    return 3 if backend.image_data_format() == "channels_last" else 1


def _block(inputs, activation, drop_rate, name, filters_in, filters_out, kernel_size, strides,
           expand_ratio, se_ratio=0.25):
    axis = _bn_axis()
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = Conv2D(filters, 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
                   name=name + "expand_conv")(x)
        x = BatchNormalization(axis=axis, name=name + "expand_bn")(x)
        x = Activation(activation, name=name + "expand_activation")(x)
    if strides == 2:
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                          name=name + "dwconv_pad")(x)
    x = DepthwiseConv2D(kernel_size, strides=strides, padding="valid" if strides == 2 else "same",
                        use_bias=False, depthwise_initializer=_CONV_INIT,
                        name=name + "dwconv")(x)
    x = BatchNormalization(axis=axis, name=name + "bn")(x)
    x = Activation(activation, name=name + "activation")(x)
    filters_se = max(1, int(filters_in * se_ratio))
    se = GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    shape = (1, 1, filters) if axis == 3 else (filters, 1, 1)
    se = Reshape(shape, name=name + "se_reshape")(se)
    se = Conv2D(filters_se, 1, padding="same", activation=activation,
                kernel_initializer=_CONV_INIT, name=name + "se_reduce")(se)
    se = Conv2D(filters, 1, padding="same", activation="sigmoid", kernel_initializer=_CONV_INIT,
                name=name + "se_expand")(se)
    x = multiply([x, se], name=name + "se_excite")
    x = Conv2D(filters_out, 1, padding="same", use_bias=False, kernel_initializer=_CONV_INIT,
               name=name + "project_conv")(x)
    x = BatchNormalization(axis=axis, name=name + "project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = add([x, inputs], name=name + "add")
    return x


def _efficientnet(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                  classifier_activation, drop_connect_rate=0.2, depth_divisor=8,
                  activation="swish"):
    """EfficientNet ``variant`` ("b0".."b7"), scaled as ``_VARIANTS`` says."""
    width, depth, default_size, dropout_rate = _VARIANTS[variant]
    model_name = "efficientnet" + variant
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape, default_size=default_size)
    axis = _bn_axis()

    def round_filters(filters):
        filters *= width
        new = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor)
        if new < 0.9 * filters:
            new += depth_divisor
        return int(new)

    def round_repeats(repeats):
        return int(math.ceil(depth * repeats))

    x = Rescaling(1.0 / 255.0)(img_input)
    x = Normalization(axis=axis)(x)
    x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
               kernel_initializer=_CONV_INIT, name="stem_conv")(x)
    x = BatchNormalization(axis=axis, name="stem_bn")(x)
    x = Activation(activation, name="stem_activation")(x)
    total = float(sum(round_repeats(s[1]) for s in _STAGES))
    b = 0
    for i, (kernel, repeats, f_in, f_out, expand, strides) in enumerate(_STAGES):
        f_in, f_out = round_filters(f_in), round_filters(f_out)
        for j in range(round_repeats(repeats)):
            if j > 0:
                strides, f_in = 1, f_out
            x = _block(x, activation, drop_connect_rate * b / total, f"block{i + 1}{chr(j + 97)}_",
                       f_in, f_out, kernel, strides, expand)
            b += 1
    x = Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
               kernel_initializer=_CONV_INIT, name="top_conv")(x)
    x = BatchNormalization(axis=axis, name="top_bn")(x)
    x = Activation(activation, name="top_activation")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, kernel_initializer=_DENSE_INIT,
                  name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling, name_avg="avg_pool", name_max="max_pool")
    suffix = ".h5" if include_top else "_notop.h5"
    return _common.finish(inputs, x, model_name, weights, _BASE + model_name + suffix,
                          _HASHES[variant][0 if include_top else 1])


@public(_NS)
@_common.model_doc(default_size=224)
def EfficientNetB0(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB0 architecture (width 1.0, depth 1.0; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b0", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=240)
def EfficientNetB1(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB1 architecture (width 1.0, depth 1.1; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b1", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=260)
def EfficientNetB2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB2 architecture (width 1.1, depth 1.2; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b2", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=300)
def EfficientNetB3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB3 architecture (width 1.2, depth 1.4; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b3", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=380)
def EfficientNetB4(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB4 architecture (width 1.4, depth 1.8; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b4", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=456)
def EfficientNetB5(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB5 architecture (width 1.6, depth 2.2; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b5", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=528)
def EfficientNetB6(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB6 architecture (width 1.8, depth 2.6; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b6", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
@_common.model_doc(default_size=600)
def EfficientNetB7(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                   pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the EfficientNetB7 architecture (width 2.0, depth 3.1; takes RGB pixels in
    [0, 255])."""
    return _efficientnet("b7", include_top, weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation)


@public(_NS)
def preprocess_input(x, data_format=None):
    """A placeholder kept for API compatibility: returns ``x`` unchanged.

    EfficientNet models rescale their input themselves (a ``Rescaling`` and
    ``Normalization`` layer), so pass RGB pixels in ``[0, 255]`` as they are.

    Args:
      x: A NumPy array or tensor of images.
      data_format: Unused (kept for the shared signature).

    Returns:
      ``x``.
    """
    return x


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes EfficientNet's ImageNet predictions into ``(class_id, class_name, score)`` lists.

    The same as ``tf.keras.applications.imagenet_utils.decode_predictions``: the class
    names come from ``imagenet_class_index.json``, fetched once with ``get_file`` and
    cached under ``~/.keras/models``.

    Args:
      preds: A NumPy array or tensor of shape ``(samples, 1000)``, the model's output.
      top: int, default 5: how many of the top classes to return per sample.

    Returns:
      A list (per sample) of lists of ``(class_id, class_name, score)`` tuples, the
      highest score first.

    Raises:
      ValueError: ``preds`` is not 2-D with 1000 columns.
      Exception: TF's ``URL fetch failure`` when the index is neither cached nor
        downloadable.
    """
    return _common.decode_predictions(preds, top=top)
