"""``tf.keras.applications.nasnet``: NASNet-A Mobile and Large (Zoph et al., CVPR 2018).

NASNet is built for ``channels_last`` only, as in TF.
"""

from __future__ import annotations

import logging

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.convolutional.separable_conv import SeparableConv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.merging.merging import add, concatenate
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.pooling import AveragePooling2D, MaxPooling2D
from torchflow._src.keras.layers.reshaping.padding_cropping import Cropping2D, ZeroPadding2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.nasnet"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
_log = logging.getLogger("tensorflow")


def _bn(name=None):
    return BatchNormalization(axis=-1, momentum=0.9997, epsilon=1e-3, name=name)


def _conv1x1(x, filters, name, strides=(1, 1)):
    return Conv2D(filters, (1, 1), strides=strides, padding="same", use_bias=False, name=name,
                  kernel_initializer="he_normal")(x)


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    x = Activation("relu")(ip)
    if strides == (2, 2):
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                          name=f"separable_conv_1_pad_{block_id}")(x)
        pad = "valid"
    else:
        pad = "same"
    x = SeparableConv2D(filters, kernel_size, strides=strides, name=f"separable_conv_1_{block_id}",
                        padding=pad, use_bias=False, kernel_initializer="he_normal")(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = Activation("relu")(x)
    x = SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}",
                        padding="same", use_bias=False, kernel_initializer="he_normal")(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p, ip, filters, block_id=None):
    """Makes the previous cell's output ``p`` match ``ip``'s size and ``filters``."""
    if p is None:
        return ip
    ip_shape, p_shape = backend.int_shape(ip), backend.int_shape(p)
    if p_shape[-2] != ip_shape[-2]:
        p = Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                              name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        p2 = ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                              name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        p = concatenate([p1, p2], axis=-1)
        p = _bn(f"adjust_bn_{block_id}")(p)
    elif p_shape[-1] != filters:
        p = Activation("relu")(p)
        p = _conv1x1(p, filters, f"adjust_conv_projection_{block_id}")
        p = _bn(f"adjust_bn_{block_id}")(p)
    return p


def _normal_a_cell(ip, p, filters, block_id=None):
    p = _adjust_block(p, ip, filters, block_id)
    h = Activation("relu")(ip)
    h = _conv1x1(h, filters, f"normal_conv_1_{block_id}")
    h = _bn(f"normal_bn_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), block_id=f"normal_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
    x1 = add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
    x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
    x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
    x2 = add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
    x3 = AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                          name=f"normal_left3_{block_id}")(h)
    x3 = add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                            name=f"normal_left4_{block_id}")(p)
    x4_2 = AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                            name=f"normal_right4_{block_id}")(p)
    x4 = add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = add([x5, h], name=f"normal_add_5_{block_id}")
    x = concatenate([p, x1, x2, x3, x4, x5], axis=-1, name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    p = _adjust_block(p, ip, filters, block_id)
    h = Activation("relu")(ip)
    h = _conv1x1(h, filters, f"reduction_conv_1_{block_id}")
    h = _bn(f"reduction_bn_1_{block_id}")(h)
    h3 = ZeroPadding2D(padding=imagenet_utils.correct_pad(h, 3),
                       name=f"reduction_pad_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right1_{block_id}")
    x1 = add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
    x2_1 = MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                        name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right2_{block_id}")
    x2 = add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = AveragePooling2D((3, 3), strides=(2, 2), padding="valid",
                            name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_right3_{block_id}")
    x3 = add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                          name=f"reduction_left4_{block_id}")(x1)
    x4 = add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                        name=f"reduction_right5_{block_id}")(h3)
    x5 = add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{block_id}")
    return x, ip


def _nasnet(input_shape, penultimate_filters, num_blocks, stem_block_filters, skip_reduction,
            filter_multiplier, include_top, weights, input_tensor, pooling, classes,
            default_size, classifier_activation, files):
    imagenet_utils.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` "
                         "weights, the input_shape argument must be static (no None entries). "
                         f"Got: `input_shape={input_shape}`.")
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32,
        data_format=backend.image_data_format(), require_flatten=True, weights=weights)
    old_format = None
    if backend.image_data_format() != "channels_last":
        _log.warning("The NASNet family of models is only available for the input data format "
                     '"channels_last" (width, height, channels). However your settings specify '
                     'the default data format "channels_first" (channels, width, height). You '
                     'should set `image_data_format="channels_last"` in your Keras config '
                     "located at ~/.keras/keras.json. The model being returned right now will "
                     'expect inputs to follow the "channels_last" data format.')
        backend.set_image_data_format("channels_last")
        old_format = "channels_first"
    img_input, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    if penultimate_filters % (24 * (filter_multiplier ** 2)) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of "
                         f"24 * (`filter_multiplier` ** 2). Current value: "
                         f"{penultimate_filters}")
    filters = penultimate_filters // 24
    x = Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid", use_bias=False,
               name="stem_conv1", kernel_initializer="he_normal")(img_input)
    x = _bn("stem_bn1")(x)
    p = None
    x, p = _reduction_a_cell(x, p, filters // (filter_multiplier ** 2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stage in range(3):
        width = filters * filter_multiplier ** stage
        if stage:
            x, p0 = _reduction_a_cell(x, p, width, block_id=f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, width, block_id=str(stage * num_blocks + i + (stage > 0)))
    x = Activation("relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights,
                    avg_name=None)
    model = Model(inputs, x, name="NASNet")
    model = imagenet_utils.load_weights(model, weights,
                                        _BASE + files[0 if include_top else 1])
    if old_format:
        backend.set_image_data_format(old_format)
    return model


@public(_NS)
@_common.model_doc(default_size=224, kwargs=False, classifier_activation=False)
def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
                 pooling=None, classes=1000):
    """Instantiates the NASNet-A Mobile architecture; the model is named ``NASNet``."""
    return _nasnet(input_shape, 1056, 4, 32, False, 2, include_top, weights, input_tensor,
                   pooling, classes, 224, "softmax",
                   ("NASNet-mobile.h5", "NASNet-mobile-no-top.h5"))


@public(_NS)
@_common.model_doc(default_size=331, kwargs=False, classifier_activation=False)
def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
                pooling=None, classes=1000):
    """Instantiates the NASNet-A Large architecture; the model is named ``NASNet``."""
    return _nasnet(input_shape, 4032, 6, 96, True, 2, include_top, weights, input_tensor,
                   pooling, classes, 331, "softmax",
                   ("NASNet-large.h5", "NASNet-large-no-top.h5"))


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """NASNet's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes NASNet's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
