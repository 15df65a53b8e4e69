"""``tf.keras.constraints``."""

from torchflow._src.keras.constraints import Constraint as Constraint
from torchflow._src.keras.constraints import MaxNorm as MaxNorm
from torchflow._src.keras.constraints import MaxNorm as max_norm
from torchflow._src.keras.constraints import MinMaxNorm as MinMaxNorm
from torchflow._src.keras.constraints import MinMaxNorm as min_max_norm
from torchflow._src.keras.constraints import NonNeg as NonNeg
from torchflow._src.keras.constraints import NonNeg as non_neg
from torchflow._src.keras.constraints import RadialConstraint as RadialConstraint
from torchflow._src.keras.constraints import RadialConstraint as radial_constraint
from torchflow._src.keras.constraints import UnitNorm as UnitNorm
from torchflow._src.keras.constraints import UnitNorm as unit_norm
from torchflow._src.keras.constraints import deserialize as deserialize
from torchflow._src.keras.constraints import get as get
from torchflow._src.keras.constraints import serialize as serialize
