"""``tf.keras.preprocessing``: the Keras 2 data utilities (sequence, text, image)."""
