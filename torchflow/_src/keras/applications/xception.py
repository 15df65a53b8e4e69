"""``tf.keras.applications.xception``: Xception (Chollet, CVPR 2017)."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.convolutional.separable_conv import SeparableConv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.merging.merging import add
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.pooling import MaxPooling2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.xception"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"


def _bn(name=None):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    return BatchNormalization(axis=axis, name=name)


def _sep(x, filters, name):
    x = SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _bn(name + "_bn")(x)


def _residual(x, filters):
    r = Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    return _bn()(r)


def _entry_block(x, filters, block, first_relu=True):
    residual = _residual(x, filters[1])
    if first_relu:
        x = Activation("relu", name=f"block{block}_sepconv1_act")(x)
    x = _sep(x, filters[0], f"block{block}_sepconv1")
    x = Activation("relu", name=f"block{block}_sepconv2_act")(x)
    x = _sep(x, filters[1], f"block{block}_sepconv2")
    x = MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
    return add([x, residual])


@public(_NS)
@_common.model_doc(min_size=71, default_size=299, kwargs=False)
def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the Xception architecture: depthwise separable convolutions (Chollet, 2017)."""
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape, default_size=299,
                                            min_size=71)
    x = Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = _bn("block1_conv1_bn")(x)
    x = Activation("relu", name="block1_conv1_act")(x)
    x = Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = _bn("block1_conv2_bn")(x)
    x = Activation("relu", name="block1_conv2_act")(x)
    x = _entry_block(x, (128, 128), 2, first_relu=False)
    x = _entry_block(x, (256, 256), 3)
    x = _entry_block(x, (728, 728), 4)
    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for j in (1, 2, 3):
            x = Activation("relu", name=f"{prefix}_sepconv{j}_act")(x)
            x = _sep(x, 728, f"{prefix}_sepconv{j}")
        x = add([x, residual])
    x = _entry_block(x, (728, 1024), 13)
    x = SeparableConv2D(1536, (3, 3), padding="same", use_bias=False, name="block14_sepconv1")(x)
    x = _bn("block14_sepconv1_bn")(x)
    x = Activation("relu", name="block14_sepconv1_act")(x)
    x = SeparableConv2D(2048, (3, 3), padding="same", use_bias=False, name="block14_sepconv2")(x)
    x = _bn("block14_sepconv2_bn")(x)
    x = Activation("relu", name="block14_sepconv2_act")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights)
    hashes = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")
    return _common.finish(inputs, x, "xception", weights,
                          _common.kernels_url(_BASE, "xception", include_top),
                          hashes[0 if include_top else 1])


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """Xception's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes Xception's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
