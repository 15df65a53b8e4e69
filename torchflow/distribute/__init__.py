"""``tf.distribute``: the Strategy API and the strategies."""

from torchflow._src.distribute.cross_device_ops import CrossDeviceOps as CrossDeviceOps
from torchflow._src.distribute.cross_device_ops import (
    HierarchicalCopyAllReduce as HierarchicalCopyAllReduce,
)
from torchflow._src.distribute.cross_device_ops import NcclAllReduce as NcclAllReduce
from torchflow._src.distribute.cross_device_ops import (
    ReductionToOneDevice as ReductionToOneDevice,
)
from torchflow._src.distribute.distribute_lib import ReplicaContext as ReplicaContext
from torchflow._src.distribute.distribute_lib import Strategy as Strategy
from torchflow._src.distribute.distribute_lib import StrategyExtended as StrategyExtended
from torchflow._src.distribute.distribute_lib import (
    experimental_set_strategy as experimental_set_strategy,
)
from torchflow._src.distribute.ds_context import get_replica_context as get_replica_context
from torchflow._src.distribute.ds_context import get_strategy as get_strategy
from torchflow._src.distribute.ds_context import has_strategy as has_strategy
from torchflow._src.distribute.ds_context import (
    in_cross_replica_context as in_cross_replica_context,
)
from torchflow._src.distribute.input_lib import DistributedDataset as DistributedDataset
from torchflow._src.distribute.input_lib import DistributedIterator as DistributedIterator
from torchflow._src.distribute.input_options import InputContext as InputContext
from torchflow._src.distribute.input_options import InputOptions as InputOptions
from torchflow._src.distribute.input_options import InputReplicationMode as InputReplicationMode
from torchflow._src.distribute.input_options import RunOptions as RunOptions
from torchflow._src.distribute.mirrored_strategy import MirroredStrategy as MirroredStrategy
from torchflow._src.distribute.mirrored_strategy import OneDeviceStrategy as OneDeviceStrategy
from torchflow._src.distribute.multi_worker_mirrored import (
    MultiWorkerMirroredStrategy as MultiWorkerMirroredStrategy,
)
from torchflow._src.distribute.reduce_util import ReduceOp as ReduceOp
from torchflow._src.distribute.server import Server as Server
from torchflow._src.distribute.values import DistributedValues as DistributedValues
from torchflow.distribute import cluster_resolver as cluster_resolver
from torchflow.distribute import experimental as experimental
