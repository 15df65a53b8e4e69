"""SavedModel loading (and, with the writer, saving): TF's on-disk format."""
