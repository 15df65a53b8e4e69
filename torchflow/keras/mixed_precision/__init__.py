"""``tf.keras.mixed_precision``."""

from torchflow._src.keras.mixed_precision.loss_scale_optimizer import (
    LossScaleOptimizer as LossScaleOptimizer,
)
from torchflow._src.keras.mixed_precision.policy import Policy as Policy
from torchflow._src.keras.mixed_precision.policy import global_policy as global_policy
from torchflow._src.keras.mixed_precision.policy import set_global_policy as set_global_policy
from torchflow.keras.mixed_precision import experimental as experimental
