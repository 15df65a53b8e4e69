"""``tf.keras.applications.mobilenet_v3``: MobileNetV3 Small and Large (Howard et al.,
"Searching for MobileNetV3", ICCV 2019), as TF 2.4 builds them.

Differences from the tf.keras of TF 2.6 and later, where TF 2.4 wins: the model's own
preprocessing is ``Rescaling(1/255)`` (later ``Rescaling(1/127.5, offset=-1)`` and an
``include_preprocessing`` argument); the last 1x1 convolution ``Conv_2`` (with its
activation) comes before the top, so ``include_top=False`` models keep it; squeeze-
and-excite blocks and the top pool with ``GlobalAveragePooling2D`` then ``Reshape``
(later ``keepdims=True``); no-top ImageNet weights are the ``_no_top.h5`` files.
"""

from __future__ import annotations

import logging
import os

from torchflow._src.keras import backend
from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.keras.engine.input_layer import Input
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.activation.activation_layers import ReLU
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.convolutional.separable_conv import DepthwiseConv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.core.dropout import Dropout
from torchflow._src.keras.layers.core.reshaping import Flatten, Reshape
from torchflow._src.keras.layers.merging.merging import Add, Multiply
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAveragePooling2D
from torchflow._src.keras.layers.preprocessing.image_preprocessing import Rescaling
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D
from torchflow._src.keras.utils.layer_utils import get_source_inputs
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.mobilenet_v3"
_APPS = "torchflow.keras.applications"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"
_HASHES = {  # (top, no top) md5 of TF 2.4's weight files
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb",
                             "e7b4d1071996dd51a2c2ca2424570e20"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7",
                            "037116398e07f018c0005ffcb0406831"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c",
                                         "a2c33aed672524d1d0b4431808177695"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7",
                             "4d2fe46f1c1f38057392514b0df1d673"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862",
                            "be7100780f875c06bcab93d76641aa26"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37",
                                         "20d4e357df3f7a6361f3a288857b1051"),
}
_log = logging.getLogger("tensorflow")

# One row per inverted residual block: (expansion, filters, kernel, stride, squeeze-
# and-excite, activation); kernel None is the model's (5, or 3 when minimalistic),
# "act" the model's activation (hard swish, or ReLU when minimalistic).
_SMALL = [(1, 16, 3, 2, True, "relu"), (72 / 16, 24, 3, 2, False, "relu"),
          (88 / 24, 24, 3, 1, False, "relu"), (4, 40, None, 2, True, "act"),
          (6, 40, None, 1, True, "act"), (6, 40, None, 1, True, "act"),
          (3, 48, None, 1, True, "act"), (3, 48, None, 1, True, "act"),
          (6, 96, None, 2, True, "act"), (6, 96, None, 1, True, "act"),
          (6, 96, None, 1, True, "act")]
_LARGE = [(1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, None, 2, True, "relu"),
          (3, 40, None, 1, True, "relu"), (3, 40, None, 1, True, "relu"),
          (6, 80, 3, 2, False, "act"), (2.5, 80, 3, 1, False, "act"),
          (2.3, 80, 3, 1, False, "act"), (2.3, 80, 3, 1, False, "act"),
          (6, 112, 3, 1, True, "act"), (6, 112, 3, 1, True, "act"),
          (6, 160, None, 2, True, "act"), (6, 160, None, 1, True, "act"),
          (6, 160, None, 1, True, "act")]


def _depth(v, divisor=8):
    """``v`` rounded to a multiple of ``divisor`` (at least ``divisor``), never more
    than 10% below ``v``."""
    rounded = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def _channel_axis():
    return 1 if backend.image_data_format() == "channels_first" else -1


def _relu(x):
    return ReLU()(x)


def _hard_sigmoid(x):
    return ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _hard_swish(x):
    return Multiply()([_hard_sigmoid(x), x])


def _bn(name):
    return BatchNormalization(axis=_channel_axis(), epsilon=1e-3, momentum=0.999, name=name)


def _squeeze_excite(inputs, filters, se_ratio, prefix):
    x = GlobalAveragePooling2D(name=prefix + "squeeze_excite/AvgPool")(inputs)
    x = Reshape((filters, 1, 1) if _channel_axis() == 1 else (1, 1, filters))(x)
    x = Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
               name=prefix + "squeeze_excite/Conv")(x)
    x = ReLU(name=prefix + "squeeze_excite/Relu")(x)
    x = Conv2D(filters, kernel_size=1, padding="same", name=prefix + "squeeze_excite/Conv_1")(x)
    x = _hard_sigmoid(x)
    return Multiply(name=prefix + "squeeze_excite/Mul")([inputs, x])


def _block(x, expansion, filters, kernel, stride, se_ratio, activation, block_id):
    shortcut = x
    in_filters = backend.int_shape(x)[_channel_axis()]
    prefix = f"expanded_conv_{block_id}/" if block_id else "expanded_conv/"
    if block_id:
        x = Conv2D(_depth(in_filters * expansion), kernel_size=1, padding="same",
                   use_bias=False, name=prefix + "expand")(x)
        x = activation(_bn(prefix + "expand/BatchNorm")(x))
    if stride == 2:
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel),
                          name=prefix + "depthwise/pad")(x)
    x = DepthwiseConv2D(kernel, strides=stride, padding="same" if stride == 1 else "valid",
                        use_bias=False, name=prefix + "depthwise")(x)
    x = activation(_bn(prefix + "depthwise/BatchNorm")(x))
    if se_ratio:
        x = _squeeze_excite(x, _depth(in_filters * expansion), se_ratio, prefix)
    x = Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
               name=prefix + "project")(x)
    x = _bn(prefix + "project/BatchNorm")(x)
    if stride == 1 and in_filters == filters:
        x = Add(name=prefix + "Add")([shortcut, x])
    return x


def _input_shape(input_shape, input_tensor):
    """TF 2.4's resolution of ``input_shape`` against ``input_tensor``.

    Raises:
      ValueError: If ``input_tensor`` is not a Keras tensor, or its width differs
        from ``input_shape``'s.
    """
    if input_tensor is not None and not backend.is_keras_tensor(input_tensor):
        raise ValueError("input_tensor specified: ", input_tensor, "is not a keras tensor")
    if input_shape is not None and input_tensor is not None:
        # (TF 2.4 compares the width axis of channels_last whatever the data format.)
        if backend.int_shape(input_tensor)[2] != input_shape[1]:
            raise ValueError("input_shape: ", input_shape, "and input_tensor: ", input_tensor,
                             "do not meet the same shape requirements")
    if input_shape is None and input_tensor is not None:
        shape = backend.int_shape(input_tensor)
        if backend.image_data_format() == "channels_first":
            input_shape = (3, shape[3], shape[2])
        else:
            input_shape = (shape[2], shape[1], 3)
    if input_shape is None:
        input_shape = (None, None, 3)
    return tuple(input_shape)


def _check_args(weights, include_top, classes, alpha, minimalistic, input_shape):
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, '
                         "`classes` should be 1000")
    rows, cols = input_shape[1:3] if _channel_axis() == 1 else input_shape[0:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; got `input_shape={input_shape}`")
    if weights == "imagenet":
        if (not minimalistic and alpha not in [0.75, 1.0]) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of "
                             "`0.75`, `1.0` for non minimalistic or `1.0` for minimalistic "
                             "only.")
        if rows != cols or rows != 224:
            _log.warning("`input_shape` is undefined or non-square, or `rows` is not 224. "
                         "Weights for input shape (224, 224) will be loaded as the default.")


def _mobilenet_v3(blocks, last_point_ch, model_type, input_shape, alpha, minimalistic,
                  include_top, weights, input_tensor, classes, pooling, dropout_rate,
                  classifier_activation):
    input_shape = _input_shape(input_shape, input_tensor)
    _check_args(weights, include_top, classes, alpha, minimalistic, input_shape)
    if input_tensor is None:
        img_input = inputs = Input(shape=input_shape)
    else:
        img_input, inputs = input_tensor, get_source_inputs(input_tensor)
    kernel, activation, se_ratio = (3, _relu, None) if minimalistic else (5, _hard_swish, 0.25)
    x = Rescaling(1.0 / 255.0)(img_input)
    x = Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
               name="Conv")(x)
    x = activation(_bn("Conv/BatchNorm")(x))
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        x = _block(x, expansion, _depth(filters * alpha), k or kernel, stride,
                   se_ratio if se else None, _relu if act == "relu" else activation, block_id)
    last_conv_ch = _depth(backend.int_shape(x)[_channel_axis()] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="Conv_1")(x)
    x = activation(_bn("Conv_1/BatchNorm")(x))
    x = Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True, name="Conv_2")(x)
    x = activation(x)
    if include_top:
        x = GlobalAveragePooling2D()(x)
        x = Reshape((last_point_ch, 1, 1) if _channel_axis() == 1 else (1, 1, last_point_ch))(x)
        if dropout_rate > 0:
            x = Dropout(dropout_rate)(x)
        x = Conv2D(classes, kernel_size=1, padding="same", name="Logits")(x)
        x = Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Activation(activation=classifier_activation, name="Predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling, name_avg="avg_pool", name_max="max_pool")
    model = Model(inputs, x, name="MobilenetV3" + model_type)
    stem = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    url, file_hash = None, None
    if weights == "imagenet":
        suffix = ".h5" if include_top else "_no_top.h5"
        url = f"{_BASE}weights_mobilenet_v3_{stem}{suffix}"
        file_hash = _HASHES[stem][0 if include_top else 1]
    return imagenet_utils.load_weights(model, weights, url, file_hash)


_ARGS_DOC = """

    Args:
      input_shape: Optional shape tuple with 3 channels, at least 32x32 (default
        ``(None, None, 3)``, or ``input_tensor``'s shape).
      alpha: Width multiplier of every layer's filters (0.75 or 1.0 with ImageNet
        weights).
      minimalistic: Without squeeze-and-excite blocks, hard swish and 5x5
        convolutions.
      include_top: Whether to include the classifier at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      classes: Number of classes (1000 with ImageNet weights and the top).
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      dropout_rate: Fraction of the units dropped before the last layer.
      classifier_activation: The top layer's activation (None or ``"softmax"``
        with pretrained weights).

    Returns:
      A ``keras.Model`` named ``MobilenetV3{kind}``; it rescales its input from
      [0, 255] itself.

    Raises:
      ValueError: For invalid ``weights``, ``classes``, ``input_shape``,
        ``input_tensor`` or, with ImageNet weights, ``alpha``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """


@public(_APPS)
def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                     weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                     dropout_rate=0.2, classifier_activation="softmax"):
    return _mobilenet_v3(_SMALL, 1024, "small", input_shape, alpha, minimalistic, include_top,
                         weights, input_tensor, classes, pooling, dropout_rate,
                         classifier_activation)


@public(_APPS)
def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                     weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                     dropout_rate=0.2, classifier_activation="softmax"):
    return _mobilenet_v3(_LARGE, 1280, "large", input_shape, alpha, minimalistic, include_top,
                         weights, input_tensor, classes, pooling, dropout_rate,
                         classifier_activation)


MobileNetV3Small.__doc__ = "Instantiates the MobileNetV3Small architecture." + \
    _ARGS_DOC.format(kind="small")
MobileNetV3Large.__doc__ = "Instantiates the MobileNetV3Large architecture." + \
    _ARGS_DOC.format(kind="large")


@public(_NS)
def preprocess_input(x, data_format=None):
    """A placeholder kept for API compatibility: MobileNetV3 models rescale their
    input themselves, so ``x`` is returned unchanged.

    Args:
      x: A floating point NumPy array or tensor of images.
      data_format: Unused (kept for the shared signature).

    Returns:
      ``x`` unchanged.
    """
    return x


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes MobileNetV3's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
    return imagenet_utils.decode_predictions(preds, top=top)
