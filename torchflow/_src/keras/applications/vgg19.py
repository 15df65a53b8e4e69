"""``tf.keras.applications.vgg19``: VGG19 (Simonyan & Zisserman, ICLR 2015)."""

from __future__ import annotations

from torchflow._src.keras.applications import _common, imagenet_utils
from torchflow._src.keras.applications._vgg import build_vgg
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.vgg19"


@public(_NS)
@_common.model_doc(kwargs=False)
def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the VGG19 architecture (16 3x3 convolutions, then 3 dense layers)."""
    return build_vgg(19, include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation)


@public(_NS)
@_common.preprocess_doc
def preprocess_input(x, data_format=None):
    """VGG19's preprocessing: RGB to BGR, then each channel minus its ImageNet mean ("caffe")."""
    return imagenet_utils.preprocess(x, data_format, "caffe")


@public(_NS)
def decode_predictions(preds, top=5):
    """VGG19's ImageNet predictions as ``(class_id, class_name, score)`` lists."""
    return _common.decode_predictions(preds, top=top)
