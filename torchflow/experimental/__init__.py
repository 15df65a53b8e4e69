"""``tf.experimental``."""

from torchflow._src.data.iterator_ops import Optional as Optional
from torchflow.experimental import dlpack as dlpack
from torchflow.experimental import numpy as numpy
