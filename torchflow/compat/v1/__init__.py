"""``tf.compat.v1``: the TF 1 names TF 2 programs still use (``ConfigProto``, ``GraphDef``)."""

from torchflow._src.core.proto.tf_graph_pb2 import GraphDef as GraphDef
from torchflow._src.train.compat_v1 import ConfigProto as ConfigProto
