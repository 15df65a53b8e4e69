"""``tf.keras.preprocessing.image.ImageDataGenerator``: real-time image augmentation."""

from __future__ import annotations

import warnings

import numpy as np

from torchflow._src.keras import backend
from torchflow._src.keras.preprocessing import image_utils as iu
from torchflow._src.keras.preprocessing.image_generators import (
    DirectoryIterator,
    NumpyArrayIterator,
)
from torchflow._src.util.api import public


def _shift(rng, size):
    """A shift in pixels from ``*_shift_range`` (Keras' rules for floats, ints and lists)."""
    if not rng:
        return 0
    try:
        t = np.random.choice(rng)
        t *= np.random.choice([-1, 1])
    except ValueError:
        t = np.random.uniform(-rng, rng)
    if np.max(rng) < 1:
        t *= size
    return t


@public("torchflow.keras.preprocessing.image")
class ImageDataGenerator:
    """Generates batches of images with real-time data augmentation.

    Args:
      featurewise_center: Subtract the dataset mean (from ``fit``), per channel.
      samplewise_center: Subtract each sample's mean.
      featurewise_std_normalization: Divide by the dataset std (from ``fit``).
      samplewise_std_normalization: Divide each sample by its std.
      zca_whitening: Apply ZCA whitening (from ``fit``).
      zca_epsilon: Epsilon of ZCA whitening.
      rotation_range: Degrees of random rotation.
      width_shift_range, height_shift_range: Random shifts: a fraction of the size
        (float < 1), pixels (float >= 1 or int: ``choice(range(n))``) or a list of choices.
      brightness_range: Two floats: the range of the brightness factor.
      shear_range: Shear angle in degrees.
      zoom_range: A float ``z`` (``[1 - z, 1 + z]``) or two floats.
      channel_shift_range: Range of random channel shifts.
      fill_mode: ``"constant"``, ``"nearest"``, ``"reflect"`` or ``"wrap"``.
      cval: The fill value for ``"constant"``.
      horizontal_flip, vertical_flip: Random flips.
      rescale: A factor the data is multiplied by (after the other transforms).
      preprocessing_function: Called on each image first.
      data_format: ``"channels_last"`` or ``"channels_first"``.
      validation_split: Fraction of images reserved for ``subset="validation"``.
      dtype: The dtype of the generated arrays (``floatx()``).

    Raises:
      ValueError: For an invalid ``data_format``, ``validation_split``, ``zoom_range``
        or ``brightness_range``.
    """

    def __init__(self, featurewise_center=False, samplewise_center=False,
                 featurewise_std_normalization=False, samplewise_std_normalization=False,
                 zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None,
                 shear_range=0.0, zoom_range=0.0, channel_shift_range=0.0, fill_mode="nearest",
                 cval=0.0, horizontal_flip=False, vertical_flip=False, rescale=None,
                 preprocessing_function=None, data_format=None, validation_split=0.0,
                 dtype=None):
        data_format = data_format or backend.image_data_format()
        self.dtype = dtype or backend.floatx()
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening, self.zca_epsilon = zca_whitening, zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range, self.height_shift_range = width_shift_range, height_shift_range
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.interpolation_order = 1
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError('`data_format` should be `"channels_last"` (channel after row and '
                             'column) or `"channels_first"` (channel before row and column). '
                             f"Received: {data_format}")
        self.data_format = data_format
        if data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        if validation_split and not 0 < validation_split < 1:
            raise ValueError("`validation_split` must be strictly between 0 and 1. "
                             f" Received: {validation_split}")
        self._validation_split = validation_split
        self.mean = self.std = self.principal_components = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError("`zoom_range` should be a float or a tuple or list of two floats. "
                             f"Received: {zoom_range}")
        if zca_whitening and not featurewise_center:
            self.featurewise_center = True
            warnings.warn("This ImageDataGenerator specifies `zca_whitening`, which overrides "
                          "setting of `featurewise_center`.", stacklevel=2)
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`, "
                          "which overrides setting of `featurewise_center`.", stacklevel=2)
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            warnings.warn("This ImageDataGenerator specifies `samplewise_std_normalization`, "
                          "which overrides setting of `samplewise_center`.", stacklevel=2)
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError("`brightness_range should be tuple or list of two floats. "
                             f"Received: {brightness_range}")
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None,
             save_to_dir=None, save_prefix="", save_format="png", subset=None):
        """A ``NumpyArrayIterator`` of augmented ``(x, y[, sample_weight])`` batches."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  sample_weight=sample_weight, seed=seed,
                                  data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb",
                            classes=None, class_mode="categorical", batch_size=32, shuffle=True,
                            seed=None, save_to_dir=None, save_prefix="", save_format="png",
                            follow_links=False, subset=None, interpolation="nearest"):
        """A ``DirectoryIterator`` over ``directory/<class>/*`` images (prints what it found)."""
        return DirectoryIterator(directory, self, target_size=target_size,
                                 color_mode=color_mode, classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir,
                                 save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, dtype=self.dtype)

    def standardize(self, x):
        """Applies the normalization (``preprocessing_function``, ``rescale``, centering,
        std normalization, ZCA) to one image or a batch, in place where it can."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                warnings.warn("This ImageDataGenerator specifies `featurewise_center`, but it "
                              "hasn't been fit on any training data. Fit it first by calling "
                              "`.fit(numpy_data)`.", stacklevel=2)
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                warnings.warn("This ImageDataGenerator specifies "
                              "`featurewise_std_normalization`, but it hasn't been fit on any "
                              "training data. Fit it first by calling `.fit(numpy_data)`.",
                              stacklevel=2)
        if self.zca_whitening:
            if self.principal_components is not None:
                flat = np.reshape(x, (-1, np.prod(x.shape[-3:])))
                x = np.reshape(flat @ self.principal_components, x.shape)
            else:
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, but it "
                              "hasn't been fit on any training data. Fit it first by calling "
                              "`.fit(numpy_data)`.", stacklevel=2)
        return x

    def get_random_transform(self, img_shape, seed=None):
        """Random parameters of one augmentation, for ``apply_transform``."""
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) \
            if self.rotation_range else 0
        tx = _shift(self.height_shift_range, img_shape[self.row_axis - 1])
        ty = _shift(self.width_shift_range, img_shape[self.col_axis - 1])
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_h = (np.random.random() < 0.5) * self.horizontal_flip
        flip_v = (np.random.random() < 0.5) * self.vertical_flip
        shift = None
        if self.channel_shift_range != 0:
            shift = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_h, "flip_vertical": flip_v,
                "channel_shift_intensity": shift, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        """Applies ``get_random_transform``'s parameters to one 3-D image."""
        p = transform_parameters
        row, col, channel = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = iu.apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0),
                                      p.get("shear", 0), p.get("zx", 1), p.get("zy", 1),
                                      row_axis=row, col_axis=col, channel_axis=channel,
                                      fill_mode=self.fill_mode, cval=self.cval,
                                      order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = iu.apply_channel_shift(x, p["channel_shift_intensity"], channel)
        if p.get("flip_horizontal", False):
            x = iu.flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = iu.flip_axis(x, row)
        if p.get("brightness") is not None:
            x = iu.apply_brightness_shift(x, p["brightness"])
        return x

    def random_transform(self, x, seed=None):
        """One randomly augmented copy of the 3-D image ``x``."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the dataset statistics ``featurewise_*`` and ``zca_whitening`` need.

        Raises:
          ValueError: If ``x`` is not rank 4.
        """
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: "
                             f"{x.shape}")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if augment:
            ax = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        axes = (0, self.row_axis, self.col_axis)
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=axes), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=axes), shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            flat = np.reshape(x, (x.shape[0], -1))
            sigma = flat.T @ flat / flat.shape[0]
            u, s, _ = np.linalg.svd(sigma)
            self.principal_components = (u * (1.0 / np.sqrt(s[np.newaxis] + self.zca_epsilon))
                                         ) @ u.T
