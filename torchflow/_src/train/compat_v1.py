"""The ``tf.compat.v1`` names TF 2 programs still use with eager code.

``ConfigProto`` is TF's session/server configuration message (``tensorflow.ConfigProto``
in TensorBoard's copy of TF's protos): TF 2 programs build one for
``tf.distribute.Server(..., config=)``, as TF's parameter-server tutorial does.
"""

from __future__ import annotations

from tensorboard.compat.proto.config_pb2 import ConfigProto

__all__ = ["ConfigProto"]
