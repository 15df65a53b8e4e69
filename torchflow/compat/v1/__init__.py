"""``tf.compat.v1``: the TF 1 names TF 2 programs still use (``ConfigProto``)."""

from torchflow._src.train.compat_v1 import ConfigProto as ConfigProto
