"""``tf.keras.activations``."""

from torchflow._src.keras.activations import deserialize as deserialize
from torchflow._src.keras.activations import elu as elu
from torchflow._src.keras.activations import exponential as exponential
from torchflow._src.keras.activations import gelu as gelu
from torchflow._src.keras.activations import get as get
from torchflow._src.keras.activations import hard_sigmoid as hard_sigmoid
from torchflow._src.keras.activations import linear as linear
from torchflow._src.keras.activations import relu as relu
from torchflow._src.keras.activations import selu as selu
from torchflow._src.keras.activations import serialize as serialize
from torchflow._src.keras.activations import sigmoid as sigmoid
from torchflow._src.keras.activations import softmax as softmax
from torchflow._src.keras.activations import softplus as softplus
from torchflow._src.keras.activations import softsign as softsign
from torchflow._src.keras.activations import swish as swish
from torchflow._src.keras.activations import tanh as tanh
