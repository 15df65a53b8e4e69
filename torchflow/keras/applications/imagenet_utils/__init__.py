"""``tf.keras.applications.imagenet_utils``."""

from torchflow._src.keras.applications.imagenet_utils import (
    decode_predictions as decode_predictions,
)
from torchflow._src.keras.applications.imagenet_utils import preprocess_input as preprocess_input
