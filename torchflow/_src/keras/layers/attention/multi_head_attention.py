"""``tf.keras.layers.MultiHeadAttention`` (TF 2.4) with tf.keras' EinsumDense layout.

Weights, in tf.keras' order: ``query/kernel [q_dim, heads, key_dim]``,
``query/bias [heads, key_dim]``, the same for ``key`` and ``value`` (value with
``value_dim``), ``attention_output/kernel [heads, value_dim, *out]`` and
``attention_output/bias [*out]`` (``out`` is the query's last dimension unless
``output_shape`` is given). Attention may run over several axes
(``attention_axes``); the einsum equations are built per input rank.
"""

from __future__ import annotations

import math
import string

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.keras.layers.attention.dense_attention import large_negative
from torchflow._src.ops.array_ops import expand_dims, reshape
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.einsum_ops import einsum
from torchflow._src.ops.nn_ops import dropout as dropout_op
from torchflow._src.ops.nn_ops import softmax
from torchflow._src.util.api import public

_L = string.ascii_lowercase


def _equations(rank, attn_axes):
    """Einsum equations for scores and combination of projected tensors of ``rank``
    (``[batch, ..., heads, dim]``), attending over ``attn_axes``."""
    q = _L[:rank]
    k = list(q)
    nxt = rank
    for a in attn_axes:
        k[a] = _L[nxt]
        nxt += 1
    k = "".join(k)
    batch = [i for i in range(rank - 1) if i not in attn_axes]  # includes heads (rank-2)
    heads = rank - 2
    batch = [i for i in batch if i != heads]
    product = "".join(q[i] for i in batch) + q[heads] + "".join(q[a] for a in attn_axes) + \
        "".join(k[a] for a in attn_axes)
    dot = f"{k},{q}->{product}"
    combine = f"{product},{k}->{q}"
    return dot, combine, len(batch)


class _EinsumWeights:
    """One projection's kernel and bias as a checkpoint node: tf.keras keeps them in an
    ``EinsumDense`` sublayer, so TF's checkpoints and SavedModels name them
    ``_query_dense/kernel``, ``_query_dense/bias``, ..., and a SavedModel's
    ``keras_metadata.pb`` describes that sublayer (``_keras_sublayer_metadata``)."""

    def __init__(self, layer, name, kernel, bias, input_shape, bound):
        self._deps = [("kernel", kernel)] + ([("bias", bias)] if bias is not None else [])
        rank, out = input_shape.rank, kernel.shape.rank - bound
        lhs, extra = _L[:rank], _L[rank:rank + out]
        dims = kernel.shape.as_list()[bound:]
        self._config = {
            "name": name, "trainable": layer.trainable, "dtype": layer.dtype,
            "output_shape": [None] * (rank - bound - 1) + dims,
            "equation": f"{lhs},{lhs[-bound:]}{extra}->{lhs[:-bound]}{extra}",
            "activation": "linear", "bias_axes": extra if bias is not None else None,
            "kernel_initializer": U.ser_init(layer.kernel_initializer),
            "bias_initializer": U.ser_init(layer.bias_initializer),
            "kernel_regularizer": U.ser_reg(layer.kernel_regularizer),
            "bias_regularizer": U.ser_reg(layer.bias_regularizer),
            "activity_regularizer": None,
            "kernel_constraint": U.ser_con(layer.kernel_constraint),
            "bias_constraint": U.ser_con(layer.bias_constraint)}
        self._input_shape = input_shape

    def _checkpoint_dependencies(self) -> list:
        return list(self._deps)

    def _keras_sublayer_metadata(self) -> dict:
        return {"class_name": "EinsumDense", "name": self._config["name"],
                "config": dict(self._config), "build_input_shape": self._input_shape,
                "expects_training_arg": False}


@public("torchflow.keras.layers")
class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.), TF 2.4's ``MultiHeadAttention``.

    Args:
      num_heads: Number of heads.
      key_dim: Size of each head for query and key.
      value_dim: Size of each head for value (default ``key_dim``).
      dropout: Dropout rate on the attention probabilities.
      use_bias: Whether the projections have biases.
      output_shape: Last dimension(s) of the output (default: the query's).
      attention_axes: Axes attention runs over (default: all but batch, heads, features).
      kernel_initializer, bias_initializer, *_regularizer, *_constraint: As ``Dense``.

    Call arguments: ``query``, ``value``, ``key=None``, ``attention_mask=None``
    (``[B, T, S]``, True = attend), ``return_attention_scores=False``, ``training``.

    >>> import torchflow as tf
    >>> mha = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    >>> mha(tf.ones([2, 4, 5]), tf.ones([2, 6, 5])).shape
    TensorShape([2, 4, 5])
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.num_heads = num_heads
        self.key_dim = key_dim
        self.value_dim = value_dim if value_dim else key_dim
        self.dropout = dropout
        self.use_bias = use_bias
        self.output_shape_arg = output_shape
        if attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            attention_axes = (attention_axes,)
        self.attention_axes = tuple(attention_axes) if attention_axes is not None else None
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.bias_constraint = U.get_con(bias_constraint)
        self.supports_masking = False

    def _proj(self, name, shape, bias_shape):
        k = self.add_weight(f"{name}/kernel", shape=shape, initializer=self.kernel_initializer,
                            regularizer=self.kernel_regularizer,
                            constraint=self.kernel_constraint)
        b = None
        if self.use_bias:
            b = self.add_weight(f"{name}/bias", shape=bias_shape,
                                initializer=self.bias_initializer,
                                regularizer=self.bias_regularizer,
                                constraint=self.bias_constraint)
        return k, b

    def _build_from_shapes(self, q_shape, v_shape, k_shape):
        q_shape, v_shape, k_shape = TensorShape(q_shape), TensorShape(v_shape), \
            TensorShape(k_shape)
        # Kept for the SavedModel metadata: newer tf-keras rebuilds the layer from them.
        self._build_shapes = (q_shape, k_shape, v_shape)
        h = self.num_heads
        self._rank = q_shape.rank
        self._q_kernel, self._q_bias = self._proj("query", [q_shape[-1], h, self.key_dim],
                                                  [h, self.key_dim])
        self._k_kernel, self._k_bias = self._proj("key", [k_shape[-1], h, self.key_dim],
                                                  [h, self.key_dim])
        self._v_kernel, self._v_bias = self._proj("value", [v_shape[-1], h, self.value_dim],
                                                  [h, self.value_dim])
        out = self.output_shape_arg
        if out is None:
            out = [q_shape[-1]]
        elif isinstance(out, int):
            out = [out]
        else:
            out = list(out)
        self._out_dims = out
        self._o_kernel, self._o_bias = self._proj(
            "attention_output", [h, self.value_dim] + out, out)
        rank = self._rank + 1
        axes = self.attention_axes
        if axes is None:
            axes = tuple(range(1, self._rank - 1))
        axes = tuple(a % self._rank if a < 0 else a for a in axes)
        self._axes = axes
        self._dot, self._combine, self._nbatch = _equations(rank, axes)
        combined = TensorShape(q_shape[:-1].as_list() + [h, self.value_dim])
        object.__setattr__(self, "_einsum_weights", [
            (attr, _EinsumWeights(self, name, k, b, shape, bound))
            for attr, name, k, b, shape, bound in (
                ("_query_dense", "query", self._q_kernel, self._q_bias, q_shape, 1),
                ("_key_dense", "key", self._k_kernel, self._k_bias, k_shape, 1),
                ("_value_dense", "value", self._v_kernel, self._v_bias, v_shape, 1),
                ("_output_dense", "attention_output", self._o_kernel, self._o_bias,
                 combined, 2))])
        self.built = True

    def _checkpoint_dependencies(self):
        held = getattr(self, "_einsum_weights", [])
        own = {id(w) for _, h in held for _, w in h._checkpoint_dependencies()}
        deps = [(n, c) for n, c in super()._checkpoint_dependencies()
                if id(c) not in own and n != "_einsum_weights"]
        return deps + list(held)

    def build(self, input_shape):
        # Built at the first call, when query/value/key shapes are all known.
        pass

    def _project(self, x, kernel, bias, out_dims):
        r = x.shape.rank
        lhs = _L[:r]
        extra = _L[r:r + out_dims]
        y = einsum(f"{lhs},{lhs[-1]}{extra}->{lhs[:-1]}{extra}", x, kernel)
        return y if bias is None else y + bias

    def _as_input(self, x):
        # Only the first call argument goes through __call__'s conversion and autocast.
        x = convert_to_tensor(x)
        cd = self._compute_dtype_obj
        if cd is not None and x.dtype.is_floating and x.dtype != cd:
            x = cast(x, cd)
        return x

    def call(self, query, value, key=None, attention_mask=None,
             return_attention_scores=False, training=None):
        value = self._as_input(value)
        key = value if key is None else self._as_input(key)
        if not self.built or not hasattr(self, "_dot"):
            self._build_from_shapes(query.shape, value.shape, key.shape)
        q = self._project(query, self._q_kernel, self._q_bias, 2)
        k = self._project(key, self._k_kernel, self._k_bias, 2)
        v = self._project(value, self._v_kernel, self._v_bias, 2)
        q = q * (1.0 / math.sqrt(float(self.key_dim)))
        scores = einsum(self._dot, k, q)
        n_attn = len(self._axes)
        if attention_mask is not None:
            mask = cast(attention_mask, scores.dtype)
            while mask.shape.rank < scores.shape.rank:
                mask = expand_dims(mask, -n_attn * 2 - 1)
            scores = scores + (1.0 - mask) * large_negative(scores.dtype)
        if n_attn == 1:
            probs = softmax(scores, axis=-1)
        else:
            sh = scores.shape.as_list()  # the batch stays out of the graph (-1)
            flat = reshape(scores, [-1] + sh[1:-n_attn] + [math.prod(sh[-n_attn:])])
            probs = reshape(softmax(flat, axis=-1), [-1] + sh[1:])
        drop = probs
        if training and self.dropout > 0:
            drop = dropout_op(probs, self.dropout)
        out = einsum(self._combine, drop, v)
        r = out.shape.rank
        lhs = _L[:r]
        extra = _L[r:r + len(self._out_dims)]
        out = einsum(f"{lhs},{lhs[-2:]}{extra}->{lhs[:-2]}{extra}", out, self._o_kernel)
        if self._o_bias is not None:
            out = out + self._o_bias
        if return_attention_scores:
            return out, probs
        return out

    def get_config(self):
        config = super().get_config()
        config.update({
            "num_heads": self.num_heads, "key_dim": self.key_dim,
            "value_dim": self.value_dim, "dropout": self.dropout, "use_bias": self.use_bias,
            "output_shape": self.output_shape_arg, "attention_axes": self.attention_axes,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "activity_regularizer": U.ser_reg(self.activity_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
        })
        return config

