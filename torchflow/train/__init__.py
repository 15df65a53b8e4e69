"""``tf.train``: Example protos (checkpointing adds its names here)."""

from torchflow._src.distribute.cluster_spec import ClusterSpec as ClusterSpec
from torchflow._src.ops.parsing_ops import BytesList as BytesList
from torchflow._src.ops.parsing_ops import Example as Example
from torchflow._src.ops.parsing_ops import Feature as Feature
from torchflow._src.ops.parsing_ops import FeatureList as FeatureList
from torchflow._src.ops.parsing_ops import FeatureLists as FeatureLists
from torchflow._src.ops.parsing_ops import Features as Features
from torchflow._src.ops.parsing_ops import FloatList as FloatList
from torchflow._src.ops.parsing_ops import Int64List as Int64List
from torchflow._src.ops.parsing_ops import SequenceExample as SequenceExample
from torchflow._src.train.checkpoint import Checkpoint as Checkpoint
from torchflow._src.train.checkpoint import CheckpointLoadStatus as CheckpointLoadStatus
from torchflow._src.train.checkpoint_management import CheckpointManager as CheckpointManager
from torchflow._src.train.checkpoint_management import CheckpointReader as CheckpointReader
from torchflow._src.train.checkpoint_management import checkpoints_iterator as checkpoints_iterator
from torchflow._src.train.checkpoint_management import latest_checkpoint as latest_checkpoint
from torchflow._src.train.checkpoint_management import list_variables as list_variables
from torchflow._src.train.checkpoint_management import load_checkpoint as load_checkpoint
from torchflow._src.train.checkpoint_management import load_variable as load_variable
from torchflow._src.train.coordinator import Coordinator as Coordinator
from torchflow._src.train.training_utils import CheckpointOptions as CheckpointOptions
from torchflow._src.train.training_utils import ClusterDef as ClusterDef
from torchflow._src.train.training_utils import (
    ExponentialMovingAverage as ExponentialMovingAverage,
)
from torchflow._src.train.training_utils import JobDef as JobDef
from torchflow._src.train.training_utils import ServerDef as ServerDef
from torchflow._src.train.training_utils import get_checkpoint_state as get_checkpoint_state
from torchflow.train import experimental as experimental
