"""``tf.xla.experimental``: compiling one computation, and TF1's jit scopes.

torchflow's compiler is ``torch.compile`` (what ``tf.function(jit_compile=True)``
uses); ``compile`` runs a computation through it once.
"""

from __future__ import annotations

import contextlib

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.function import function
from torchflow._src.core.tensor import Tensor, executing_eagerly
from torchflow._src.util import nest
from torchflow._src.util.api import public


def _flat(value) -> bool:
    return isinstance(value, (list, tuple)) and not any(
        isinstance(v, (list, tuple, dict)) for v in value)


@public("torchflow.xla.experimental")
def compile(computation, inputs=None):  # noqa: A001 (TF's name)
    """Runs ``computation(*inputs)`` compiled, as ``tf.function(jit_compile=True)``.

    Args:
      computation: A Python function returning Tensors (or values convertible
        to Tensors).
      inputs: A list of inputs, or None.

    Returns:
      A list of Tensors when ``computation`` returns one value or a flat list or
      tuple of them; otherwise its nested structure with Tensors as leaves.

    Raises:
      TypeError: If ``computation`` returns None (TF returns an operation there,
        which a function may not return).

    >>> import torchflow as tf
    >>> float(tf.xla.experimental.compile(lambda x: x * 2.0, [tf.constant(3.0)])[0])
    6.0
    """
    compiled = function(computation, jit_compile=True)
    result = compiled(*(inputs or []))
    if result is None:
        raise TypeError(f"xla.experimental.compile of {computation!r} returned no Tensors; "
                        f"a computation run eagerly must return at least one.")
    if isinstance(result, Tensor) or not isinstance(result, (list, tuple, dict)):
        return [convert_to_tensor(result)]
    if _flat(result):
        return [convert_to_tensor(v) for v in result]
    return nest.map_structure(convert_to_tensor, result)


@public("torchflow.xla.experimental")
@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """Marks the ops built in a ``tf.function`` for compilation (TF1's XLA scope).

    Eager code cannot use it, as in TF 2.4. In a traced function it is accepted
    and changes nothing: torchflow compiles whole functions
    (``tf.function(jit_compile=True)``), not parts of them.

    Args:
      compile_ops: Whether to compile the ops (a bool or a callable on node defs).
      separate_compiled_gradients: Whether gradients get their own scopes.

    Yields:
      Nothing.

    Raises:
      RuntimeError: When executing eagerly.
    """
    if executing_eagerly():
        raise RuntimeError("xla.experimental.jit_scope is not supported when eager execution "
                           "is enabled. Try use it inside tf.function.")
    yield
