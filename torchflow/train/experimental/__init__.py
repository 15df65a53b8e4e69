"""``tf.train.experimental``: TF 2.4's loss-scale objects and ``PythonState``."""

from torchflow._src.keras.mixed_precision.graph_rewrite import (
    disable_mixed_precision_graph_rewrite as disable_mixed_precision_graph_rewrite,
)
from torchflow._src.keras.mixed_precision.graph_rewrite import (
    enable_mixed_precision_graph_rewrite as enable_mixed_precision_graph_rewrite,
)
from torchflow._src.train.loss_scale import DynamicLossScale as DynamicLossScale
from torchflow._src.train.loss_scale import FixedLossScale as FixedLossScale
from torchflow._src.train.loss_scale import LossScale as LossScale
from torchflow._src.train.training_utils import PythonState as PythonState
