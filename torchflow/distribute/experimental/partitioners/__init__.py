"""``tf.distribute.experimental.partitioners``: how ParameterServerStrategy shards variables."""

from torchflow._src.distribute.partitioners import (
    FixedShardsPartitioner as FixedShardsPartitioner,
)
from torchflow._src.distribute.partitioners import MaxSizePartitioner as MaxSizePartitioner
from torchflow._src.distribute.partitioners import MinSizePartitioner as MinSizePartitioner
from torchflow._src.distribute.partitioners import Partitioner as Partitioner
