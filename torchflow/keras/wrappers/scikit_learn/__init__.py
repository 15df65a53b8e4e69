"""``tf.keras.wrappers.scikit_learn``."""

from torchflow._src.keras.wrappers.scikit_learn import KerasClassifier as KerasClassifier
from torchflow._src.keras.wrappers.scikit_learn import KerasRegressor as KerasRegressor
