"""What the ``tf.keras.applications`` builders share: the argument checks and model
input, the classifier-or-pooling top, weight loading, and the shared docstring text."""

from __future__ import annotations

from torchflow._src.keras import backend
from torchflow._src.keras.applications import imagenet_utils
from torchflow._src.keras.engine.model import Model
from torchflow._src.keras.layers.core.dense import Dense
from torchflow._src.keras.layers.pooling.global_pooling import GlobalAveragePooling2D

_MODEL_SECTIONS = """

    Args:
      include_top: Whether to include the fully-connected layer(s) at the top.
      weights: None (random initialization), ``"imagenet"`` (fetched with
        ``get_file``), or the path to a weights file to load.
      input_tensor: Optional Keras tensor to use as the model's input.
      input_shape: Optional shape tuple (at least {min_size}x{min_size}; ``({size}, {size}, 3)``
        with ``include_top`` and ImageNet weights).
      pooling: With ``include_top=False``: None (4-D output), ``"avg"`` or ``"max"``.
      classes: Number of classes (1000 with ImageNet weights and the top).{extra}

    Returns:
      A ``keras.Model``.

    Raises:
      ValueError: For invalid ``weights``, ``classes`` or ``input_shape``.
      Exception: ``URL fetch failure on ...`` when ImageNet weights cannot be fetched.
    """

_PREPROCESS_SECTIONS = """

    Args:
      x: A NumPy array (a float one is changed in place) or tensor of RGB images in
        [0, 255], 3-D or 4-D.
      data_format: ``"channels_last"`` or ``"channels_first"`` (the default format if None).

    Returns:
      The preprocessed images.
    """


def model_doc(default_size=224, min_size=32, kwargs=True, classifier_activation=True):
    """Appends the Args/Returns/Raises sections every standard entry point shares to
    the function's own one-line docstring (``kwargs``/``classifier_activation``: whether
    the signature has them)."""
    extra = ""
    if classifier_activation:
        extra += ("\n      classifier_activation: The top layer's activation (None or "
                  "\"softmax\" with\n        pretrained weights).")
    if kwargs:
        extra += "\n      **kwargs: Accepted for TF's signature."

    def decorate(fn):
        fn.__doc__ = fn.__doc__.rstrip() + _MODEL_SECTIONS.format(
            size=default_size, min_size=min_size, extra=extra)
        return fn

    return decorate


def preprocess_doc(fn):
    """Appends the Args/Returns sections of every family's ``preprocess_input``."""
    fn.__doc__ = fn.__doc__.rstrip() + _PREPROCESS_SECTIONS
    return fn


def model_input(weights, include_top, classes, input_tensor, input_shape, default_size=224,
                min_size=32):
    """Checks ``weights``/``classes``, resolves ``input_shape`` as TF does, and returns
    ``(img_input, inputs)``: the tensor the layers start from and the model's inputs."""
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=min_size,
        data_format=backend.image_data_format(), require_flatten=include_top, weights=weights)
    return imagenet_utils.model_input(input_tensor, input_shape)


def top(x, include_top, pooling, classes, classifier_activation, weights, avg_name="avg_pool",
        pool_names=(None, None)):
    """The usual top: global average pooling and a Dense ``predictions`` layer, or with
    ``include_top=False`` the optional ``pooling`` (layers named ``pool_names``)."""
    if include_top:
        x = GlobalAveragePooling2D(name=avg_name)(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return Dense(classes, activation=classifier_activation, name="predictions")(x)
    return imagenet_utils.pool(x, pooling, name_avg=pool_names[0], name_max=pool_names[1])


def kernels_url(base, stem, include_top):
    """The Keras weight file ``<base><stem>_weights_tf_dim_ordering_tf_kernels[_notop].h5``."""
    suffix = "" if include_top else "_notop"
    return f"{base}{stem}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"


def finish(inputs, x, name, weights, url, file_hash=None):
    """The ``Model`` named ``name``, with ``weights`` loaded (from ``url`` for "imagenet")."""
    return imagenet_utils.load_weights(Model(inputs, x, name=name), weights, url, file_hash)


def decode_predictions(preds, top=5):
    """ImageNet predictions as ``(class_id, class_name, score)`` lists (see
    ``tf.keras.applications.imagenet_utils.decode_predictions``)."""
    return imagenet_utils.decode_predictions(preds, top=top)
