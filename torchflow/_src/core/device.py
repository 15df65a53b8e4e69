"""``tf.device`` scopes and ``tf.DeviceSpec``.

A scope parses TF's device string, merges it with the enclosing scope's spec
(inner fields win, as in TF) and pushes the torch device it names onto
``context.thread_state().device_stack``, which decides where new tensors go (see
the device policy in ``context.py``). Scopes are thread-local and nest;
``tf.device(None)`` returns to the default device.

Soft placement (on by default): a request for a GPU that does not exist, or for
a device type torch lacks (TPU), places on the CPU. With it off such a request
raises ``InvalidArgumentError``. Job, replica and task fields are kept in the
spec and ignored for placement in this process.
"""

from __future__ import annotations

import threading

import torch

from torchflow._src.core import context
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.util.api import public

_VALID_TYPES = ("CPU", "GPU", "TPU")


@public("torchflow")
class DeviceSpec:
    """Represents a (possibly partial) device specification.

    Args:
      job: Optional job name.
      replica: Optional replica index.
      task: Optional task index.
      device_type: Optional device type ("CPU", "GPU", ...).
      device_index: Optional device index.

    >>> import torchflow as tf
    >>> tf.DeviceSpec.from_string("/job:w/task:1/device:GPU:0").to_string()
    '/job:w/task:1/device:GPU:0'
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_str")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        if device_type is not None:
            device_type = str(device_type)
            if device_type.upper() in _VALID_TYPES:
                device_type = device_type.upper()
        self._device_type = device_type
        self._device_index = None if device_index is None else int(device_index)
        self._str = self._components_to_string()

    @property
    def job(self):
        return self._job

    @property
    def replica(self):
        return self._replica

    @property
    def task(self):
        return self._task

    @property
    def device_type(self):
        return self._device_type

    @property
    def device_index(self):
        return self._device_index

    def _components_to_string(self) -> str:
        out = ""
        if self._job is not None:
            out += f"/job:{self._job}"
        if self._replica is not None:
            out += f"/replica:{self._replica}"
        if self._task is not None:
            out += f"/task:{self._task}"
        if self._device_type is not None:
            index = "*" if self._device_index is None else str(self._device_index)
            out += f"/device:{self._device_type}:{index}"
        return out

    def to_string(self) -> str:
        """Returns the spec as a string, e.g. ``/job:w/replica:0/task:1/device:GPU:0``.

        Only the fields that are set appear.

        Returns:
          A str, accepted by ``tf.device`` and ``from_string``.
        """
        return self._str

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """Parses a device string such as ``/job:w/task:1/device:GPU:0`` or ``/CPU:0``.

        Args:
          spec: str, the device string (empty fields are left unset).

        Returns:
          A new ``DeviceSpec``.

        Raises:
          ValueError: If the string has an unknown attribute or two device types.
        """
        return cls(*_parse(spec))

    def parse_from_string(self, spec: str) -> DeviceSpec:
        """Returns a new spec parsed from ``spec`` (TF 2.x returns a copy).

        Args:
          spec: str, the device string.

        Returns:
          A new ``DeviceSpec`` (this one is unchanged: specs are immutable).

        Raises:
          ValueError: If the string has an unknown attribute or two device types.
        """
        return DeviceSpec.from_string(spec)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """Returns a spec with the fields of ``dev`` overriding those of ``self``.

        Args:
          dev: A ``DeviceSpec``; its set fields win, its unset ones keep ``self``'s.

        Returns:
          A new ``DeviceSpec``.
        """
        return DeviceSpec(*(b if b is not None else a for a, b in zip(self._fields(), dev._fields())))

    def replace(self, **kwargs) -> DeviceSpec:
        """Returns a copy with the given fields replaced.

        Args:
          **kwargs: Any of ``job``, ``replica``, ``task``, ``device_type``,
            ``device_index`` (None unsets a field).

        Returns:
          A new ``DeviceSpec``.
        """
        names = ("job", "replica", "task", "device_type", "device_index")
        vals: dict = dict(zip(names, self._fields()))
        vals.update(kwargs)
        return DeviceSpec(**vals)

    def _fields(self) -> tuple:
        return (self._job, self._replica, self._task, self._device_type, self._device_index)

    def __eq__(self, other) -> bool:
        return isinstance(other, DeviceSpec) and self._str == other._str

    def __hash__(self) -> int:
        return hash(self._str)

    def __repr__(self) -> str:
        return f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, " \
               f"device_type={self._device_type}, device_index={self._device_index})>"


def _parse(spec: str) -> tuple:
    job = replica = task = device_type = device_index = None
    for part in spec.split("/"):
        y = part.split(":")
        n = len(y)
        if not part:
            continue
        if n == 2 and y[0] == "job":
            job = y[1]
        elif n == 2 and y[0] == "replica":
            replica = y[1]
        elif n == 2 and y[0] == "task":
            task = y[1]
        elif n in (1, 2) and y[0].upper() in _VALID_TYPES:
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: "
                    f"{spec}."
                )
            device_type = y[0].upper()
            if n == 2 and y[1] != "*":
                device_index = int(y[1])
        elif n == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: "
                    f"{spec}."
                )
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif y[0] != "":
            raise ValueError(
                f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: "
                f"'{spec}'."
            )
    return job, replica, task, device_type, device_index


class _Current(threading.local):
    def __init__(self):
        self.spec = None  # the merged DeviceSpec of the innermost scope, or None


_current = _Current()
_cache: dict = {}


def _to_torch(spec: DeviceSpec, outer):
    """The torch device a merged spec names (``outer`` when it names no device)."""
    kind = spec.device_type
    if kind is None:
        return outer
    kind = kind.upper()
    index = spec.device_index or 0
    if kind == "CPU":
        return torch.device("cpu")
    if kind in ("GPU", "CUDA"):
        gpus = context._visible_gpus()
        if index < len(gpus):
            return torch.device("cuda", gpus[index])
    if context.GLOBAL.soft_device_placement:
        return torch.device("cpu")
    raise InvalidArgumentError(
        None, None,
        f"Could not satisfy device specification '{spec.to_string()}'. "
        f"enable_soft_placement=0. Supported device types "
        f"[{', '.join(['CPU'] + (['GPU'] if context._visible_gpus() else []))}].",
    )


def _name_of(device_name):
    if device_name is None or isinstance(device_name, str):
        return device_name
    if isinstance(device_name, DeviceSpec):
        return device_name.to_string()
    name = getattr(device_name, "name", None)  # tf.config.LogicalDevice
    if isinstance(name, str) and getattr(device_name, "device_type", None) is not None:
        return name
    raise ValueError(f"Expecting a string device name. Got {type(device_name)}({device_name})")


class _DeviceScope:
    """The context manager ``tf.device`` returns; re-entrant."""

    __slots__ = ("_name", "_saved")

    def __init__(self, name):
        self._name = name
        self._saved: list = []

    def __enter__(self):
        name = _name_of(self._name)
        state = context.thread_state()
        stack = state.device_stack
        outer_spec = _current.spec
        outer_dev = stack[-1] if stack else None
        if name is None:
            spec, dev = None, None
        else:
            key = (outer_spec, name)
            spec = _cache.get(key)
            if spec is None:
                parsed = DeviceSpec.from_string(name)
                spec = outer_spec.make_merged_spec(parsed) if outer_spec is not None else parsed
                if len(_cache) < 1024:
                    _cache[key] = spec
            dev = _to_torch(spec, outer_dev)
        self._saved.append((outer_spec, len(stack)))
        stack.append(dev)
        _current.spec = spec  # pyright: ignore[reportAttributeAccessIssue] - a threading.local attribute
        return None

    def __exit__(self, *exc):
        outer_spec, depth = self._saved.pop()
        stack = context.thread_state().device_stack
        del stack[depth:]
        _current.spec = outer_spec
        return False


@public("torchflow")
def device(device_name) -> _DeviceScope:
    """Returns a context manager that places new tensors on ``device_name``.

    Args:
      device_name: A device string (``"/CPU:0"``, ``"/GPU:1"``,
        ``"/job:localhost/replica:0/task:0/device:GPU:0"``), a ``DeviceSpec``, a
        ``LogicalDevice``, or None (the default device).

    Returns:
      A context manager.

    Raises:
      RuntimeError: If ``device_name`` is a function (graph-mode device functions
        are not supported, as in TF 2.x).
      ValueError: (on entering) if the string cannot be parsed.
      InvalidArgumentError: (on entering) if soft placement is off and the
        device does not exist.

    >>> import torchflow as tf
    >>> with tf.device("/CPU:0"):
    ...     x = tf.constant(1.0)
    >>> x.device
    '/job:localhost/replica:0/task:0/device:CPU:0'
    """
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions.")
    return _DeviceScope(device_name)


def _reset() -> None:
    _current.spec = None
    _cache.clear()


context.add_reset_hook(_reset)
