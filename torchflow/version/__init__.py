"""``tf.version``: the TensorFlow version torchflow implements (2.4.0)."""

from torchflow._src.util.versions import COMPILER_VERSION as COMPILER_VERSION
from torchflow._src.util.versions import GIT_VERSION as GIT_VERSION
from torchflow._src.util.versions import GRAPH_DEF_VERSION as GRAPH_DEF_VERSION
from torchflow._src.util.versions import (
    GRAPH_DEF_VERSION_MIN_CONSUMER as GRAPH_DEF_VERSION_MIN_CONSUMER,
)
from torchflow._src.util.versions import (
    GRAPH_DEF_VERSION_MIN_PRODUCER as GRAPH_DEF_VERSION_MIN_PRODUCER,
)
from torchflow._src.util.versions import VERSION as VERSION
