"""``tf.keras.utils.experimental.DatasetCreator`` (TF 2.5's): a dataset function for
``Model.fit`` under ``ParameterServerStrategy``."""

from __future__ import annotations

from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.util.api import public


@public("torchflow.keras.utils.experimental")
class DatasetCreator:
    """Object that returns a ``tf.data.Dataset`` upon invoking.

    ``Model.fit`` under a ``tf.distribute.experimental.ParameterServerStrategy``
    takes one as ``x``: each worker calls it with a ``tf.distribute.InputContext``
    and iterates its own dataset. ``steps_per_epoch`` must be given.

    Args:
      dataset_fn: A callable taking a ``tf.distribute.InputContext`` and returning
        a ``tf.data.Dataset``.
      input_options: Accepted (``tf.distribute.InputOptions``); not used.

    Raises:
      TypeError: If ``dataset_fn`` is not callable.

    Differences from TensorFlow 2.4: TF 2.4 has no DatasetCreator (added in 2.5).
    """

    def __init__(self, dataset_fn, input_options=None):
        if not callable(dataset_fn):
            raise TypeError("`dataset_fn` for `DatasetCreator` must be a `callable`.")
        self.dataset_fn = dataset_fn
        self.input_options = input_options

    def __call__(self, *args, **kwargs):
        dataset = self.dataset_fn(*args, **kwargs)
        if not isinstance(dataset, DatasetV2):
            raise TypeError("The `callable` provided to `DatasetCreator` must return a "
                            "Dataset.")
        return dataset
