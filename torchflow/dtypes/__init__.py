"""``tf.dtypes``: the DType class, ``as_dtype`` and the dtype objects."""

from torchflow._src.core.dtypes import DType as DType
from torchflow._src.core.dtypes import as_dtype as as_dtype
from torchflow._src.core.dtypes import bfloat16 as bfloat16
from torchflow._src.core.dtypes import bool as bool
from torchflow._src.core.dtypes import complex64 as complex64
from torchflow._src.core.dtypes import complex128 as complex128
from torchflow._src.core.dtypes import double as double
from torchflow._src.core.dtypes import float16 as float16
from torchflow._src.core.dtypes import float32 as float32
from torchflow._src.core.dtypes import float64 as float64
from torchflow._src.core.dtypes import half as half
from torchflow._src.core.dtypes import int8 as int8
from torchflow._src.core.dtypes import int16 as int16
from torchflow._src.core.dtypes import int32 as int32
from torchflow._src.core.dtypes import int64 as int64
from torchflow._src.core.dtypes import resource as resource
from torchflow._src.core.dtypes import string as string
from torchflow._src.core.dtypes import uint8 as uint8
from torchflow._src.core.dtypes import uint16 as uint16
from torchflow._src.core.dtypes import uint32 as uint32
from torchflow._src.core.dtypes import uint64 as uint64
from torchflow._src.core.dtypes import variant as variant
from torchflow._src.ops.creation_ops import cast as cast
from torchflow._src.ops.creation_ops import saturate_cast as saturate_cast
from torchflow._src.ops.math_ops import complex as complex
