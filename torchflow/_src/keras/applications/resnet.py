"""``tf.keras.applications.resnet``: ResNet50/101/152 (He et al., CVPR 2015)."""

from __future__ import annotations

from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.applications._resnet import build_resnet
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.resnet"


@public(_NS)
@_common.model_doc()
def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet50 architecture: a 50-layer residual network."""
    return build_resnet(50, False, include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation)


@public(_NS)
@_common.model_doc()
def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet101 architecture: a 101-layer residual network."""
    return build_resnet(101, False, include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation)


@public(_NS)
@_common.model_doc()
def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet152 architecture: a 152-layer residual network."""
    return build_resnet(152, False, include_top, weights, input_tensor, input_shape, pooling,
                        classes, classifier_activation)


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """ResNet's preprocessing: RGB to BGR, then each channel minus its ImageNet mean ("caffe")."""
    return imagenet_utils.preprocess(x, data_format, "caffe")


@public(_NS)
def decode_predictions(preds, top=5):
    """ResNet's ImageNet predictions as ``(class_id, class_name, score)`` lists."""
    return _common.decode_predictions(preds, top=top)
