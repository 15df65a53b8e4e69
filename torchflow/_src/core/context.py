"""All of torchflow's global and thread-local state lives here.

Device policy (written once, here): with no ``tf.device`` scope, new tensors go
on the first visible GPU when torch sees one, else on the CPU, as in TF.
``tf.device("/CPU:0")`` / ``"/GPU:1"`` scopes are thread-local and nest.
Tensors stay where they were created; an op runs where its inputs are.
"""

from __future__ import annotations

import threading

import torch

# Autograd is off everywhere unless a GradientTape is recording in the thread:
# nothing is recorded outside tapes, as in TF.  torch's grad mode is
# thread-local, so tapes switch it per thread (see tape.py).
torch.set_grad_enabled(False)


class _ThreadState(threading.local):
    def __init__(self):
        # Runs once per thread on first access: torch starts every new thread with
        # grad mode ON, torchflow's rule is OFF unless a tape records there.
        torch.set_grad_enabled(False)
        self.device_stack: list = []
        self.name_scope: list[str] = []
        self.tapes: list = []
        self.function_depth = 0
        self.variable_creator_stack: list = []
        # tf.distribute: entries are distribute_lib's _ThreadMode records (strategy,
        # cross-replica context, replica context); empty means the default strategy.
        # A replica thread of MirroredStrategy starts with its own replica mode.
        self.strategy_stack: list = []
        self.recording = False
        self.symbolic_gradients = 0  # > 0 inside a tf.function that calls tf.gradients
        self.summary_writer = None
        self.summary_step = None
        self.summary_record_if = True
        self.keras_autocast_dtype = None
        self.keras_call_context = None


_state = _ThreadState()


def thread_state() -> _ThreadState:
    return _state


class _Global:
    def __init__(self):
        self.reset()

    def reset(self):
        self.run_functions_eagerly = False
        self.global_seed: int | None = None
        self.op_seed_counter = 0
        # Random ops (random_ops.py): one torch.Generator per (op, dtype, seeds,
        # device) stream, like TF's eager kernel cache; set_seed clears it.
        self.random_streams: dict = {}
        # tf.random.get_global_generator(): created on first use.
        self.global_generator = None
        self.soft_device_placement = True
        self.visible_gpus: list[int] | None = None  # None: all that torch sees
        self.tf32 = True
        self.memory_growth: dict = {}
        self.log_device_placement = False
        self.keras_policy = None
        self.keras_floatx = "float32"
        self.keras_epsilon = 1e-7
        self.keras_image_data_format = "channels_last"
        self.keras_learning_phase = None
        self.keras_name_uids: dict = {}
        # TF's "runtime initialized": set when logical devices are listed or a
        # strategy is built; afterwards logical devices, visible devices and thread
        # counts cannot change (RuntimeError, as in TF).  reset() clears it.
        self.runtime_started = False
        # tf.distribute.experimental_set_strategy's strategy scope, entered for good.
        self.global_strategy_scope = None


GLOBAL = _Global()


def mark_runtime_started() -> None:
    GLOBAL.runtime_started = True


def strategy_stack() -> list:
    """This thread's tf.distribute mode stack (see distribute_lib)."""
    return _state.strategy_stack


def gpu_count() -> int:
    if not torch.cuda.is_available():
        return 0
    return torch.cuda.device_count()


def _visible_gpus() -> list[int]:
    if GLOBAL.visible_gpus is not None:
        return GLOBAL.visible_gpus
    return list(range(gpu_count()))


_default_device_cache: list = []


def default_device() -> torch.device:
    """The torch device new tensors go on in this thread."""
    stack = _state.device_stack
    if stack and stack[-1] is not None:
        return stack[-1]
    if not _default_device_cache:
        gpus = _visible_gpus()
        _default_device_cache.append(torch.device("cuda", gpus[0]) if gpus else torch.device("cpu"))
    return _default_device_cache[0]


def invalidate_device_cache() -> None:
    _default_device_cache.clear()


def parse_device(spec) -> torch.device | None:
    """Parses TF device strings (``/GPU:0``, ``/job:w/task:1/device:CPU:0``, ``cpu``).

    Returns None for an empty spec (no change). Soft placement: a GPU request
    with no GPU present falls back to the CPU, as TF does by default.
    """
    if spec is None:
        return None
    if isinstance(spec, torch.device):
        return spec
    s = str(spec).strip()
    if not s:
        return None
    kind, index = None, 0
    for part in s.replace("/device:", "/").split("/"):
        if not part or part.startswith(("job:", "replica:", "task:")):
            continue
        bits = part.split(":")
        kind = bits[0].upper()
        if len(bits) > 1 and bits[1] not in ("", "*"):
            index = int(bits[1])
    if kind is None:
        return None
    if kind in ("GPU", "CUDA"):
        gpus = _visible_gpus()
        if index < len(gpus):
            return torch.device("cuda", gpus[index])
        if GLOBAL.soft_device_placement:
            return torch.device("cpu")
        raise ValueError(f"Could not satisfy device specification '{spec}'")
    if kind == "CPU":
        return torch.device("cpu")
    raise ValueError(f"Unknown attribute: '{kind}' in '{spec}'")


def tf_device_name(dev: torch.device) -> str:
    """TF's fully qualified device name for a torch device."""
    if dev.type == "cuda":
        gpus = _visible_gpus()
        idx = dev.index or 0
        logical = gpus.index(idx) if idx in gpus else idx
        return f"/job:localhost/replica:0/task:0/device:GPU:{logical}"
    return "/job:localhost/replica:0/task:0/device:CPU:0"


_reset_hooks: list = []


def add_reset_hook(fn) -> None:
    """Registers ``fn()`` to run at the end of ``reset()``: modules whose state
    mirrors into torch (TF32 flags, thread counts) restore it there."""
    _reset_hooks.append(fn)


def reset() -> None:
    """Resets all global state (used by the test fixture)."""
    GLOBAL.reset()
    invalidate_device_cache()
    _state.__init__()
    torch.set_grad_enabled(False)
    for fn in _reset_hooks:
        fn()
