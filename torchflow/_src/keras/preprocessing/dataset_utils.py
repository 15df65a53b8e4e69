"""``tf.keras.preprocessing.{image,text,timeseries}_dataset_from_*``: tf.data pipelines
over a directory of files or an array, with TF 2.4's file order, splits and errors."""

from __future__ import annotations

import os

import numpy as np

from torchflow._src.core.convert import constant
from torchflow._src.data.dataset_ops import Dataset
from torchflow._src.ops.array_ops import expand_dims
from torchflow._src.ops.creation_ops import cast, one_hot
from torchflow._src.ops.gather_ops import gather
from torchflow._src.ops.image_codec_ops import decode_image
from torchflow._src.ops.image_ops import resize
from torchflow._src.ops.io_ops import read_file
from torchflow._src.ops.string_ops import substr
from torchflow._src.util.api import public

_NS = "torchflow.keras.preprocessing"
_IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                   "gaussian", "mitchellcubic")


def _check_split(validation_split, subset, shuffle, seed):
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", None):
        raise ValueError(f'`subset` must be either "training" or "validation", received: '
                         f"{subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide "
                         "a `seed` argument, to make sure that there is no overlap between the "
                         "training and validation subset.")


def _valid_files(directory, follow_links, formats):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda t: t[0]):
        for fname in sorted(files):
            if fname.lower().endswith(formats):
                yield root, fname


def _index_directory(directory, labels, formats, class_names, shuffle, seed, follow_links):
    """``(file_paths, labels, class_names)``: files sorted per class, then shuffled."""
    if labels is None:
        subdirs = [""]
        class_names = subdirs
    else:
        subdirs = [d for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d))]
        if not class_names:
            class_names = subdirs
        elif set(class_names) != set(subdirs):
            raise ValueError("The `class_names` passed did not match the names of the "
                             f"subdirectories of the target directory. Expected: {subdirs}, "
                             f"but received: {class_names}")
    class_indices = dict(zip(class_names, range(len(class_names))))
    filenames, found = [], []
    for subdir in subdirs:
        dirpath = os.path.join(directory, subdir)
        dirname = os.path.basename(dirpath)
        for root, fname in _valid_files(dirpath, follow_links, formats):
            found.append(class_indices[dirname])
            filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, fname),
                                                                   dirpath)))
    if labels not in ("inferred", None):
        if len(labels) != len(filenames):
            raise ValueError("Expected the lengths of `labels` to match the number of files in "
                             f"the target directory. len(labels) is {len(labels)} while we "
                             f"found {len(filenames)} files in {directory}.")
    else:
        labels = np.array(found, dtype="int32")
    if labels is None or subdirs == [""]:
        print(f"Found {len(filenames)} files.")
    else:
        print(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, f) for f in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def _split(samples, labels, validation_split, subset):
    if not validation_split:
        return samples, labels
    n_val = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - n_val} files for training.")
        return samples[:-n_val], labels[:-n_val]
    print(f"Using {n_val} files for validation.")
    return samples[-n_val:], labels[-n_val:]


def _labels_dataset(labels, label_mode, num_classes):
    ds = Dataset.from_tensor_slices(np.asarray(labels))
    if label_mode == "binary":
        return ds.map(lambda x: expand_dims(cast(x, "float32"), axis=-1))
    if label_mode == "categorical":
        return ds.map(lambda x: one_hot(x, num_classes))
    return ds


def _check_labels(labels, class_names, label_mode, what):
    if labels != "inferred":
        if not isinstance(labels, (list, tuple)):
            raise ValueError("`labels` argument should be a list/tuple of integer labels, of "
                             f"the same size as the number of {what} files in the target "
                             "directory. If you wish to infer the labels from the "
                             'subdirectory names in the target directory, pass `labels="'
                             'inferred"`. If you wish to get a dataset that only contains '
                             f"{what}s (no labels), pass `label_mode=None`.")
        if class_names:
            raise ValueError("You can only pass `class_names` if the labels are inferred from "
                             "the subdirectory names in the target directory "
                             '(`labels="inferred"`).')
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", "binary", '
                         f"or None. Received: {label_mode}")


def _finish(ds, paths, labels, label_mode, class_names, shuffle, batch_size, seed):
    if label_mode:
        ds = Dataset.zip((ds, _labels_dataset(labels, label_mode, len(class_names))))
    if shuffle:
        ds = ds.shuffle(buffer_size=batch_size * 8, seed=seed)
    ds = ds.batch(batch_size)
    ds.class_names = class_names
    return ds


@public(_NS)
def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False):
    """A ``tf.data.Dataset`` of image batches from ``directory/<class>/*`` files.

    Reads bmp, gif, jpeg, jpg and png files, decodes them and resizes them to
    ``image_size`` (float32). Labels come from the subdirectory names (sorted, or
    ``class_names``) or from the ``labels`` list.

    Args:
      directory: The data folder.
      labels: ``"inferred"``, None (no labels) or a list of integer labels in the
        (alphanumeric) order of the files.
      label_mode: ``"int"``, ``"categorical"`` (one-hot), ``"binary"`` (float, two
        classes) or None.
      class_names: The class subfolders and their order (with ``labels="inferred"``).
      color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"``.
      batch_size: Batch size.
      image_size: ``(height, width)`` to resize to.
      shuffle: Whether to shuffle (files with NumPy's ``RandomState(seed)``, then a
        shuffle buffer of ``8 * batch_size``).
      seed: Shuffling and splitting seed.
      validation_split: Fraction of the files for ``subset="validation"``.
      subset: ``"training"`` or ``"validation"``.
      interpolation: A ``tf.image.resize`` method.
      follow_links: Whether to follow symbolic links to folders.

    Returns:
      A dataset of ``(images, labels)`` (or ``images``) batches with a ``class_names``
      attribute.

    Raises:
      ValueError: For inconsistent ``labels``/``label_mode``/``class_names``/split
        arguments, or ``label_mode="binary"`` without exactly two classes.
      NotImplementedError: For an unknown ``interpolation``.
    """
    _check_labels(labels, class_names, label_mode, "image")
    if label_mode is None:
        labels = None
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError('`color_mode` must be one of {"rbg", "rgba", "grayscale"}. Received: '
                         f"{color_mode}")
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError(f"Value not recognized for `interpolation`: {interpolation}. "
                                  f"Supported values are: {list(_INTERPOLATIONS)}")
    _check_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = _index_directory(directory, labels, _IMAGE_FORMATS,
                                                  class_names, shuffle, seed, follow_links)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary", there must exactly 2 classes. '
                         f"Found the following classes: {class_names}")
    paths, labels = _split(paths, labels, validation_split, subset)
    size = tuple(image_size)

    def load(path):
        img = decode_image(read_file(path), channels=channels, expand_animations=False)
        return resize(img, size, method=interpolation)

    ds = Dataset.from_tensor_slices(list(paths)).map(load)
    return _finish(ds, paths, labels, label_mode, class_names, shuffle, batch_size, seed)


@public(_NS)
def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False):
    """A ``tf.data.Dataset`` of string batches from ``directory/<class>/*.txt`` files.

    Args:
      directory, labels, label_mode, class_names, batch_size, shuffle, seed,
      validation_split, subset, follow_links: As in ``image_dataset_from_directory``.
      max_length: Keep at most this many bytes of each text.

    Returns:
      A dataset of ``(texts, labels)`` (or ``texts``) batches with ``class_names``.

    Raises:
      ValueError: As ``image_dataset_from_directory``.
    """
    _check_labels(labels, class_names, label_mode, "text")
    if label_mode is None:
        labels = None
    _check_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = _index_directory(directory, labels, (".txt",), class_names,
                                                  shuffle, seed, follow_links)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary", there must exactly 2 classes. '
                         f"Found the following classes: {class_names}")
    paths, labels = _split(paths, labels, validation_split, subset)

    def load(path):
        txt = read_file(path)
        return txt if max_length is None else substr(txt, 0, max_length)

    ds = Dataset.from_tensor_slices(list(paths)).map(load)
    return _finish(ds, paths, labels, label_mode, class_names, shuffle, batch_size, seed)


@public(_NS)
def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """A ``tf.data.Dataset`` of sliding windows over an array.

    Window ``i`` is ``data[start + p_i : start + p_i + sequence_length * sampling_rate :
    sampling_rate]`` for start positions ``p_i = i * sequence_stride``; its target is
    ``targets[start + p_i]``.

    Args:
      data: An array (or tensor) with time along axis 0.
      targets: Targets per time step, or None.
      sequence_length: Steps per window.
      sequence_stride: Steps between window starts.
      sampling_rate: Steps between the samples inside a window.
      batch_size: Windows per batch.
      shuffle: Whether to shuffle the windows.
      seed: Shuffling seed.
      start_index, end_index: The part of ``data`` to use.

    Returns:
      A dataset of ``(windows, targets)`` (or ``windows``) batches.

    Raises:
      ValueError: For lengths, indices or strides out of range.
    """
    n = len(data)
    if targets is not None and len(targets) != n:
        raise ValueError("Expected data and targets to have the same number of time steps "
                         f"(axis 0) but got shape(data) = {np.shape(data)}; shape(targets) = "
                         f"{np.shape(targets)}.")
    if start_index and (start_index < 0 or start_index >= n):
        raise ValueError("start_index must be higher than 0 and lower than the length of the "
                         f"data. Got: start_index={start_index} for data of length {n}.")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError("end_index must be higher than start_index. Got: start_index="
                             f"{start_index}, end_index={end_index}.")
        if end_index >= n:
            raise ValueError(f"end_index must be lower than the length of the data. Got: "
                             f"end_index={end_index}")
        if end_index <= 0:
            raise ValueError(f"end_index must be higher than 0. Got: end_index={end_index}")
    if sampling_rate <= 0 or sampling_rate >= n:
        raise ValueError("sampling_rate must be higher than 0 and lower than the length of the "
                         f"data. Got: sampling_rate={sampling_rate} for data of length {n}.")
    if sequence_stride <= 0 or sequence_stride >= n:
        raise ValueError("sequence_stride must be higher than 0 and lower than the length of "
                         f"the data. Got: sequence_stride={sequence_stride} for data of length "
                         f"{n}.")
    start_index = start_index or 0
    end_index = end_index or n
    num_seqs = end_index - start_index - sequence_length * sampling_rate + 1
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    starts = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    windows = starts[:, None] + np.arange(0, sequence_length * sampling_rate, sampling_rate,
                                          dtype=index_dtype)[None, :]
    steps = constant(np.asarray(data)[start_index:end_index])
    ds = Dataset.from_tensor_slices(windows).map(lambda idx: gather(steps, idx))
    if targets is not None:
        target_steps = constant(np.asarray(targets)[start_index:end_index])
        target_ds = Dataset.from_tensor_slices(starts).map(lambda i: gather(target_steps, i))
        ds = Dataset.zip((ds, target_ds))
    if shuffle:
        ds = ds.shuffle(buffer_size=batch_size * 8, seed=seed)
    return ds.batch(batch_size)
