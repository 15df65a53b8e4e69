"""``tf.keras.layers``. Each family of layers has its own section below."""

from torchflow._src.keras.engine.base_layer import Layer as Layer
from torchflow._src.keras.engine.input_layer import InputLayer as InputLayer
from torchflow._src.keras.engine.input_spec import InputSpec as InputSpec

# --- LAYERSA ---
# --- end LAYERSA ---

# --- LAYERSB ---
# --- end LAYERSB ---

# --- PREPROC ---
# --- end PREPROC ---
