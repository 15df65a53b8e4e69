"""``tf.keras.callbacks.experimental``."""

from torchflow._src.keras.callbacks.backup_and_restore import BackupAndRestore as BackupAndRestore
