"""``tf.graph_util``: importing a ``GraphDef`` (``import_graph_def``)."""

from torchflow._src.ops.graph_import import import_graph_def as import_graph_def
