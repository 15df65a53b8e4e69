"""``tf.RaggedTensor``, ``tf.RaggedTensorSpec`` and the ``tf.ragged`` ops.

Importing the package installs ``from_tensor``/``to_tensor``/``merge_dims``,
indexing and the operators on ``RaggedTensor`` and registers its op dispatch.
"""

from torchflow._src.ops.ragged import ragged_convert as ragged_convert
from torchflow._src.ops.ragged import ragged_dispatch as ragged_dispatch
from torchflow._src.ops.ragged import ragged_getitem as ragged_getitem
