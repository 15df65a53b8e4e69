"""``tf.keras.applications.inception_v3``: Inception v3 (Szegedy et al., CVPR 2016)."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.merging.merging import concatenate
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.pooling import AveragePooling2D, MaxPooling2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.inception_v3"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"


def _axis():
    return 1 if backend.image_data_format() == "channels_first" else 3


def _conv_bn(x, filters, rows, cols, padding="same", strides=(1, 1), name=None):
    """Conv2D (no bias) + BatchNormalization (no scale) + ReLU."""
    conv_name, bn_name = (name + "_conv", name + "_bn") if name else (None, None)
    x = Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False,
               name=conv_name)(x)
    x = BatchNormalization(axis=_axis(), scale=False, name=bn_name)(x)
    return Activation("relu", name=name)(x)


def _avg_branch(x, filters):
    x = AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return _conv_bn(x, filters, 1, 1)


def _mixed_35(x, pool_filters, name):
    b1 = _conv_bn(x, 64, 1, 1)
    b5 = _conv_bn(_conv_bn(x, 48, 1, 1), 64, 5, 5)
    b3 = _conv_bn(_conv_bn(_conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    return concatenate([b1, b5, b3, _avg_branch(x, pool_filters)], axis=_axis(), name=name)


def _mixed_17(x, c, name):
    b1 = _conv_bn(x, 192, 1, 1)
    b7 = _conv_bn(_conv_bn(_conv_bn(x, c, 1, 1), c, 1, 7), 192, 7, 1)
    d = _conv_bn(x, c, 1, 1)
    d = _conv_bn(d, c, 7, 1)
    d = _conv_bn(d, c, 1, 7)
    d = _conv_bn(d, c, 7, 1)
    d = _conv_bn(d, 192, 1, 7)
    return concatenate([b1, b7, d, _avg_branch(x, 192)], axis=_axis(), name=name)


def _mixed_8(x, i):
    b1 = _conv_bn(x, 320, 1, 1)
    b3 = _conv_bn(x, 384, 1, 1)
    b3 = concatenate([_conv_bn(b3, 384, 1, 3), _conv_bn(b3, 384, 3, 1)], axis=_axis(),
                     name=f"mixed9_{i}")
    d = _conv_bn(_conv_bn(x, 448, 1, 1), 384, 3, 3)
    d = concatenate([_conv_bn(d, 384, 1, 3), _conv_bn(d, 384, 3, 1)], axis=_axis())
    return concatenate([b1, b3, d, _avg_branch(x, 192)], axis=_axis(), name=f"mixed{9 + i}")


@public(_NS)
@_common.model_doc(min_size=75, default_size=299, kwargs=False)
def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the InceptionV3 architecture: Inception v3 (Szegedy et al., 2015)."""
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape, default_size=299,
                                            min_size=75)
    x = _conv_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = _conv_bn(x, 32, 3, 3, padding="valid")
    x = _conv_bn(x, 64, 3, 3)
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _conv_bn(x, 80, 1, 1, padding="valid")
    x = _conv_bn(x, 192, 3, 3, padding="valid")
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _mixed_35(x, 32, "mixed0")
    x = _mixed_35(x, 64, "mixed1")
    x = _mixed_35(x, 64, "mixed2")
    b3 = _conv_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    d = _conv_bn(_conv_bn(_conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=(2, 2),
                 padding="valid")
    x = concatenate([b3, d, MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=_axis(),
                    name="mixed3")
    x = _mixed_17(x, 128, "mixed4")
    x = _mixed_17(x, 160, "mixed5")
    x = _mixed_17(x, 160, "mixed6")
    x = _mixed_17(x, 192, "mixed7")
    b3 = _conv_bn(_conv_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")
    b7 = _conv_bn(x, 192, 1, 1)
    b7 = _conv_bn(b7, 192, 1, 7)
    b7 = _conv_bn(b7, 192, 7, 1)
    b7 = _conv_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    x = concatenate([b3, b7, MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=_axis(),
                    name="mixed8")
    x = _mixed_8(x, 0)
    x = _mixed_8(x, 1)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights)
    hashes = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")
    return _common.finish(inputs, x, "inception_v3", weights,
                          _common.kernels_url(_BASE, "inception_v3", include_top),
                          hashes[0 if include_top else 1])


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """Inception v3's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes InceptionV3's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
