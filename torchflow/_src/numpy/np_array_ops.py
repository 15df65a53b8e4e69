"""tnp shape manipulation: reshaping, transposing, joining, splitting, padding, flipping."""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.core.tensor import Tensor
from torchflow._src.numpy.np_arrays import asarray, promote
from torchflow._src.ops import numpy_ops as _k
from torchflow._src.util.api import public

_MOD = "torchflow.experimental.numpy"


def _shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (numbers.Integral, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


# --- shape manipulation -----------------------------------------------------------------
@public(_MOD)
def reshape(a, newshape, order="C"):
    """TensorFlow variant of NumPy's ``reshape``: ``a``'s elements in a new shape.

    Args:
      a: An array-like.
      newshape: An int or a sequence of ints; one entry may be -1, inferred.
      order: Only ``'C'`` (row-major) is supported.

    Returns:
      A Tensor of the new shape.

    Raises:
      ValueError: ``order`` is not ``'C'``.
    """
    if order != "C":
        raise ValueError("tnp.reshape: only order='C' is supported")
    return _k.reshape(asarray(a), _shape(newshape))


@public(_MOD)
def ravel(a):
    """TensorFlow variant of NumPy's ``ravel``: the flattened array, in row-major order.

    Args:
      a: An array-like.

    Returns:
      A 1-D Tensor.

    Unsupported arguments: ``order``.
    """
    return _k.reshape(asarray(a), (-1,))


@public(_MOD)
def flatten(a, order="C"):
    """Same as ``ravel``."""
    return ravel(a)


@public(_MOD)
def transpose(a, axes=None):
    """TensorFlow variant of NumPy's ``transpose``: permutes the axes.

    Args:
      a: An array-like.
      axes: The permutation; None reverses the axes.

    Returns:
      A Tensor with permuted axes.
    """
    a = asarray(a)
    if axes is None:
        axes = tuple(range(a.ndim - 1, -1, -1))
    return _k.transpose(a, _shape(axes))


@public(_MOD)
def swapaxes(a, axis1, axis2):
    """TensorFlow variant of NumPy's ``swapaxes``: interchanges two axes.

    Args:
      a: An array-like.
      axis1: The first axis.
      axis2: The second axis.

    Returns:
      A Tensor with the two axes swapped.
    """
    a = asarray(a)
    p = list(range(a.ndim))
    p[axis1], p[axis2] = p[axis2], p[axis1]
    return _k.transpose(a, tuple(p))


@public(_MOD)
def moveaxis(a, source, destination):
    """TensorFlow variant of NumPy's ``moveaxis``: moves axes to new positions.

    Args:
      a: An array-like.
      source: An axis or a sequence of axes to move.
      destination: Their new positions, as many as ``source``.

    Returns:
      A Tensor with the axes moved; the others keep their order.
    """
    return _k.moveaxis(asarray(a), source if isinstance(source, int) else tuple(source),
                destination if isinstance(destination, int) else tuple(destination))


@public(_MOD)
def expand_dims(a, axis):
    """TensorFlow variant of NumPy's ``expand_dims``: inserts length-1 axes.

    Args:
      a: An array-like.
      axis: An int or a tuple of ints, the positions of the new axes in the result.

    Returns:
      A Tensor of rank ``ndim(a) + len(axis)``.

    Raises:
      InvalidArgumentError: an ``axis`` out of range (TF's ExpandDims message).
    """
    a = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = a.ndim + len(axes)
    for x in axes:  # TF's ExpandDims range, not Python's modulo wrap-around
        if not -n <= x < n:
            raise InvalidArgumentError(
                None, None, f"Tried to expand dim index {x} for tensor with {a.ndim} "
                            f"dimensions. [Op:ExpandDims]")
    axes = sorted(x % n for x in axes)
    for x in axes:
        a = _k.expand_dims(a, x)
    return a


@public(_MOD)
def squeeze(a, axis=None):
    """TensorFlow variant of NumPy's ``squeeze``: removes length-1 axes.

    Args:
      a: An array-like.
      axis: None (all length-1 axes), an int or a tuple of ints.

    Returns:
      A Tensor without those axes.

    Raises:
      InvalidArgumentError: an ``axis`` out of range or of length other than 1 (TF's
        Squeeze messages).
    """
    a = asarray(a)
    if axis is None:
        return _k.reshape(a, tuple(s for s in _k.shape_tuple(a) if s != 1))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    shape = _k.shape_tuple(a)
    for x in axes:  # TF's Squeeze kernel: range, then size, axis by axis
        if not -a.ndim <= x < a.ndim:
            raise InvalidArgumentError(None, None, f"Tried to squeeze dim index {x} for tensor "
                                                   f"with {a.ndim} dimensions. [Op:Squeeze]")
        if shape[x] != 1:
            raise InvalidArgumentError(None, None, f"Can not squeeze dim[{x % a.ndim}], expected "
                                                   f"a dimension of 1, got {shape[x]} "
                                                   f"[Op:Squeeze]")
    return _k.squeeze(a, tuple(x % a.ndim for x in axes))


@public(_MOD)
def broadcast_to(array, shape):
    """TensorFlow variant of NumPy's ``broadcast_to``: ``array`` broadcast to a shape.

    Args:
      array: An array-like.
      shape: The target shape, compatible with ``array``'s under broadcasting.

    Returns:
      A Tensor of ``shape``.

    Unsupported arguments: ``subok``.
    """
    return _k.broadcast_to(asarray(array), _shape(shape))


@public(_MOD)
def broadcast_arrays(*args, **kwargs):
    """TensorFlow variant of NumPy's ``broadcast_arrays``: broadcasts the arrays against each other.

    Args:
      *args: The array-likes.
      **kwargs: Ignored (NumPy's ``subok``).

    Returns:
      A list of Tensors, all of the common broadcast shape.
    """
    xs = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*[_k.shape_tuple(x) for x in xs])
    return [_k.broadcast_to(x, shape) for x in xs]


def _atleast(n, arys):
    out = []
    for a in arys:
        a = asarray(a)
        if a.ndim < n:
            if n == 3 and a.ndim == 2:
                a = _k.reshape(a, _k.shape_tuple(a) + (1,))
            elif n == 3 and a.ndim == 1:
                a = _k.reshape(a, (1, _k.shape_tuple(a)[0], 1))
            else:
                a = _k.reshape(a, (1,) * (n - a.ndim) + _k.shape_tuple(a))
        out.append(a)
    return out[0] if len(out) == 1 else out


@public(_MOD)
def atleast_1d(*arys):
    """TensorFlow variant of NumPy's ``atleast_1d``: the arrays with at least one dimension.

    Args:
      *arys: Array-likes; scalars become shape ``(1,)``.

    Returns:
      A Tensor for one input, else a list of Tensors.
    """
    return _atleast(1, arys)


@public(_MOD)
def atleast_2d(*arys):
    """TensorFlow variant of NumPy's ``atleast_2d``: the arrays with at least two dimensions.

    Args:
      *arys: Array-likes; new axes go in front (a 1-D ``(n,)`` becomes ``(1, n)``).

    Returns:
      A Tensor for one input, else a list of Tensors.
    """
    return _atleast(2, arys)


@public(_MOD)
def atleast_3d(*arys):
    """TensorFlow variant of NumPy's ``atleast_3d``: the arrays with at least three dimensions.

    Args:
      *arys: Array-likes; NumPy's placement: ``(n,)`` becomes ``(1, n, 1)``, ``(m, n)``
        becomes ``(m, n, 1)``.

    Returns:
      A Tensor for one input, else a list of Tensors.
    """
    return _atleast(3, arys)


@public(_MOD)
def concatenate(arys, axis=0):
    """TensorFlow variant of NumPy's ``concatenate``: joins arrays along an existing axis.

    Args:
      arys: A non-empty sequence of array-likes, promoted to one dtype.
      axis: The axis to join along; None flattens the arrays first.

    Returns:
      A Tensor.

    Raises:
      ValueError: ``arys`` is empty.

    Unsupported arguments: ``out``, ``dtype``, ``casting``.
    """
    if not arys:
        raise ValueError("Need at least one array to concatenate.")
    xs = promote(*arys)
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    return _k.concatenate(xs, axis)


@public(_MOD)
def stack(arrays, axis=0):
    """TensorFlow variant of NumPy's ``stack``: joins arrays of one shape along a new axis.

    Args:
      arrays: A non-empty sequence of array-likes (or a Tensor, unstacked along axis 0).
      axis: The position of the new axis in the result.

    Returns:
      A Tensor one rank higher than the inputs.

    Raises:
      ValueError: ``arrays`` is empty.

    Unsupported arguments: ``out``, ``dtype``, ``casting``.
    """
    if isinstance(arrays, Tensor):
        arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    return _k.stack(promote(*arrays), axis)


@public(_MOD)
def hstack(tup):
    """TensorFlow variant of NumPy's ``hstack``: stacks arrays column-wise.

    Args:
      tup: A sequence of array-likes, joined along axis 1 (axis 0 for 1-D ones).

    Returns:
      A Tensor.

    Unsupported arguments: ``dtype``, ``casting``.
    """
    xs = [atleast_1d(a) for a in tup]
    return concatenate(xs, 0 if xs[0].ndim == 1 else 1)


@public(_MOD)
def vstack(tup):
    """TensorFlow variant of NumPy's ``vstack``: stacks arrays row-wise.

    Args:
      tup: A sequence of array-likes, made at least 2-D and joined along axis 0.

    Returns:
      A Tensor of rank at least 2.

    Unsupported arguments: ``dtype``, ``casting``.
    """
    return concatenate([atleast_2d(a) for a in tup], 0)


@public(_MOD)
def dstack(tup):
    """TensorFlow variant of NumPy's ``dstack``: stacks arrays along the third axis.

    Args:
      tup: A sequence of array-likes, made at least 3-D and joined along axis 2.

    Returns:
      A Tensor of rank at least 3.
    """
    return concatenate([atleast_3d(a) for a in tup], 2)


@public(_MOD)
def column_stack(tup):
    """Stacks 1-d arrays as columns of a 2-d array."""
    xs = [asarray(a) for a in tup]
    xs = [_k.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in xs]
    return concatenate(xs, 1)


@public(_MOD)
def append(arr, values, axis=None):
    """TensorFlow variant of NumPy's ``append``: ``values`` appended to ``arr``.

    Args:
      arr: An array-like.
      values: An array-like; with an ``axis`` it must match ``arr`` on the other axes.
      axis: The axis to append along; None flattens both first.

    Returns:
      A Tensor.
    """
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


def _split_sizes(n, indices_or_sections, strict):
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and n % k:
            raise ValueError("array split does not result in an equal division")
        q, r = divmod(n, k)
        return [q + 1] * r + [q] * (k - r)
    bounds = [0] + [builtins.min(builtins.max(int(i) if i >= 0 else n + int(i), 0), n)
                    for i in indices_or_sections] + [n]
    return [builtins.max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]


@public(_MOD)
def split(ary, indices_or_sections, axis=0):
    """TensorFlow variant of NumPy's ``split``: splits an array into parts.

    Args:
      ary: An array-like.
      indices_or_sections: An int (that many equal parts) or a sorted sequence of
        split indices along ``axis``.
      axis: The axis to split along.

    Returns:
      A list of Tensors.

    Raises:
      ValueError: an integer number of sections that does not divide the axis.
      InvalidArgumentError: ``axis`` out of range (TF's Split message).
    """
    a = asarray(ary)
    if not -a.ndim <= axis < a.ndim:
        raise InvalidArgumentError(None, None, f"-input rank(-{a.ndim}) <= split_dim < input "
                                               f"rank ({a.ndim}), but got {axis} [Op:Split]")
    sizes = _split_sizes(_k.shape_tuple(a)[axis], indices_or_sections, True)
    return _k.split(a, sizes, axis)


@public(_MOD)
def array_split(ary, indices_or_sections, axis=0):
    """Like ``split`` but allows unequal sections."""
    a = asarray(ary)
    return _k.split(a, _split_sizes(_k.shape_tuple(a)[axis], indices_or_sections, False), axis)


@public(_MOD)
def hsplit(ary, indices_or_sections):
    """TensorFlow variant of NumPy's ``hsplit``: ``split`` along axis 1 (axis 0 for 1-D arrays).

    Args:
      ary: An array-like.
      indices_or_sections: An int (equal parts) or a sequence of split indices.

    Returns:
      A list of Tensors.
    """
    a = asarray(ary)
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


@public(_MOD)
def vsplit(ary, indices_or_sections):
    """TensorFlow variant of NumPy's ``vsplit``: ``split`` along axis 0.

    Args:
      ary: An array-like of rank at least 2.
      indices_or_sections: An int (equal parts) or a sequence of split indices.

    Returns:
      A list of Tensors.
    """
    return split(ary, indices_or_sections, 0)


@public(_MOD)
def dsplit(ary, indices_or_sections):
    """TensorFlow variant of NumPy's ``dsplit``: ``split`` along axis 2.

    Args:
      ary: An array-like of rank at least 3.
      indices_or_sections: An int (equal parts) or a sequence of split indices.

    Returns:
      A list of Tensors.
    """
    return split(ary, indices_or_sections, 2)


@public(_MOD)
def tile(a, reps):
    """TensorFlow variant of NumPy's ``tile``: ``a`` repeated along each axis.

    Args:
      a: An array-like.
      reps: An int or a sequence of ints, the repetitions per axis.

    Returns:
      A Tensor.
    """
    return _k.tile(asarray(a), _shape(reps))


@public(_MOD)
def repeat(a, repeats, axis=None):
    """TensorFlow variant of NumPy's ``repeat``: repeats each element.

    Args:
      a: An array-like.
      repeats: An int, or one int per element along ``axis``.
      axis: The axis to repeat along; None flattens ``a`` first.

    Returns:
      A Tensor.
    """
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    r = repeats if isinstance(repeats, (int, np.integer)) else asarray(repeats, np.int64)
    return _k.repeat(a, int(r) if isinstance(r, (int, np.integer)) else r, axis)


@public(_MOD)
def pad(array, pad_width, mode="constant", constant_values=0):
    """TensorFlow variant of NumPy's ``pad``: pads an array.

    Args:
      array: An array-like.
      pad_width: The ``(before, after)`` widths per axis (broadcast as NumPy does: an
        int or one pair serves every axis).
      mode: One of ``'constant'``, ``'edge'``, ``'reflect'``, ``'symmetric'``, ``'wrap'``.
      constant_values: The scalar padded with in ``'constant'`` mode.

    Returns:
      A Tensor.

    Raises:
      ValueError: an unsupported mode.

    Unsupported arguments: ``stat_length``, ``end_values``, ``reflect_type`` and the
    statistical modes (``'mean'``, ``'maximum'``, ...).
    """
    a = asarray(array)
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (a.ndim, 2)).tolist()
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"Unsupported padding mode: {mode}")
    return _k.pad(a, pw, mode, constant_values)


@public(_MOD)
def roll(a, shift, axis=None):
    """TensorFlow variant of NumPy's ``roll``: rolls elements along axes, wrapping around.

    Args:
      a: An array-like.
      shift: An int or a tuple of ints, the places to shift.
      axis: An int or a tuple of ints; None rolls the flattened array (shape kept).

    Returns:
      A Tensor of ``a``'s shape.
    """
    a = asarray(a)
    return _k.roll(a, shift if isinstance(shift, int) else tuple(shift),
                axis if axis is None or isinstance(axis, int) else tuple(axis))


@public(_MOD)
def rot90(m, k=1, axes=(0, 1)):
    """TensorFlow variant of NumPy's ``rot90``: rotates by 90 degrees in a plane.

    Args:
      m: An array-like of rank at least 2.
      k: The number of rotations (from the first axis towards the second).
      axes: The two axes of the plane.

    Returns:
      A Tensor.
    """
    return _k.rot90(asarray(m), int(k), list(axes))


@public(_MOD)
def flip(m, axis=None):
    """TensorFlow variant of NumPy's ``flip``: reverses the order of elements.

    Args:
      m: An array-like.
      axis: An int or a tuple of ints; None reverses every axis.

    Returns:
      A Tensor of ``m``'s shape.
    """
    m = asarray(m)
    axes = tuple(range(m.ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    return _k.flip(m, axes)


@public(_MOD)
def fliplr(m):
    """TensorFlow variant of NumPy's ``fliplr``: reverses axis 1.

    Args:
      m: An array-like of rank at least 2.

    Returns:
      A Tensor of ``m``'s shape.
    """
    return flip(m, 1)


@public(_MOD)
def flipud(m):
    """TensorFlow variant of NumPy's ``flipud``: reverses axis 0.

    Args:
      m: An array-like of rank at least 1.

    Returns:
      A Tensor of ``m``'s shape.
    """
    return flip(m, 0)
