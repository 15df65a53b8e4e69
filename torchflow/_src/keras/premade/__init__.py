"""Premade models: ``LinearModel`` and ``WideDeepModel`` (TF 2.4's ``tf.keras.experimental``)."""
