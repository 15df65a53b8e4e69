"""``tf.keras.estimator``."""

from torchflow._src.keras.estimator import model_to_estimator as model_to_estimator
