"""Public API for tf.image (TF 2.4 subset)."""

from torchflow._src.ops.image_ops import resize as resize
from torchflow._src.ops.image_ops import flip_left_right as flip_left_right
from torchflow._src.ops.image_ops import flip_up_down as flip_up_down
from torchflow._src.ops.image_ops import rot90 as rot90
from torchflow._src.ops.image_ops import central_crop as central_crop
from torchflow._src.ops.image_ops import crop_to_bounding_box as crop_to_bounding_box
from torchflow._src.ops.image_ops import pad_to_bounding_box as pad_to_bounding_box
from torchflow._src.ops.image_ops import resize_with_crop_or_pad as resize_with_crop_or_pad
from torchflow._src.ops.image_ops import adjust_contrast as adjust_contrast
from torchflow._src.ops.image_ops import convert_image_dtype as convert_image_dtype
