"""``tf.keras.preprocessing``: Keras 2's sequence, text and image data utilities."""

from torchflow._src.keras.preprocessing.dataset_utils import (
    image_dataset_from_directory as image_dataset_from_directory,
)
from torchflow._src.keras.preprocessing.dataset_utils import (
    text_dataset_from_directory as text_dataset_from_directory,
)
from torchflow._src.keras.preprocessing.dataset_utils import (
    timeseries_dataset_from_array as timeseries_dataset_from_array,
)
from torchflow.keras.preprocessing import image as image
from torchflow.keras.preprocessing import sequence as sequence
from torchflow.keras.preprocessing import text as text
