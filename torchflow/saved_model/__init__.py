"""``tf.saved_model``: TensorFlow's SavedModel format (``saved_model.pb``, ``variables/``)."""

from torchflow._src.train.saved_model.constants import ASSETS_DIRECTORY as ASSETS_DIRECTORY
from torchflow._src.train.saved_model.constants import ASSETS_KEY as ASSETS_KEY
from torchflow._src.train.saved_model.constants import CLASSIFY_INPUTS as CLASSIFY_INPUTS
from torchflow._src.train.saved_model.constants import CLASSIFY_METHOD_NAME as CLASSIFY_METHOD_NAME
from torchflow._src.train.saved_model.constants import (
    CLASSIFY_OUTPUT_CLASSES as CLASSIFY_OUTPUT_CLASSES,
)
from torchflow._src.train.saved_model.constants import (
    CLASSIFY_OUTPUT_SCORES as CLASSIFY_OUTPUT_SCORES,
)
from torchflow._src.train.saved_model.constants import DEBUG_DIRECTORY as DEBUG_DIRECTORY
from torchflow._src.train.saved_model.constants import (
    DEBUG_INFO_FILENAME_PB as DEBUG_INFO_FILENAME_PB,
)
from torchflow._src.train.saved_model.constants import (
    DEFAULT_SERVING_SIGNATURE_DEF_KEY as DEFAULT_SERVING_SIGNATURE_DEF_KEY,
)
from torchflow._src.train.saved_model.constants import GPU as GPU
from torchflow._src.train.saved_model.constants import PREDICT_INPUTS as PREDICT_INPUTS
from torchflow._src.train.saved_model.constants import PREDICT_METHOD_NAME as PREDICT_METHOD_NAME
from torchflow._src.train.saved_model.constants import PREDICT_OUTPUTS as PREDICT_OUTPUTS
from torchflow._src.train.saved_model.constants import REGRESS_INPUTS as REGRESS_INPUTS
from torchflow._src.train.saved_model.constants import REGRESS_METHOD_NAME as REGRESS_METHOD_NAME
from torchflow._src.train.saved_model.constants import REGRESS_OUTPUTS as REGRESS_OUTPUTS
from torchflow._src.train.saved_model.constants import (
    SAVED_MODEL_FILENAME_PB as SAVED_MODEL_FILENAME_PB,
)
from torchflow._src.train.saved_model.constants import (
    SAVED_MODEL_FILENAME_PBTXT as SAVED_MODEL_FILENAME_PBTXT,
)
from torchflow._src.train.saved_model.constants import (
    SAVED_MODEL_SCHEMA_VERSION as SAVED_MODEL_SCHEMA_VERSION,
)
from torchflow._src.train.saved_model.constants import SERVING as SERVING
from torchflow._src.train.saved_model.constants import TPU as TPU
from torchflow._src.train.saved_model.constants import TRAINING as TRAINING
from torchflow._src.train.saved_model.constants import VARIABLES_DIRECTORY as VARIABLES_DIRECTORY
from torchflow._src.train.saved_model.constants import VARIABLES_FILENAME as VARIABLES_FILENAME
from torchflow._src.train.saved_model.constants import Asset as Asset
from torchflow._src.train.saved_model.constants import LoadOptions as LoadOptions
from torchflow._src.train.saved_model.constants import SaveOptions as SaveOptions
from torchflow._src.train.saved_model.load import contains_saved_model as contains_saved_model
from torchflow._src.train.saved_model.load import load as load
from torchflow._src.train.saved_model.save import save as save
from torchflow.saved_model import experimental as experimental
