"""``tf.keras.applications.mobilenet_v3``'s utilities (TF 2.4 exports no models here)."""

from __future__ import annotations

from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.mobilenet_v3"


@public(_NS)
def preprocess_input(x, data_format=None):
    """A placeholder kept for API compatibility: MobileNetV3 models rescale their
    input themselves, so ``x`` is returned unchanged."""
    return x


@public(_NS)
def decode_predictions(preds, top=5):
    """ImageNet predictions as ``(class_id, class_name, score)`` lists (see
    ``tf.keras.applications.imagenet_utils.decode_predictions``)."""
    return imagenet_utils.decode_predictions(preds, top=top)
