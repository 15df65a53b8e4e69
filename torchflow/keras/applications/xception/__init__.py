"""``tf.keras.applications.xception``."""

from torchflow._src.keras.applications.xception import Xception as Xception
from torchflow._src.keras.applications.xception import decode_predictions as decode_predictions
from torchflow._src.keras.applications.xception import preprocess_input as preprocess_input
