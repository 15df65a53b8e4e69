"""``tf.keras.mixed_precision.Policy``: a layer's compute and variable dtypes."""

from __future__ import annotations

from torchflow._src.core import context, dtypes
from torchflow._src.util.api import public

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


@public("torchflow.keras.mixed_precision")
class Policy:
    """A dtype policy: the dtype layers compute in and the dtype of their variables.

    Args:
      name: ``"float32"``, ``"float64"``, ``"float16"``, ``"bfloat16"`` (both
        dtypes the same), ``"mixed_float16"`` or ``"mixed_bfloat16"`` (compute
        in 16 bits, keep variables in float32), or ``"_infer"``.

    Raises:
      ValueError: For an unknown name.

    >>> import torchflow as tf
    >>> p = tf.keras.mixed_precision.Policy("mixed_float16")
    >>> p.compute_dtype, p.variable_dtype
    ('float16', 'float32')
    """

    def __init__(self, name):
        if isinstance(name, dtypes.DType):
            raise TypeError(f"'name' must be a string, not a DType. Instead, pass "
                            f"DType.name. Got: {name.name}")
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name!r}")
        self._name = name
        if name in _MIXED:
            self._compute, self._variable = _MIXED[name], "float32"
        elif name == "_infer":
            self._compute = self._variable = None
        else:
            try:
                d = dtypes.as_dtype(name)
            except TypeError:
                raise ValueError(
                    f"Cannot convert value {name} to a mixed precision Policy. Valid policies "
                    f"include 'mixed_float16', 'mixed_bfloat16', and the name of any dtype "
                    f"such as 'float32'.") from None
            self._compute = self._variable = d.name

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self):
        return self._compute

    @property
    def variable_dtype(self):
        return self._variable

    @property
    def should_cast_variables(self) -> bool:
        return self._compute != self._variable

    def __repr__(self) -> str:
        return f'<Policy "{self._name}">'

    def __eq__(self, other):
        return isinstance(other, Policy) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def get_config(self) -> dict:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


@public("torchflow.keras.mixed_precision")
def global_policy() -> Policy:
    """The global dtype policy of Keras layers.

    Set with ``tf.keras.mixed_precision.set_global_policy``; layers created without a
    ``dtype`` use it.

    Returns:
      The ``Policy``: the one set, else ``Policy(tf.keras.backend.floatx())``
      (``"float32"`` by default).
    """
    p = context.GLOBAL.keras_policy
    if p is None:
        return Policy(context.GLOBAL.keras_floatx)
    return p


@public("torchflow.keras.mixed_precision")
def set_global_policy(policy) -> None:
    """Sets the policy layers use when created without a ``dtype``.

    Args:
      policy: A ``Policy``, a policy name, or None (back to floatx).

    Raises:
      ValueError: If ``policy`` is not floating point.
    """
    if policy is None:
        context.GLOBAL.keras_policy = None
        return
    if not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy.compute_dtype is not None and not dtypes.as_dtype(policy.compute_dtype).is_floating:
        raise ValueError(f"set_global_policy can only be used to set the global policy to "
                         f"floating-point policies, such as \"float32\" and "
                         f"\"mixed_float16\", but got policy: {policy.name}")
    context.GLOBAL.keras_policy = policy


def get_policy(dtype) -> Policy:
    """The policy for a layer's ``dtype`` argument (None -> global policy)."""
    if dtype is None:
        return global_policy()
    if isinstance(dtype, Policy):
        return dtype
    if isinstance(dtype, dict) and "config" in dtype:
        return Policy(dtype["config"]["name"])
    if isinstance(dtype, dtypes.DType):
        return Policy(dtype.name)
    return Policy(dtypes.as_dtype(dtype).name if not isinstance(dtype, str) else dtype)
