"""``tf.keras.wrappers``."""

from torchflow.keras.wrappers import scikit_learn as scikit_learn
