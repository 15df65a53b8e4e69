"""``tf.keras.regularizers``."""

from torchflow._src.keras.regularizers import L1 as L1
from torchflow._src.keras.regularizers import L1 as l1
from torchflow._src.keras.regularizers import L1L2 as L1L2
from torchflow._src.keras.regularizers import L2 as L2
from torchflow._src.keras.regularizers import L2 as l2
from torchflow._src.keras.regularizers import Regularizer as Regularizer
from torchflow._src.keras.regularizers import deserialize as deserialize
from torchflow._src.keras.regularizers import get as get
from torchflow._src.keras.regularizers import l1_l2 as l1_l2
from torchflow._src.keras.regularizers import serialize as serialize
