"""``tf.keras.models``."""

from torchflow._src.keras.engine.cloning import clone_model as clone_model
from torchflow._src.keras.engine.model import Model as Model
from torchflow._src.keras.engine.sequential import Sequential as Sequential
from torchflow._src.keras.saving import load_model as load_model
from torchflow._src.keras.saving import save_model as save_model
from torchflow._src.keras.saving.model_config import model_from_config as model_from_config
from torchflow._src.keras.saving.model_config import model_from_json as model_from_json
from torchflow._src.keras.saving.model_config import model_from_yaml as model_from_yaml
