"""``tf.saved_model.experimental``."""

from torchflow._src.train.saved_model.constants import VariablePolicy as VariablePolicy
