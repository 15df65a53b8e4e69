"""``tf.keras.applications.mobilenet``: MobileNet (Howard et al., 2017)."""

from __future__ import annotations

import logging

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.activation.activation_layers import ReLU
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.convolutional.separable_conv import DepthwiseConv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.core.dropout import Dropout
from torchflow._src.keras.layers.core.reshaping import Reshape
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAveragePooling2D
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.mobilenet"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_log = logging.getLogger("tensorflow")
# (pointwise filters, stride) of the 13 depthwise-separable blocks.
_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]


def _channel_axis():
    return 1 if backend.image_data_format() == "channels_first" else -1


def _square_rows(input_shape, sizes):
    """The model's nominal size: the input's rows when square and one of ``sizes``."""
    if input_shape is None:
        return 224
    first = backend.image_data_format() == "channels_first"
    rows, cols = (input_shape[1], input_shape[2]) if first else (input_shape[0], input_shape[1])
    return rows if rows == cols and rows in sizes else 224


def _rows_cols(input_shape):
    if backend.image_data_format() == "channels_first":
        return input_shape[1], input_shape[2]
    return input_shape[0], input_shape[1]


def _depthwise_block(x, filters, alpha, depth_multiplier, stride, block_id):
    filters = int(filters * alpha)
    if stride != 1:
        x = ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid",
                        depth_multiplier=depth_multiplier, strides=(stride, stride),
                        use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = BatchNormalization(axis=_channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = Conv2D(filters, (1, 1), padding="same", use_bias=False, strides=(1, 1),
               name=f"conv_pw_{block_id}")(x)
    x = BatchNormalization(axis=_channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


@public(_NS)
def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True,
              weights="imagenet", input_tensor=None, pooling=None, classes=1000,
              classifier_activation="softmax", **kwargs):
    """Instantiates the MobileNet architecture.

    Args:
      input_shape: Optional shape tuple (at least 32x32); square 128, 160, 192 or 224
        pick the matching ImageNet weights.
      alpha: Width multiplier: the filters of every layer times ``alpha``.
      depth_multiplier: Depthwise convolutions' channel multiplier.
      dropout: Dropout rate before the top.
      include_top: Whether to include the classifier at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).
      classifier_activation: The top layer's activation.
      **kwargs: Accepted for TF's signature.

    Returns:
      A ``keras.Model`` named ``mobilenet_<alpha>_<rows>``.

    Raises:
      ValueError: For invalid ``weights``, ``classes``, ``input_shape``, or an
        ``alpha``/``depth_multiplier`` without ImageNet weights.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=_square_rows(input_shape, (128, 160, 192, 224)), min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top, weights=weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1")
        if alpha not in [0.25, 0.50, 0.75, 1.0]:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.25`, "
                             "`0.50`, `0.75` or `1.0` only.")
        if rows != cols or rows not in [128, 160, 192, 224]:
            rows = 224
            _log.warning("`input_shape` is undefined or non-square, or `rows` is not in [128, "
                         "160, 192, 224]. Weights for input shape (224, 224) will be loaded as "
                         "the default.")
    img_input, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = Conv2D(int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2),
               name="conv1")(img_input)
    x = BatchNormalization(axis=_channel_axis(), name="conv1_bn")(x)
    x = ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        channels = int(1024 * alpha)
        shape = (channels, 1, 1) if backend.image_data_format() == "channels_first" \
            else (1, 1, channels)
        x = GlobalAveragePooling2D()(x)
        x = Reshape(shape, name="reshape_1")(x)
        x = Dropout(dropout, name="dropout")(x)
        x = Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    model = Model(inputs, x, name=f"mobilenet_{alpha:0.2f}_{rows}")
    alpha_text = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0", 0.25: "2_5"}.get(alpha, "1_0")
    suffix = "tf.h5" if include_top else "tf_no_top.h5"
    return imagenet_utils.load_weights(model, weights,
                                       f"{_BASE}mobilenet_{alpha_text}_{rows}_{suffix}")


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """MobileNet's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes MobileNet's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
