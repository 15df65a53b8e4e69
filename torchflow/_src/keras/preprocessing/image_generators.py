"""``ImageDataGenerator`` and its iterators (``tf.keras.preprocessing.image``).

Random augmentation draws from NumPy's global RNG, reseeded per batch from ``seed``
exactly as Keras does, so a seeded pipeline gives tf.keras's batches.
"""

from __future__ import annotations

import os
import threading
import warnings

import numpy as np

from torchflow._src.keras import backend
from torchflow._src.keras.preprocessing import image_utils as iu
from torchflow._src.util.api import public

_NS = "torchflow.keras.preprocessing.image"
_IMAGE_EXTENSIONS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")


@public(_NS)
class Iterator:
    """Base of the image iterators: batches of indices into ``n`` samples, shuffled
    per epoch. Usable as a ``keras.utils.Sequence`` (``len``, ``[i]``) or with ``next``.

    Args:
      n: Number of samples.
      batch_size: Samples per batch.
      shuffle: Whether to shuffle the order each epoch.
      seed: Seed of NumPy's RNG for shuffling and augmentation.
    """

    white_list_formats = _IMAGE_EXTENSIONS

    def __init__(self, n, batch_size, shuffle, seed):
        self.n, self.batch_size, self.shuffle, self.seed = n, batch_size, shuffle, seed
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        index_array = self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(index_array)

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        """Reshuffles for the next epoch."""
        self._set_index_array()

    def reset(self):
        """Starts the next ``next()`` at the first batch."""
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            if self.n > current + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current:current + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def next(self):
        """The next batch."""
        return self.__next__()

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


def _save_batch(iterator, batch_x, index_array):
    if iterator.save_to_dir:
        for i, j in enumerate(index_array):
            img = iu.array_to_img(batch_x[i], iterator.data_format, scale=True)
            fname = (f"{iterator.save_prefix}_{j}_{np.random.randint(1e7)}."
                     f"{iterator.save_format}")
            img.save(os.path.join(iterator.save_to_dir, fname))


@public(_NS)
class NumpyArrayIterator(Iterator):
    """Batches of augmented images from a NumPy array (``ImageDataGenerator.flow``).

    Args:
      x: A rank-4 NumPy array of images (or a tuple: the images, then other arrays
        batched alongside).
      y: None or labels, as many as ``x``.
      image_data_generator: The ``ImageDataGenerator`` whose transforms are applied.
      batch_size: int, default 32.
      shuffle: bool, default False: whether to shuffle at each epoch.
      sample_weight: None or per-sample weights, as many as ``x``.
      seed: None or an int: the shuffling and augmentation seed.
      data_format: None (``image_data_format()``), ``"channels_last"`` or
        ``"channels_first"``.
      save_to_dir: None or a directory where the augmented images are saved.
      save_prefix: str, the prefix of saved images' names.
      save_format: str, default ``"png"``: the format of saved images.
      subset: None, ``"training"`` or ``"validation"`` (with the generator's
        ``validation_split``).
      dtype: None (``floatx()``) or the dtype of the batches.

    Raises:
      ValueError: If ``x`` is not rank 4, ``x`` and ``y`` differ in length, or for an
        invalid ``subset``.
    """

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False,
                 sample_weight=None, seed=None, data_format=None, save_to_dir=None,
                 save_prefix="", save_format="png", subset=None, dtype=None):
        self.dtype = dtype or backend.floatx()
        if isinstance(x, (tuple, list)):
            x, x_misc = x[0], [np.asarray(xx) for xx in x[1:]]
        else:
            x_misc = []
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, y.shape = "
                             f"{np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, "
                             f"sample_weight.shape = {np.asarray(sample_weight).shape}")
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(f"Invalid subset name: {subset}; expected \"training\" or "
                                 "\"validation\".")
            split = int(len(x) * image_data_generator._validation_split)
            if y is not None and not np.array_equal(np.unique(y[:split]),
                                                    np.unique(y[split:])):
                raise ValueError("Training and validation subsets have different number of "
                                 "classes after the split. If your numpy arrays are sorted "
                                 "by the label, you might want to shuffle them.")
            part = slice(None, split) if subset == "validation" else slice(split, None)
            x, x_misc = x[part], [xx[part] for xx in x_misc]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You "
                             f"passed an array with shape {self.x.shape}")
        self.data_format = data_format or backend.image_data_format()
        channels_axis = 3 if self.data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(f"NumpyArrayIterator is set to use the data format convention "
                          f'"{self.data_format}" (channels on axis {channels_axis}), i.e. '
                          f"expected either 1, 3, or 4 channels on axis {channels_axis}. "
                          f"However, it was passed an array with shape {self.x.shape} "
                          f"({self.x.shape[channels_axis]} channels).", stacklevel=3)
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, \
            save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = gen.get_random_transform(x.shape)
            x = gen.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = gen.standardize(x)
        _save_batch(self, batch_x, index_array)
        misc = [xx[index_array] for xx in self.x_misc]
        output = (batch_x if not misc else [batch_x] + misc,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


def _valid_files(directory, follow_links):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda t: t[0]):
        for fname in sorted(files):
            if fname.lower().endswith(tuple("." + e for e in _IMAGE_EXTENSIONS)):
                yield root, fname


@public(_NS)
class DirectoryIterator(Iterator):
    """Batches of augmented images read from ``directory/<class>/*`` (``flow_from_directory``).

    Args:
      directory: str, the directory with one subdirectory per class.
      image_data_generator: The ``ImageDataGenerator`` whose transforms are applied.
      target_size: ``(height, width)``, default ``(256, 256)``: the images are resized to it.
      color_mode: ``"rgb"`` (default), ``"rgba"`` or ``"grayscale"``.
      classes: None (the subdirectories, sorted) or a list of class subdirectory names.
      class_mode: ``"categorical"`` (default, one-hot), ``"binary"``, ``"sparse"``
        (integer labels), ``"input"`` (the images themselves) or None (no labels).
      batch_size: int, default 32.
      shuffle: bool, default True: whether to shuffle at each epoch.
      seed: None or an int: the shuffling and augmentation seed.
      data_format: None (``image_data_format()``), ``"channels_last"`` or
        ``"channels_first"``.
      save_to_dir: None or a directory where the augmented images are saved.
      save_prefix: str, the prefix of saved images' names.
      save_format: str, default ``"png"``: the format of saved images.
      follow_links: bool, default False: whether to follow symbolic links.
      subset: None, ``"training"`` or ``"validation"`` (with the generator's
        ``validation_split``).
      interpolation: str, default ``"nearest"``: the resampling of the resize.
      dtype: None (``floatx()``) or the dtype of the batches.

    Raises:
      ValueError: For an invalid ``color_mode``, ``class_mode`` or ``subset``.
    """

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256),
                 color_mode="rgb", classes=None, class_mode="categorical", batch_size=32,
                 shuffle=True, seed=None, data_format=None, save_to_dir=None, save_prefix="",
                 save_format="png", follow_links=False, subset=None, interpolation="nearest",
                 dtype=None):
        self.dtype = dtype or backend.floatx()
        self.data_format = data_format or backend.image_data_format()
        self.directory, self.image_data_generator = directory, image_data_generator
        self.target_size = tuple(target_size)
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError(f"Invalid color mode: {color_mode}; expected \"rgb\", \"rgba\", "
                             "or \"grayscale\".")
        self.color_mode = color_mode
        depth = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
        first = self.data_format == "channels_first"
        self.image_shape = (depth,) + self.target_size if first else self.target_size + (depth,)
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of "
                             f"{self.allowed_class_modes}")
        self.class_mode = class_mode
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, \
            save_format
        self.interpolation = interpolation
        split = None
        if subset is not None:
            vs = image_data_generator._validation_split
            if subset == "validation":
                split = (0, vs)
            elif subset == "training":
                split = (vs, 1)
            else:
                raise ValueError(f"Invalid subset name: {subset}; expected \"training\" or "
                                 "\"validation\"")
        self.subset = subset
        if not classes:
            classes = sorted(d for d in os.listdir(directory)
                             if os.path.isdir(os.path.join(directory, d)))
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        self.filenames, labels = [], []
        for c in classes:
            files = list(_valid_files(os.path.join(directory, c), follow_links))
            if split is not None:
                files = files[int(split[0] * len(files)):int(split[1] * len(files))]
            for root, fname in files:
                self.filenames.append(os.path.relpath(os.path.join(root, fname), directory))
                labels.append(self.class_indices[c])
        self.classes = np.array(labels, dtype="int32")
        self.samples = len(self.filenames)
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self):
        """Absolute paths of the images, in ``classes`` order."""
        return self._filepaths

    @property
    def labels(self):
        """The class index of every image."""
        return self.classes

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            img = iu.load_img(self._filepaths[j], color_mode=self.color_mode,
                              target_size=self.target_size, interpolation=self.interpolation)
            x = iu.img_to_array(img, data_format=self.data_format)
            if hasattr(img, "close"):
                img.close()
            params = gen.get_random_transform(x.shape)
            batch_x[i] = gen.standardize(gen.apply_transform(x, params))
        _save_batch(self, batch_x, index_array)
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode == "sparse":
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "binary":
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), self.num_classes), dtype=self.dtype)
            for i, label in enumerate(self.classes[index_array]):
                batch_y[i, label] = 1.0
            return batch_x, batch_y
        return batch_x
