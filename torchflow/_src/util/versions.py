"""The version constants ``tf.version`` publishes.

torchflow implements TensorFlow 2.4's programming model, so it reports TF 2.4.0's
version: programs gate features on ``tf.__version__`` / ``tf.version.VERSION``
(``"2.4.0"``), and the graph-def versions are those a TF 2.4.0 build reads and
writes. GIT_VERSION and COMPILER_VERSION are TF 2.4.0's release build's.
torchflow's own package version is ``importlib.metadata.version("torchflow")``.
"""

VERSION = "2.4.0"
GIT_VERSION = "v2.4.0-rc4-71-g582c8d236cb"
COMPILER_VERSION = "7.3.1 20180303"
GRAPH_DEF_VERSION = 561
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
