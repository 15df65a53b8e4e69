"""``tf.keras``: Keras 2 (the Keras of TF 2.4) on torchflow."""

from torchflow._src.keras.engine.functional import Functional as Functional
from torchflow._src.keras.engine.input_layer import Input as Input
from torchflow._src.keras.engine.keras_tensor import KerasTensor as KerasTensor
from torchflow._src.keras.engine.model import Model as Model
from torchflow._src.keras.engine.sequential import Sequential as Sequential
from torchflow.keras import activations as activations
from torchflow.keras import applications as applications
from torchflow.keras import backend as backend
from torchflow.keras import callbacks as callbacks
from torchflow.keras import constraints as constraints
from torchflow.keras import datasets as datasets
from torchflow.keras import estimator as estimator
from torchflow.keras import experimental as experimental
from torchflow.keras import initializers as initializers
from torchflow.keras import layers as layers
from torchflow.keras import losses as losses
from torchflow.keras import metrics as metrics
from torchflow.keras import mixed_precision as mixed_precision
from torchflow.keras import models as models
from torchflow.keras import optimizers as optimizers
from torchflow.keras import preprocessing as preprocessing
from torchflow.keras import regularizers as regularizers
from torchflow.keras import utils as utils
from torchflow.keras import wrappers as wrappers
