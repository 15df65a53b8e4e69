"""``tf.keras.applications.nasnet``."""

from torchflow._src.keras.applications.nasnet import NASNetLarge as NASNetLarge
from torchflow._src.keras.applications.nasnet import NASNetMobile as NASNetMobile
from torchflow._src.keras.applications.nasnet import decode_predictions as decode_predictions
from torchflow._src.keras.applications.nasnet import preprocess_input as preprocess_input
