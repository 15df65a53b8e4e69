"""``tf.keras.layers.Embedding``: rows of a trainable ``[input_dim, output_dim]`` table."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.comparison_ops import not_equal
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import gather
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class Embedding(Layer):
    """Turns non-negative integer indices into dense vectors of fixed size.

    Args:
      input_dim: Vocabulary size (largest index + 1).
      output_dim: Size of each vector.
      embeddings_initializer: Initializer of the table (default ``uniform``).
      embeddings_regularizer, activity_regularizer: Regularizers.
      embeddings_constraint: Constraint on the table.
      mask_zero: Whether index 0 is padding: the output mask is ``inputs != 0``.
      input_length: Length of input sequences, when constant.

    >>> import torchflow as tf
    >>> tf.keras.layers.Embedding(10, 3)(tf.constant([[1, 2]])).shape
    TensorShape([1, 2, 3])
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError(f"Both `input_dim` and `output_dim` should be positive, found "
                             f"input_dim {input_dim} and output_dim {output_dim}")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        # Indices are never cast to the compute dtype.
        self._autocast = False
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = U.get_init(embeddings_initializer)
        self.embeddings_regularizer = U.get_reg(embeddings_regularizer)
        self.embeddings_constraint = U.get_con(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.input_length = input_length

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings", shape=[self.input_dim, self.output_dim],
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint)
        self.built = True

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape)
        if self.input_length is None:
            return input_shape.concatenate([self.output_dim])
        lengths = self.input_length if isinstance(self.input_length, (list, tuple)) \
            else [self.input_length]
        if len(lengths) != input_shape.rank - 1:
            raise ValueError(f'"input_length" is {self.input_length}, but received input '
                             f"has shape {input_shape}")
        return TensorShape([input_shape[0]] + list(lengths) + [self.output_dim])

    def call(self, inputs):
        if inputs.dtype not in (dtypes.int32, dtypes.int64):
            inputs = cast(inputs, dtypes.int32)
        out = gather(self.embeddings, inputs)
        cd = self._compute_dtype_obj
        if cd is not None and out.dtype != cd:
            out = cast(out, cd)
        return out

    def get_config(self):
        config = super().get_config()
        config.update({
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": U.ser_init(self.embeddings_initializer),
            "embeddings_regularizer": U.ser_reg(self.embeddings_regularizer),
            "activity_regularizer": U.ser_reg(self.activity_regularizer),
            "embeddings_constraint": U.ser_con(self.embeddings_constraint),
            "mask_zero": self.mask_zero, "input_length": self.input_length,
        })
        return config
