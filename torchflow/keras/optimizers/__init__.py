"""``tf.keras.optimizers``."""

from torchflow._src.keras.optimizers import deserialize as deserialize
from torchflow._src.keras.optimizers import get as get
from torchflow._src.keras.optimizers import serialize as serialize
from torchflow._src.keras.optimizers.adadelta import Adadelta as Adadelta
from torchflow._src.keras.optimizers.adagrad import Adagrad as Adagrad
from torchflow._src.keras.optimizers.adam import Adam as Adam
from torchflow._src.keras.optimizers.adamax import Adamax as Adamax
from torchflow._src.keras.optimizers.ftrl import Ftrl as Ftrl
from torchflow._src.keras.optimizers.gradient_descent import SGD as SGD
from torchflow._src.keras.optimizers.nadam import Nadam as Nadam
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer as Optimizer
from torchflow._src.keras.optimizers.rmsprop import RMSprop as RMSprop
from torchflow.keras.optimizers import schedules as schedules
