"""``tf.keras.layers.DenseFeatures``: feature columns to one dense tensor.

The columns are sorted by name (as TF), each column's dense tensor is
flattened to ``[batch, num_elements]`` and the results are concatenated. The
variables of stateful columns (embedding tables) are the layer's weights,
named ``<layer>/<column>/<variable>``.
"""

from __future__ import annotations

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.feature_column import base as fc
from torchflow._src.feature_column.serialization import deserialize_feature_column
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.ops import array_ops, shape_ops
from torchflow._src.util.api import public


class LayerStateManager(fc.StateManager):
    """Creates the columns' variables as weights of ``layer``."""

    def __init__(self, layer, trainable):
        self._layer, self._trainable = layer, trainable
        self._vars: dict = {}

    def create_variable(self, feature_column, name, shape, dtype=None, trainable=True,
                        use_resource=True, initializer=None):
        del use_resource
        key = (feature_column.name, name)
        if key in self._vars:
            raise ValueError("Variable already exists.")
        var = self._layer.add_weight(name=f"{feature_column.name}/{name}", shape=shape,
                                     dtype=dtype, initializer=initializer,
                                     trainable=self._trainable and trainable)
        self._vars[key] = var
        return var

    def get_variable(self, feature_column, name):
        return self._vars[(feature_column.name, name)]


class BaseFeaturesLayer(Layer):
    """What ``DenseFeatures`` and ``SequenceFeatures`` share: the sorted columns,
    their state, the dict check and the flattening of each column's output."""

    def __init__(self, feature_columns, expected_column_type, what, trainable=True, name=None,
                 partitioner=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._feature_columns = fc.normalize_feature_columns(feature_columns,
                                                             expected_column_type, what)
        self._partitioner = partitioner
        self._state_manager = LayerStateManager(self, trainable)
        self.supports_masking = False

    def build(self, input_shape):
        for column in self._feature_columns:
            column.create_state(self._state_manager)
        super().build(None)

    def _check_features(self, features):
        if not isinstance(features, dict):
            raise ValueError("We expected a dictionary here. Instead we got: ", features)
        return fc.FeatureTransformationCache(features)

    @staticmethod
    def _flatten_column(column, tensor, keep_time):
        n = column.variable_shape.num_elements()
        batch = tensor.shape[0] if tensor.shape.rank else None
        if batch is not None:  # the usual case: a static batch size, no shape op
            return array_ops.reshape(tensor, [batch, -1, n] if keep_time else [batch, n])
        return array_ops.reshape(tensor, array_ops.concat(
            [shape_ops.shape(tensor)[:1], [-1, n] if keep_time else [n]], 0))

    def get_config(self):
        config = super().get_config()
        config["feature_columns"] = [{"class_name": type(c).__name__, "config": c.get_config()}
                                     for c in self._feature_columns]
        config["partitioner"] = None
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["feature_columns"] = [deserialize_feature_column(c, custom_objects)
                                     for c in config["feature_columns"]]
        config.pop("partitioner", None)
        return cls(**config)


@public("torchflow.keras.layers")
class DenseFeatures(BaseFeaturesLayer):
    """A layer that produces a dense Tensor from a dict of features and feature columns.

    Each column turns its raw features (dense Tensors, SparseTensors or string
    tensors; rank-1 features count as ``[batch, 1]``) into ``[batch,
    num_elements]`` floats; the columns' outputs are concatenated in the order
    of the columns' names. Use it as the first layer of a model whose inputs
    are a dict (from ``tf.data`` or ``tf.keras.Input`` layers).

    Args:
      feature_columns: An iterable of dense columns (``numeric_column``,
        ``bucketized_column``, ``embedding_column``, ``indicator_column``...).
      trainable: Whether the columns' variables are trained.
      name: The layer's name (default ``dense_features``).
      partitioner: Unused (a TF 1 variable partitioner).
      **kwargs: Base ``Layer`` arguments.

    Call arguments:
      features: A dict from feature key to Tensor or SparseTensor.
      cols_to_output_tensors: If a dict, filled with each column's output.
      training: Unused by the built-in columns.

    Returns:
      A float32 Tensor ``[batch, sum of the columns' num_elements]``.

    Raises:
      ValueError: If a column is not a dense column, names repeat, or the
        features are not a dict or lack a column's key.

    >>> import torchflow as tf
    >>> cols = [tf.feature_column.numeric_column("b"), tf.feature_column.numeric_column("a")]
    >>> tf.keras.layers.DenseFeatures(cols)({"a": [[1.]], "b": [[2.]]}).numpy()
    array([[1., 2.]], dtype=float32)
    """

    def __init__(self, feature_columns, trainable=True, name=None, partitioner=None, **kwargs):
        super().__init__(feature_columns, fc.DenseColumn, "DenseColumn", trainable=trainable,
                         name=name, partitioner=partitioner, **kwargs)

    def call(self, features, cols_to_output_tensors=None, training=None):
        cache = self._check_features(features)
        outputs = []
        for column in self._feature_columns:
            tensor = column.get_dense_tensor(cache, self._state_manager)
            flat = self._flatten_column(column, tensor, keep_time=False)
            outputs.append(flat)
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[column] = flat
        return array_ops.concat(outputs, 1)

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict):  # torchflow's Functional API passes the dict
            input_shape = next(iter(input_shape.values()), None)
        batch = TensorShape(input_shape)[0] if input_shape is not None else None
        total = sum(c.variable_shape.num_elements() for c in self._feature_columns)
        return TensorShape([batch, total])
