"""``tf.keras.applications.vgg19``."""

from torchflow._src.keras.applications.vgg19 import VGG19 as VGG19
from torchflow._src.keras.applications.vgg19 import decode_predictions as decode_predictions
from torchflow._src.keras.applications.vgg19 import preprocess_input as preprocess_input
