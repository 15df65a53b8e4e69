"""``tf.keras.applications.imagenet_utils`` and the helpers every architecture shares."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np

from torchflow._src.core.convert import constant
from torchflow._src.keras import activations, backend
from torchflow._src.keras.engine.input_layer import Input
from torchflow._src.keras.layers.pooling.global_pooling import (
    GlobalAveragePooling2D,
    GlobalMaxPooling2D,
)
from torchflow._src.keras.utils.data_utils import get_file
from torchflow._src.keras.utils.layer_utils import get_source_inputs
from torchflow._src.ops.array_ops import reverse
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.nn_ops import bias_add
from torchflow._src.util.api import public

_NS = "torchflow.keras.applications.imagenet_utils"
CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/data/"
                    "imagenet_class_index.json")
_CLASS_INDEX = None

def _numpy_input(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        if data_format == "channels_first":
            x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
        else:
            x = x[..., ::-1]
        mean, std = [103.939, 116.779, 123.68], None
    for c in range(3):
        if data_format == "channels_first":
            idx = (c,) if x.ndim == 3 else (slice(None), c)
        else:
            idx = (Ellipsis, c)
        x[idx] -= mean[c]
        if std is not None:
            x[idx] /= std[c]
    return x


def _symbolic_input(x, data_format, mode):
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        if data_format == "channels_first":
            x = reverse(x, axis=[0] if len(x.shape) == 3 else [1])
        else:
            x = reverse(x, axis=[-1])
        mean, std = [103.939, 116.779, 123.68], None
    neg_mean = constant(-np.array(mean))
    x = bias_add(x, cast(neg_mean, x.dtype), data_format=_bias_format(data_format))
    if std is not None:
        shape = (3, 1, 1) if data_format == "channels_first" else (3,)
        x = x / cast(constant(np.reshape(std, shape)), x.dtype)
    return x


def _bias_format(data_format):
    return "NCHW" if data_format == "channels_first" else "NHWC"


def preprocess(x, data_format, mode):
    """imagenet_utils.preprocess_input's body, for the per-model functions."""
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError("Unknown mode " + str(mode))
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format " + str(data_format))
    if isinstance(x, np.ndarray):
        return _numpy_input(x, data_format, mode)
    return _symbolic_input(x, data_format, mode)


@public(_NS)
def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocesses a batch of ImageNet images.

    Args:
      x: A NumPy array or tensor of RGB images with values in [0, 255].
      data_format: ``"channels_last"`` or ``"channels_first"``.
      mode: ``"caffe"`` (RGB -> BGR, minus the ImageNet mean per channel), ``"tf"``
        (scaled to [-1, 1]) or ``"torch"`` (scaled to [0, 1], then normalized by the
        ImageNet mean and standard deviation).

    Returns:
      The preprocessed array or tensor (a float NumPy array is changed in place).

    Raises:
      ValueError: For an unknown ``mode`` or ``data_format``.
    """
    return preprocess(x, data_format, mode)


@public(_NS)
def decode_predictions(preds, top=5):
    """Decodes ImageNet predictions into ``(class_id, class_name, score)`` lists.

    Reads ``imagenet_class_index.json`` through ``get_file`` (cached under
    ``~/.keras/models``; without network and cache it raises TF's
    ``URL fetch failure`` Exception).

    Args:
      preds: A NumPy array of shape ``(samples, 1000)``.
      top: How many of the top classes to return per sample.

    Returns:
      A list (per sample) of lists of ``(class_id, class_name, score)`` tuples.

    Raises:
      ValueError: If ``preds`` is not 2-D with 1000 columns.
    """
    global _CLASS_INDEX
    preds = np.asarray(preds.numpy() if hasattr(preds, "numpy") else preds)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         f"of shape (samples, 1000)). Found array with shape: {preds.shape}")
    if _CLASS_INDEX is None:
        fpath = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                         file_hash="c2c37ea517e94d9795004a39431a14cb")
        with open(fpath) as f:
            _CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        result = [tuple(_CLASS_INDEX[str(i)]) + (pred[i],) for i in top_indices]
        result.sort(key=lambda r: r[2], reverse=True)
        results.append(result)
    return results


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                       weights=None):
    """The model's input shape from the user's ``input_shape`` (TF 2.4's rules).

    Raises:
      ValueError: For a shape the weights or the architecture cannot take.
    """
    first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {channels} input channels.",
                          stacklevel=3)
        default_shape = ((channels, default_size, default_size) if first
                         else (default_size, default_size, channels))
    else:
        default_shape = (3, default_size, default_size) if first else (default_size,
                                                                       default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default_shape}.")
        return default_shape
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if first else input_shape[-1]
        rows, cols = input_shape[1:] if first else input_shape[:2]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; got `input_shape={input_shape}`")
        if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; got "
                             f"`input_shape={input_shape}`")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static "
                         f"`input_shape`. Got `input_shape={input_shape}`")
    return input_shape


def correct_pad(inputs, kernel_size):
    """The ZeroPadding2D padding that makes a strided 'valid' conv act like TF's 'same'."""
    img_dim = 2 if backend.image_data_format() == "channels_first" else 1
    input_size = backend.int_shape(inputs)[img_dim:img_dim + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    if input_size[0] is None:
        adjust = (1, 1)
    else:
        adjust = (1 - input_size[0] % 2, 1 - input_size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def check_weights(weights, include_top, classes):
    """TF 2.4's checks of ``weights`` and ``classes``.

    Raises:
      ValueError: For weights other than None, ``"imagenet"`` or an existing file,
        or ``"imagenet"`` with ``include_top`` and ``classes != 1000``.
    """
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, '
                         "`classes` should be 1000")


def validate_activation(classifier_activation, weights):
    """Pretrained weights allow only a softmax (or no) classifier activation.

    Raises:
      ValueError: For another activation with ``weights``.
    """
    if weights is None:
        return
    classifier_activation = activations.get(classifier_activation)
    if classifier_activation not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         "with `include_top=True`")


def model_input(input_tensor, input_shape):
    """``(img_input, inputs)``: the tensor the layers start from, and the model inputs."""
    if input_tensor is None:
        img_input = Input(shape=input_shape)
        return img_input, img_input
    if not backend.is_keras_tensor(input_tensor):
        img_input = Input(tensor=input_tensor, shape=input_shape)
        return img_input, img_input
    return input_tensor, get_source_inputs(input_tensor)


def pool(x, pooling, name_avg=None, name_max=None):
    """The optional global pooling of ``include_top=False`` models."""
    if pooling == "avg":
        return GlobalAveragePooling2D(name=name_avg)(x)
    if pooling == "max":
        return GlobalMaxPooling2D(name=name_max)(x)
    return x


def load_weights(model, weights, url, file_hash=None):
    """Fetches (``weights="imagenet"``) or reads a weights file into ``model``.

    HDF5 files load by layer name: the names are TF's, while the order of
    ``model.layers`` in a branching graph is not (yet) TF's depth order.
    """
    if weights == "imagenet":
        fname = url.rsplit("/", 1)[-1]
        weights = get_file(fname, url, cache_subdir="models", file_hash=file_hash)
    if weights is not None:
        by_name = str(weights).endswith((".h5", ".hdf5", ".keras"))
        model.load_weights(weights, by_name=by_name)
    return model
