"""``tf.distribute.cluster_resolver``: where a cluster's tasks are (TF_CONFIG, torchrun)."""

from torchflow._src.distribute.cluster_resolver import ClusterResolver as ClusterResolver
from torchflow._src.distribute.cluster_resolver import (
    SimpleClusterResolver as SimpleClusterResolver,
)
from torchflow._src.distribute.cluster_resolver import (
    TFConfigClusterResolver as TFConfigClusterResolver,
)
from torchflow._src.distribute.cluster_resolver import UnionResolver as UnionResolver
from torchflow._src.distribute.cluster_resolver_env import (
    KubernetesClusterResolver as KubernetesClusterResolver,
)
from torchflow._src.distribute.cluster_resolver_env import (
    SlurmClusterResolver as SlurmClusterResolver,
)
