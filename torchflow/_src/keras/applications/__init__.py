"""``tf.keras.applications``: Keras 2's image-classification architectures.

The models are built from torchflow's Keras layers with TF 2.4's layer names,
so ``weights=`` files written by tf.keras load by name. ``weights="imagenet"``
fetches TF's weight files with ``tf.keras.utils.get_file`` (cached under
``~/.keras/models``); where they cannot be fetched the call raises TF's
``Exception: URL fetch failure on ...``.
"""
