"""``tf.keras.backend``."""

from torchflow._src.keras.backend import clear_session as clear_session
from torchflow._src.keras.backend import epsilon as epsilon
from torchflow._src.keras.backend import floatx as floatx
from torchflow._src.keras.backend import image_data_format as image_data_format
from torchflow._src.keras.backend import learning_phase as learning_phase
from torchflow._src.keras.backend import set_epsilon as set_epsilon
from torchflow._src.keras.backend import set_floatx as set_floatx
from torchflow._src.keras.backend import set_image_data_format as set_image_data_format
from torchflow._src.keras.backend import set_learning_phase as set_learning_phase
