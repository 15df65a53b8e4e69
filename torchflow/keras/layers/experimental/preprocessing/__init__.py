"""``tf.keras.layers.experimental.preprocessing`` (TF 2.4)."""

from torchflow._src.keras.layers.preprocessing.base import PreprocessingLayer as PreprocessingLayer
from torchflow._src.keras.layers.preprocessing.categorical import (
    CategoryCrossing as CategoryCrossing,
)
from torchflow._src.keras.layers.preprocessing.categorical import (
    CategoryEncoding as CategoryEncoding,
)
from torchflow._src.keras.layers.preprocessing.categorical import Discretization as Discretization
from torchflow._src.keras.layers.preprocessing.categorical import Hashing as Hashing
from torchflow._src.keras.layers.preprocessing.image_preprocessing import CenterCrop as CenterCrop
from torchflow._src.keras.layers.preprocessing.image_preprocessing import (
    RandomContrast as RandomContrast,
)
from torchflow._src.keras.layers.preprocessing.image_preprocessing import RandomCrop as RandomCrop
from torchflow._src.keras.layers.preprocessing.image_preprocessing import RandomFlip as RandomFlip
from torchflow._src.keras.layers.preprocessing.image_preprocessing import (
    RandomHeight as RandomHeight,
)
from torchflow._src.keras.layers.preprocessing.image_preprocessing import (
    RandomRotation as RandomRotation,
)
from torchflow._src.keras.layers.preprocessing.image_preprocessing import (
    RandomTranslation as RandomTranslation,
)
from torchflow._src.keras.layers.preprocessing.image_preprocessing import RandomWidth as RandomWidth
from torchflow._src.keras.layers.preprocessing.image_preprocessing import RandomZoom as RandomZoom
from torchflow._src.keras.layers.preprocessing.image_preprocessing import Rescaling as Rescaling
from torchflow._src.keras.layers.preprocessing.image_preprocessing import Resizing as Resizing
from torchflow._src.keras.layers.preprocessing.index_lookup import IntegerLookup as IntegerLookup
from torchflow._src.keras.layers.preprocessing.index_lookup import StringLookup as StringLookup
from torchflow._src.keras.layers.preprocessing.normalization import Normalization as Normalization
from torchflow._src.keras.layers.preprocessing.text_vectorization import (
    TextVectorization as TextVectorization,
)
