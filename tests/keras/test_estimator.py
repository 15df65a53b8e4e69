"""tf.keras.estimator.model_to_estimator: TF 2.4 raises NotImplementedError when the
tensorflow_estimator package is absent; torchflow has no tf.estimator and raises the
same error, with TF's message first."""

import inspect

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

TF_MESSAGE = "tf.keras.estimator.model_to_estimator function not available in your installation."


def test_raises_tfs_not_implemented_error():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    with pytest.raises(NotImplementedError) as err:
        tf.keras.estimator.model_to_estimator(keras_model=model, model_dir="/tmp/unused")
    assert str(err.value).startswith(TF_MESSAGE)
    assert "Model.fit" in str(err.value)
    with pytest.raises(NotImplementedError, match="not available in your installation"):
        tf.keras.estimator.model_to_estimator(keras_model_path="/nonexistent")


def test_same_as_real_tf_without_tensorflow_estimator():
    ref = real_tf()
    try:
        import tensorflow_estimator  # noqa: F401
        pytest.skip("tensorflow_estimator is installed here: real TF would build an Estimator")
    except ImportError:
        pass
    with pytest.raises(NotImplementedError) as err:
        ref.keras.estimator.model_to_estimator(keras_model=ref.keras.Sequential())
    assert str(err.value) == TF_MESSAGE
    ours = inspect.signature(tf.keras.estimator.model_to_estimator).parameters
    theirs = inspect.signature(ref.keras.estimator.model_to_estimator).parameters
    assert list(ours) == list(theirs)
