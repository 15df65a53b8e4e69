"""``tf.keras.mixed_precision.experimental`` (TF 2.4's deprecated API)."""

from torchflow._src.keras.mixed_precision.experimental import (
    LossScaleOptimizer as LossScaleOptimizer,
)
from torchflow._src.keras.mixed_precision.experimental import Policy as Policy
from torchflow._src.keras.mixed_precision.experimental import (
    get_layer_policy as get_layer_policy,
)
from torchflow._src.keras.mixed_precision.experimental import global_policy as global_policy
from torchflow._src.keras.mixed_precision.experimental import set_policy as set_policy
