"""``tf.keras.applications.resnet50``."""

from torchflow._src.keras.applications.resnet import ResNet50 as ResNet50
from torchflow._src.keras.applications.resnet import decode_predictions as decode_predictions
from torchflow._src.keras.applications.resnet import preprocess_input as preprocess_input
