"""``tf.keras.models``."""

from torchflow._src.keras.engine.model import Model as Model
from torchflow._src.keras.engine.sequential import Sequential as Sequential
