"""``tf.keras.applications.densenet``: DenseNet121/169/201 (Huang et al., CVPR 2017)."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.convolutional.base_conv import Conv2D
from torchflow._src.keras.layers.core.activation import Activation
from torchflow._src.keras.layers.merging.merging import Concatenate
from torchflow._src.keras.layers.normalization.batch_normalization import BatchNormalization
from torchflow._src.keras.layers.pooling.pooling import AveragePooling2D, MaxPooling2D
from torchflow._src.keras.layers.reshaping.padding_cropping import ZeroPadding2D
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.densenet"
_BASE = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
_HASHES = {
    "densenet121": ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
    "densenet169": ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
    "densenet201": ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}


def _axis():
    return 3 if backend.image_data_format() == "channels_last" else 1


def _bn(name):
    return BatchNormalization(axis=_axis(), epsilon=1.001e-5, name=name)


def _conv_block(x, growth_rate, name):
    x1 = _bn(name + "_0_bn")(x)
    x1 = Activation("relu", name=name + "_0_relu")(x1)
    x1 = Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = _bn(name + "_1_bn")(x1)
    x1 = Activation("relu", name=name + "_1_relu")(x1)
    x1 = Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    return Concatenate(axis=_axis(), name=name + "_concat")([x, x1])


def _transition_block(x, reduction, name):
    x = _bn(name + "_bn")(x)
    x = Activation("relu", name=name + "_relu")(x)
    x = Conv2D(int(backend.int_shape(x)[_axis()] * reduction), 1, use_bias=False,
               name=name + "_conv")(x)
    return AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def _densenet(blocks, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation):
    img_input, inputs = _common.model_input(weights, include_top, classes, input_tensor,
                                            input_shape)
    x = ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = _bn("conv1/bn")(x)
    x = Activation("relu", name="conv1/relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, n in enumerate(blocks, start=2):
        for i in range(1, n + 1):
            x = _conv_block(x, 32, name=f"conv{stage}_block{i}")
        if stage < 5:
            x = _transition_block(x, 0.5, name=f"pool{stage}")
    x = _bn("bn")(x)
    x = Activation("relu", name="relu")(x)
    x = _common.top(x, include_top, pooling, classes, classifier_activation, weights,
                    pool_names=("avg_pool", "max_pool"))
    name = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169",
            (6, 12, 48, 32): "densenet201"}.get(tuple(blocks), "densenet")
    model = Model(inputs, x, name=name)
    if weights == "imagenet" and name == "densenet":
        weights = None
    url = _common.kernels_url(_BASE, name, include_top)
    file_hash = _HASHES.get(name, (None, None))[0 if include_top else 1]
    return imagenet_utils.load_weights(model, weights, url, file_hash)


@public(_NS)
@_common.model_doc(kwargs=False)
def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the DenseNet121 architecture: a densely connected network with 121 layers."""
    return _densenet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation)


@public(_NS)
@_common.model_doc(kwargs=False)
def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the DenseNet169 architecture: a densely connected network with 169 layers."""
    return _densenet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation)


@public(_NS)
@_common.model_doc(kwargs=False)
def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the DenseNet201 architecture: a densely connected network with 201 layers."""
    return _densenet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling,
                     classes, classifier_activation)


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """DenseNet's preprocessing: pixels scaled to [0, 1], then normalized by the
    ImageNet mean and standard deviation per channel ("torch")."""
    return imagenet_utils.preprocess(x, data_format, "torch")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes DenseNet's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
