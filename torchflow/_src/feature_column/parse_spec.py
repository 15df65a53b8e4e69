"""``make_parse_example_spec``: the ``tf.io.parse_example`` spec of a set of columns."""

from __future__ import annotations

from torchflow._src.feature_column.base import FeatureColumn
from torchflow._src.util.api import public


@public("torchflow.feature_column")
def make_parse_example_spec(feature_columns) -> dict:
    """The dict of ``FixedLenFeature`` / ``VarLenFeature`` that parses the raw
    features the columns read, for ``tf.io.parse_example``.

    Args:
      feature_columns: An iterable of feature columns.

    Returns:
      A dict from feature key to its parsing spec.

    Raises:
      ValueError: If an item is not a FeatureColumn, or two columns give one key
        different specs.

    >>> import torchflow as tf
    >>> tf.feature_column.make_parse_example_spec([tf.feature_column.numeric_column("x")])
    {'x': FixedLenFeature(shape=(1,), dtype=tf.float32, default_value=None)}
    """
    result = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"All feature_columns must be FeatureColumn instances. Given: "
                             f"{column}")
        for key, spec in column.parse_example_spec.items():
            if key in result and result[key] != spec:
                raise ValueError(f"feature_columns contain different parse_spec for key "
                                 f"{key}. Given {spec} and {result[key]}")
        result.update(column.parse_example_spec)
    return result
