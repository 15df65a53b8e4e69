"""``tf.keras.applications.inception_resnet_v2``."""

from torchflow._src.keras.applications.inception_resnet_v2 import (
    InceptionResNetV2 as InceptionResNetV2,
)
from torchflow._src.keras.applications.inception_resnet_v2 import (
    decode_predictions as decode_predictions,
)
from torchflow._src.keras.applications.inception_resnet_v2 import (
    preprocess_input as preprocess_input,
)
