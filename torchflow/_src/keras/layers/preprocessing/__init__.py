"""Keras preprocessing layers of TF 2.4 (``tf.keras.layers.experimental.preprocessing``)."""
