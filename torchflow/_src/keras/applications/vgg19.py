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
    """Decodes VGG19's ImageNet predictions into ``(class_id, class_name, score)`` lists.

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
