"""``tf.Variable``: mutable state held in one torch leaf tensor.

A trainable floating variable's leaf has ``requires_grad=True`` for life;
assignments write it in place with autograd paused, so optimizers and anything
holding the variable see the new value. Reads:

* inside a recording ``GradientTape`` (trainable or watched variable): the leaf
  itself, so the read is connected to the gradient, and the variable is
  registered as accessed on the recording tapes;
* otherwise: a detached alias (no autograd graph can start from it, in any
  thread, whatever torch's grad mode is there).

Tensors are immutable in TF, and a value read before an assignment keeps the
old value. Writes are therefore copy-on-write: when anything besides the
variable still shares its storage (an alias read earlier, a view of it, a NumPy
array), the write swaps in a new buffer (``leaf.data = ...``, the leaf object
and its autograd identity stay), otherwise it writes in place. The one
exception: a tensor read inside a recording tape is the leaf itself, and shows
later in-place assignments (in-place writes during a recording tape are rare:
optimizers update after ``gradient()``).

``tf.Variable(...)`` first runs the creators of ``tf.variable_creator_scope``
(innermost first), which is how distribution strategies substitute their own
variable types; subclasses of ``Variable`` are constructed directly.
"""

from __future__ import annotations

import enum
import itertools
from typing import Any

import numpy as np
import torch

from torchflow._src.core import context, dtypes, graph_trace, variable_updates
from torchflow._src.core.convert import convert_to_tensor, to_tensor
from torchflow._src.core.errors import InvalidArgumentError, translate
from torchflow._src.core.indexed_slices import IndexedSlices
from torchflow._src.core.tensor import Reference, Tensor, _numpy_repr, to_numpy, wrap
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.core.variable_scope import current_name_scope
from torchflow._src.core.variable_updates import inplace_write
from torchflow._src.util.api import public

_state = context.thread_state()
_use_count = torch._C._storage_Use_Count
_uid = itertools.count(1)


@public("torchflow")
class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (``tf.VariableSynchronization``).

    ``AUTO`` lets the strategy choose; ``NONE`` has one copy and no syncing;
    ``ON_WRITE`` syncs on every write; ``ON_READ`` keeps per-replica copies and
    aggregates them when the variable is read across replicas.
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@public("torchflow")
class VariableAggregation(enum.Enum):
    """How a distributed variable's replica updates are combined.

    ``NONE`` allows no cross-replica update; ``SUM`` and ``MEAN`` add or average the
    replicas' updates; ``ONLY_FIRST_REPLICA`` takes the first replica's update.
    """

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _check_enum(value, enum_cls, what, name):
    if value is None:
        return enum_cls.AUTO if enum_cls is VariableSynchronization else enum_cls.NONE
    if isinstance(value, enum_cls):
        return value
    # Accept equivalent enums from other modules (e.g. TF's own) by name.
    member = getattr(enum_cls, getattr(value, "name", ""), None)
    if member is None:
        raise ValueError(f"Invalid variable {what} mode: {value} for variable: {name}")
    return member


class VariableMetaclass(type):
    """Routes ``tf.Variable(...)`` through the variable-creator stack."""

    def __call__(cls, *args, **kwargs):
        if cls is Variable:
            return _create_through_scopes(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def _default_creator(next_creator=None, **kwargs):
    return type.__call__(Variable, **kwargs)


_ARG_NAMES = ("initial_value", "trainable", "validate_shape", "caching_device", "name",
              "variable_def", "dtype", "import_scope", "constraint", "synchronization",
              "aggregation", "shape")


def _create_through_scopes(*args, **kwargs):
    if len(args) > len(_ARG_NAMES):
        raise TypeError(f"Variable() takes at most {len(_ARG_NAMES)} positional arguments")
    for n, a in zip(_ARG_NAMES, args):
        if n in kwargs:
            raise TypeError(f"Variable() got multiple values for argument '{n}'")
        kwargs[n] = a
    stack = _state.variable_creator_stack
    if not stack:
        return type.__call__(Variable, **kwargs)
    creator = _default_creator
    for outer in stack:
        creator = _chain(outer, creator)
    kwargs.setdefault("synchronization", VariableSynchronization.AUTO)
    kwargs.setdefault("aggregation", VariableAggregation.NONE)
    for n in ("initial_value", "trainable", "name", "dtype", "constraint", "shape"):
        kwargs.setdefault(n, None)
    kwargs.setdefault("validate_shape", True)
    return creator(**kwargs)


def _chain(creator, next_creator):
    def call(**kwargs):
        return creator(next_creator, **kwargs)

    return call


def _no_grad_write(fn):
    """Runs an in-place write on a leaf that may require grad."""
    if torch.is_grad_enabled():
        with torch.no_grad():
            return fn()
    return fn()


@public("torchflow")
class Variable(metaclass=VariableMetaclass):
    """A mutable tensor-valued state (``tf.Variable``).

    Args:
      initial_value: A Tensor or convertible value, or a callable taking no
        arguments that returns one.
      trainable: Whether gradient tapes watch the variable automatically.
        Defaults to True (False when ``synchronization`` is ON_READ).
      validate_shape: If False, the variable's shape is unknown and any
        shape may be assigned later.
      caching_device: Unused.
      name: The name; the current ``tf.name_scope`` prefix and ``:0`` are added.
      variable_def: Unused (graph mode only).
      dtype: If given, the initial value is converted to it.
      import_scope: Unused.
      constraint: A projection function applied by optimizers after updates.
      synchronization: A ``tf.VariableSynchronization``.
      aggregation: A ``tf.VariableAggregation``.
      shape: The variable's shape; ``None`` dims (or ``tf.TensorShape(None)``)
        allow assigning values of other shapes later.

    Raises:
      ValueError: If ``initial_value`` is missing or does not fit ``shape``.

    >>> import torchflow as tf
    >>> v = tf.Variable([1.0, 2.0])
    >>> _ = v.assign_add([1.0, 1.0])
    >>> v.numpy()
    array([2., 3.], dtype=float32)
    """

    _is_tf_tensor_like = True
    __array_priority__ = 100
    # A torch.Tensor, or a NumPy object array of bytes for a tf.string variable (never
    # on the differentiable paths): Any, so the checker does not ask every torch use to
    # rule the string case out again.
    _leaf: Any
    _compile_barriers = False

    def __init__(self, initial_value=None, trainable=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None, **unused):
        # Created once, at trace time, when a tf.function creates it: not recorded.
        with graph_trace.paused():
            self._init(initial_value, trainable, validate_shape, name, dtype, constraint,
                       synchronization, aggregation, shape)

    def _init(self, initial_value, trainable, validate_shape, name, dtype, constraint,
              synchronization, aggregation, shape):
        if initial_value is None:
            raise ValueError(
                "The `initial_value` arg to `tf.Variable` must be specified except when "
                "you are not providing a `variable_def`. You provided neither.")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"The `constraint` argument must be a callable. Received: "
                             f"{constraint!r}")
        base = name if name else "Variable"
        if isinstance(base, str) and base.endswith(":0"):
            base = base[:-2]
        self._name = current_name_scope() + str(base) + ":0"
        self._synchronization = _check_enum(synchronization, VariableSynchronization,
                                            "synchronization", self._name)
        self._aggregation = _check_enum(aggregation, VariableAggregation, "aggregation",
                                        self._name)
        if trainable is None:
            trainable = self._synchronization is not VariableSynchronization.ON_READ
        if callable(initial_value):
            initial_value = initial_value()
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        try:
            value = convert_to_tensor(initial_value, dtype=dtype)
        except ValueError as e:
            raise ValueError(f"initial_value: {e}") from None
        if dtype is not None and value._dtype is not dtype:
            value = wrap(value._t.to(dtype._torch), dtype)
        if shape is not None:
            declared = as_shape(shape)
            if not declared.is_compatible_with(value.shape):
                raise ValueError(
                    f"In this `tf.Variable` creation, the initial value's shape "
                    f"({tuple(value._t.shape)}) is not compatible with the explicitly "
                    f"supplied `shape` argument ({_shape_str(declared)}).")
        elif not validate_shape:
            declared = TensorShape(None)
        else:
            declared = value.shape
        self._shape = declared
        self._dtype = value._dtype
        self._trainable = bool(trainable)
        self._constraint = constraint
        self._unique_id = next(_uid)
        # tf.function refuses variables created after its first call.
        _state.variables_created = getattr(_state, "variables_created", 0) + 1
        t = value._t
        if isinstance(t, torch.Tensor):
            device = context.default_device()
            t = t.detach()
            t = t.to(device=device, copy=True) if t.device != device else t.clone()
            t = t.contiguous()
            if self._trainable and (t.is_floating_point() or t.is_complex()):
                t.requires_grad_(True)
            graph_trace.register_leaf(t)
        else:
            t = np.array(t, dtype=object)
        self._leaf = t

    # --- metadata ----------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    @property
    def device(self) -> str:
        t = self._leaf
        if isinstance(t, np.ndarray):
            return context.tf_device_name(torch.device("cpu"))
        return context.tf_device_name(t.device)

    @property
    def handle(self):
        """The variable itself (eager variables have no separate resource handle)."""
        return self

    @property
    def initial_value(self):
        raise RuntimeError("This property is not supported when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Variable.graph is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Variable.op is undefined when eager execution is enabled.")

    def is_initialized(self, name=None) -> bool:
        return True

    @property
    def _in_graph_mode(self) -> bool:
        return False

    def ref(self) -> Reference:
        """A hashable reference to the variable (use it as a dict/set key)."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        return Reference(self)

    def __hash__(self):
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. "
                        f"(Variable: {self!r})")

    # --- reads -------------------------------------------------------------
    _forward_dual = None  # set by tf.autodiff.ForwardAccumulator while it watches

    def _read(self) -> Tensor:
        if self._forward_dual is not None:
            return wrap(self._forward_dual, self._dtype)
        if graph_trace._ACTIVE is not None:
            graph_trace.note_variable(self)
        if _state.recording:
            if graph_trace._ACTIVE is not None:
                _notify_read(self)  # a host node: replays tell the tapes then recording
            tapes = _state.tapes
            leaf = self._leaf
            if not getattr(leaf, "requires_grad", False):
                if self._trainable:  # int/bool: watched (listed) but never differentiated
                    for tape in tapes:
                        if tape._recording:
                            tape._on_variable_read(self)
            else:
                for tape in tapes:
                    if tape._recording:
                        tape._on_variable_read(self)
                # A view, not the leaf: what the graph saves keeps this value even if
                # the variable is assigned before ``gradient()`` (the view makes the
                # write copy-on-write), as TF's reads do.
                return wrap(leaf.view_as(leaf), self._dtype)
        t = self._leaf
        return wrap(t.detach() if isinstance(t, torch.Tensor) else t, self._dtype)

    def value(self) -> Tensor:
        """The current value as a Tensor (a later assignment does not change it)."""
        return self._read()

    def read_value(self) -> Tensor:
        """The current value as a Tensor (same as ``value()`` in eager mode)."""
        return self._read()

    def _tf_value(self, dtype=None) -> Tensor:
        return self._read()

    def numpy(self) -> np.ndarray:
        """The value as a NumPy array (a copy); a scalar variable gives a NumPy
        scalar, as TF's ``read_value().numpy()`` does."""
        a = np.array(to_numpy(self._leaf, self._dtype), copy=True)
        return a[()] if a.ndim == 0 else a

    def __array__(self, dtype=None, copy=None):
        a = np.array(to_numpy(self._leaf, self._dtype), copy=True)
        return a.astype(dtype) if dtype is not None and a.dtype != np.dtype(dtype) else a

    def sparse_read(self, indices, name=None) -> Tensor:
        """Gathers rows ``indices`` of the variable (``tf.gather(v, indices)``)."""
        idx = _index_tensor(indices)
        v = self._read()
        try:
            return wrap(v._t[idx], self._dtype)
        except Exception as e:  # noqa: BLE001 - translated to a TF error
            raise translate("ResourceGather", e) from None

    def gather_nd(self, indices, name=None) -> Tensor:
        idx = _index_tensor(indices)
        v = self._read()
        try:
            return wrap(v._t[tuple(idx.unbind(-1))], self._dtype)
        except Exception as e:  # noqa: BLE001
            raise translate("ResourceGatherNd", e) from None

    # --- writes ------------------------------------------------------------
    def _shared(self) -> bool:
        """True when another tensor (alias, view, NumPy array) shares the buffer."""
        return _use_count(self._leaf.untyped_storage()._cdata) > 2

    def _convert_value(self, value, op: str) -> torch.Tensor:
        v = to_tensor(value, self._dtype)
        if v._dtype is not self._dtype:
            raise ValueError(f"Tensor conversion requested dtype {self._dtype.name} for "
                             f"Tensor with dtype {v._dtype.name}: {v!r}")
        return v._t

    def _check_shape(self, t) -> None:
        if tuple(t.shape) != tuple(self._leaf.shape) and not self._shape.is_compatible_with(
                TensorShape(tuple(t.shape))):
            raise ValueError(
                f"Cannot assign value to variable ' {self._name}': Shape mismatch.The "
                f"variable shape {_shape_str(self._shape)}, and the assigned value shape "
                f"{tuple(t.shape)} are incompatible.")

    def _finish(self, read_value):
        return self if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Assigns a new value (its shape must fit the variable's shape).

        Returns:
          The variable (``read_value=True``) or None.

        Raises:
          ValueError: If the shape does not fit.
          TypeError: If ``value`` cannot become the variable's dtype.
        """
        if type(value) is Tensor and value._dtype is self._dtype:
            new = value._t
        else:
            new = self._convert_value(value, "AssignVariableOp")
        leaf = self._leaf
        if isinstance(leaf, np.ndarray):
            self._check_shape(new)
            self._leaf = np.array(new, dtype=object)
            return self._finish(read_value)
        if new.shape != leaf.shape:
            self._check_shape(new)
        if (not new.requires_grad and new.dtype == leaf.dtype and new.device == leaf.device
                and new.is_contiguous() and new.storage_offset() == 0
                and new.untyped_storage().nbytes() == new.numel() * new.element_size()):
            # Adopt the value's buffer instead of copying it (optimizers assign fresh
            # temporaries). Whoever else holds that buffer is protected by the
            # copy-on-write check of every later write. (Setting ``.data`` is not
            # recorded by autograd, so it needs no no_grad block.)
            leaf.data = new
        elif new.shape != leaf.shape or self._shared():
            fresh = new.detach().to(device=leaf.device, copy=True).contiguous()
            _no_grad_write(lambda: setattr(leaf, "data", fresh))
        else:
            inplace_write(leaf, lambda: leaf.copy_(new))
        return self._finish(read_value)

    def _update(self, op: str, delta, fn, read_value):
        leaf = self._leaf
        td = type(delta)
        if td is Tensor and delta._dtype is self._dtype:
            d = delta._t
        elif ((td is float or td is int) and self._dtype._kind in "fc"
              and not isinstance(leaf, np.ndarray) and leaf.dim() == 0):
            # A Python number on a scalar variable (``step.assign_add(1.0)``): torch
            # takes it as a scalar, no tensor is made for it.
            if self._shared():
                fresh = _no_grad_write(lambda: fn(leaf.detach(), delta, False))
                leaf.data = fresh
            else:
                inplace_write(leaf, lambda: fn(leaf, delta, True))
            return self._finish(read_value)
        else:
            d = self._convert_value(delta, op)
        if isinstance(leaf, np.ndarray):
            raise InvalidArgumentError(None, None, f"{op} is not defined for string variables")
        if d.shape != leaf.shape:
            raise InvalidArgumentError(
                None, None, f"Cannot update variable with shape {list(leaf.shape)} using a "
                f"Tensor with shape {list(d.shape)}, shapes must be equal. [Op:{op}]")
        try:
            if self._shared():
                fresh = _no_grad_write(lambda: fn(leaf.detach(), d, False))
                _no_grad_write(lambda: setattr(leaf, "data", fresh.contiguous()))
            else:
                inplace_write(leaf, lambda: fn(leaf, d, True))
        except (ValueError, TypeError, InvalidArgumentError):
            raise
        except Exception as e:  # noqa: BLE001
            raise translate(op, e) from None
        return self._finish(read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` to the variable."""
        return self._update("AssignAddVariableOp", delta,
                            lambda a, b, ip: a.add_(b) if ip else a + b, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` from the variable."""
        return self._update("AssignSubVariableOp", delta,
                            lambda a, b, ip: a.sub_(b) if ip else a - b, read_value)

    # --- scatter -----------------------------------------------------------
    def _sparse(self, sparse_delta, op: str, mode: str):
        _check_slices(sparse_delta)
        return variable_updates.scatter(self, op, sparse_delta.indices, sparse_delta.values,
                                        mode)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Writes ``sparse_delta.values`` into rows ``sparse_delta.indices``.

        Args:
          sparse_delta: A ``tf.IndexedSlices``; its values have shape
            ``indices.shape + variable.shape[1:]`` (or are a scalar).
          use_locking: Unused.
          name: Unused.

        Returns:
          The variable.

        Raises:
          TypeError: If ``sparse_delta`` is not a ``tf.IndexedSlices``.
          InvalidArgumentError: For an index outside ``[0, shape[0])`` or values of
            the wrong shape.
        """
        return self._sparse(sparse_delta, "ResourceScatterUpdate", "update")

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds ``sparse_delta.values`` to rows ``sparse_delta.indices`` (duplicates
        accumulate). See ``scatter_update`` for the arguments."""
        return self._sparse(sparse_delta, "ResourceScatterAdd", "add")

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts ``sparse_delta.values`` from rows ``sparse_delta.indices``."""
        return self._sparse(sparse_delta, "ResourceScatterSub", "sub")

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiplies rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        return self._sparse(sparse_delta, "ResourceScatterMul", "mul")

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divides rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        return self._sparse(sparse_delta, "ResourceScatterDiv", "div")

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Rows ``sparse_delta.indices`` become the maximum of themselves and the values."""
        return self._sparse(sparse_delta, "ResourceScatterMax", "max")

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Rows ``sparse_delta.indices`` become the minimum of themselves and the values."""
        return self._sparse(sparse_delta, "ResourceScatterMin", "min")

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """``scatter_update`` per batch position: ``indices`` of shape
        ``[B1, ..., Bk, N]`` pick rows of the variable's dimension ``k``."""
        _check_slices(sparse_delta)
        return variable_updates.batch_scatter_update(self, sparse_delta.indices,
                                                     sparse_delta.values)

    def scatter_nd_update(self, indices, updates, name=None):
        """Writes ``updates`` at the N-d ``indices`` (``tf.tensor_scatter_nd_update``).

        Args:
          indices: Integer Tensor of shape ``[..., K]``: positions in the first
            ``K`` dimensions.
          updates: Tensor of shape ``indices.shape[:-1] + shape[K:]``.
          name: Unused.

        Returns:
          The variable.

        Raises:
          InvalidArgumentError: For an index outside the shape or updates of the
            wrong shape.
        """
        return variable_updates.scatter_nd(self, "ResourceScatterNdUpdate", indices,
                                           updates, "update")

    def scatter_nd_add(self, indices, updates, name=None):
        """Adds ``updates`` at the N-d ``indices`` (duplicates accumulate)."""
        return variable_updates.scatter_nd(self, "ResourceScatterNdAdd", indices, updates,
                                           "add")

    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtracts ``updates`` at the N-d ``indices``."""
        return variable_updates.scatter_nd(self, "ResourceScatterNdSub", indices, updates,
                                           "sub")

    def scatter_nd_max(self, indices, updates, name=None):
        """The maximum of the variable and ``updates`` at the N-d ``indices``."""
        return variable_updates.scatter_nd(self, "ResourceScatterNdMax", indices, updates,
                                           "max")

    def scatter_nd_min(self, indices, updates, name=None):
        """The minimum of the variable and ``updates`` at the N-d ``indices``."""
        return variable_updates.scatter_nd(self, "ResourceScatterNdMin", indices, updates,
                                           "min")

    def __getitem__(self, key):
        """``v[key]``: the sliced value, which has ``.assign(value)`` (TF's sliced
        assignment: ``v[0, 1:].assign(x)``)."""
        return variable_updates.slice_of(self, key)

    # --- Python protocol ---------------------------------------------------
    def __repr__(self) -> str:
        return (f"<tf.Variable '{self._name}' shape={_shape_str(self._shape)} "
                f"dtype={self._dtype.name}, numpy={_numpy_repr(self._read())}>")

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._read())

    def __float__(self) -> float:
        return float(self._read())

    def __int__(self) -> int:
        return int(self._read())

    # No __index__: as TF's ResourceVariable, a variable is not a list index or a
    # range() bound (TypeError); int(v) and NumPy indexing by v still work.

    def __len__(self) -> int:
        return len(self._read())

    def __iter__(self):
        return iter(self._read())

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        new = Variable(self.numpy(), trainable=self._trainable, name=self._name[:-2],
                       dtype=self._dtype, shape=self._shape, constraint=self._constraint,
                       synchronization=self._synchronization, aggregation=self._aggregation)
        memo[id(self)] = new
        return new

    def __reduce__(self):
        return (_rebuild, (self.numpy(), self._trainable, self._name[:-2], self._dtype.name))


def _dry_write(var, *args, read_value=True, **kwargs):
    return var if read_value else None


@graph_trace.host_op(dry=graph_trace.RUN)
def _notify_read(var) -> None:
    if _state.recording:
        for tape in _state.tapes:
            if tape._recording:
                tape._on_variable_read(var)


# Writes run again on every call of a traced function: whether they may write in
# place depends on who holds the buffer then.
for _name in ("assign", "assign_add", "assign_sub", "scatter_update", "scatter_add",
              "scatter_sub", "scatter_mul", "scatter_div", "scatter_max", "scatter_min",
              "batch_scatter_update", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub",
              "scatter_nd_max", "scatter_nd_min"):
    setattr(Variable, _name, graph_trace.host_op(getattr(Variable, _name), dry=_dry_write))
del _name


def _check_slices(sparse_delta) -> None:
    # tf.IndexedSlices, or an object shaped like one (TF's own, a distributed value's).
    if not isinstance(sparse_delta, IndexedSlices) and not (
            hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
        raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")


def _rebuild(value, trainable, name, dtype):
    return Variable(value, trainable=trainable, name=name, dtype=dtype)


def _shape_str(shape: TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    return str(tuple(shape.as_list()))


def _index_tensor(indices) -> torch.Tensor:
    t = to_tensor(indices)
    if not t._dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'indices' has DataType {t._dtype.name} "
                        f"not in list of allowed values: int32, int64")
    return t._t.long()


# Every Tensor operator, delegated to the value (Tensor operators are installed by
# ops/tensor_operators.py after this module loads, so look them up per call).
_OPERATORS = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__",
    "__xor__", "__rxor__", "__invert__", "__neg__", "__abs__", "__lt__", "__le__",
    "__gt__", "__ge__", "__eq__", "__ne__", "__div__", "__rdiv__",
)


def _delegate(op_name):
    def method(self, *args):
        fn = getattr(self._read(), op_name, None)
        if fn is None:
            return NotImplemented
        return fn(*args)

    method.__name__ = op_name
    return method


for _op in _OPERATORS:
    setattr(Variable, _op, _delegate(_op))
# __eq__ above would otherwise reset hashing; keep TF's explicit error.
Variable.__hash__ = Variable.__dict__["__hash__"]
del _op


def is_variable(x) -> bool:
    return isinstance(x, Variable)


def install_compile_barriers() -> None:
    """Makes torch.compile run variable writes eagerly (in-place updates of graph
    inputs, copy-on-write checks on storages). Installed on first jit_compile use."""
    if getattr(Variable, "_compile_barriers", False):
        return
    Variable._compile_barriers = True
    for name in ("assign", "assign_add", "assign_sub", "_sparse", "batch_scatter_update",
                 "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_max",
                 "scatter_nd_min"):
        setattr(Variable, name, torch.compiler.disable(getattr(Variable, name)))
