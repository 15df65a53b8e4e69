"""``tf.keras.applications.vgg16``: VGG16 (Simonyan & Zisserman, ICLR 2015)."""

from __future__ import annotations

from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.keras.applications._vgg import build_vgg
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.vgg16"


@public(_NS)
def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax"):
    """Instantiates the VGG16 architecture.

    Args:
      include_top: Whether to include the 3 fully-connected layers at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      input_shape: Optional shape tuple, e.g. ``(224, 224, 3)`` (at least 32x32;
        exactly that with ``include_top`` and ImageNet weights).
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).
      classifier_activation: The top layer's activation (None or "softmax" with
        pretrained weights).

    Returns:
      A ``keras.Model``.

    Raises:
      ValueError: For invalid ``weights``, ``classes`` or ``input_shape``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """
    return build_vgg((2, 2, 3, 3, 3), "vgg16", include_top, weights, input_tensor, input_shape,
                     pooling, classes, classifier_activation,
                     ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc"))


@public(_NS)
def preprocess_input(x, data_format=None):
    """VGG's preprocessing: RGB to BGR, then each channel minus its ImageNet mean ("caffe").

    Args:
      x: A NumPy array (a float one is changed in place) or tensor of RGB images in
        [0, 255], 3-D or 4-D.
      data_format: ``"channels_last"`` or ``"channels_first"`` (the default format if None).

    Returns:
      The preprocessed images.
    """
    return imagenet_utils.preprocess(x, data_format, "caffe")


@public(_NS)
def decode_predictions(preds, top=5):
    """ImageNet predictions as ``(class_id, class_name, score)`` lists (see
    ``tf.keras.applications.imagenet_utils.decode_predictions``)."""
    return imagenet_utils.decode_predictions(preds, top=top)
