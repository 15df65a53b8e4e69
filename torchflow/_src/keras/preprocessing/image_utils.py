"""Image <-> array conversion, loading/saving (Pillow) and the NumPy affine transforms
of ``tf.keras.preprocessing.image``.

Pillow and SciPy are optional, as in TF: without them the functions that need them
raise TF's ``ImportError``.
"""

from __future__ import annotations

import io
import warnings

import numpy as np

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.image_ops import resize
from torchflow._src.util.api import public

_NS = "torchflow.keras.preprocessing.image"


def _pil(what):
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"Could not import PIL.Image. The use of `{what}` requires PIL.") \
            from None
    return Image


def _interpolations(image_module) -> dict:
    r = getattr(image_module, "Resampling", image_module)
    return {"nearest": r.NEAREST, "bilinear": r.BILINEAR, "bicubic": r.BICUBIC,
            "hamming": r.HAMMING, "box": r.BOX, "lanczos": r.LANCZOS}


@public(_NS)
def array_to_img(x, data_format=None, scale=True, dtype=None):
    """Converts a 3-D array to a PIL image.

    Args:
      x: A 3-D array (height, width, channels) with 1, 3 or 4 channels.
      data_format: ``"channels_last"`` or ``"channels_first"``.
      scale: Whether to rescale the values to [0, 255] (min to 0, max to 255).
      dtype: The dtype the array is converted to first (``floatx()``).

    Returns:
      A ``PIL.Image`` (mode L, I, RGB or RGBA).

    Raises:
      ImportError: Without Pillow.
      ValueError: For a rank other than 3, an invalid ``data_format`` or an
        unsupported channel count.
    """
    image = _pil("array_to_img")
    data_format = data_format or backend.image_data_format()
    x = np.asarray(x, dtype=dtype or backend.floatx())
    if x.ndim != 3:
        raise ValueError("Expected image array to have rank 3 (single image). Got array with "
                         f"shape: {x.shape}")
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Invalid data_format: {data_format}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


@public(_NS)
def img_to_array(img, data_format=None, dtype=None):
    """Converts a PIL image to a 3-D NumPy array (a gray image gets one channel).

    Args:
      img: A PIL image.
      data_format: None (default: ``image_data_format()``), ``'channels_last'`` or
        ``'channels_first'``.
      dtype: None (default: ``floatx()``) or a NumPy dtype name.

    Returns:
      A 3-D NumPy array.

    Raises:
      ValueError: For an invalid ``data_format`` or an array that is not 2-D or 3-D.
    """
    data_format = data_format or backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    x = np.asarray(img, dtype=dtype or backend.floatx())
    first = data_format == "channels_first"
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if first else x
    if x.ndim == 2:
        return x.reshape((1,) + x.shape) if first else x.reshape(x.shape + (1,))
    raise ValueError(f"Unsupported image shape: {x.shape}")


@public(_NS)
def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Saves a 3-D array as an image file (format from ``file_format`` or the name).

    Args:
      path: str or path-like: the file to write.
      x: A 3-D NumPy array.
      data_format: None (default: ``image_data_format()``) or the layout of ``x``.
      file_format: None (default: from the file name) or a Pillow format name.
      scale: bool, default True: rescale the values to ``[0, 255]``.
      **kwargs: Passed on to Pillow's ``Image.save``.

    Returns:
      None.

    Raises:
      ImportError: Without Pillow.
    """
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


@public(_NS)
def load_img(path, grayscale=False, color_mode="rgb", target_size=None,
             interpolation="nearest"):
    """Loads an image file into a PIL image.

    Args:
      path: The image file.
      grayscale: Deprecated: ``color_mode="grayscale"``.
      color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"``.
      target_size: ``(height, width)`` to resize to, or None.
      interpolation: ``"nearest"``, ``"bilinear"``, ``"bicubic"``, ``"hamming"``,
        ``"box"`` or ``"lanczos"``.

    Returns:
      A ``PIL.Image``.

    Raises:
      ImportError: Without Pillow.
      ValueError: For an unknown ``color_mode`` or ``interpolation``.
    """
    if grayscale is True:
        warnings.warn('grayscale is deprecated. Please use color_mode = "grayscale"',
                      stacklevel=2)
        color_mode = "grayscale"
    image = _pil("load_img")
    with open(path, "rb") as f:
        img = image.open(io.BytesIO(f.read()))
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        size = (target_size[1], target_size[0])
        if img.size != size:
            methods = _interpolations(image)
            if interpolation not in methods:
                raise ValueError(f"Invalid interpolation method {interpolation} specified. "
                                 f"Supported methods are {', '.join(methods)}")
            img = img.resize(size, methods[interpolation])
    return img


@public(_NS)
def smart_resize(x, size, interpolation="bilinear"):
    """Resizes an image to ``size`` without distortion: the largest centred crop of
    the target aspect ratio, then a resize.

    Args:
      x: A 3-D image (array or tensor), ``(height, width, channels)``.
      size: ``(height, width)``.
      interpolation: A ``tf.image.resize`` method.

    Returns:
      A float32 tensor of shape ``size + (channels,)`` (a NumPy array for a NumPy input).

    Raises:
      ValueError: If ``size`` is not 2 integers or the image is not 3-D.
    """
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}")
    img = convert_to_tensor(x)
    if img.shape.rank is not None and img.shape.rank != 3:
        raise ValueError("Expected an image array with shape `(height, width, channels)`, but "
                         f"got input with incorrect rank, of shape {img.shape}")
    height, width = int(img.shape[0]), int(img.shape[1])
    th, tw = size
    crop_h = min(height, int(np.float32(width * th) / np.float32(tw)))
    crop_w = min(width, int(np.float32(height * tw) / np.float32(th)))
    h0 = int(np.float32(height - crop_h) / 2)
    w0 = int(np.float32(width - crop_w) / 2)
    img = img[h0:h0 + crop_h, w0:w0 + crop_w, :]
    out = resize(cast(img, "float32") if not img.dtype.is_floating else img, size,
                 method=interpolation)
    return out.numpy() if isinstance(x, np.ndarray) else out


def _ndimage():
    try:
        from scipy import ndimage
    except ImportError:
        raise ImportError("Image transformations require SciPy. Install SciPy.") from None
    return ndimage


def _offset_center(matrix, x, y):
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


@public(_NS)
def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=0,
                           col_axis=1, channel_axis=2, fill_mode="nearest", cval=0.0, order=1):
    """Applies a rotation/shift/shear/zoom to a 3-D image (SciPy's ``affine_transform``).

    Args:
      x: A 3-D image array.
      theta: Rotation in degrees.
      tx, ty: Shifts along the row and the column axis, in pixels.
      shear: Shear angle in degrees.
      zx, zy: Zoom along the row and the column axis.
      row_axis, col_axis, channel_axis: The axes of ``x``.
      fill_mode: ``"constant"``, ``"nearest"``, ``"reflect"`` or ``"wrap"``.
      cval: The fill value for ``"constant"``.
      order: The spline interpolation order.

    Returns:
      The transformed image.

    Raises:
      ImportError: Without SciPy.
    """
    ndimage = _ndimage()
    matrix = None
    if theta != 0:
        t = np.deg2rad(theta)
        matrix = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    for part, active in (
            (np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]), tx != 0 or ty != 0),
            (np.array([[1, -np.sin(np.deg2rad(shear)), 0], [0, np.cos(np.deg2rad(shear)), 0],
                       [0, 0, 1]]), shear != 0),
            (np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]), zx != 1 or zy != 1)):
        if active:
            matrix = part if matrix is None else matrix @ part
    if matrix is None:
        return x
    h, w = x.shape[row_axis], x.shape[col_axis]
    matrix = _offset_center(matrix, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:
        # The matrix is built for (x, y) coordinates; arrays index (row, col): P M P.
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = [ndimage.affine_transform(plane, matrix[:2, :2], matrix[:2, 2], order=order,
                                         mode=fill_mode, cval=cval) for plane in x]
    x = np.stack(channels, axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def flip_axis(x, axis):
    """``x`` reversed along ``axis``."""
    x = np.asarray(x).swapaxes(axis, 0)
    return x[::-1, ...].swapaxes(0, axis)


@public(_NS)
def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds ``intensity`` to every channel, clipped to the image's own value range.

    Args:
      x: A 3-D NumPy image array.
      intensity: float: the shift added.
      channel_axis: int, default 0.

    Returns:
      The transformed NumPy array, same shape.
    """
    x = np.rollaxis(x, channel_axis, 0)
    lo, hi = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, lo, hi) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


@public(_NS)
def apply_brightness_shift(x, brightness):
    """Scales the brightness by ``brightness`` (Pillow's ``ImageEnhance.Brightness``).

    Args:
      x: A 3-D NumPy image array.
      brightness: float: the brightness factor (1.0 leaves the image unchanged).

    Returns:
      A NumPy array, same shape.

    Raises:
      ImportError: Without Pillow.
    """
    _pil("apply_brightness_shift")
    from PIL import ImageEnhance

    img = ImageEnhance.Brightness(array_to_img(x)).enhance(brightness)
    return img_to_array(img)


@public(_NS)
def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                    cval=0.0, interpolation_order=1):
    """Rotates ``x`` by a uniform random angle in ``[-rg, rg]`` degrees (NumPy's RNG).

    Args:
      x: A 3-D NumPy image array.
      rg: float: the maximum rotation in degrees.
      row_axis: int, default 1.
      col_axis: int, default 2.
      channel_axis: int, default 0.
      fill_mode: ``'nearest'`` (default), ``'constant'``, ``'reflect'`` or ``'wrap'``: how
        points outside the input are filled.
      cval: float, default 0.0: the fill value for ``'constant'``.
      interpolation_order: int, default 1: the spline order.

    Returns:
      The transformed NumPy array, same shape.
    """
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@public(_NS)
def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    """Shifts ``x`` by random fractions ``wrg``/``hrg`` of its width/height.

    Args:
      x: A 3-D NumPy image array.
      wrg: float: the maximum horizontal shift as a fraction of the width.
      hrg: float: the maximum vertical shift as a fraction of the height.
      row_axis: int, default 1.
      col_axis: int, default 2.
      channel_axis: int, default 0.
      fill_mode: ``'nearest'`` (default), ``'constant'``, ``'reflect'`` or ``'wrap'``: how
        points outside the input are filled.
      cval: float, default 0.0: the fill value for ``'constant'``.
      interpolation_order: int, default 1: the spline order.

    Returns:
      The transformed NumPy array, same shape.
    """
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@public(_NS)
def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    """Shears ``x`` by a random angle in ``[-intensity, intensity]`` degrees.

    Args:
      x: A 3-D NumPy image array.
      intensity: float: the maximum shear angle in degrees.
      row_axis: int, default 1.
      col_axis: int, default 2.
      channel_axis: int, default 0.
      fill_mode: ``'nearest'`` (default), ``'constant'``, ``'reflect'`` or ``'wrap'``: how
        points outside the input are filled.
      cval: float, default 0.0: the fill value for ``'constant'``.
      interpolation_order: int, default 1: the spline order.

    Returns:
      The transformed NumPy array, same shape.
    """
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@public(_NS)
def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                cval=0.0, interpolation_order=1):
    """Zooms ``x`` by random factors drawn from ``zoom_range`` (two floats).

    Args:
      x: A 3-D NumPy image array.
      zoom_range: A pair of floats: the zoom factors' range.
      row_axis: int, default 1.
      col_axis: int, default 2.
      channel_axis: int, default 0.
      fill_mode: ``'nearest'`` (default), ``'constant'``, ``'reflect'`` or ``'wrap'``: how
        points outside the input are filled.
      cval: float, default 0.0: the fill value for ``'constant'``.
      interpolation_order: int, default 1: the spline order.

    Returns:
      The transformed NumPy array, same shape.

    Raises:
      ValueError: If ``zoom_range`` is not two numbers.
    """
    if len(zoom_range) != 2:
        raise ValueError("`zoom_range` should be a tuple or list of two floats. Received: "
                         f"{zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


@public(_NS)
def random_channel_shift(x, intensity_range, channel_axis=0):
    """``apply_channel_shift`` by a random intensity in ``[-intensity_range, intensity_range]``.

    Args:
      x: A 3-D NumPy image array.
      intensity_range: float: the maximum shift.
      channel_axis: int, default 0.

    Returns:
      The transformed NumPy array, same shape.
    """
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


@public(_NS)
def random_brightness(x, brightness_range):
    """``apply_brightness_shift`` by a random factor drawn from ``brightness_range``.

    Args:
      x: A 3-D NumPy image array.
      brightness_range: A pair of floats: the range the factor is drawn from.

    Returns:
      The transformed NumPy array, same shape.

    Raises:
      ValueError: If ``brightness_range`` is not two numbers.
    """
    if len(brightness_range) != 2:
        raise ValueError("`brightness_range should be tuple or list of two floats. Received: "
                         f"{brightness_range}")
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u)
