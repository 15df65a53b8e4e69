"""``tf.keras.utils``."""

from torchflow._src.keras.utils.progbar import Progbar as Progbar
# --- BASICS ---
# --- end BASICS ---
