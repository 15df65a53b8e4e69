"""``tf.keras.applications.mobilenet_v3``."""

from torchflow._src.keras.applications.mobilenet_v3 import decode_predictions as decode_predictions
from torchflow._src.keras.applications.mobilenet_v3 import preprocess_input as preprocess_input
