"""tf.autodiff."""

from torchflow._src.core.tape import GradientTape as GradientTape
