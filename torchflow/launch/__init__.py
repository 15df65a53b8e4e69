"""``python -m torchflow.launch``: the ``torchflow launch`` command (see ``__main__``)."""
