"""``tf.keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 (He et al., ECCV 2016)."""

from __future__ import annotations

from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.keras.applications._resnet import build_resnet
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.resnet_v2"


@public(_NS)
def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet50V2 architecture.

    Args:
      include_top: Whether to include the fully-connected layer at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      input_shape: Optional shape tuple (at least 32x32; ``(224, 224, 3)`` with
        ``include_top`` and ImageNet weights).
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).
      classifier_activation: The top layer's activation (None or "softmax" with
        pretrained weights).
      **kwargs: Accepted for TF's signature.

    Returns:
      A ``keras.Model``.

    Raises:
      ValueError: For invalid ``weights``, ``classes`` or ``input_shape``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """
    return build_resnet((3, 4, 6, 3), True, "resnet50v2", include_top, weights, input_tensor,
                        input_shape, pooling, classes, classifier_activation)


@public(_NS)
def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet101V2 architecture.

    Args:
      include_top: Whether to include the fully-connected layer at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      input_shape: Optional shape tuple (at least 32x32; ``(224, 224, 3)`` with
        ``include_top`` and ImageNet weights).
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).
      classifier_activation: The top layer's activation (None or "softmax" with
        pretrained weights).
      **kwargs: Accepted for TF's signature.

    Returns:
      A ``keras.Model``.

    Raises:
      ValueError: For invalid ``weights``, ``classes`` or ``input_shape``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """
    return build_resnet((3, 4, 23, 3), True, "resnet101v2", include_top, weights, input_tensor,
                        input_shape, pooling, classes, classifier_activation)


@public(_NS)
def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """Instantiates the ResNet152V2 architecture.

    Args:
      include_top: Whether to include the fully-connected layer at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      input_shape: Optional shape tuple (at least 32x32; ``(224, 224, 3)`` with
        ``include_top`` and ImageNet weights).
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).
      classifier_activation: The top layer's activation (None or "softmax" with
        pretrained weights).
      **kwargs: Accepted for TF's signature.

    Returns:
      A ``keras.Model``.

    Raises:
      ValueError: For invalid ``weights``, ``classes`` or ``input_shape``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """
    return build_resnet((3, 8, 36, 3), True, "resnet152v2", include_top, weights, input_tensor,
                        input_shape, pooling, classes, classifier_activation)


@public(_NS)
def preprocess_input(x, data_format=None):
    """ResNetV2's preprocessing: pixels scaled to [-1, 1] ("tf").

    Args:
      x: A NumPy array (a float one is changed in place) or tensor of RGB images in
        [0, 255], 3-D or 4-D.
      data_format: ``"channels_last"`` or ``"channels_first"`` (the default format if None).

    Returns:
      The preprocessed images.
    """
    return imagenet_utils.preprocess(x, data_format, "tf")


@public(_NS)
def decode_predictions(preds, top=5):
    """ImageNet predictions as ``(class_id, class_name, score)`` lists (see
    ``tf.keras.applications.imagenet_utils.decode_predictions``)."""
    return imagenet_utils.decode_predictions(preds, top=top)
