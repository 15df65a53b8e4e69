"""``tf.keras.applications.mobilenet``."""

from torchflow._src.keras.applications.mobilenet import MobileNet as MobileNet
from torchflow._src.keras.applications.mobilenet import decode_predictions as decode_predictions
from torchflow._src.keras.applications.mobilenet import preprocess_input as preprocess_input
