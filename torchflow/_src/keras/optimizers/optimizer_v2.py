"""``tf.keras.optimizers.Optimizer`` (OptimizerV2 of TF 2.4).

``apply_gradients`` filters missing gradients, creates the optimizer's
variables (``iter``, hyperparameters, slots) on first use, aggregates and
transforms the gradients (``gradient_aggregator``, then ``clipvalue``,
``clipnorm``, ``global_clipnorm`` and ``gradient_transformers``), updates every
variable, applies variable constraints and increments ``iterations``.

The built-in optimizers update all variables of a step at once with the fused
kernels of ``ops/training_ops.py`` (``_apply_batch``); subclasses written against
TF's API (``_create_slots``, ``_prepare_local``, ``_resource_apply_dense``) are
called per variable as in TF.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import operator
import warnings

from torchflow._src.core import dtypes, graph_trace, tracking
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.device import device
from torchflow._src.core.indexed_slices import IndexedSlices
from torchflow._src.core.tape import GradientTape
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.variable_scope import name_scope
from torchflow._src.core.variables import Variable, VariableAggregation
from torchflow._src.distribute import ds_context
from torchflow._src.distribute.reduce_util import ReduceOp
from torchflow._src.distribute.values import first_local_value
from torchflow._src.keras import initializers
from torchflow._src.keras.optimizers.schedules import learning_rate_schedule as lrs
from torchflow._src.keras.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule,
)
from torchflow._src.ops.array_ops import expand_dims
from torchflow._src.ops.clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.gather_ops import scatter_nd
from torchflow._src.util import nest
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")
_FAST_CACHE: dict = {}


def host_scope():
    """Where the optimizer's scalar state lives: the host, as TF keeps int64 state.

    The optimizer reads ``iterations`` and its hyperparameters every step to
    compute the update coefficients; on the host that read never waits for an
    accelerator.
    """
    return device("/CPU:0")


def _base_var(v):
    while not hasattr(v, "_leaf") and hasattr(v, "_variable"):
        v = v._variable
    return v


def _var_key(v) -> int:
    return _base_var(v)._unique_id


def _shared_name(v) -> str:
    n = v.name
    return n[:-2] if n.endswith(":0") else n


_is = operator.is_
_ONE: list = []


def _one_int64():
    """The constant 1 that ``iterations`` is incremented by (made once, not per step)."""
    if not _ONE:
        _ONE.append(convert_to_tensor(1, dtype="int64"))
    return _ONE[0]


def _owner(cls, attr):
    for c in cls.__mro__:
        if attr in c.__dict__:
            return c
    return None


def _uses_fast_path(cls) -> bool:
    fast = _FAST_CACHE.get(cls)
    if fast is None:
        batch = _owner(cls, "_apply_batch")
        dense = _owner(cls, "_resource_apply_dense")
        slots = _owner(cls, "_create_slots")
        fast = batch is not None and issubclass(batch, dense) and issubclass(batch, slots)
        _FAST_CACHE[cls] = fast
    return fast


def all_reduce_sum_gradients(grads_and_vars):
    """TF's default ``gradient_aggregator``: sums each gradient across replicas
    (``merge_call`` -> ``extended.batch_reduce_to(SUM, (grad, var) pairs)``)."""
    grads_and_vars = list(grads_and_vars)
    if not grads_and_vars:
        return grads_and_vars
    ctx = ds_context.get_replica_context()
    if ctx is None:
        return grads_and_vars

    def all_reduce_sum(strategy, pairs):
        return strategy.extended.batch_reduce_to(ReduceOp.SUM, pairs)

    reduced = ctx.merge_call(all_reduce_sum, args=(grads_and_vars,))
    return [(first_local_value(g), v) for g, (_, v) in zip(reduced, grads_and_vars)]


def _check_slot_strategy(var):
    """TF's error for a slot of a variable made outside the current strategy's scope."""
    strategy = ds_context.get_strategy()
    if not strategy.extended.variable_created_in_scope(var):
        raise ValueError(
            f"Trying to create optimizer slot variable under the scope for "
            f"tf.distribute.Strategy ({strategy}), which is different from the scope used "
            f"for the original variable ({var}). Make sure the slot variables are created "
            f"under the same strategy scope. This may happen if you're restoring from a "
            f"checkpoint outside the scope")


def _to_dense(g):
    if g is None or isinstance(g, Tensor):
        return g
    if hasattr(g, "indices") and hasattr(g, "values") and hasattr(g, "dense_shape"):
        return scatter_nd(expand_dims(g.indices, -1), g.values, g.dense_shape)
    return convert_to_tensor(g)


@public("torchflow.keras.optimizers")
class Optimizer:
    """Base class of Keras optimizers (TF 2.4's ``OptimizerV2``).

    Args:
      name: Name prefix of the optimizer's variables.
      gradient_aggregator: ``fn(grads_and_vars) -> grads_and_vars`` that sums
        gradients across replicas (default: identity outside a strategy).
      gradient_transformers: Functions ``fn(grads_and_vars) -> grads_and_vars``
        applied after aggregation and clipping.
      **kwargs: ``clipvalue``, ``clipnorm``, ``global_clipnorm``, ``lr``
        (deprecated alias of ``learning_rate``), ``decay`` (inverse-time decay).

    Raises:
      TypeError: For an unknown keyword argument.
      ValueError: For a negative keyword argument or both clipnorm arguments.
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, name, gradient_aggregator=None, gradient_transformers=None, **kwargs):
        allowed = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}")
            if kwargs[k] is not None and not callable(kwargs[k]) and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
            if k == "lr":
                warnings.warn("The `lr` argument is deprecated, use `learning_rate` instead.",
                              stacklevel=2)
        object.__setattr__(self, "_hyper", {})
        self._use_locking = True
        self._name = name
        self._slots: dict = {}
        self._slot_vars: dict = {}
        self._slot_names: list = []
        self._weights: list = []
        self._iterations = None
        self._hypers_created = False
        self._created_for: set = set()
        decay = kwargs.pop("decay", 0.0)
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0: {decay}")
        self._initial_decay = decay
        self.gradient_aggregator = gradient_aggregator
        self.gradient_transformers = list(gradient_transformers or [])
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(f"Cannot accept both `clipnorm` and `global_clipnorm`, passed "
                             f"`clipnorm` {self.clipnorm}, `global_clipnorm` "
                             f"{self.global_clipnorm}")
        self.clipvalue = kwargs.pop("clipvalue", None)

    # --- hyperparameters ---------------------------------------------------
    def _set_hyper(self, name, value):
        frozen = self.__dict__.get("_frozen")
        if frozen:
            frozen.clear()
        prev = self._hyper.get(name)
        if prev is None or not isinstance(prev, Variable) or \
                isinstance(value, LearningRateSchedule) or callable(value):
            self._hyper[name] = value
        else:
            prev.assign(cast(convert_to_tensor(value), prev.dtype))

    def _get_hyper(self, name, dtype=None):
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if isinstance(value, LearningRateSchedule):
            return value
        if callable(value) and not isinstance(value, Variable):
            value = value()
        if dtype is not None:
            value = cast(value, dtype)
        return value

    def _hyper_float(self, name) -> float:
        frozen = self.__dict__.get("_frozen")
        if frozen is not None:
            value = frozen.get(name)
            if value is None:
                value = frozen[name] = self._read_hyper_float(name)
            return value
        return self._read_hyper_float(name)

    def _read_hyper_float(self, name) -> float:
        value = self._hyper[name]
        if callable(value) and not isinstance(value, (Variable, LearningRateSchedule)):
            value = value()
        return float(value)

    def _create_hypers(self):
        if self._hypers_created:
            return
        with name_scope(self._name + "/"), host_scope():
            for name, value in sorted(self._hyper.items()):
                if isinstance(value, (Tensor, Variable, LearningRateSchedule)) or callable(value):
                    continue
                var = Variable(float(value), name=name, trainable=False, dtype="float32",
                               aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
                self._hyper[name] = var
                if tracking._pending:
                    tracking.notify(self, name, var)
        self._hypers_created = True

    def __getattr__(self, name):
        if name == "lr":
            name = "learning_rate"
        hyper = self.__dict__.get("_hyper")
        if hyper is not None and name in hyper:
            return self._get_hyper(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._hyper))

    def __setattr__(self, name, value):
        if name == "lr":
            name = "learning_rate"
        hyper = self.__dict__.get("_hyper")
        if hyper is not None and name in hyper:
            self._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    def _decayed_lr(self, var_dtype):
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if isinstance(lr_t, LearningRateSchedule):
            lr_t = cast(lr_t(cast(self.iterations, var_dtype)), var_dtype)
        if self._initial_decay > 0.0:
            step = cast(self.iterations, var_dtype)
            lr_t = lr_t / (1.0 + cast(self._get_hyper("decay"), var_dtype) * step)
        return lr_t

    def _lr_float(self, iterations: int) -> float:
        """This step's learning rate as a Python float (fast path)."""
        value = self._hyper["learning_rate"]
        if isinstance(value, LearningRateSchedule):
            lr = float(value(convert_to_tensor(float(iterations))))
        else:
            lr = self._hyper_float("learning_rate")
        if self._initial_decay > 0.0:
            lr = lr / (1.0 + self._hyper_float("decay") * iterations)
        return lr

    def _serialize_hyperparameter(self, name):
        value = self._hyper[name]
        if isinstance(value, LearningRateSchedule):
            return lrs.serialize(value)
        if callable(value) and not isinstance(value, Variable):
            return value()
        if isinstance(value, (Tensor, Variable)):
            return float(value.numpy())
        return value

    # --- weights -----------------------------------------------------------
    @property
    def iterations(self):
        """The number of training steps taken (an int64 variable)."""
        if self._iterations is None:
            with name_scope(self._name + "/"), host_scope():
                self._iterations = Variable(0, name="iter", dtype="int64", trainable=False,
                                            aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
            self._weights.insert(0, self._iterations)
            if tracking._pending:
                tracking.notify(self, "iter", self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable):
        if self._iterations is not None:
            raise RuntimeError("Cannot set `iterations` to a new Variable after the Optimizer "
                               "weights have been created")
        self._iterations = variable
        self._weights.insert(0, variable)

    def add_weight(self, name, shape, dtype=None, initializer="zeros", trainable=None,
                   synchronization=None, aggregation=VariableAggregation.NONE):
        """Adds a non-slot variable to the optimizer (listed in ``weights``).

        Optimizers keep state that is not per-variable this way (``iterations`` is one).

        Args:
          name: str, the variable's name (under the optimizer's name scope).
          shape: A shape (list or tuple of ints).
          dtype: None (float32) or a dtype.
          initializer: An initializer name, config dict or callable (default
            ``"zeros"``), or an initial value.
          trainable: None or bool (default False).
          synchronization: Accepted for TF compatibility.
          aggregation: The ``tf.VariableAggregation`` of the variable under a strategy.

        Returns:
          The new ``tf.Variable``.
        """
        dtype = dtypes.as_dtype(dtype or "float32")
        if isinstance(initializer, (str, dict)) or callable(initializer):
            init = initializers.get(initializer)
            value = functools.partial(init, shape=list(shape), dtype=dtype)
        else:
            value = initializer
        with name_scope(self._name + "/"):
            var = Variable(value, name=name, dtype=dtype, trainable=bool(trainable),
                           aggregation=aggregation)
        self._weights.append(var)
        if tracking._pending:
            tracking.notify(self, name, var)
        return var

    def add_slot(self, var, slot_name, initializer="zeros"):
        """Creates (once) the slot ``slot_name`` of ``var``, restoring a checkpointed value.

        Subclasses call it from ``_create_slots``; Adam's ``m`` and ``v`` are slots.

        Args:
          var: The model variable the slot belongs to.
          slot_name: str, the slot's name (``"momentum"``, ``"m"``).
          initializer: An initializer name or callable (default ``"zeros"``), or an initial
            value; the slot has ``var``'s shape and dtype.

        Returns:
          The slot variable.
        """
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        key = _var_key(var)
        slot_dict = self._slots.setdefault(key, {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            _check_slot_strategy(var)  # tf.distribute (issue 12)
            base = _base_var(var)
            if isinstance(initializer, str) or callable(initializer):
                init = initializers.get(initializer)
                value = functools.partial(init, shape=base.shape.as_list(), dtype=base.dtype)
            else:
                value = initializer
            with name_scope(self._name + "/"):
                weight = Variable(value, name=f"{_shared_name(base)}/{slot_name}",
                                  dtype=base.dtype, trainable=False)
            slot_dict[slot_name] = weight
            self.__dict__.pop("_slot_lists", None)
            self._slot_vars[key] = var
            tracking.restore_slot(self, slot_name, var, weight)
            self._weights.append(weight)
        return weight

    def get_slot(self, var, slot_name):
        """The slot variable ``slot_name`` of ``var``.

        Args:
          var: The model variable.
          slot_name: str, the slot's name (see ``get_slot_names``).

        Returns:
          The slot ``tf.Variable``.

        Raises:
          KeyError: If there is no such slot.
        """
        slots = self._slots.get(_var_key(var), {})
        if slot_name not in slots:
            raise KeyError(f"Slot {slot_name!r} for variable {var.name!r} does not exist "
                           f"(slot names: {self._slot_names}).")
        return slots[slot_name]

    def get_slot_names(self) -> list:
        """The names of the slots this optimizer has created.

        Returns:
          A list of str, in creation order (empty before the first ``apply_gradients``).
        """
        return list(self._slot_names)

    def _create_slots(self, var_list):
        pass

    def _create_all_weights(self, var_list):
        last = self.__dict__.get("_created_last")
        if last is not None and len(last) == len(var_list) and all(map(_is, last, var_list)):
            return  # the same variables as last step: everything exists already
        _ = self.iterations
        self._create_hypers()
        new = [v for v in var_list if _var_key(v) not in self._created_for]
        if new:
            self._create_slots(new)
            self._created_for.update(_var_key(v) for v in new)
        object.__setattr__(self, "_created_last", list(var_list))

    @property
    def weights(self) -> list:
        """``iterations`` then the other optimizer variables in creation order."""
        return list(self._weights)

    def variables(self) -> list:
        """The optimizer's variables: ``iterations``, its hyperparameter variables and slots.

        Returns:
          A list of ``tf.Variable`` (the same as ``weights``).
        """
        return list(self._weights)

    def get_weights(self) -> list:
        """The values of the optimizer's variables, in ``weights`` order.

        Returns:
          A list of NumPy arrays (``iterations`` first).
        """
        return [w.numpy() for w in self._weights]

    def set_weights(self, weights) -> None:
        """Assigns NumPy values to ``weights`` (same order and shapes).

        The optimizer's slots must exist already (after one ``apply_gradients``, or a
        ``_create_all_weights`` call).

        Args:
          weights: A list of NumPy arrays, as ``get_weights`` returns.

        Raises:
          ValueError: For a length or shape mismatch.
        """
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self._name} with a  weight "
                f"list of length {len(weights)}, but the optimizer was expecting "
                f"{len(params)} weights. Provided weights: {str(weights)[:50]}...")
        for p, w in zip(params, weights):
            if tuple(p.shape.as_list()) != tuple(getattr(w, "shape", ())):
                raise ValueError(f"Optimizer weight shape {tuple(p.shape.as_list())} not "
                                 f"compatible with provided weight shape "
                                 f"{tuple(getattr(w, 'shape', ()))}")
            p.assign(cast(convert_to_tensor(w), p.dtype))

    # --- checkpointing -----------------------------------------------------
    def _checkpoint_dependencies(self):
        deps = []
        if self._iterations is not None:
            deps.append(("iter", self._iterations))
        for name, value in self._hyper.items():
            if isinstance(value, Variable):
                deps.append((name, value))
        slot_ids = {id(s) for d in self._slots.values() for s in d.values()}
        for w in self._weights:
            if w is not self._iterations and id(w) not in slot_ids:
                deps.append((_shared_name(w).split("/")[-1], w))
        return deps

    def _checkpoint_slots(self):
        out = []
        for key, slots in self._slots.items():
            var = self._slot_vars[key]
            for name in self._slot_names:
                if name in slots:
                    out.append((name, var, slots[name]))
        return out

    def _lookup_slot(self, var, slot_name):
        return self._slots.get(_var_key(var), {}).get(slot_name)

    # --- gradients ---------------------------------------------------------
    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None):
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed.")
        tape = tape if tape is not None else GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
                if callable(var_list):
                    var_list = var_list()
        elif callable(var_list):
            var_list = var_list()
        var_list = nest.flatten(var_list)
        grads = tape.gradient(loss, var_list, grad_loss)
        return list(zip(grads, var_list))

    def get_gradients(self, loss, params):
        """TF 1's symbolic gradients; refused under eager execution, as in TF 2.4.

        Args:
          loss: The loss tensor.
          params: The variables.

        Raises:
          RuntimeError: always (use a ``tf.GradientTape``).
        """
        raise RuntimeError("`get_gradients` is not supported when eager execution is "
                           "enabled. Use a `tf.GradientTape` instead.")

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """Computes the gradients of ``loss`` and applies them.

        Args:
          loss: A callable returning the loss, or a loss Tensor recorded by ``tape``.
          var_list: Variables (or a callable returning them) to update.
          grad_loss: Optional gradient of the loss.
          name: Unused.
          tape: The ``GradientTape`` that recorded a Tensor ``loss``.

        Returns:
          The ``iterations`` variable, incremented.

        Raises:
          ValueError: If ``loss`` is a Tensor and ``tape`` is None, or no gradient exists.
        """
        grads_and_vars = self._compute_gradients(loss, var_list=var_list, grad_loss=grad_loss,
                                                 tape=tape)
        return self.apply_gradients(grads_and_vars, name=name)

    def _transform_unaggregated_gradients(self, grads_and_vars):
        return grads_and_vars

    def _aggregate_gradients(self, grads_and_vars):
        if self.gradient_aggregator is None:
            # tf.distribute (issue 12): TF's default aggregator all-reduces (sums)
            # the gradients across replicas; with no strategy there is nothing to do.
            if not ds_context.has_strategy():
                return grads_and_vars
            return all_reduce_sum_gradients(grads_and_vars)
        return self.gradient_aggregator(grads_and_vars)

    def _transform_gradients(self, grads_and_vars):
        if self.clipvalue is not None:
            c = self.clipvalue
            grads_and_vars = [(clip_by_value(g, -c, c), v) for g, v in grads_and_vars]
        if self.clipnorm is not None:
            grads_and_vars = [(clip_by_norm(g, self.clipnorm), v) for g, v in grads_and_vars]
        if self.global_clipnorm is not None:
            gs, _ = clip_by_global_norm([g for g, _ in grads_and_vars], self.global_clipnorm)
            grads_and_vars = list(zip(gs, [v for _, v in grads_and_vars]))
        for fn in self.gradient_transformers:
            grads_and_vars = fn(grads_and_vars)
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Applies gradients to variables.

        Args:
          grads_and_vars: Pairs ``(gradient, variable)``; None gradients are skipped.
          name: Unused.
          experimental_aggregate_gradients: If False, the gradients are taken as
            already aggregated across replicas.

        Returns:
          The ``iterations`` variable, incremented; None (nothing applied, the step
          count unchanged) for an empty ``grads_and_vars``.

        Raises:
          ValueError: If every variable's gradient is None.
        """
        pairs = list(grads_and_vars)
        if not pairs:
            # TF 2.4: nothing to apply (a model without trainable weights) is a no-op;
            # the optimizer's weights are still created and iterations stays put.
            self._create_all_weights([])
            return None
        sparse_ok = self._keeps_sparse()
        filtered = [(g if sparse_ok and isinstance(g, IndexedSlices) else _to_dense(g), v)
                    for g, v in pairs if g is not None]
        if not filtered:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{tuple(v.name for _, v in pairs)}.")
        if len(filtered) != len(pairs):
            _log.warning("Gradients do not exist for variables %s when minimizing the loss.",
                         [v.name for g, v in pairs if g is None])
        var_list = [v for _, v in filtered]
        self._create_all_weights(var_list)
        # tf.distribute (issue 12): in a replica context of a strategy, gradients are
        # all-reduced (by gradient_aggregator) and applied once in cross-replica context.
        distributed = ds_context.has_strategy()
        if distributed and ds_context.in_cross_replica_context():
            raise RuntimeError("`apply_gradients() cannot be called in cross-replica context. "
                               "Use `tf.distribute.Strategy.run` to enter replica context.")
        if experimental_aggregate_gradients:
            filtered = self._transform_unaggregated_gradients(filtered)
            filtered = self._aggregate_gradients(filtered)
        filtered = self._transform_gradients(filtered)
        if distributed:
            ds_context.get_replica_context().merge_call(self._distributed_apply,
                                                        args=(filtered,))
            return self._iterations
        self._apply(filtered)
        return self._iterations

    def _distributed_apply(self, strategy, grads_and_vars):
        """Applies the (already all-reduced) gradients once, in cross-replica context:
        a mirrored variable's replicas share its storage (tf.distribute, issue 12)."""
        self._apply([(first_local_value(g), v) for g, v in grads_and_vars])

    # One host node of a traced step: the fused update reads the step count and the
    # hyperparameters on the host, so it runs again on every call.
    @graph_trace.host_op(dry=lambda self, grads_and_vars: None)
    def _apply(self, grads_and_vars):
        grads = [g for g, _ in grads_and_vars]
        variables = [v for _, v in grads_and_vars]
        if _uses_fast_path(type(self)):
            frozen = self.__dict__.get("_frozen")
            if frozen is None:
                step = int(self._iterations.numpy())
            else:  # counted here while a group of steps runs
                step = frozen.get("iterations")
                if step is None:
                    step = int(self._iterations.numpy())
                frozen["iterations"] = step + 1
            self._apply_fused(grads, variables, step)
        else:
            apply_state = self._prepare(variables)
            for g, v in grads_and_vars:
                self._resource_apply_dense(g, v, apply_state)
        for v in variables:
            if getattr(v, "constraint", None) is not None:
                v.assign(v.constraint(v))
        it = self._iterations
        it.assign_add(_one_int64() if it.dtype is dtypes.int64 else 1)

    def _keeps_sparse(self) -> bool:
        """Whether IndexedSlices gradients reach ``_apply`` as they are (a built-in
        optimizer with a sparse update; clipvalue/clipnorm/global_clipnorm clip
        their values, as TF's; no user transformers or aggregator, no strategy);
        otherwise they are densified first."""
        return (hasattr(self, "_apply_sparse_batch") and _uses_fast_path(type(self))
                and not self.gradient_transformers and self.gradient_aggregator is None
                and not ds_context.has_strategy())

    def _apply_fused(self, grads, variables, step):
        """``_apply_batch`` for the dense gradients, ``_apply_sparse_batch`` (TF's
        ``_resource_apply_sparse``) for the IndexedSlices ones."""
        if not any(isinstance(g, IndexedSlices) for g in grads):
            self._apply_batch(grads, variables, step)
            return
        dense = [(g, v) for g, v in zip(grads, variables) if not isinstance(g, IndexedSlices)]
        sparse = [(g, v) for g, v in zip(grads, variables) if isinstance(g, IndexedSlices)]
        if dense:
            self._apply_batch([g for g, _ in dense], [v for _, v in dense], step)
        self._apply_sparse_batch([g for g, _ in sparse], [v for _, v in sparse], step)

    @contextlib.contextmanager
    def _steps_as_one(self):
        """Within it, the host scalars the fused update reads (hyperparameter values,
        the step count) are read once and the step counted on the host: a group of
        ``steps_per_execution`` steps reads them as one execution would. Nothing
        outside the group's steps can change them meanwhile (``_set_hyper`` forgets
        them). Only for optimizers whose step count nothing else moves."""
        if not (_uses_fast_path(type(self)) and type(self)._apply is Optimizer._apply) or \
                self.__dict__.get("_frozen") is not None:
            yield
            return
        object.__setattr__(self, "_frozen", {})
        try:
            yield
        finally:
            object.__setattr__(self, "_frozen", None)

    def _prepare(self, var_list):
        keys = {}
        for v in var_list:
            key = (v.device, _base_var(v).dtype)
            keys[key] = None
        apply_state = {}
        for var_device, dtype in keys:
            apply_state[(var_device, dtype)] = {}
            self._prepare_local(var_device, dtype, apply_state)
        return apply_state

    def _prepare_local(self, var_device, var_dtype, apply_state):
        if "learning_rate" in self._hyper:
            lr_t = self._decayed_lr(var_dtype)
            apply_state[(var_device, var_dtype)]["lr_t"] = lr_t

    def _fallback_apply_state(self, var_device, var_dtype):
        apply_state = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _resource_apply_dense(self, grad, handle, apply_state):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _resource_apply_sparse(self, grad, handle, indices, apply_state):
        raise NotImplementedError("Must be implemented in subclasses.")

    # --- config ------------------------------------------------------------
    def get_config(self) -> dict:
        """The optimizer's config: its name, hyperparameters and clipping options.

        Returns:
          A dict that ``from_config`` (and ``tf.keras.optimizers.deserialize``) turns
          back into an optimizer.
        """
        config = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """An optimizer from ``get_config()``'s dict.

        Args:
          config: The dict; a legacy ``lr`` key is read as ``learning_rate``, and a
            serialized learning rate schedule is deserialized.
          custom_objects: None or a dict of custom schedule classes by name.

        Returns:
          A new optimizer (without slots).
        """
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = lrs.deserialize(config["learning_rate"],
                                                      custom_objects=custom_objects)
        return cls(**config)


OptimizerV2 = Optimizer
