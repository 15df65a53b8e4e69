"""The ResNet builder behind ResNet50/101/152 (v1) and ResNet50V2/101V2/152V2."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.merging.merging import Add
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.pooling import MaxPooling2D
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}


def _bn_axis():
    return 3 if backend.image_data_format() == "channels_last" else 1


def _bn(name):
    return BatchNormalization(axis=_bn_axis(), epsilon=1.001e-5, name=name)


def _block1(x, filters, stride=1, conv_shortcut=True, name=None):
    """A v1 bottleneck block: 1x1, 3x3, 1x1 convolutions plus the shortcut."""
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = _bn(name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = _bn(name + "_1_bn")(x)
    x = Activation("relu", name=name + "_1_relu")(x)
    x = Conv2D(filters, 3, padding="SAME", name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = Activation("relu", name=name + "_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = _bn(name + "_3_bn")(x)
    x = Add(name=name + "_add")([shortcut, x])
    return Activation("relu", name=name + "_out")(x)


def _block2(x, filters, stride=1, conv_shortcut=False, name=None):
    """A v2 (pre-activation) bottleneck block."""
    preact = _bn(name + "_preact_bn")(x)
    preact = Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = _bn(name + "_1_bn")(x)
    x = Activation("relu", name=name + "_1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = Activation("relu", name=name + "_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return Add(name=name + "_out")([shortcut, x])


def _stack(x, filters, blocks, stride1, v2, name):
    """One stage of ``blocks`` bottleneck blocks; v1 strides in its first block, v2 in
    its last, and each begins with a convolution shortcut."""
    if not v2:
        x = _block1(x, filters, stride=stride1, name=name + "_block1")
        for i in range(2, blocks + 1):
            x = _block1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
        return x
    x = _block2(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = _block2(x, filters, name=f"{name}_block{i}")
    return _block2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


_DEPTHS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def build_resnet(depth, v2, include_top, weights, input_tensor, input_shape, pooling, classes,
                 classifier_activation):
    """ResNet50/101/152 (``depth``), v1 or v2 (pre-activation), with TF's names and files."""
    model_name = f"resnet{depth}{'v2' if v2 else ''}"
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape)
    x = ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    if not v2:
        x = _bn("conv1_bn")(x)
        x = Activation("relu", name="conv1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    # v1 strides 1 in conv2 and 2 after; v2 strides 2 at the end of each stage but conv5.
    strides = (1, 2, 2, 2) if not v2 else (2, 2, 2, 1)
    for stage, (filters, blocks, stride) in enumerate(
            zip((64, 128, 256, 512), _DEPTHS[depth], strides), start=2):
        x = _stack(x, filters, blocks, stride, v2, name=f"conv{stage}")
    if v2:
        x = _bn("post_bn")(x)
        x = Activation("relu", name="post_relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights,
                    pool_names=("avg_pool", "max_pool"))
    url = _common.kernels_url(_BASE, model_name, include_top)
    return _common.finish(inputs, x, model_name, weights, url,
                          _HASHES[model_name][0 if include_top else 1])
