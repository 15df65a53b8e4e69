"""``tf.experimental``."""

from torchflow._src.core.async_execution import async_clear_error as async_clear_error
from torchflow._src.core.async_execution import async_scope as async_scope
from torchflow._src.core.async_execution import function_executor_type as function_executor_type
from torchflow._src.core.async_execution import (
    register_filesystem_plugin as register_filesystem_plugin,
)
from torchflow._src.data.iterator_ops import Optional as Optional
from torchflow.experimental import dlpack as dlpack
from torchflow.experimental import numpy as numpy
