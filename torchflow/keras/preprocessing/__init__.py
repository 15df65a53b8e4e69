"""``tf.keras.preprocessing``: Keras 2's sequence, text and image data utilities."""

from torchflow.keras.preprocessing import image as image
from torchflow.keras.preprocessing import sequence as sequence
from torchflow.keras.preprocessing import text as text
