"""``tf.config``: devices, placement, TensorFloat-32, eager functions, threads.

Devices are torch's: the CPU and each CUDA device torch sees. Visibility, soft
placement and the eager-functions flag live in ``context.GLOBAL`` (the one home
of global state); this module is their public face.

The runtime counts as initialized (``context.GLOBAL.runtime_started``) once the
logical devices are listed or a ``tf.distribute`` strategy is built; after that,
changing logical device configurations, visible devices or thread counts raises
TF's ``RuntimeError``, as in TF.

Differences from TensorFlow 2.4: creating tensors does not initialize the
runtime (TF's first op does), so those settings may still change after tensors
exist; tensors already created stay where they are. Memory growth is recorded
only: torch's caching allocator always grows on demand.
"""

from __future__ import annotations

import collections
import os
import warnings

import torch

from torchflow._src.core import context
from torchflow._src.core.tensor import wrap as _wrap
from torchflow._src.util import omp_env
from torchflow._src.util.api import public

PhysicalDevice = public("torchflow.config")(
    collections.namedtuple("PhysicalDevice", ["name", "device_type"])
)
PhysicalDevice.__doc__ = """A physical device, as ``tf.config.list_physical_devices`` lists it.

Args:
  name: str, the device's name, as ``'/physical_device:GPU:0'``.
  device_type: str, ``'CPU'`` or ``'GPU'``.
"""

LogicalDevice = public("torchflow.config")(
    collections.namedtuple("LogicalDevice", ["name", "device_type"])
)
LogicalDevice.__doc__ = """A logical device, as ``tf.config.list_logical_devices`` lists it.

Pass ``name`` to ``tf.device`` to place ops on it.

Args:
  name: str, the device's name, as ``'/device:GPU:0'``.
  device_type: str, ``'CPU'`` or ``'GPU'``.
"""


@public("torchflow.config")
class LogicalDeviceConfiguration(
    collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    )
):
    """Configuration of one logical device carved out of a physical device.

    Args:
      memory_limit: Memory (MB) for a logical GPU (recorded only).
      experimental_priority: Recorded only.
      experimental_device_ordinal: Recorded only.
    """

    __slots__ = ()

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


VirtualDeviceConfiguration = LogicalDeviceConfiguration


class _ConfigState:
    """State of tf.config that ``context.GLOBAL`` has no field for."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.logical_config: dict = {}  # PhysicalDevice -> list of configurations
        self.cpu_visible = True
        self.device_policy = "silent"
        self.synchronous_execution = True
        self.optimizer_jit = ""
        self.optimizer_options: dict = {}
        self.mlir_bridge = False
        self.mlir_graph_optimization = False


_STATE = _ConfigState()


# --- devices ---------------------------------------------------------------------


def _physical_devices() -> list:
    devs = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devs += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(context.gpu_count())]
    return devs


def _gpu_index(dev) -> int:
    return int(dev.name.rsplit(":", 1)[1])


def _check_physical(device) -> None:
    if device not in _physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")


@public("torchflow.config")
def list_physical_devices(device_type=None) -> list:
    """Returns the physical devices torch sees (the CPU and each CUDA device).

    Args:
      device_type: Optional device type to keep ("CPU" or "GPU"; exact match).

    Returns:
      A list of ``PhysicalDevice``.

    >>> import torchflow as tf
    >>> tf.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    return [d for d in _physical_devices() if device_type is None or d.device_type == device_type]


@public("torchflow.config")
def get_visible_devices(device_type=None) -> list:
    """Returns the physical devices torchflow may place tensors on.

    Args:
      device_type: Optional device type to keep ("CPU" or "GPU").
    """
    gpus = context.GLOBAL.visible_gpus
    out = []
    for d in _physical_devices():
        if d.device_type == "CPU":
            visible = _STATE.cpu_visible
        else:
            visible = gpus is None or _gpu_index(d) in gpus
        if visible and (device_type is None or d.device_type == device_type):
            out.append(d)
    return out


@public("torchflow.config")
def set_visible_devices(devices, device_type=None) -> None:
    """Sets the physical devices torchflow may use.

    New tensors go on the first visible GPU, else on the CPU.

    Args:
      devices: A ``PhysicalDevice`` or a list of them.
      device_type: If given, only devices of this type change visibility.

    Raises:
      ValueError: If a device is not a physical device, or the CPU would be hidden.
    """
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        _check_physical(d)
    if context.GLOBAL.runtime_started:
        current = get_visible_devices() if device_type is None else \
            get_visible_devices(device_type)
        if sorted(current) != sorted(devices):
            raise RuntimeError("Visible devices cannot be modified after being initialized")
    if device_type is None:
        keep = []
    else:
        keep = [d for d in get_visible_devices() if d.device_type != device_type]
    new = keep + [d for d in devices if d not in keep]
    if not any(d.device_type == "CPU" for d in new):
        raise ValueError(
            "tf.config.set_visible_devices: torchflow always keeps the CPU visible; "
            f"received devices={devices!r}, device_type={device_type!r}"
        )
    context.GLOBAL.visible_gpus = sorted(_gpu_index(d) for d in new if d.device_type == "GPU")
    context.invalidate_device_cache()


def _logical_count(dev) -> int:
    cfg = _STATE.logical_config.get(dev)
    return len(cfg) if cfg else 1


@public("torchflow.config")
def list_logical_devices(device_type=None) -> list:
    """Returns the logical devices: one per visible device, or one per logical
    device configuration set on it.

    Args:
      device_type: Optional device type to keep ("CPU" or "GPU").
    """
    context.mark_runtime_started()
    out = []
    counters = {"CPU": 0, "GPU": 0}
    for d in get_visible_devices():
        for _ in range(_logical_count(d)):
            i = counters[d.device_type]
            counters[d.device_type] += 1
            if device_type is None or d.device_type == device_type:
                out.append(LogicalDevice(f"/device:{d.device_type}:{i}", d.device_type))
    return out


@public("torchflow.config")
def set_logical_device_configuration(device, logical_devices) -> None:
    """Splits a physical device into logical devices (recorded; they share the
    physical device's torch device).

    Args:
      device: A ``PhysicalDevice``.
      logical_devices: A list of ``LogicalDeviceConfiguration``, or None to reset.
    """
    _check_physical(device)
    if context.GLOBAL.runtime_started:
        new = None if logical_devices is None else list(logical_devices)
        if _STATE.logical_config.get(device) != new:
            raise RuntimeError("Virtual devices cannot be modified after being initialized")
        return
    if logical_devices is None:
        _STATE.logical_config.pop(device, None)
    else:
        _STATE.logical_config[device] = list(logical_devices)
    _sync_logical_gpus()


def _sync_logical_gpus() -> None:
    """Logical GPU i maps to the physical GPU that holds it."""
    if not any(d.device_type == "GPU" for d in _STATE.logical_config):
        return
    vis = context.GLOBAL.visible_gpus
    phys = list(range(context.gpu_count())) if vis is None else vis
    mapping = []
    for g in phys:
        mapping += [g] * _logical_count(PhysicalDevice(f"/physical_device:GPU:{g}", "GPU"))
    context.GLOBAL.visible_gpus = mapping
    context.invalidate_device_cache()


def logical_device_torch(name: str):
    """The torch device behind a logical device name ('/device:CPU:1' -> cpu).

    Logical devices carved out of one physical device share its torch device.
    """
    spec = str(name)
    kind = "GPU" if "GPU" in spec.upper() else "CPU"
    if kind == "CPU":
        return context.parse_device("/CPU:0")
    return context.parse_device(spec)


def copy_to_device(value, device):
    """``value`` (a Tensor) on torch ``device``: the same Tensor when it already
    lives there, else a differentiable copy (tf.distribute moves per-replica
    values and mirrored reads between devices with it)."""
    t = value._t
    if not isinstance(t, torch.Tensor) or t.device == device:
        return value
    return _wrap(t.to(device), value._dtype)


@public("torchflow.config")
def get_logical_device_configuration(device):
    """Returns the logical device configurations of ``device`` (None if unset).

    Args:
      device: A ``tf.config.PhysicalDevice`` from ``list_physical_devices``.

    Returns:
      A list of ``LogicalDeviceConfiguration``, or None when none was set.

    Raises:
      ValueError: If ``device`` is not a known physical device.
    """
    _check_physical(device)
    cfg = _STATE.logical_config.get(device)
    return list(cfg) if cfg is not None else None


set_virtual_device_configuration = public("torchflow.config.experimental")(
    set_logical_device_configuration)
get_virtual_device_configuration = public("torchflow.config.experimental")(
    get_logical_device_configuration)


@public("torchflow.config.experimental")
def set_memory_growth(device, enable) -> None:
    """Records whether a GPU's memory may grow (torch's allocator always grows).

    Args:
      device: A ``tf.config.PhysicalDevice`` from ``list_physical_devices``.
      enable: bool: whether memory may grow.

    Raises:
      ValueError: If ``device`` is unknown or not a GPU.
    """
    _check_physical(device)
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    context.GLOBAL.memory_growth[device] = bool(enable)


@public("torchflow.config.experimental")
def get_memory_growth(device) -> bool:
    """Returns the memory growth setting of a GPU.

    Args:
      device: A ``tf.config.PhysicalDevice`` from ``list_physical_devices``.

    Returns:
      A Python bool.

    Raises:
      ValueError: If ``device`` is unknown or not a GPU.
    """
    _check_physical(device)
    if device.device_type != "GPU":
        raise ValueError("Cannot get memory growth on non-GPU and non-Pluggable devices")
    return context.GLOBAL.memory_growth.get(device, False)


@public("torchflow.config.experimental")
def get_device_details(device) -> dict:
    """Returns ``{'device_name', 'compute_capability'}`` for a GPU, ``{}`` for the CPU.

    Args:
      device: A ``tf.config.PhysicalDevice`` from ``list_physical_devices``.

    Returns:
      A dict (empty for the CPU).
    """
    _check_physical(device)
    if device.device_type != "GPU":
        return {}
    i = _gpu_index(device)
    return {
        "device_name": torch.cuda.get_device_name(i),
        "compute_capability": tuple(torch.cuda.get_device_capability(i)),
    }


def _cuda_index_of(device: str) -> int:
    dev = context.parse_device(device)
    if dev is None or dev.type != "cuda":
        raise ValueError(f"Allocator stats not available for device '{device}'")
    return dev.index or 0


@public("torchflow.config.experimental")
def get_memory_info(device: str) -> dict:
    """Returns ``{'current': bytes, 'peak': bytes}`` allocated on a GPU.

    Raises:
      ValueError: For the CPU (no allocator statistics, as in TF).
    """
    i = _cuda_index_of(device)
    return {"current": torch.cuda.memory_allocated(i), "peak": torch.cuda.max_memory_allocated(i)}


@public("torchflow.config.experimental")
def reset_memory_stats(device: str) -> None:
    """Resets the peak memory statistic of a GPU."""
    torch.cuda.reset_peak_memory_stats(_cuda_index_of(device))


@public("torchflow.config.experimental")
def get_memory_usage(device: str) -> int:
    """Returns the bytes currently allocated on a GPU (deprecated in TF).

    Args:
      device: A device string such as ``'GPU:0'``.

    Returns:
      An int: bytes allocated.

    Raises:
      ValueError: If ``device`` has no allocator statistics (e.g. the CPU).
    """
    return get_memory_info(device)["current"]


# --- placement, policies ------------------------------------------------------------


@public("torchflow.config")
def set_soft_device_placement(enabled) -> None:
    """If enabled, a GPU request that cannot be met falls back to the CPU.

    Args:
      enabled: bool: whether to fall back to an available device.
    """
    context.GLOBAL.soft_device_placement = bool(enabled)


@public("torchflow.config")
def get_soft_device_placement() -> bool:
    """Returns whether soft device placement is enabled (default True).

    Returns:
      A Python bool.
    """
    return context.GLOBAL.soft_device_placement


@public("torchflow.debugging")
def set_log_device_placement(enabled) -> None:
    """Records whether device placement should be logged (torchflow logs nothing)."""
    context.GLOBAL.log_device_placement = bool(enabled)


@public("torchflow.debugging")
def get_log_device_placement() -> bool:
    """Whether device placements are logged (``set_log_device_placement``).

    Returns:
      A bool: the current setting.
    """
    return context.GLOBAL.log_device_placement


@public("torchflow.config.experimental")
def set_device_policy(device_policy) -> None:
    """Records the device policy ('silent', 'warn', 'explicit' or None = 'silent').

    Args:
      device_policy: ``'silent'``, ``'silent_for_int32'``, ``'warn'``, ``'explicit'`` or
        None (``'silent'``).

    Raises:
      ValueError: For any other value.
    """
    if device_policy not in (None, "silent", "silent_for_int32", "warn", "explicit"):
        raise ValueError(
            f"Not a valid device policy: {device_policy!r}. Supported options are: 'silent', "
            "'silent_for_int32', 'warn', 'explicit', None"
        )
    _STATE.device_policy = device_policy or "silent"


@public("torchflow.config.experimental")
def get_device_policy() -> str:
    """Returns the device policy (default 'silent').

    Returns:
      A str: ``'silent'``, ``'silent_for_int32'``, ``'warn'`` or ``'explicit'``.
    """
    return _STATE.device_policy


@public("torchflow.config.experimental")
def set_synchronous_execution(enable) -> None:
    """Records whether ops run synchronously (torch CPU ops always do).

    Args:
      enable: bool, or None for the default (True).
    """
    _STATE.synchronous_execution = bool(enable)


@public("torchflow.config.experimental")
def get_synchronous_execution() -> bool:
    """Returns the synchronous-execution setting (default True).

    Returns:
      A Python bool.
    """
    return _STATE.synchronous_execution


@public("torchflow.config.experimental")
def enable_op_determinism() -> None:
    """Makes torch choose deterministic kernels (TF 2.8+ spelling, accepted)."""
    torch.use_deterministic_algorithms(True, warn_only=True)


@public("torchflow.config.experimental")
def enable_mlir_bridge() -> None:
    """Accepted for compatibility; torchflow has no MLIR bridge.

    Returns:
      None.
    """
    _STATE.mlir_bridge = True


@public("torchflow.config.experimental")
def disable_mlir_bridge() -> None:
    """Accepted for compatibility; torchflow has no MLIR bridge.

    Returns:
      None.
    """
    _STATE.mlir_bridge = False


@public("torchflow.config.experimental")
def enable_mlir_graph_optimization() -> None:
    """Accepted for compatibility; torchflow has no graph optimizer.

    Returns:
      None.
    """
    _STATE.mlir_graph_optimization = True


@public("torchflow.config.experimental")
def disable_mlir_graph_optimization() -> None:
    """Accepted for compatibility; torchflow has no graph optimizer.

    Returns:
      None.
    """
    _STATE.mlir_graph_optimization = False


@public("torchflow.config.experimental")
class ClusterDeviceFilters:
    """Device filters for remote tasks (recorded; torchflow does not filter).

    >>> import torchflow as tf
    >>> f = tf.config.experimental.ClusterDeviceFilters()
    >>> f.set_device_filters("worker", 0, ["/job:ps"])
    """

    def __init__(self):
        self._filters: dict = {}

    def set_device_filters(self, job_name: str, task_index: int, device_filters) -> None:
        """Sets the device filters of task ``task_index`` of job ``job_name``."""
        if not all(isinstance(f, str) for f in device_filters):
            raise TypeError(f"device_filters must be strings; received {device_filters!r}")
        self._filters.setdefault(job_name, {})[int(task_index)] = list(device_filters)


# --- TensorFloat-32 -------------------------------------------------------------------


def _apply_tf32(enabled: bool) -> None:
    torch.backends.cuda.matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled


@public("torchflow.config.experimental")
def enable_tensor_float_32_execution(enabled) -> None:
    """Enables or disables TensorFloat-32 for float32 matmuls and convolutions on
    GPUs that have it (on by default, as in TF 2.4).

    Args:
      enabled: Bool.
    """
    context.GLOBAL.tf32 = bool(enabled)
    _apply_tf32(bool(enabled))


@public("torchflow.config.experimental")
def tensor_float_32_execution_enabled() -> bool:
    """Returns whether TensorFloat-32 is enabled (default True).

    Returns:
      A Python bool.
    """
    return context.GLOBAL.tf32


# --- tf.function ------------------------------------------------------------------------


@public("torchflow.config")
def run_functions_eagerly(run_eagerly) -> None:
    """Makes ``tf.function``-decorated functions run eagerly (for debugging).

    Args:
      run_eagerly: Bool.
    """
    context.GLOBAL.run_functions_eagerly = bool(run_eagerly)


@public("torchflow.config")
def functions_run_eagerly() -> bool:
    """Returns the value set by ``run_functions_eagerly`` (default False).

    Returns:
      A Python bool.
    """
    return context.GLOBAL.run_functions_eagerly


experimental_run_functions_eagerly = public("torchflow.config")(run_functions_eagerly)
experimental_functions_run_eagerly = public("torchflow.config")(functions_run_eagerly)


# --- tf.config.optimizer ------------------------------------------------------------------


@public("torchflow.config.optimizer")
def set_jit(enabled) -> None:
    """Records the global JIT setting (torchflow compiles only with ``jit_compile``).

    Args:
      enabled: bool or str: whether XLA auto-clustering is requested.
    """
    if enabled is True:
        enabled = "autoclustering"
    _STATE.optimizer_jit = enabled or ""


@public("torchflow.config.optimizer")
def get_jit() -> str:
    """Returns the global JIT setting ('' when off).

    Returns:
      A str: ``''`` when off, ``'autoclustering'`` (or the value set) when on.
    """
    return _STATE.optimizer_jit


@public("torchflow.config.optimizer")
def set_experimental_options(options: dict) -> None:
    """Records graph-optimizer options (torchflow has no graph optimizer).

    Args:
      options: A dict of Grappler option names to values (e.g. ``{'constant_folding':
        True}``).
    """
    _STATE.optimizer_options.update(options)


@public("torchflow.config.optimizer")
def get_experimental_options() -> dict:
    """Returns the recorded graph-optimizer options.

    Returns:
      A dict of the options set with ``set_experimental_options``.
    """
    return {"disable_model_pruning": False, "disable_meta_optimizer": False,
            **_STATE.optimizer_options}


# --- threads --------------------------------------------------------------------------------


class _Threads:
    intra = 0  # 0: torchflow's default (see docs/threading.md)
    inter = 0
    default_intra = 0


@public("torchflow.config.threading")
def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Sets the number of threads one op may use (0 restores the default).

    Args:
      num_threads: Non-negative int.

    Raises:
      ValueError: If ``num_threads`` is negative.
      RuntimeError: If the count changes after the runtime has started.
    """
    num_threads = int(num_threads)
    if num_threads < 0:
        raise ValueError(f"num_threads must be >= 0, got {num_threads}")
    if context.GLOBAL.runtime_started and num_threads != _Threads.intra:
        raise RuntimeError("Intra op parallelism cannot be modified after initialization.")
    _Threads.intra = num_threads
    torch.set_num_threads(num_threads or _Threads.default_intra)


def lower_default_intra_op_threads(num_threads: int) -> bool:
    """Lowers the default intra-op thread count to ``num_threads`` where it is higher
    (co-located workers sharing a machine's CPUs; a count the user set stays).

    Returns:
      Whether the count changed.
    """
    if _Threads.intra or num_threads >= torch.get_num_threads():
        return False
    _Threads.default_intra = max(1, int(num_threads))
    torch.set_num_threads(_Threads.default_intra)
    return True


@public("torchflow.config.threading")
def get_intra_op_parallelism_threads() -> int:
    """Returns the intra-op thread count set by the user (0: the default).

    Returns:
      An int (0 means the system picks).
    """
    return _Threads.intra


@public("torchflow.config.threading")
def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Sets the size of the pool that runs independent ops (0 restores the default).

    torch fixes that pool when it first uses it; a later change is recorded and
    a warning explains that it has no effect.

    Args:
      num_threads: int >= 0; 0 lets the system pick.

    Raises:
      ValueError: If ``num_threads`` is negative.
      RuntimeError: If the count changes after the runtime has started.
    """
    num_threads = int(num_threads)
    if num_threads < 0:
        raise ValueError(f"num_threads must be >= 0, got {num_threads}")
    if context.GLOBAL.runtime_started and num_threads != _Threads.inter:
        raise RuntimeError("Inter op parallelism cannot be modified after initialization.")
    _Threads.inter = num_threads
    if num_threads == 0 or num_threads == torch.get_num_interop_threads():
        return
    try:
        torch.set_num_interop_threads(num_threads)
    except RuntimeError:
        warnings.warn(
            "tf.config.threading.set_inter_op_parallelism_threads: torch's inter-op thread "
            "pool is already running; the setting is recorded but has no effect. Call it "
            "right after importing torchflow.",
            RuntimeWarning,
            stacklevel=2,
        )


@public("torchflow.config.threading")
def get_inter_op_parallelism_threads() -> int:
    """Returns the inter-op thread count set by the user (0: the default).

    Returns:
      An int (0 means the system picks).
    """
    return _Threads.inter


def _default_intra_threads() -> int:
    """torchflow's default intra-op thread count (measured: docs/threading.md)."""
    if omp_env.user_set_threads():
        return torch.get_num_threads()
    return omp_env.default_intra_threads(os.cpu_count() or 1)


def _apply_defaults() -> None:
    _Threads.default_intra = _default_intra_threads()
    if torch.get_num_threads() != _Threads.default_intra:
        torch.set_num_threads(_Threads.default_intra)
    _apply_tf32(True)


def _reset() -> None:
    """Restores the defaults (the test fixture calls this through context.reset)."""
    _STATE.reset()
    if context.GLOBAL.tf32 != torch.backends.cuda.matmul.allow_tf32:
        _apply_tf32(context.GLOBAL.tf32)
    if _Threads.intra:
        _Threads.intra = 0
        torch.set_num_threads(_Threads.default_intra)
    _Threads.inter = 0


_apply_defaults()
context.add_reset_hook(_reset)
