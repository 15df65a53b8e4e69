"""``tf.keras.applications.vgg16``."""

from torchflow._src.keras.applications.vgg16 import VGG16 as VGG16
from torchflow._src.keras.applications.vgg16 import decode_predictions as decode_predictions
from torchflow._src.keras.applications.vgg16 import preprocess_input as preprocess_input
