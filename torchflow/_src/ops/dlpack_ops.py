"""``tf.experimental.dlpack``: zero-copy tensor exchange through DLPack (torch.utils.dlpack).

``to_dlpack(t)`` gives a capsule sharing ``t``'s memory; ``from_dlpack(obj)`` takes a
capsule or any object with ``__dlpack__`` (a torch tensor, a NumPy array, a JAX
array) and wraps the same memory. Tensors also get ``__dlpack__``/``__dlpack_device__``
so ``np.from_dlpack(t)`` and ``torch.from_dlpack(t)`` share memory with them.
A capsule can be consumed once. bfloat16 and string tensors are not supported by
NumPy's DLPack import.
"""

from __future__ import annotations

import torch
import torch.utils.dlpack

from torchflow._src.core import dtypes
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.util.api import public


def _torch_of(t: Tensor) -> torch.Tensor:
    x = t._t
    if not isinstance(x, torch.Tensor):
        raise InvalidArgumentError(None, None, "tf.experimental.dlpack: string tensors have no "
                                   "DLPack representation")
    return x.detach() if x.requires_grad else x


@public("torchflow.experimental.dlpack")
def to_dlpack(tf_tensor):
    """Returns a DLPack capsule that shares ``tf_tensor``'s memory (no copy).

    >>> import torchflow as tf
    >>> cap = tf.experimental.dlpack.to_dlpack(tf.constant([1., 2.]))
    >>> tf.experimental.dlpack.from_dlpack(cap).numpy().tolist()
    [1.0, 2.0]

    Args:
      tf_tensor: A ``tf.Tensor`` (or a value with a tensor conversion, such as a
        ``tf.Variable``), on the CPU or a GPU.

    Returns:
      A ``PyCapsule`` named ``"dltensor"``, to be consumed once by a DLPack importer
      (``torch.from_dlpack``, ``jax.dlpack.from_dlpack``, ``cupy.from_dlpack``, ...).

    Raises:
      TypeError: ``tf_tensor`` is not a tensor (a list, a NumPy array).
      InvalidArgumentError: a dtype DLPack cannot hold (strings, resources).
    """
    if not isinstance(tf_tensor, Tensor):
        conv = getattr(tf_tensor, "_tf_value", None)
        if conv is None:
            raise TypeError(f"tf.experimental.dlpack.to_dlpack: expected a tf.Tensor, got "
                            f"{type(tf_tensor).__name__}")
        tf_tensor = conv(None)
    try:
        return torch.utils.dlpack.to_dlpack(_torch_of(tf_tensor))
    except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
        raise translate("tf.experimental.dlpack.to_dlpack", e) from None


@public("torchflow.experimental.dlpack")
def from_dlpack(dlcapsule):
    """Wraps a DLPack capsule (or an object with ``__dlpack__``) as a tf.Tensor, sharing its memory.

    Args:
      dlcapsule: A ``PyCapsule`` from a DLPack exporter, or an array object with a
        ``__dlpack__`` method (a torch tensor, a NumPy array, ...).

    Returns:
      A ``tf.Tensor`` on the capsule's device, with no copy.

    Raises:
      InvalidArgumentError: an unsupported or already consumed capsule.
    """
    try:
        t = torch.utils.dlpack.from_dlpack(dlcapsule)
    except Exception as e:  # noqa: BLE001 (re-raised as the TF error)
        raise translate("tf.experimental.dlpack.from_dlpack", e) from None
    d = dtypes._BY_TORCH.get(t.dtype)
    if d is None:
        raise InvalidArgumentError(None, None, f"tf.experimental.dlpack.from_dlpack: unsupported "
                                   f"dtype {t.dtype}")
    return wrap(t, d)


def _dlpack(self, *args, **kwargs):
    return _torch_of(self).__dlpack__(*args, **kwargs)


def _dlpack_device(self):
    return _torch_of(self).__dlpack_device__()


Tensor.__dlpack__ = _dlpack  # pyright: ignore[reportAttributeAccessIssue] - installed on Tensor here
Tensor.__dlpack_device__ = _dlpack_device  # pyright: ignore[reportAttributeAccessIssue] - installed on Tensor here
