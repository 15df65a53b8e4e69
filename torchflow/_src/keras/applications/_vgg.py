"""The VGG builder behind ``VGG16`` and ``VGG19``."""

from __future__ import annotations

from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.core.dense import Dense
from torchflow._src.keras.layers.core.reshaping import Flatten
from torchflow._src.keras.layers.pooling.pooling import MaxPooling2D

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/"
# depth: (convolutions per block, (top hash, no-top hash))
_DEPTHS = {
    16: ((2, 2, 3, 3, 3), ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc")),
    19: ((2, 2, 4, 4, 4), ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6")),
}


def build_vgg(depth, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation):
    """VGG16 or VGG19 (``depth``), with TF's layer names and weight files."""
    convs_per_block, hashes = _DEPTHS[depth]
    name = f"vgg{depth}"
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape)
    x = img_input
    for b, (n, filters) in enumerate(zip(convs_per_block, (64, 128, 256, 512, 512)), start=1):
        for i in range(1, n + 1):
            x = Conv2D(filters, (3, 3), activation="relu", padding="same",
                       name=f"block{b}_conv{i}")(x)
        x = MaxPooling2D((2, 2), strides=(2, 2), name=f"block{b}_pool")(x)
    if include_top:
        x = Flatten(name="flatten")(x)
        x = Dense(4096, activation="relu", name="fc1")(x)
        x = Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    url = _common.kernels_url(f"{_BASE}{name}/", name, include_top)
    return _common.finish(inputs, x, name, weights, url, hashes[0 if include_top else 1])
