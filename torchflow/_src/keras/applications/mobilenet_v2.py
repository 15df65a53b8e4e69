"""``tf.keras.applications.mobilenet_v2``: MobileNetV2 (Sandler et al., CVPR 2018)."""

from __future__ import annotations

import logging

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.applications.mobilenet import _rows_cols, _square_rows
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.activation.activation_layers import ReLU
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.convolutional.separable_conv import DepthwiseConv2D
from torchflow._src.keras.layers.merging.merging import Add
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.mobilenet_v2"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_log = logging.getLogger("tensorflow")
# (filters, stride, expansion) of the 17 inverted residual blocks.
_BLOCKS = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6),
           (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)]


def _make_divisible(v, divisor, min_value=None):
    """``v`` rounded to a multiple of ``divisor``, never more than 10% below it."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _bn(name):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    return BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name=name)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    in_channels = backend.int_shape(inputs)[axis]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                   activation=None, name=prefix + "expand")(x)
        x = _bn(prefix + "expand_BN")(x)
        x = ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name=prefix + "pad")(x)
    x = DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                        padding="same" if stride == 1 else "valid",
                        name=prefix + "depthwise")(x)
    x = _bn(prefix + "depthwise_BN")(x)
    x = ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
               activation=None, name=prefix + "project")(x)
    x = _bn(prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return Add(name=prefix + "add")([inputs, x])
    return x


@public(_NS)
def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax",
                **kwargs):
    """Instantiates the MobileNetV2 architecture.

    Args:
      input_shape: Optional shape tuple (at least 32x32); square 96, 128, 160, 192 or
        224 pick the matching ImageNet weights.
      alpha: Width multiplier of every layer's filters.
      include_top: Whether to include the classifier at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).
      classifier_activation: The top layer's activation.
      **kwargs: Accepted for TF's signature.

    Returns:
      A ``keras.Model`` named ``mobilenetv2_<alpha>_<rows>``.

    Raises:
      ValueError: For invalid ``weights``, ``classes``, ``input_shape`` or, with
        ImageNet weights, ``alpha``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=_square_rows(input_shape, (96, 128, 160, 192, 224)),
        min_size=32, data_format=backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        if alpha not in [0.35, 0.50, 0.75, 1.0, 1.3, 1.4]:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.35`, "
                             "`0.50`, `0.75`, `1.0`, `1.3` or `1.4` only.")
        if rows != cols or rows not in [96, 128, 160, 192, 224]:
            rows = 224
            _log.warning("`input_shape` is undefined or non-square, or `rows` is not in [96, "
                         "128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                         "loaded as the default.")
    img_input, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same",
               use_bias=False, name="Conv1")(img_input)
    x = _bn("bn_Conv1")(x)
    x = ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn")(x)
    x = ReLU(6.0, name="out_relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights,
                    avg_name=None)
    model = Model(inputs, x, name=f"mobilenetv2_{alpha:0.2f}_{rows}")
    suffix = ".h5" if include_top else "_no_top.h5"
    url = (f"{_BASE}mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
           f"{suffix}")
    return imagenet_utils.load_weights(model, weights, url)


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """MobileNetV2's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes MobileNetV2's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
