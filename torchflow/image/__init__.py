"""Public API for tf.image (TF 2.4 subset)."""

from torchflow._src.ops.image_box_ops import (
    combined_non_max_suppression as combined_non_max_suppression,
)
from torchflow._src.ops.image_box_ops import draw_bounding_boxes as draw_bounding_boxes
from torchflow._src.ops.image_box_ops import extract_glimpse as extract_glimpse
from torchflow._src.ops.image_box_ops import non_max_suppression as non_max_suppression
from torchflow._src.ops.image_box_ops import (
    non_max_suppression_overlaps as non_max_suppression_overlaps,
)
from torchflow._src.ops.image_box_ops import (
    non_max_suppression_padded as non_max_suppression_padded,
)
from torchflow._src.ops.image_box_ops import (
    non_max_suppression_with_scores as non_max_suppression_with_scores,
)
from torchflow._src.ops.image_box_ops import (
    sample_distorted_bounding_box as sample_distorted_bounding_box,
)
from torchflow._src.ops.image_box_ops import (
    stateless_sample_distorted_bounding_box as stateless_sample_distorted_bounding_box,
)
from torchflow._src.ops.image_codec_ops import adjust_jpeg_quality as adjust_jpeg_quality
from torchflow._src.ops.image_codec_ops import decode_and_crop_jpeg as decode_and_crop_jpeg
from torchflow._src.ops.image_codec_ops import decode_bmp as decode_bmp
from torchflow._src.ops.image_codec_ops import decode_gif as decode_gif
from torchflow._src.ops.image_codec_ops import decode_image as decode_image
from torchflow._src.ops.image_codec_ops import decode_jpeg as decode_jpeg
from torchflow._src.ops.image_codec_ops import decode_png as decode_png
from torchflow._src.ops.image_codec_ops import encode_jpeg as encode_jpeg
from torchflow._src.ops.image_codec_ops import encode_png as encode_png
from torchflow._src.ops.image_codec_ops import extract_jpeg_shape as extract_jpeg_shape
from torchflow._src.ops.image_codec_ops import is_jpeg as is_jpeg
from torchflow._src.ops.image_color_ops import adjust_brightness as adjust_brightness
from torchflow._src.ops.image_color_ops import adjust_gamma as adjust_gamma
from torchflow._src.ops.image_color_ops import adjust_hue as adjust_hue
from torchflow._src.ops.image_color_ops import adjust_saturation as adjust_saturation
from torchflow._src.ops.image_color_ops import grayscale_to_rgb as grayscale_to_rgb
from torchflow._src.ops.image_color_ops import hsv_to_rgb as hsv_to_rgb
from torchflow._src.ops.image_color_ops import image_gradients as image_gradients
from torchflow._src.ops.image_color_ops import (
    per_image_standardization as per_image_standardization,
)
from torchflow._src.ops.image_color_ops import psnr as psnr
from torchflow._src.ops.image_color_ops import random_brightness as random_brightness
from torchflow._src.ops.image_color_ops import random_contrast as random_contrast
from torchflow._src.ops.image_color_ops import random_crop as random_crop
from torchflow._src.ops.image_color_ops import random_flip_left_right as random_flip_left_right
from torchflow._src.ops.image_color_ops import random_flip_up_down as random_flip_up_down
from torchflow._src.ops.image_color_ops import random_hue as random_hue
from torchflow._src.ops.image_color_ops import random_saturation as random_saturation
from torchflow._src.ops.image_color_ops import rgb_to_grayscale as rgb_to_grayscale
from torchflow._src.ops.image_color_ops import rgb_to_hsv as rgb_to_hsv
from torchflow._src.ops.image_color_ops import rgb_to_yiq as rgb_to_yiq
from torchflow._src.ops.image_color_ops import rgb_to_yuv as rgb_to_yuv
from torchflow._src.ops.image_color_ops import sobel_edges as sobel_edges
from torchflow._src.ops.image_color_ops import total_variation as total_variation
from torchflow._src.ops.image_color_ops import transpose as transpose
from torchflow._src.ops.image_color_ops import yiq_to_rgb as yiq_to_rgb
from torchflow._src.ops.image_color_ops import yuv_to_rgb as yuv_to_rgb
from torchflow._src.ops.image_ops import ResizeMethod as ResizeMethod
from torchflow._src.ops.image_ops import adjust_contrast as adjust_contrast
from torchflow._src.ops.image_ops import central_crop as central_crop
from torchflow._src.ops.image_ops import convert_image_dtype as convert_image_dtype
from torchflow._src.ops.image_ops import crop_to_bounding_box as crop_to_bounding_box
from torchflow._src.ops.image_ops import flip_left_right as flip_left_right
from torchflow._src.ops.image_ops import flip_up_down as flip_up_down
from torchflow._src.ops.image_ops import pad_to_bounding_box as pad_to_bounding_box
from torchflow._src.ops.image_ops import resize as resize
from torchflow._src.ops.image_ops import resize_with_crop_or_pad as resize_with_crop_or_pad
from torchflow._src.ops.image_ops import resize_with_pad as resize_with_pad
from torchflow._src.ops.image_ops import rot90 as rot90
from torchflow._src.ops.image_patch_ops import crop_and_resize as crop_and_resize
from torchflow._src.ops.image_patch_ops import extract_patches as extract_patches
from torchflow._src.ops.image_quality_ops import ssim as ssim
from torchflow._src.ops.image_quality_ops import ssim_multiscale as ssim_multiscale
from torchflow._src.ops.image_stateless_ops import random_jpeg_quality as random_jpeg_quality
from torchflow._src.ops.image_stateless_ops import (
    stateless_random_brightness as stateless_random_brightness,
)
from torchflow._src.ops.image_stateless_ops import (
    stateless_random_contrast as stateless_random_contrast,
)
from torchflow._src.ops.image_stateless_ops import stateless_random_crop as stateless_random_crop
from torchflow._src.ops.image_stateless_ops import (
    stateless_random_flip_left_right as stateless_random_flip_left_right,
)
from torchflow._src.ops.image_stateless_ops import (
    stateless_random_flip_up_down as stateless_random_flip_up_down,
)
from torchflow._src.ops.image_stateless_ops import stateless_random_hue as stateless_random_hue
from torchflow._src.ops.image_stateless_ops import (
    stateless_random_jpeg_quality as stateless_random_jpeg_quality,
)
from torchflow._src.ops.image_stateless_ops import (
    stateless_random_saturation as stateless_random_saturation,
)
