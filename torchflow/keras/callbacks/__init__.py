"""``tf.keras.callbacks``."""

from torchflow._src.keras.callbacks.callback import Callback as Callback
from torchflow._src.keras.callbacks.callback import CallbackList as CallbackList
from torchflow._src.keras.callbacks.history import History as History
from torchflow._src.keras.callbacks.progbar_logger import ProgbarLogger as ProgbarLogger
# --- CALLBACKS ---
# --- end CALLBACKS ---
