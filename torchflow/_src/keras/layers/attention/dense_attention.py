"""``Attention`` (Luong dot-product) and ``AdditiveAttention`` (Bahdanau), TF 2.4.

Inputs are ``[query, value]`` or ``[query, value, key]``; masks ``[query_mask,
value_mask]``. Masked value positions get a large negative score before the
softmax; masked query positions give zero outputs.
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.ops.array_ops import expand_dims
from torchflow._src.ops.comparison_ops import greater_equal, logical_and, logical_not
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.creation_ops import range as range_op
from torchflow._src.ops.linalg_ops import matmul
from torchflow._src.ops.nn_ops import dropout as dropout_op
from torchflow._src.ops.nn_ops import softmax
from torchflow._src.ops.reduction_ops import reduce_sum
from torchflow._src.ops.shape_ops import shape as shape_op
from torchflow._src.ops.unary_math_ops import tanh
from torchflow._src.util.api import public


def large_negative(dtype) -> float:
    """A large negative score that stays finite in ``dtype`` (float16's max is 65504)."""
    return -65500.0 if dtype == dtypes.float16 else -1e9


class BaseDenseAttention(Layer):
    """Shared call logic of the dense attention layers."""

    def __init__(self, causal=False, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.causal = causal
        self.dropout = dropout
        self.supports_masking = True

    def _calculate_scores(self, query, key):
        raise NotImplementedError

    def _apply_scores(self, scores, value, scores_mask=None, training=None):
        if scores_mask is not None:
            pad = cast(logical_not(scores_mask), scores.dtype)
            scores = scores + pad * large_negative(scores.dtype)
        weights = softmax(scores)
        if training and self.dropout > 0:
            weights = dropout_op(weights, self.dropout)
        return matmul(weights, value), weights

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        _validate_inputs(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(q, k)
        if v_mask is not None:
            v_mask = expand_dims(cast(v_mask, dtypes.bool), -2)
        if self.causal:
            s = shape_op(scores)
            tq, tv = int(s[-2]), int(s[-1])
            rows = expand_dims(_range(tq), -1)
            cols = expand_dims(_range(tv), 0)
            causal = expand_dims(greater_equal(rows, cols), 0)
            v_mask = causal if v_mask is None else logical_and(v_mask, causal)
        result, weights = self._apply_scores(scores, v, v_mask, training)
        if q_mask is not None:
            result = result * expand_dims(cast(q_mask, result.dtype), -1)
        if return_attention_scores:
            return result, weights
        return result

    def compute_mask(self, inputs, mask=None):
        _validate_inputs(inputs, mask)
        if mask:
            q_mask = mask[0]
            return None if q_mask is None else cast(q_mask, dtypes.bool)
        return None

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape[0])[:-1].concatenate(TensorShape(input_shape[1])[-1:])

    def get_config(self):
        config = super().get_config()
        config.update({"causal": self.causal, "dropout": self.dropout})
        return config


def _range(n):
    return range_op(n)


def _validate_inputs(inputs, mask=None):
    name = "Attention"
    if not isinstance(inputs, (list, tuple)):
        raise ValueError(f"{name} layer must be called on a list of inputs, namely "
                         f"[query, value] or [query, value, key].")
    if len(inputs) < 2 or len(inputs) > 3:
        raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely "
                         f"[query, value] or [query, value, key]. Given length: {len(inputs)}")
    if mask:
        if not isinstance(mask, (list, tuple)):
            raise ValueError(f"{name} layer mask must be a list, namely "
                             f"[query_mask, value_mask].")
        if len(mask) < 2 or len(mask) > len(inputs):
            raise ValueError(f"{name} layer mask must be a list of length 2, namely "
                             f"[query_mask, value_mask]. Given length: {len(mask)}")


@public("torchflow.keras.layers")
class Attention(BaseDenseAttention):
    """Dot-product attention: ``softmax(query @ key^T [* scale]) @ value``.

    Args:
      use_scale: Learn a scalar that scales the scores.
      causal: Mask positions ``j > i`` (decoder self-attention).
      dropout: Dropout rate on the attention weights (training only).

    >>> import torchflow as tf
    >>> q, v = tf.ones([2, 3, 4]), tf.ones([2, 5, 4])
    >>> tf.keras.layers.Attention()([q, v]).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, use_scale=False, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        if self.use_scale:
            self.scale = self.add_weight("scale", shape=(), initializer="ones")
        else:
            self.scale = None
        self.built = True

    def _calculate_scores(self, query, key):
        scores = matmul(query, key, transpose_b=True)
        if self.scale is not None:
            scores = scores * self.scale
        return scores

    def get_config(self):
        config = {"use_scale": self.use_scale}
        config.update(super().get_config())
        return config


@public("torchflow.keras.layers")
class AdditiveAttention(BaseDenseAttention):
    """Additive (Bahdanau) attention: ``sum(scale * tanh(query + key), -1)`` scores.

    Args:
      use_scale: Learn a per-dimension scale vector (default True).
      causal, dropout: As ``Attention``.
    """

    def __init__(self, use_scale=True, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        v_shape = TensorShape(input_shape[1])
        dim = v_shape[-1]
        if self.use_scale:
            self.scale = self.add_weight("scale", shape=[dim], initializer="glorot_uniform")
        else:
            self.scale = None
        self.built = True

    def _calculate_scores(self, query, key):
        q = expand_dims(query, -2)
        k = expand_dims(key, -3)
        t = tanh(q + k)
        if self.scale is not None:
            t = t * self.scale
        return reduce_sum(t, axis=-1)

    def get_config(self):
        config = {"use_scale": self.use_scale}
        config.update(super().get_config())
        return config

