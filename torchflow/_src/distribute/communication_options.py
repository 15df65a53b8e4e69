"""``tf.distribute.experimental.CommunicationOptions`` and ``CommunicationImplementation``
(TF 2.4's replacements of ``CollectiveHints`` / ``CollectiveCommunication``)."""

from __future__ import annotations

import enum
import warnings

from torchflow._src.util.api import public


@public("torchflow.distribute.experimental")
class CommunicationImplementation(enum.Enum):
    """Which collective implementation a strategy uses.

    * ``AUTO``: the runtime picks (Gloo on CPU, NCCL between GPUs).
    * ``RING``: ring all-reduce over the CPU transport (Gloo).
    * ``NCCL``: NVIDIA's NCCL (GPUs only).
    """

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


# TF 2.4 kept the old name as a plain alias of the same enum.
CollectiveCommunication = public("torchflow.distribute.experimental")(
    CommunicationImplementation)


class Options:
    """Options for cross-device communications (see ``CommunicationOptions``)."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("implementation should be a "
                             "tf.distribute.experimental.CommunicationImplementation")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    __init__.__doc__ = None

    def merge(self, options):
        """Returns a copy with the fields set (non-default) in ``options`` taking over."""
        merged = Options(self.bytes_per_pack, self.timeout_seconds, self.implementation)
        if options is None:
            return merged
        if options.bytes_per_pack != 0:
            merged.bytes_per_pack = options.bytes_per_pack
        if options.timeout_seconds is not None:
            merged.timeout_seconds = options.timeout_seconds
        if options.implementation != CommunicationImplementation.AUTO:
            merged.implementation = options.implementation
        return merged

    def __str__(self) -> str:
        return (f"Options(bytes_per_pack={self.bytes_per_pack},timeout_seconds="
                f"{self.timeout_seconds}, implementation={self.implementation})")

    __repr__ = __str__


@public("torchflow.distribute.experimental")
class CommunicationOptions(Options):
    """Options for cross-device communications like all-reduce.

    Args:
      bytes_per_pack: Gradients are packed into chunks of about this many bytes
        before being all-reduced (0: the strategy decides).
      timeout_seconds: A collective that takes longer raises
        ``tf.errors.DeadlineExceededError`` (None: the strategy's default).
      implementation: A ``CommunicationImplementation`` (or its name).

    Raises:
      ValueError: For a negative ``bytes_per_pack`` or an unknown implementation.

    >>> import torchflow as tf
    >>> tf.distribute.experimental.CommunicationOptions(bytes_per_pack=50 * 1024 * 1024)
    Options(bytes_per_pack=52428800,timeout_seconds=None, implementation=CommunicationImplementation.AUTO)
    """


@public("torchflow.distribute.experimental")
class CollectiveHints:
    """Deprecated in TF 2.4: use ``tf.distribute.experimental.CommunicationOptions``.

    Args:
      bytes_per_pack: As in ``CommunicationOptions``.
      timeout_seconds: As in ``CommunicationOptions``.
    """

    def __new__(cls, bytes_per_pack=0, timeout_seconds=None):
        warnings.warn("From tf.distribute.experimental.CollectiveHints: CollectiveHints "
                      "(from tensorflow.python.distribute.collective_util) is deprecated and "
                      "will be removed in a future version.\nInstructions for updating:\n"
                      "use distribute.experimental.CommunicationOptions instead",
                      DeprecationWarning, stacklevel=2)
        return Options(bytes_per_pack=bytes_per_pack, timeout_seconds=timeout_seconds)
