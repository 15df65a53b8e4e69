"""``tf.keras.applications.inception_resnet_v2``: Inception-ResNet v2 (Szegedy et al., 2017)."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.core.lambda_layer import Lambda
from torchflow._src.keras.layers.merging.merging import Concatenate
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.pooling import AveragePooling2D, MaxPooling2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.inception_resnet_v2"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/"


def _axis():
    return 1 if backend.image_data_format() == "channels_first" else 3


def _conv_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu",
             use_bias=False, name=None):
    x = Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias,
               name=name)(x)
    if not use_bias:
        x = BatchNormalization(axis=_axis(), scale=False,
                               name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def _scaled_sum(inputs, scale):
    return inputs[0] + inputs[1] * scale


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """One residual Inception block: ``x + scale * conv(concat(branches))``.

    Raises:
      ValueError: For a ``block_type`` other than block35, block17 or block8.
    """
    if block_type == "block35":
        branches = [_conv_bn(x, 32, 1), _conv_bn(_conv_bn(x, 32, 1), 32, 3),
                    _conv_bn(_conv_bn(_conv_bn(x, 32, 1), 48, 3), 64, 3)]
    elif block_type == "block17":
        branches = [_conv_bn(x, 192, 1),
                    _conv_bn(_conv_bn(_conv_bn(x, 128, 1), 160, [1, 7]), 192, [7, 1])]
    elif block_type == "block8":
        branches = [_conv_bn(x, 192, 1),
                    _conv_bn(_conv_bn(_conv_bn(x, 192, 1), 224, [1, 3]), 256, [3, 1])]
    else:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" or '
                         f'"block8", but got: {block_type}')
    name = f"{block_type}_{block_idx}"
    mixed = Concatenate(axis=_axis(), name=name + "_mixed")(branches)
    up = _conv_bn(mixed, backend.int_shape(x)[_axis()], 1, activation=None, use_bias=True,
                  name=name + "_conv")
    x = Lambda(_scaled_sum, output_shape=backend.int_shape(x)[1:], arguments={"scale": scale},
               name=name)([x, up])
    if activation is not None:
        x = Activation(activation, name=name + "_ac")(x)
    return x


@public(_NS)
@_common.model_doc(min_size=75, default_size=299)
def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                      pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the InceptionResNetV2 architecture (Szegedy et al., 2016)."""
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape, default_size=299,
                                            min_size=75)
    x = _conv_bn(img_input, 32, 3, strides=2, padding="valid")
    x = _conv_bn(x, 32, 3, padding="valid")
    x = _conv_bn(x, 64, 3)
    x = MaxPooling2D(3, strides=2)(x)
    x = _conv_bn(x, 80, 1, padding="valid")
    x = _conv_bn(x, 192, 3, padding="valid")
    x = MaxPooling2D(3, strides=2)(x)
    x = Concatenate(axis=_axis(), name="mixed_5b")(
        [_conv_bn(x, 96, 1), _conv_bn(_conv_bn(x, 48, 1), 64, 5),
         _conv_bn(_conv_bn(_conv_bn(x, 64, 1), 96, 3), 96, 3),
         _conv_bn(AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)])
    for i in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=i)
    x = Concatenate(axis=_axis(), name="mixed_6a")(
        [_conv_bn(x, 384, 3, strides=2, padding="valid"),
         _conv_bn(_conv_bn(_conv_bn(x, 256, 1), 256, 3), 384, 3, strides=2, padding="valid"),
         MaxPooling2D(3, strides=2, padding="valid")(x)])
    for i in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=i)
    x = Concatenate(axis=_axis(), name="mixed_7a")(
        [_conv_bn(_conv_bn(x, 256, 1), 384, 3, strides=2, padding="valid"),
         _conv_bn(_conv_bn(x, 256, 1), 288, 3, strides=2, padding="valid"),
         _conv_bn(_conv_bn(_conv_bn(x, 256, 1), 288, 3), 320, 3, strides=2, padding="valid"),
         MaxPooling2D(3, strides=2, padding="valid")(x)])
    for i in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=i)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = _conv_bn(x, 1536, 1, name="conv_7b")
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights)
    hashes = ("e693bd0210a403b3192acc6073ad2e96", "d19885ff4a710c122648d3b5c3b684e4")
    return _common.finish(inputs, x, "inception_resnet_v2", weights,
                          _common.kernels_url(_BASE, "inception_resnet_v2", include_top),
                          hashes[0 if include_top else 1])


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """Inception-ResNet v2's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes InceptionResNetV2's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
