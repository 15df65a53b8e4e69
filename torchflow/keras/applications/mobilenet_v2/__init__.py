"""``tf.keras.applications.mobilenet_v2``."""

from torchflow._src.keras.applications.mobilenet_v2 import MobileNetV2 as MobileNetV2
from torchflow._src.keras.applications.mobilenet_v2 import decode_predictions as decode_predictions
from torchflow._src.keras.applications.mobilenet_v2 import preprocess_input as preprocess_input
