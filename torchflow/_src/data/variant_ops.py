"""``tf.data.experimental.to_variant`` / ``from_variant``: a dataset as a ``tf.variant`` scalar.

TF keeps a dataset as a C++ object behind a scalar ``variant`` tensor. Here the
scalar's value is the Python dataset object itself (a 0-D NumPy object array),
so the round trip gives back the same pipeline.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.data import _structure
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.util.api import public


@public("torchflow.data.experimental")
def to_variant(dataset):
    """A scalar ``tf.variant`` tensor that holds ``dataset``.

    >>> import torchflow as tf
    >>> v = tf.data.experimental.to_variant(tf.data.Dataset.range(3))
    >>> v.dtype, v.shape
    (tf.variant, TensorShape([]))

    Args:
      dataset: A ``tf.data.Dataset``.

    Returns:
      A 0-D tensor of dtype ``tf.variant``.

    Raises:
      TypeError: If ``dataset`` is not a ``tf.data.Dataset``.

    Differences from TensorFlow 2.4: a non-dataset argument raises ``TypeError``
    (TF 2.4 raises ``AttributeError`` on its missing ``_variant_tensor``).
    """
    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset`. Received: dataset={dataset!r}")
    holder = np.empty((), dtype=object)
    holder[()] = dataset
    return wrap(holder, dtypes.variant)


@public("torchflow.data.experimental")
def from_variant(variant, structure):
    """The ``tf.data.Dataset`` held by a ``tf.variant`` tensor from ``to_variant``.

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.range(3)
    >>> v = tf.data.experimental.to_variant(ds)
    >>> back = tf.data.experimental.from_variant(v, ds.element_spec)
    >>> [int(x) for x in back]
    [0, 1, 2]

    Args:
      variant: A scalar ``tf.variant`` tensor holding a dataset.
      structure: The dataset's ``element_spec`` (a nested structure of
        ``tf.TypeSpec`` objects).

    Returns:
      The ``tf.data.Dataset``.

    Raises:
      TypeError: If ``variant`` is not a scalar variant tensor holding a dataset.
      ValueError: If ``structure`` does not match the dataset's element spec.

    Differences from TensorFlow 2.4: the checks happen here, not when the
    dataset is iterated.
    """
    dataset = None
    if isinstance(variant, Tensor) and variant.dtype is dtypes.variant and variant.shape.rank == 0:
        dataset = variant.numpy()
    if not isinstance(dataset, DatasetV2):
        raise TypeError("`variant` must be a scalar tf.variant tensor holding a dataset "
                        f"(from `tf.data.experimental.to_variant`). Received: variant={variant!r}")
    spec = dataset.element_spec
    if not (_structure.same_structure(structure, spec) and all(
            a.is_compatible_with(b) for a, b in zip(_structure.flatten(structure),
                                                    _structure.flatten(spec)))):
        raise ValueError(f"`structure` {structure} does not match the dataset's element "
                         f"spec {spec}.")
    return dataset
