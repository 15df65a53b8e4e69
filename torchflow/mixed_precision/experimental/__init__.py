"""``tf.mixed_precision.experimental``: TF 2.4's loss-scale objects."""

from torchflow._src.train.loss_scale import DynamicLossScale as DynamicLossScale
from torchflow._src.train.loss_scale import FixedLossScale as FixedLossScale
from torchflow._src.train.loss_scale import LossScale as LossScale
