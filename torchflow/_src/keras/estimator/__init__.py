"""``tf.keras.estimator``: torchflow has no ``tf.estimator`` (see ``model_to_estimator``)."""

from __future__ import annotations

from torchflow._src.util.api import public


@public("torchflow.keras.estimator")
def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                       model_dir=None, config=None, checkpoint_format="checkpoint",
                       metric_names_map=None, export_outputs=None):
    """Constructs a ``tf.estimator.Estimator`` from a Keras model: not available here.

    TF 2.4 delegates to the ``tensorflow_estimator`` package and raises
    ``NotImplementedError`` when it is not installed. torchflow has no ``tf.estimator``,
    so this always raises TF's error for that case.

    Args:
      keras_model: A compiled Keras model.
      keras_model_path: Path to a saved Keras model (instead of ``keras_model``).
      custom_objects: Custom objects for loading the model.
      model_dir: The estimator's directory.
      config: A ``tf.estimator.RunConfig``.
      checkpoint_format: ``'checkpoint'`` or ``'saver'``.
      metric_names_map: Renames of the model's metrics.
      export_outputs: The estimator's export outputs.

    Raises:
      NotImplementedError: Always (TF's error when ``tensorflow_estimator`` is absent).

    Differences from TensorFlow 2.4: no Estimator exists; train with ``Model.fit``
    (under a ``tf.distribute`` strategy for several workers) and export with
    ``Model.save``.

    >>> import torchflow as tf
    >>> try:
    ...     tf.keras.estimator.model_to_estimator(tf.keras.Sequential())
    ... except NotImplementedError as e:
    ...     print(str(e).split(".")[0])
    tf
    """
    raise NotImplementedError(
        "tf.keras.estimator.model_to_estimator function not available in your installation. "
        "torchflow has no tf.estimator (the tensorflow_estimator package): train with "
        "Model.fit and export with Model.save instead.")
