"""``tf.sets``: set operations along the last dimension of dense and sparse tensors."""

from torchflow._src.ops.set_ops import difference as difference
from torchflow._src.ops.set_ops import intersection as intersection
from torchflow._src.ops.set_ops import size as size
from torchflow._src.ops.set_ops import union as union
