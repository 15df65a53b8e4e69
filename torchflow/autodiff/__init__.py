"""tf.autodiff."""

from torchflow._src.core.forward_accumulator import ForwardAccumulator as ForwardAccumulator
from torchflow._src.core.tape import GradientTape as GradientTape
