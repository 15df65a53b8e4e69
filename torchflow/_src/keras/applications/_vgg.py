"""The VGG builder behind ``VGG16`` and ``VGG19``."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.core.dense import Dense
from torchflow._src.keras.layers.core.reshaping import Flatten
from torchflow._src.keras.layers.pooling.pooling import MaxPooling2D

_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/"


def build_vgg(convs_per_block, name, include_top, weights, input_tensor, input_shape, pooling,
              classes, classifier_activation, hashes):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=backend.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input, inputs = imagenet_utils.model_input(input_tensor, input_shape)
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
    model = Model(inputs, x, name=name)
    suffix = "" if include_top else "_notop"
    url = f"{_BASE}{name}/{name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return imagenet_utils.load_weights(model, weights, url, hashes[0 if include_top else 1])
