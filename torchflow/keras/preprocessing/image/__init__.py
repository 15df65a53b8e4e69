"""``tf.keras.preprocessing.image``."""

from torchflow._src.keras.preprocessing.image_data_generator import (
    ImageDataGenerator as ImageDataGenerator,
)
from torchflow._src.keras.preprocessing.image_generators import (
    DirectoryIterator as DirectoryIterator,
)
from torchflow._src.keras.preprocessing.image_generators import Iterator as Iterator
from torchflow._src.keras.preprocessing.image_generators import (
    NumpyArrayIterator as NumpyArrayIterator,
)
from torchflow._src.keras.preprocessing.image_utils import (
    apply_affine_transform as apply_affine_transform,
)
from torchflow._src.keras.preprocessing.image_utils import (
    apply_brightness_shift as apply_brightness_shift,
)
from torchflow._src.keras.preprocessing.image_utils import (
    apply_channel_shift as apply_channel_shift,
)
from torchflow._src.keras.preprocessing.image_utils import array_to_img as array_to_img
from torchflow._src.keras.preprocessing.image_utils import img_to_array as img_to_array
from torchflow._src.keras.preprocessing.image_utils import load_img as load_img
from torchflow._src.keras.preprocessing.image_utils import random_brightness as random_brightness
from torchflow._src.keras.preprocessing.image_utils import (
    random_channel_shift as random_channel_shift,
)
from torchflow._src.keras.preprocessing.image_utils import random_rotation as random_rotation
from torchflow._src.keras.preprocessing.image_utils import random_shear as random_shear
from torchflow._src.keras.preprocessing.image_utils import random_shift as random_shift
from torchflow._src.keras.preprocessing.image_utils import random_zoom as random_zoom
from torchflow._src.keras.preprocessing.image_utils import save_img as save_img
from torchflow._src.keras.preprocessing.image_utils import smart_resize as smart_resize
