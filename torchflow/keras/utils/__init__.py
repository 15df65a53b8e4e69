"""``tf.keras.utils``."""

# --- ENGINE DATA (keras-behaviour) ---
from torchflow._src.keras.engine.data_adapter import (
    pack_x_y_sample_weight as pack_x_y_sample_weight,
)
from torchflow._src.keras.engine.data_adapter import (
    unpack_x_y_sample_weight as unpack_x_y_sample_weight,
)

# --- BASICS ---
from torchflow._src.keras.utils.data_utils import get_file as get_file
from torchflow._src.keras.utils.generic_utils import CustomObjectScope as CustomObjectScope
from torchflow._src.keras.utils.generic_utils import custom_object_scope as custom_object_scope
from torchflow._src.keras.utils.generic_utils import (
    deserialize_keras_object as deserialize_keras_object,
)
from torchflow._src.keras.utils.generic_utils import get_custom_objects as get_custom_objects
from torchflow._src.keras.utils.generic_utils import get_registered_name as get_registered_name
from torchflow._src.keras.utils.generic_utils import get_registered_object as get_registered_object
from torchflow._src.keras.utils.generic_utils import (
    register_keras_serializable as register_keras_serializable,
)
from torchflow._src.keras.utils.generic_utils import (
    serialize_keras_object as serialize_keras_object,
)
from torchflow._src.keras.utils.layer_utils import get_source_inputs as get_source_inputs
from torchflow._src.keras.utils.np_utils import normalize as normalize
from torchflow._src.keras.utils.np_utils import to_categorical as to_categorical
from torchflow._src.keras.utils.progbar import Progbar as Progbar
from torchflow._src.keras.utils.sequence import GeneratorEnqueuer as GeneratorEnqueuer
from torchflow._src.keras.utils.sequence import OrderedEnqueuer as OrderedEnqueuer
from torchflow._src.keras.utils.sequence import Sequence as Sequence
from torchflow._src.keras.utils.sequence import SequenceEnqueuer as SequenceEnqueuer
from torchflow._src.keras.utils.vis_utils import model_to_dot as model_to_dot
from torchflow._src.keras.utils.vis_utils import plot_model as plot_model
from torchflow.keras.utils import experimental as experimental
# --- end BASICS ---
