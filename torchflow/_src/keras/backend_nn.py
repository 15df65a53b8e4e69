"""``tf.keras.backend``'s convolution, pooling, padding, normalization and
higher-order functions, with Keras' ``data_format`` (``"channels_last"``/``"channels_first"``)."""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.variables import Variable
from torchflow._src.keras import backend
from torchflow._src.ops import (
    array_ops,
    conv_ops,
    creation_ops,
    functional_ops,
    image_ops,
    normalization_ops,
    pooling_ops,
    random_ops,
    ranking_ops,
)
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


def _format(data_format):
    data_format = data_format or backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    return data_format


def _to_last(x, data_format, rank):
    """Inputs in channels_first are transposed to channels_last (and back after)."""
    if data_format == "channels_first":
        return array_ops.transpose(x, [0] + list(range(2, rank)) + [1])
    return x


def _from_last(x, data_format, rank):
    if data_format == "channels_first":
        return array_ops.transpose(x, [0, rank - 1] + list(range(1, rank - 1)))
    return x


def _padding(padding):
    if padding not in {"same", "valid", "causal"}:
        raise ValueError(f"Unknown padding: {padding}")
    return padding.upper()


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


@public(_NS)
def backend_name() -> str:  # the public name is ``backend`` (see torchflow/keras/backend)
    """The name of the backend Keras runs on.

    Returns:
      ``"tensorflow"``, as TF's Keras answers (torchflow stands in for TensorFlow).
    """
    return "tensorflow"


backend_name.__name__ = backend_name.__qualname__ = "backend"


@public(_NS)
def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution of ``x`` (``(batch, steps, channels)`` for channels_last).

    Args:
      x: A tensor or variable.
      kernel: The convolution kernel ``spatial + (in_channels, out_channels)``.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      dilation_rate: An int or tuple of ints, default 1.
    """
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, 3)
    if padding == "causal":
        left = dilation_rate * (int(convert_to_tensor(kernel).shape[0]) - 1)
        x = array_ops.pad(x, [[0, 0], [left, 0], [0, 0]])
        padding = "valid"
    out = conv_ops.conv1d(x, kernel, stride=strides, padding=_padding(padding),
                          dilations=dilation_rate)
    return _from_last(out, data_format, 3)


@public(_NS)
def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution of ``x`` by ``kernel`` (``(rows, cols, in, out)``).

    Args:
      x: A tensor or variable.
      kernel: The convolution kernel ``spatial + (in_channels, out_channels)``.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      dilation_rate: An int or tuple of ints, default 1.
    """
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, 4)
    out = conv_ops.conv2d(x, kernel, strides=[1, *_tuple(strides, 2), 1],
                          padding=_padding(padding), dilations=[1, *_tuple(dilation_rate, 2), 1])
    return _from_last(out, data_format, 4)


@public(_NS)
def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1, 1)):
    """3-D convolution of ``x`` by ``kernel``.

    Args:
      x: A tensor or variable.
      kernel: The convolution kernel ``spatial + (in_channels, out_channels)``.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      dilation_rate: An int or tuple of ints, default 1.
    """
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, 5)
    out = conv_ops.conv3d(x, kernel, strides=[1, *_tuple(strides, 3), 1],
                          padding=_padding(padding),
                          dilations=[1, *_tuple(dilation_rate, 3), 1])
    return _from_last(out, data_format, 5)


@public(_NS)
def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    """2-D transposed convolution to ``output_shape`` (in ``data_format``'s layout).

    Args:
      x: A tensor or variable.
      kernel: The convolution kernel ``spatial + (in_channels, out_channels)``.
      output_shape: A tuple of 4 ints: the output shape.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      dilation_rate: An int or tuple of ints, default 1.
    """
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, 4)
    shape = list(output_shape)
    if data_format == "channels_first":
        shape = [shape[0], shape[2], shape[3], shape[1]]
    out = conv_ops.conv2d_transpose(x, kernel, shape, strides=[1, *_tuple(strides, 2), 1],
                                    padding=_padding(padding))
    return _from_last(out, data_format, 4)


@public(_NS)
def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """2-D depthwise convolution.

    Args:
      x: A tensor or variable.
      depthwise_kernel: The depthwise kernel ``(rows, cols, in_channels,
        depth_multiplier)``.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      dilation_rate: An int or tuple of ints, default 1.
    """
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, 4)
    out = conv_ops.depthwise_conv2d(x, depthwise_kernel, strides=[1, *_tuple(strides, 2), 1],
                                    padding=_padding(padding),
                                    dilations=list(_tuple(dilation_rate, 2)))
    return _from_last(out, data_format, 4)


@public(_NS)
def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    """2-D depthwise convolution followed by a pointwise (1x1) one.

    Args:
      x: A tensor or variable.
      depthwise_kernel: The depthwise kernel ``(rows, cols, in_channels,
        depth_multiplier)``.
      pointwise_kernel: The 1x1 kernel ``(1, 1, in_channels * depth_multiplier,
        out_channels)``.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      dilation_rate: An int or tuple of ints, default 1.
    """
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, 4)
    out = conv_ops.separable_conv2d(x, depthwise_kernel, pointwise_kernel,
                                    strides=[1, *_tuple(strides, 2), 1],
                                    padding=_padding(padding),
                                    dilations=list(_tuple(dilation_rate, 2)))
    return _from_last(out, data_format, 4)


def _pool(x, pool_size, strides, padding, data_format, pool_mode, rank):
    data_format = _format(data_format)
    x = _to_last(convert_to_tensor(x), data_format, rank)
    n = rank - 2
    ksize, stride = [1, *_tuple(pool_size, n), 1], [1, *_tuple(strides, n), 1]
    if pool_mode == "max":
        fn = pooling_ops.max_pool2d if n == 2 else pooling_ops.max_pool3d
    elif pool_mode == "avg":
        fn = pooling_ops.avg_pool2d if n == 2 else pooling_ops.avg_pool3d
    else:
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    return _from_last(fn(x, ksize, stride, _padding(padding)), data_format, rank)


@public(_NS)
def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """2-D max (``pool_mode="max"``) or average (``"avg"``) pooling.

    Args:
      x: A tensor or variable.
      pool_size: A tuple of ints: the pooling window.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      pool_mode: ``'max'`` (default) or ``'avg'``.

    Raises:
      ValueError: For an unknown ``padding``, ``data_format`` or ``pool_mode``.
    """
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 4)


@public(_NS)
def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None,
           pool_mode="max"):
    """3-D max or average pooling.

    Args:
      x: A tensor or variable.
      pool_size: A tuple of ints: the pooling window.
      strides: An int or tuple of ints: the window strides.
      padding: ``'valid'`` (default) or ``'same'``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
      pool_mode: ``'max'`` (default) or ``'avg'``.
    """
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 5)


@public(_NS)
def temporal_padding(x, padding=(1, 1)):
    """Zero-pads the middle axis of a 3-D tensor by ``(left, right)``.

    Args:
      x: A tensor or variable.
      padding: A ``(left, right)`` pair, default ``(1, 1)``.
    """
    return array_ops.pad(x, [[0, 0], list(padding), [0, 0]])


@public(_NS)
def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Zero-pads the 2 spatial axes of a 4-D tensor.

    Args:
      x: A tensor or variable.
      padding: A pair of ``(before, after)`` pairs, default ``((1, 1), (1, 1))``.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
    """
    data_format = _format(data_format)
    pads = [list(padding[0]), list(padding[1])]
    if data_format == "channels_first":
        return array_ops.pad(x, [[0, 0], [0, 0]] + pads)
    return array_ops.pad(x, [[0, 0]] + pads + [[0, 0]])


@public(_NS)
def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Zero-pads the 3 spatial axes of a 5-D tensor.

    Args:
      x: A tensor or variable.
      padding: Three ``(before, after)`` pairs, default 1 each.
      data_format: ``'channels_last'`` or ``'channels_first'``; default
        ``image_data_format()``.
    """
    data_format = _format(data_format)
    pads = [list(p) for p in padding]
    if data_format == "channels_first":
        return array_ops.pad(x, [[0, 0], [0, 0]] + pads)
    return array_ops.pad(x, [[0, 0]] + pads + [[0, 0]])


@public(_NS)
def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """Upsamples the spatial axes of a 4-D tensor by integer factors.

    Args:
      x: A tensor or variable.
      height_factor: Positive int.
      width_factor: Positive int.
      data_format: ``'channels_last'`` or ``'channels_first'``.
      interpolation: ``'nearest'`` (default) or ``'bilinear'``.

    Raises:
      ValueError: For an unknown ``data_format`` or ``interpolation``.
    """
    data_format = _format(data_format)
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError("interpolation should be one of \"nearest\" or \"bilinear\".")
    x = _to_last(convert_to_tensor(x), data_format, 4)
    h, w = int(x.shape[1]), int(x.shape[2])
    out = image_ops.resize(x, [h * height_factor, w * width_factor], method=interpolation)
    out = creation_ops.cast(out, x.dtype) if interpolation == "nearest" else out
    return _from_last(out, data_format, 4)


@public(_NS)
def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta``.

    Args:
      x: A tensor or variable.
      mean: The mean tensor.
      var: The variance tensor.
      beta: The offset tensor (or None).
      gamma: The scale tensor (or None).
      axis: int, default -1: the feature axis.
      epsilon: float, default 1e-3.
    """
    return normalization_ops.batch_normalization(x, mean, var, beta, gamma, epsilon)


@public(_NS)
def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """``(normalized, mean, variance)`` of ``x`` over ``reduction_axes``.

    For 4-D inputs reduced over the batch and spatial axes TF runs its fused batch
    norm, which returns the unbiased (n - 1) variance; so does this.

    Args:
      x: A tensor or variable.
      gamma: The scale tensor (or None).
      beta: The offset tensor (or None).
      reduction_axes: A list of ints: the axes normalised over.
      epsilon: float, default 1e-3: added to the variance.
    """
    x = convert_to_tensor(x)
    axes = list(reduction_axes)
    mean, variance = normalization_ops.moments(x, axes)
    normed = normalization_ops.batch_normalization(x, mean, variance, beta, gamma, epsilon)
    if x.shape.rank == 4 and axes in ([0, 1, 2], [0, 2, 3]):
        n = 1
        for a in axes:
            n *= int(x.shape[a])
        variance = variance * (n / max(n - 1, 1))
    return normed, mean, variance


@public(_NS)
def in_top_k(predictions, targets, k):
    """Whether each ``targets`` index is among the top ``k`` of its ``predictions`` row.

    Args:
      predictions: A float ``[batch, classes]`` tensor.
      targets: An int ``[batch]`` tensor of class ids.
      k: int: the number of top entries.

    Returns:
      A bool ``[batch]`` tensor.
    """
    return ranking_ops.in_top_k(targets, predictions, k)


@public(_NS)
def map_fn(fn, elems, name=None, dtype=None):
    """``tf.map_fn(fn, elems, dtype=dtype)``.

    Args:
      fn: A callable.
      elems: A tensor (or nested structure) unpacked along axis 0.
      name: Unused.
      dtype: None (default: ``elems``' dtype) or the output dtype.

    Returns:
      The stacked results.
    """
    return functional_ops.map_fn(fn, elems, dtype=dtype)


@public(_NS)
def foldl(fn, elems, initializer=None, name=None):
    """``tf.foldl``: reduces ``elems`` from the left with ``fn(acc, x)``.

    Args:
      fn: A callable.
      elems: A tensor (or nested structure) unpacked along axis 0.
      initializer: None (default) or the initial accumulator.
      name: Unused.

    Returns:
      The final accumulator.
    """
    return functional_ops.foldl(fn, elems, initializer=initializer)


@public(_NS)
def foldr(fn, elems, initializer=None, name=None):
    """``tf.foldr``: reduces ``elems`` from the right with ``fn(acc, x)``.

    Args:
      fn: A callable.
      elems: A tensor (or nested structure) unpacked along axis 0.
      initializer: None (default) or the initial accumulator.
      name: Unused.

    Returns:
      The final accumulator.
    """
    return functional_ops.foldr(fn, elems, initializer=initializer)


@public(_NS)
def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable of normal random values (standard deviation ``scale``).

    Args:
      shape: A tuple of ints: the output shape.
      mean: float: the mean.
      scale: float: the standard deviation.
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      name: str, default None.
      seed: None (default) or a Python int.
    """
    dtype = dtype or backend.floatx()
    return Variable(random_ops.normal(shape, mean, scale, dtype=dtype, seed=seed), name=name)


@public(_NS)
def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable of uniform random values in ``[low, high)``.

    Args:
      shape: A tuple of ints: the output shape.
      low: float: the lower bound.
      high: float: the upper bound.
      dtype: None (default: ``floatx()``) or a dtype name / ``tf.DType``.
      name: str, default None.
      seed: None (default) or a Python int.
    """
    dtype = dtype or backend.floatx()
    return Variable(random_ops.uniform(shape, low, high, dtype=dtype, seed=seed), name=name)


@public(_NS)
def gradients(loss, variables):
    """Symbolic gradients (TF 1 graphs only).

    Args:
      loss: The loss tensor.
      variables: A list of variables.

    Raises:
      RuntimeError: Always, as TF 2.4 raises in eager mode; use ``tf.GradientTape``.
    """
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use "
                       "tf.GradientTape instead.")


@public(_NS)
def to_dense(tensor):
    """A sparse tensor as a dense one (dense tensors pass through).

    Args:
      tensor: A tensor (possibly sparse).
    """
    to_dense_fn = getattr(tensor, "to_dense", None)
    return to_dense_fn() if to_dense_fn is not None else tensor
