"""``tf.keras.applications.resnet_v2``."""

from torchflow._src.keras.applications.resnet_v2 import ResNet50V2 as ResNet50V2
from torchflow._src.keras.applications.resnet_v2 import ResNet101V2 as ResNet101V2
from torchflow._src.keras.applications.resnet_v2 import ResNet152V2 as ResNet152V2
from torchflow._src.keras.applications.resnet_v2 import decode_predictions as decode_predictions
from torchflow._src.keras.applications.resnet_v2 import preprocess_input as preprocess_input
