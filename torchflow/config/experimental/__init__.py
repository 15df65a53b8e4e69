"""``tf.config.experimental``: memory growth, TensorFloat-32, device details."""

from torchflow._src.core.config import ClusterDeviceFilters as ClusterDeviceFilters
from torchflow._src.core.config import VirtualDeviceConfiguration as VirtualDeviceConfiguration
from torchflow._src.core.config import disable_mlir_bridge as disable_mlir_bridge
from torchflow._src.core.config import (
    disable_mlir_graph_optimization as disable_mlir_graph_optimization,
)
from torchflow._src.core.config import enable_mlir_bridge as enable_mlir_bridge
from torchflow._src.core.config import (
    enable_mlir_graph_optimization as enable_mlir_graph_optimization,
)
from torchflow._src.core.config import enable_op_determinism as enable_op_determinism
from torchflow._src.core.config import (
    enable_tensor_float_32_execution as enable_tensor_float_32_execution,
)
from torchflow._src.core.config import get_device_details as get_device_details
from torchflow._src.core.config import get_device_policy as get_device_policy
from torchflow._src.core.config import get_memory_growth as get_memory_growth
from torchflow._src.core.config import get_memory_info as get_memory_info
from torchflow._src.core.config import get_memory_usage as get_memory_usage
from torchflow._src.core.config import get_synchronous_execution as get_synchronous_execution
from torchflow._src.core.config import (
    get_virtual_device_configuration as get_virtual_device_configuration,
)
from torchflow._src.core.config import get_visible_devices as get_visible_devices
from torchflow._src.core.config import list_logical_devices as list_logical_devices
from torchflow._src.core.config import list_physical_devices as list_physical_devices
from torchflow._src.core.config import reset_memory_stats as reset_memory_stats
from torchflow._src.core.config import set_device_policy as set_device_policy
from torchflow._src.core.config import set_memory_growth as set_memory_growth
from torchflow._src.core.config import set_synchronous_execution as set_synchronous_execution
from torchflow._src.core.config import (
    set_virtual_device_configuration as set_virtual_device_configuration,
)
from torchflow._src.core.config import set_visible_devices as set_visible_devices
from torchflow._src.core.config import (
    tensor_float_32_execution_enabled as tensor_float_32_execution_enabled,
)
