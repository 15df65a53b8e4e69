"""``tf.keras.applications.inception_v3``."""

from torchflow._src.keras.applications.inception_v3 import InceptionV3 as InceptionV3
from torchflow._src.keras.applications.inception_v3 import decode_predictions as decode_predictions
from torchflow._src.keras.applications.inception_v3 import preprocess_input as preprocess_input
