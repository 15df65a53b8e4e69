"""``tf.keras.losses``."""

from torchflow._src.keras.losses import deserialize as deserialize
from torchflow._src.keras.losses import get as get
from torchflow._src.keras.losses import serialize as serialize
from torchflow._src.keras.losses._utils import Reduction as Reduction
from torchflow._src.keras.losses.loss import Loss as Loss
from torchflow._src.keras.losses.loss import LossFunctionWrapper as LossFunctionWrapper
from torchflow._src.keras.losses.loss_classes import BinaryCrossentropy as BinaryCrossentropy
from torchflow._src.keras.losses.loss_classes import (
    CategoricalCrossentropy as CategoricalCrossentropy,
)
from torchflow._src.keras.losses.loss_classes import CategoricalHinge as CategoricalHinge
from torchflow._src.keras.losses.loss_classes import CosineSimilarity as CosineSimilarity
from torchflow._src.keras.losses.loss_classes import Hinge as Hinge
from torchflow._src.keras.losses.loss_classes import Huber as Huber
from torchflow._src.keras.losses.loss_classes import KLDivergence as KLDivergence
from torchflow._src.keras.losses.loss_classes import LogCosh as LogCosh
from torchflow._src.keras.losses.loss_classes import MeanAbsoluteError as MeanAbsoluteError
from torchflow._src.keras.losses.loss_classes import (
    MeanAbsolutePercentageError as MeanAbsolutePercentageError,
)
from torchflow._src.keras.losses.loss_classes import MeanSquaredError as MeanSquaredError
from torchflow._src.keras.losses.loss_classes import (
    MeanSquaredLogarithmicError as MeanSquaredLogarithmicError,
)
from torchflow._src.keras.losses.loss_classes import Poisson as Poisson
from torchflow._src.keras.losses.loss_classes import (
    SparseCategoricalCrossentropy as SparseCategoricalCrossentropy,
)
from torchflow._src.keras.losses.loss_classes import SquaredHinge as SquaredHinge
from torchflow._src.keras.losses.loss_functions import binary_crossentropy as BCE
from torchflow._src.keras.losses.loss_functions import binary_crossentropy as bce
from torchflow._src.keras.losses.loss_functions import binary_crossentropy as binary_crossentropy
from torchflow._src.keras.losses.loss_functions import (
    categorical_crossentropy as categorical_crossentropy,
)
from torchflow._src.keras.losses.loss_functions import categorical_hinge as categorical_hinge
from torchflow._src.keras.losses.loss_functions import cosine_similarity as cosine_similarity
from torchflow._src.keras.losses.loss_functions import hinge as hinge
from torchflow._src.keras.losses.loss_functions import huber as huber
from torchflow._src.keras.losses.loss_functions import kl_divergence as KLD
from torchflow._src.keras.losses.loss_functions import kl_divergence as kl_divergence
from torchflow._src.keras.losses.loss_functions import kl_divergence as kld
from torchflow._src.keras.losses.loss_functions import kl_divergence as kullback_leibler_divergence
from torchflow._src.keras.losses.loss_functions import log_cosh as log_cosh
from torchflow._src.keras.losses.loss_functions import log_cosh as logcosh
from torchflow._src.keras.losses.loss_functions import mean_absolute_error as MAE
from torchflow._src.keras.losses.loss_functions import mean_absolute_error as mae
from torchflow._src.keras.losses.loss_functions import mean_absolute_error as mean_absolute_error
from torchflow._src.keras.losses.loss_functions import mean_absolute_percentage_error as MAPE
from torchflow._src.keras.losses.loss_functions import mean_absolute_percentage_error as mape
from torchflow._src.keras.losses.loss_functions import (
    mean_absolute_percentage_error as mean_absolute_percentage_error,
)
from torchflow._src.keras.losses.loss_functions import mean_squared_error as MSE
from torchflow._src.keras.losses.loss_functions import mean_squared_error as mean_squared_error
from torchflow._src.keras.losses.loss_functions import mean_squared_error as mse
from torchflow._src.keras.losses.loss_functions import mean_squared_logarithmic_error as MSLE
from torchflow._src.keras.losses.loss_functions import (
    mean_squared_logarithmic_error as mean_squared_logarithmic_error,
)
from torchflow._src.keras.losses.loss_functions import mean_squared_logarithmic_error as msle
from torchflow._src.keras.losses.loss_functions import poisson as poisson
from torchflow._src.keras.losses.loss_functions import (
    sparse_categorical_crossentropy as sparse_categorical_crossentropy,
)
from torchflow._src.keras.losses.loss_functions import squared_hinge as squared_hinge
