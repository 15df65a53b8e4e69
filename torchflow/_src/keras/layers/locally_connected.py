"""``tf.keras.layers.LocallyConnected1D/2D``: convolutions whose weights are not shared.

TF 2.4's three implementations, with TF's weight shapes (``C`` input channels, ``F``
filters, ``K`` the kernel's size, ``O`` the output positions):

1. ``kernel [prod(O), prod(K) * C, F]``: one dense kernel per output position, applied to
   that position's patch (``padding='valid'`` only);
2. ``kernel [*I, C, *O, F]`` (channels_first ``[C, *I, F, *O]``), the full dense map from
   input to output, masked to each output's receptive field at every call;
3. ``kernel [n]``: the ``n`` connected (output, input) entries of that map, in TF's sorted
   index order.

All three compute the same function of the input; the bias is ``[*O, F]`` (added, for
channels_first, as TF does: reshaped, not transposed, to ``[F, *O]``).
"""

from __future__ import annotations

import itertools

import numpy as np

from torchflow._src.core.convert import constant
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_spec import InputSpec
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.array_ops import concat, reshape, transpose
from torchflow._src.ops.creation_ops import cast, zeros
from torchflow._src.ops.einsum_ops import einsum
from torchflow._src.ops.gather_ops import gather
from torchflow._src.ops.linalg_ops import matmul
from torchflow._src.util.api import public


def _connected(in_shape, kernel, strides, out_pos, padding):
    """The input positions each axis of output position ``out_pos`` reads (TF's rule)."""
    ranges = []
    for d, size in enumerate(in_shape):
        left = kernel[d] // 2
        center = out_pos[d] * strides[d] + (left if padding == "valid" else 0)
        ranges.append(range(max(0, center - left), min(size, center + kernel[d] - left)))
    return ranges


def _flat(spatial, channel, spatial_dims, channels, channels_first):
    idx = ((channel,) + tuple(spatial)) if channels_first else (tuple(spatial) + (channel,))
    dims = ((channels,) + tuple(spatial_dims)) if channels_first else \
        (tuple(spatial_dims) + (channels,))
    return int(np.ravel_multi_index(idx, dims))


class _LocallyConnected(Layer):
    _rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 implementation=1, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        n = self._rank
        self.filters = filters
        self.kernel_size = U.normalize_tuple(kernel_size, n, "kernel_size")
        self.strides = U.normalize_tuple(strides, n, "strides")
        self.padding = U.normalize_padding(padding)
        if self.padding != "valid" and implementation == 1:
            raise ValueError(f"Invalid border mode for {type(self).__name__} (only \"valid\" "
                             f"is supported if implementation is 1): {padding}")
        self.data_format = U.normalize_data_format(data_format)
        self.activation = U.get_act(activation)
        self.use_bias = use_bias
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.bias_constraint = U.get_con(bias_constraint)
        self.implementation = implementation
        self.input_spec = InputSpec(ndim=n + 2)

    def _split_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if self.data_format == "channels_first":
            return dims[2:], dims[1]
        return dims[1:-1], dims[-1]

    def build(self, input_shape):
        spatial, channels = self._split_shape(input_shape)
        if any(s is None for s in spatial):
            raise ValueError(f"The spatial dimensions of the inputs to a {type(self).__name__} "
                             f"layer should be fully-defined, but layer received the inputs "
                             f"shape {TensorShape(input_shape)}")
        if channels is None:
            raise ValueError(f"Axis {self._rank + 1 if self.data_format != 'channels_first' else 1}"
                             f" of input should be fully-defined. Found shape: "
                             f"{TensorShape(input_shape)}")
        out = [U.conv_output_length(s, k, self.padding, st)
               for s, k, st in zip(spatial, self.kernel_size, self.strides)]
        self._spatial, self._channels, self._out = spatial, channels, out
        first = self.data_format == "channels_first"
        f, n_out = self.filters, int(np.prod(out))
        if self.implementation == 1:
            kshape = [n_out, int(np.prod(self.kernel_size)) * channels, f]
            self._patch = constant(self._patch_index(), dtype="int32")
        elif self.implementation == 2:
            kshape = ([channels] + spatial + [f] + out) if first else (spatial + [channels] + out
                                                                        + [f])
            self._mask = constant(self._mask_array(kshape))
        elif self.implementation == 3:
            idxs = sorted(self._kernel_idxs())
            self._idxs = constant(np.array(idxs, np.int64).reshape(-1, 2), dtype="int64")
            self._sparse_gather(np.array(idxs, np.int64).reshape(-1, 2), n_out * f)
            kshape = [len(idxs)]
        else:
            raise ValueError(f"Unrecognized implementation mode: {self.implementation}.")
        self.kernel = self.add_weight("kernel", shape=kshape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", shape=out + [f], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        axis = 1 if first else -1
        self.input_spec = InputSpec(ndim=self._rank + 2, axes={axis: channels})
        self.built = True

    def _positions(self):
        return itertools.product(*[range(o) for o in self._out])

    def _patch_index(self):
        """``[prod(O), prod(K) * C]``: flat input indices of each output position's patch,
        in the patch's memory order (spatial then channel, or channel first)."""
        first = self.data_format == "channels_first"
        rows = []
        for pos in self._positions():
            starts = [p * s for p, s in zip(pos, self.strides)]
            cells = itertools.product(*[range(a, a + k) for a, k in zip(starts,
                                                                          self.kernel_size)])
            cells = list(cells)
            if first:
                row = [_flat(c, ch, self._spatial, self._channels, True)
                       for ch in range(self._channels) for c in cells]
            else:
                row = [_flat(c, ch, self._spatial, self._channels, False)
                       for c in cells for ch in range(self._channels)]
            rows.append(row)
        return np.array(rows, np.int32)

    def _mask_array(self, kshape):
        mask = np.zeros(list(self._spatial) + list(self._out), np.float32)
        for pos in self._positions():
            for cell in itertools.product(*_connected(self._spatial, self.kernel_size,
                                                      self.strides, pos, self.padding)):
                mask[tuple(cell) + tuple(pos)] = 1.0
        if self.data_format == "channels_first":
            mask = mask.reshape([1] + list(self._spatial) + [1] + list(self._out))
        else:
            mask = mask.reshape(list(self._spatial) + [1] + list(self._out) + [1])
        return mask

    def _sparse_gather(self, idxs, n_out):
        """Implementation 3's entries by output: ``_entry_rows [n_out, M]`` (the kernel
        entries of each output, padded with the index of an appended zero) and
        ``_in_rows`` (their input indices; 0 where padded)."""
        counts = np.bincount(idxs[:, 0], minlength=n_out)
        m = max(int(counts.max()), 1)
        entry = np.full((n_out, m), len(idxs), np.int64)
        inputs = np.zeros((n_out, m), np.int64)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        slot = np.arange(len(idxs)) - starts[idxs[:, 0]]  # idxs is sorted by output
        entry[idxs[:, 0], slot] = np.arange(len(idxs))
        inputs[idxs[:, 0], slot] = idxs[:, 1]
        self._entry_rows = constant(entry, dtype="int64")
        self._in_rows = constant(inputs, dtype="int64")

    def _kernel_idxs(self):
        first = self.data_format == "channels_first"
        c, f = self._channels, self.filters
        for pos in self._positions():
            for cell in itertools.product(*_connected(self._spatial, self.kernel_size,
                                                      self.strides, pos, self.padding)):
                for ci in range(c):
                    for fo in range(f):
                        yield (_flat(pos, fo, self._out, f, first),
                               _flat(cell, ci, self._spatial, c, first))

    def call(self, inputs):
        cd = self._compute_dtype_obj
        if cd is not None and inputs.dtype != cd:
            inputs = cast(inputs, cd)
        first = self.data_format == "channels_first"
        x = reshape(inputs, [-1, int(np.prod(self._spatial)) * self._channels])
        f, out = self.filters, list(self._out)
        if self.implementation == 1:
            patches = gather(x, self._patch, axis=1)  # [N, prod(O), prod(K) * C]
            y = einsum("npk,pkf->npf", patches, self.kernel)
            y = reshape(y, [-1] + out + [f])
            if first:
                y = transpose(y, [0, self._rank + 1] + list(range(1, self._rank + 1)))
        elif self.implementation == 2:
            k = self.kernel * cast(self._mask, x.dtype)
            y = matmul(x, reshape(k, [x.shape[-1], -1]))
            y = reshape(y, [-1] + ([f] + out if first else out + [f]))
        else:
            kernel = concat([self.kernel, zeros([1], x.dtype)], 0)
            xg = gather(x, self._in_rows, axis=1)  # [N, n_out, M]
            y = einsum("nom,om->no", xg, gather(kernel, self._entry_rows))
            y = reshape(y, [-1] + ([f] + out if first else out + [f]))
        if self.bias is not None:
            b = reshape(self.bias, [1, f] + out) if first else self.bias
            y = y + b
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        spatial, _ = self._split_shape(shape)
        out = [U.conv_output_length(s, k, self.padding, st)
               for s, k, st in zip(spatial, self.kernel_size, self.strides)]
        if self.data_format == "channels_first":
            return TensorShape([shape[0], self.filters] + out)
        return TensorShape([shape[0]] + out + [self.filters])

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format,
            "activation": U.ser_act(self.activation), "use_bias": self.use_bias,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "activity_regularizer": U.ser_reg(self.activity_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
            "implementation": self.implementation,
        })
        return config


@public("torchflow.keras.layers")
class LocallyConnected1D(_LocallyConnected):
    """Locally-connected layer for 1D inputs: a ``Conv1D`` with unshared weights.

    Args:
      filters: Number of output filters.
      kernel_size: An int or tuple of 1: the window length.
      strides: An int or tuple of 1 (default 1).
      padding: ``'valid'`` (default) or ``'same'`` (implementations 2 and 3 only).
      data_format: ``'channels_last'`` (default) or ``'channels_first'``.
      activation: Activation (name or callable; default linear).
      use_bias: Whether to add a bias ``[output_length, filters]``.
      kernel_initializer, bias_initializer: Initializers.
      kernel_regularizer, bias_regularizer, activity_regularizer: Regularizers.
      kernel_constraint, bias_constraint: Constraints.
      implementation: 1 (per-position kernels), 2 (masked dense kernel) or 3 (sparse
        kernel): the same function, different weight layouts and costs.
      **kwargs: Base ``Layer`` arguments.

    Raises:
      ValueError: For ``padding='same'`` with ``implementation=1``, an unknown
        implementation, or an input whose length or channels are unknown.

    >>> import torchflow as tf
    >>> tf.keras.layers.LocallyConnected1D(4, 3)(tf.ones([2, 10, 5])).shape
    TensorShape([2, 8, 4])
    """

    _rank = 1


@public("torchflow.keras.layers")
class LocallyConnected2D(_LocallyConnected):
    """Locally-connected layer for 2D inputs: a ``Conv2D`` with unshared weights.

    Args:
      filters: Number of output filters.
      kernel_size: An int or tuple of 2: the window's height and width.
      strides: An int or tuple of 2 (default 1).
      padding: ``'valid'`` (default) or ``'same'`` (implementations 2 and 3 only).
      data_format: ``'channels_last'`` (default) or ``'channels_first'``.
      activation: Activation (name or callable; default linear).
      use_bias: Whether to add a bias ``[output_rows, output_cols, filters]``.
      kernel_initializer, bias_initializer: Initializers.
      kernel_regularizer, bias_regularizer, activity_regularizer: Regularizers.
      kernel_constraint, bias_constraint: Constraints.
      implementation: 1 (per-position kernels), 2 (masked dense kernel) or 3 (sparse
        kernel): the same function, different weight layouts and costs.
      **kwargs: Base ``Layer`` arguments.

    Raises:
      ValueError: For ``padding='same'`` with ``implementation=1``, an unknown
        implementation, or an input whose spatial size or channels are unknown.

    >>> import torchflow as tf
    >>> tf.keras.layers.LocallyConnected2D(4, 3)(tf.ones([2, 6, 6, 3])).shape
    TensorShape([2, 4, 4, 4])
    """

    _rank = 2
