"""``tf.keras.backend``."""

from torchflow._src.keras.backend import batch_get_value as batch_get_value
from torchflow._src.keras.backend import batch_set_value as batch_set_value
from torchflow._src.keras.backend import cast_to_floatx as cast_to_floatx
from torchflow._src.keras.backend import clear_session as clear_session
from torchflow._src.keras.backend import count_params as count_params
from torchflow._src.keras.backend import dtype as dtype
from torchflow._src.keras.backend import epsilon as epsilon
from torchflow._src.keras.backend import floatx as floatx
from torchflow._src.keras.backend import get_uid as get_uid
from torchflow._src.keras.backend import get_value as get_value
from torchflow._src.keras.backend import image_data_format as image_data_format
from torchflow._src.keras.backend import int_shape as int_shape
from torchflow._src.keras.backend import is_keras_tensor as is_keras_tensor
from torchflow._src.keras.backend import is_sparse as is_sparse
from torchflow._src.keras.backend import learning_phase as learning_phase
from torchflow._src.keras.backend import learning_phase_scope as learning_phase_scope
from torchflow._src.keras.backend import (
    manual_variable_initialization as manual_variable_initialization,
)
from torchflow._src.keras.backend import name_scope as name_scope
from torchflow._src.keras.backend import ndim as ndim
from torchflow._src.keras.backend import reset_uids as reset_uids
from torchflow._src.keras.backend import set_epsilon as set_epsilon
from torchflow._src.keras.backend import set_floatx as set_floatx
from torchflow._src.keras.backend import set_image_data_format as set_image_data_format
from torchflow._src.keras.backend import set_learning_phase as set_learning_phase
from torchflow._src.keras.backend import set_value as set_value
