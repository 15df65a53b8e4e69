"""``tf.keras.backend``'s batch-wise products and un-shared convolutions:
``batch_dot``, ``local_conv1d``, ``local_conv2d`` and ``resize_volumes``."""

from __future__ import annotations

import itertools

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras import backend
from torchflow._src.ops import array_ops, linalg_ops, shape_ops
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


def _moved(rank, source, dest):
    """The permutation that moves axis ``source`` to position ``dest``."""
    order = [a for a in range(rank) if a != source]
    order.insert(dest, source)
    return order


def _check_batch_dot(x_shape, y_shape, axes):
    if len(x_shape) < 2 or len(y_shape) < 2:
        raise ValueError(f"Cannot do batch_dot on inputs with rank < 2. Received inputs with "
                         f"shapes {x_shape} and {y_shape}.")
    if x_shape[0] is not None and y_shape[0] is not None and x_shape[0] != y_shape[0]:
        raise ValueError(f"Cannot do batch_dot on inputs with different batch sizes. Received "
                         f"inputs with shapes {x_shape} and {y_shape}.")
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [len(x_shape) - 1, len(y_shape) - 1 if len(y_shape) == 2 else len(y_shape) - 2]
    if any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(f"Multiple target dimensions are not supported. Expected: None, int, "
                         f"(int, int), Provided: {axes}")
    axes = [axes[0] + len(x_shape) if axes[0] < 0 else axes[0],
            axes[1] + len(y_shape) if axes[1] < 0 else axes[1]]
    if 0 in axes:
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not batched, "
                         "add a dummy batch dimension to your inputs using K.expand_dims(x, 0)")
    d1, d2 = x_shape[axes[0]], y_shape[axes[1]]
    if d1 is not None and d2 is not None and d1 != d2:
        raise ValueError(f"Cannot do batch_dot on inputs with shapes {x_shape} and {y_shape} "
                         f"with axes={axes}. x.shape[{axes[0]}] != y.shape[{axes[1]}] "
                         f"({d1} != {d2}).")
    return axes


@public(_NS)
def batch_dot(x, y, axes=None):
    """Batchwise dot product: for each sample ``i``, ``x[i]`` and ``y[i]`` are
    contracted over ``axes`` (one axis of each, never the batch axis 0).

    The result holds ``x``'s remaining axes, then ``y``'s; a rank-2 input
    contributes no axis, and two rank-2 inputs give ``(batch, 1)``.

    Args:
      x: A tensor of rank >= 2.
      y: A tensor of rank >= 2 with the same batch size.
      axes: An int (the same axis of both) or ``(axis_of_x, axis_of_y)``;
        default: the last axis of ``x`` with the second-to-last of ``y`` (the
        last of a rank-2 ``y``).

    Returns:
      A tensor of rank ``ndim(x) + ndim(y) - 2`` (at least 2).

    Raises:
      ValueError: For ranks below 2, different batch sizes, the batch axis in
        ``axes``, several axes per input, or contracted axes of different sizes.

    >>> import torchflow as tf
    >>> x = tf.keras.backend.ones((32, 20, 1))
    >>> y = tf.keras.backend.ones((32, 30, 20))
    >>> tf.keras.backend.int_shape(tf.keras.backend.batch_dot(x, y, axes=(1, 2)))
    (32, 1, 30)
    """
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    x_shape, y_shape = tuple(x.shape.as_list()), tuple(y.shape.as_list())
    a0, a1 = _check_batch_dot(x_shape, y_shape, axes)
    x_rank, y_rank = len(x_shape), len(y_shape)
    if x_rank == 2:  # (batch, d) -> (batch, 1, d)
        x, a0, x_rank = array_ops.expand_dims(x, 1), a0 + 1, 3
    if y_rank == 2:  # (batch, d) -> (batch, d, 1)
        y, y_rank = array_ops.expand_dims(y, 2), 3
    # x as (batch, ..., d), y as (batch, d, ...): then one batched matmul.
    if a0 != x_rank - 1:
        x = array_ops.transpose(x, _moved(x_rank, a0, x_rank - 1))
    if a1 != 1:
        y = array_ops.transpose(y, _moved(y_rank, a1, 1))
    xs, ys = shape_ops.shape(x), shape_ops.shape(y)
    x_mid, y_tail = xs[1:-1], ys[2:]
    if x_rank > 3:
        x = array_ops.reshape(x, array_ops.stack([xs[0], -1, xs[-1]]))
    if y_rank > 3:
        y = array_ops.reshape(y, array_ops.stack([ys[0], ys[1], -1]))
    out = linalg_ops.matmul(x, y)
    if x_rank > 3 or y_rank > 3:
        os_ = shape_ops.shape(out)
        parts = [os_[:1], x_mid if x_rank > 3 else os_[1:2], y_tail if y_rank > 3 else os_[-1:]]
        out = array_ops.reshape(out, array_ops.concat(parts, 0))
    if len(x_shape) == 2:
        return array_ops.squeeze(out, 1)
    if len(y_shape) == 2:
        return array_ops.squeeze(out, -1)
    return out


def _local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format):
    data_format = data_format or backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    inputs, kernel = convert_to_tensor(inputs), convert_to_tensor(kernel)
    feature_dim, channels_out = kernel.shape[1], kernel.shape[-1]
    ndims = len(output_shape)
    patches = []
    for position in itertools.product(*[range(n) for n in output_shape]):
        index = [slice(None)]
        if data_format == "channels_first":
            index.append(slice(None))
        index += [slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d])
                  for d in range(ndims)]
        if data_format == "channels_last":
            index.append(slice(None))
        # Each output position's window, flattened per sample (in the input's
        # axis order, as the kernel's feature axis is laid out).
        patches.append(array_ops.reshape(inputs[tuple(index)], [1, -1, feature_dim]))
    # (positions, batch, features) x (positions, features, out) per position.
    out = batch_dot(array_ops.concat(patches, 0), kernel)
    out = array_ops.reshape(out, list(output_shape) + [-1, channels_out])
    spatial = list(range(ndims))
    if data_format == "channels_first":
        perm = [ndims, ndims + 1] + spatial
    else:
        perm = [ndims] + spatial + [ndims + 1]
    return array_ops.transpose(out, perm)


@public(_NS)
def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    """1-D convolution with un-shared weights (what ``LocallyConnected1D`` computes).

    Args:
      inputs: A 3-D tensor ``(batch, steps, input_dim)`` (``channels_last``) or
        ``(batch, input_dim, steps)`` (``channels_first``).
      kernel: The un-shared weights, ``(output_length, feature_dim, filters)``
        with ``feature_dim = kernel_size * input_dim``.
      kernel_size: A tuple of one int, the window length.
      strides: A tuple of one int, the stride.
      data_format: ``"channels_last"`` or ``"channels_first"`` (default:
        ``image_data_format()``).

    Returns:
      ``(batch, output_length, filters)`` (``channels_last``) or
      ``(batch, filters, output_length)`` (``channels_first``).

    Raises:
      ValueError: For an unknown ``data_format``.
    """
    kernel = convert_to_tensor(kernel)
    return _local_conv(inputs, kernel, kernel_size, strides, (kernel.shape[0],), data_format)


@public(_NS)
def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """2-D convolution with un-shared weights (what ``LocallyConnected2D`` computes).

    Args:
      inputs: A 4-D tensor ``(batch, rows, cols, channels)`` (``channels_last``)
        or ``(batch, channels, rows, cols)`` (``channels_first``).
      kernel: The un-shared weights, ``(output_items, feature_dim, filters)``
        with ``output_items = new_rows * new_cols`` and ``feature_dim =
        kernel_rows * kernel_cols * channels``.
      kernel_size: ``(kernel_rows, kernel_cols)``.
      strides: ``(stride_rows, stride_cols)``.
      output_shape: ``(new_rows, new_cols)``.
      data_format: ``"channels_last"`` or ``"channels_first"`` (default:
        ``image_data_format()``).

    Returns:
      ``(batch, new_rows, new_cols, filters)`` (``channels_last``) or
      ``(batch, filters, new_rows, new_cols)`` (``channels_first``).

    Raises:
      ValueError: For an unknown ``data_format``.
    """
    return _local_conv(inputs, kernel, kernel_size, strides, tuple(output_shape), data_format)


@public(_NS)
def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """Resizes the volume in a 5-D tensor by repeating its elements.

    Args:
      x: A 5-D tensor.
      depth_factor: A positive int.
      height_factor: A positive int.
      width_factor: A positive int.
      data_format: ``"channels_first"`` or ``"channels_last"``.

    Returns:
      ``x`` with its depth, height and width axes repeated by the factors.

    Raises:
      ValueError: For another ``data_format``.

    >>> import torchflow as tf
    >>> x = tf.ones((1, 2, 2, 2, 3))
    >>> tf.keras.backend.resize_volumes(x, 2, 1, 3, "channels_last").shape
    TensorShape([1, 4, 2, 6, 3])
    """
    if data_format == "channels_first":
        first = 2
    elif data_format == "channels_last":
        first = 1
    else:
        raise ValueError(f"Invalid data_format: {data_format}")
    x = convert_to_tensor(x)
    for axis, factor in zip((first, first + 1, first + 2),
                            (depth_factor, height_factor, width_factor)):
        x = array_ops.repeat(x, factor, axis=axis)
    return x
