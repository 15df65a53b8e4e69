"""``tf.types.experimental``: annotation types (``TensorLike``)."""

from torchflow._src.core.tensor_like import TensorLike as TensorLike
