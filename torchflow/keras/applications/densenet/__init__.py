"""``tf.keras.applications.densenet``."""

from torchflow._src.keras.applications.densenet import DenseNet121 as DenseNet121
from torchflow._src.keras.applications.densenet import DenseNet169 as DenseNet169
from torchflow._src.keras.applications.densenet import DenseNet201 as DenseNet201
from torchflow._src.keras.applications.densenet import decode_predictions as decode_predictions
from torchflow._src.keras.applications.densenet import preprocess_input as preprocess_input
