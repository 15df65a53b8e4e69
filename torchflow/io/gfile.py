"""``tf.io.gfile``: local file helpers."""

from torchflow._src.ops.io_ops import GFile as GFile
from torchflow._src.ops.io_ops import copy as copy
from torchflow._src.ops.io_ops import exists as exists
from torchflow._src.ops.io_ops import glob as glob
from torchflow._src.ops.io_ops import isdir as isdir
from torchflow._src.ops.io_ops import listdir as listdir
from torchflow._src.ops.io_ops import makedirs as makedirs
from torchflow._src.ops.io_ops import mkdir as mkdir
from torchflow._src.ops.io_ops import remove as remove
from torchflow._src.ops.io_ops import rename as rename
from torchflow._src.ops.io_ops import rmtree as rmtree
from torchflow._src.ops.io_ops import stat as stat
from torchflow._src.ops.io_ops import walk as walk
