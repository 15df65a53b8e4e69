"""``tf.feature_column``: the columns that describe a model's structured inputs."""
