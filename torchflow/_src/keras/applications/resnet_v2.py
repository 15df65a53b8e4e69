"""``tf.keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 (He et al., ECCV 2016)."""

from __future__ import annotations

from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.applications._resnet import build_resnet
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.resnet_v2"


@public(_NS)
@_common.model_doc()
def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet50V2 architecture: a 50-layer pre-activation residual network."""
    return build_resnet(50, True, include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation)


@public(_NS)
@_common.model_doc()
def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet101V2 architecture: a 101-layer pre-activation residual network."""
    return build_resnet(101, True, include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation)


@public(_NS)
@_common.model_doc()
def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet152V2 architecture: a 152-layer pre-activation residual network."""
    return build_resnet(152, True, include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation)


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """ResNetV2's preprocessing: pixels scaled to [-1, 1] ("tf")."""
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes ResNetV2's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
