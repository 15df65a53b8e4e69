"""``tf.distribute.experimental.coordinator``: scheduling functions on parameter-server workers."""

from torchflow._src.distribute.coordinator import ClusterCoordinator as ClusterCoordinator
from torchflow._src.distribute.coordinator import PerWorkerValues as PerWorkerValues
from torchflow._src.distribute.coordinator import RemoteValue as RemoteValue
