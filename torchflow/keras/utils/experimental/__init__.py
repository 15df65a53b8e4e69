"""``tf.keras.utils.experimental``."""

from torchflow._src.keras.utils.dataset_creator import DatasetCreator as DatasetCreator
