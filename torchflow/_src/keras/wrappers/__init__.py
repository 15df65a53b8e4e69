"""Wrappers of Keras models for other libraries (``tf.keras.wrappers``)."""
