"""``tf.compat``: compatibility namespaces (``tf.compat.v1``)."""

from torchflow.compat import v1 as v1
