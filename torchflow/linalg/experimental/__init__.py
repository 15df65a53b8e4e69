"""``tf.linalg.experimental``: iterative solvers."""

from torchflow._src.ops.conjugate_gradient_ops import conjugate_gradient as conjugate_gradient
