"""``tf.config``: devices, placement, TensorFloat-32 and eager-function settings."""

from torchflow._src.core.config import LogicalDevice as LogicalDevice
from torchflow._src.core.config import LogicalDeviceConfiguration as LogicalDeviceConfiguration
from torchflow._src.core.config import PhysicalDevice as PhysicalDevice
from torchflow._src.core.config import (
    experimental_functions_run_eagerly as experimental_functions_run_eagerly,
)
from torchflow._src.core.config import (
    experimental_run_functions_eagerly as experimental_run_functions_eagerly,
)
from torchflow._src.core.config import functions_run_eagerly as functions_run_eagerly
from torchflow._src.core.config import (
    get_logical_device_configuration as get_logical_device_configuration,
)
from torchflow._src.core.config import get_soft_device_placement as get_soft_device_placement
from torchflow._src.core.config import get_visible_devices as get_visible_devices
from torchflow._src.core.config import list_logical_devices as list_logical_devices
from torchflow._src.core.config import list_physical_devices as list_physical_devices
from torchflow._src.core.config import run_functions_eagerly as run_functions_eagerly
from torchflow._src.core.config import (
    set_logical_device_configuration as set_logical_device_configuration,
)
from torchflow._src.core.config import set_soft_device_placement as set_soft_device_placement
from torchflow._src.core.config import set_visible_devices as set_visible_devices
from torchflow.config import experimental as experimental
from torchflow.config import optimizer as optimizer
from torchflow.config import threading as threading
