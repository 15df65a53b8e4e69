"""``tf.keras.models``."""

from torchflow._src.keras.engine.cloning import clone_model as clone_model
from torchflow._src.keras.engine.model import Model as Model
from torchflow._src.keras.engine.sequential import Sequential as Sequential
from torchflow._src.keras.saving import load_model as load_model
from torchflow._src.keras.saving import save_model as save_model
