"""``tf.keras.applications.efficientnet``."""

from torchflow._src.keras.applications.efficientnet import EfficientNetB0 as EfficientNetB0
from torchflow._src.keras.applications.efficientnet import EfficientNetB1 as EfficientNetB1
from torchflow._src.keras.applications.efficientnet import EfficientNetB2 as EfficientNetB2
from torchflow._src.keras.applications.efficientnet import EfficientNetB3 as EfficientNetB3
from torchflow._src.keras.applications.efficientnet import EfficientNetB4 as EfficientNetB4
from torchflow._src.keras.applications.efficientnet import EfficientNetB5 as EfficientNetB5
from torchflow._src.keras.applications.efficientnet import EfficientNetB6 as EfficientNetB6
from torchflow._src.keras.applications.efficientnet import EfficientNetB7 as EfficientNetB7
from torchflow._src.keras.applications.efficientnet import decode_predictions as decode_predictions
from torchflow._src.keras.applications.efficientnet import preprocess_input as preprocess_input
