"""AutoCastVariable: a float32 variable read in a layer's 16-bit compute dtype.

Inside a layer's ``call`` the layer sets the thread's autocast dtype
(``context.thread_state().keras_autocast_dtype``); reads of an AutoCastVariable
then return the value cast to it, so ``tf.matmul(x16, self.kernel)`` just works
and gradients flow back to the float32 variable. Outside, reads are float32.
"""

from __future__ import annotations

import contextlib

from torchflow._src.core import context
from torchflow._src.core.variables import Variable
from torchflow._src.ops.creation_ops import cast

_state = context.thread_state


class AutoCastVariable(Variable):
    """Wraps a floating Variable; see the module docstring.

    ``isinstance(v, tf.Variable)`` holds. ``dtype`` is the stored dtype (TF 2.4).
    """

    def __getattr__(self, name):
        # Everything not defined here (the storage, name, shape, ...) is the
        # wrapped variable's.
        if name == "_variable":
            raise AttributeError(name)
        return getattr(self._variable, name)

    def _read(self):
        value = Variable._read(self)
        dt = _state().keras_autocast_dtype
        if dt is not None and dt is not value._dtype:
            return cast(value, dt)
        return value

    def value(self):
        return self._read()

    def read_value(self):
        return self._read()

    def _tf_value(self, dtype=None):
        return self._read()

    def _tape_variable(self):
        return self._variable

    @property
    def true_dtype(self):
        return self._variable.dtype

    @property
    def trainable(self):
        return self._variable.trainable

    def assign(self, value, use_locking=None, name=None, read_value=True):
        r = self._variable.assign(value, use_locking, name, read_value=read_value)
        return self if read_value and r is not None else r

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        r = self._variable.assign_add(delta, use_locking, name, read_value=read_value)
        return self if read_value and r is not None else r

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        r = self._variable.assign_sub(delta, use_locking, name, read_value=read_value)
        return self if read_value and r is not None else r

    def __repr__(self):
        return (f"<AutoCastVariable '{self._variable.name}' shape={self._variable.shape} "
                f"dtype={self._variable.dtype.name} dtype_to_cast_to="
                f"{(_state().keras_autocast_dtype or self._variable.dtype).name}, "
                f"numpy={self._variable.numpy()!r}>")


def create_autocast_variable(variable) -> AutoCastVariable:
    """Wraps ``variable`` without going through the variable-creator chain."""
    v = object.__new__(AutoCastVariable)
    object.__setattr__(v, "_variable", variable)
    return v


@contextlib.contextmanager
def autocast_scope(dtype):
    """Reads of AutoCastVariables inside return ``dtype`` (a DType or None)."""
    st = _state()
    old = st.keras_autocast_dtype
    st.keras_autocast_dtype = dtype
    try:
        yield
    finally:
        st.keras_autocast_dtype = old
