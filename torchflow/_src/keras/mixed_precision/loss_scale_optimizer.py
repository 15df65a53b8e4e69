"""``tf.keras.mixed_precision.LossScaleOptimizer``: loss scaling around an optimizer.

The loss is multiplied by the loss scale before differentiation and the
gradients divided by it afterwards, so small float16 gradients do not flush
to zero. A dynamic scale halves (and the step is skipped) whenever a gradient
is not finite, and doubles after ``dynamic_growth_steps`` finite steps in a row.
"""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.variable_scope import name_scope
from torchflow._src.core.variables import Variable, VariableAggregation
from torchflow._src.distribute import ds_context
from torchflow._src.keras.optimizers import deserialize, serialize
from torchflow._src.keras.optimizers.optimizer_v2 import Optimizer, host_scope
from torchflow._src.ops.array_ops import stack
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.reduction_ops import reduce_all
from torchflow._src.ops.unary_math_ops import is_finite
from torchflow._src.util.api import public

_DELEGATED = ("_hyper", "_name")


class _LossScaleState:
    """The checkpointed loss-scale state (``current_loss_scale``, ``good_steps``)."""

    def __init__(self, initial_scale, dynamic):
        with name_scope("LossScaleOptimizer/"), host_scope():
            self.current_loss_scale = Variable(float(initial_scale), name="current_loss_scale",
                                               dtype="float32", trainable=False,
                                               aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
            self.good_steps = Variable(0, name="good_steps", dtype="int64", trainable=False,
                                       aggregation=VariableAggregation.ONLY_FIRST_REPLICA) \
                if dynamic else None

    def _checkpoint_dependencies(self):
        deps = [("current_loss_scale", self.current_loss_scale)]
        if self.good_steps is not None:
            deps.append(("good_steps", self.good_steps))
        return deps


@public("torchflow.keras.mixed_precision")
class LossScaleOptimizer(Optimizer):
    """An optimizer that scales the loss to keep float16 gradients representable.

    Args:
      inner_optimizer: The ``tf.keras.optimizers.Optimizer`` to wrap.
      dynamic: Whether the loss scale adapts (default True).
      initial_scale: The first loss scale (default 2**15 when dynamic; required
        otherwise).
      dynamic_growth_steps: Finite steps before the scale doubles (default 2000).

    Raises:
      TypeError: If ``inner_optimizer`` is not an Optimizer, or is a LossScaleOptimizer.
      ValueError: For ``dynamic=False`` without ``initial_scale``, or
        ``dynamic_growth_steps`` with ``dynamic=False``.

    >>> import torchflow as tf
    >>> opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
    >>> float(opt.loss_scale)
    32768.0
    """

    def __init__(self, inner_optimizer, dynamic=True, initial_scale=None,
                 dynamic_growth_steps=None):
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f'"inner_optimizer" must be an instance of '
                            f'`tf.keras.optimizers.Optimizer`, but got: {inner_optimizer}')
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError("LossScaleOptimizer cannot wrap another LossScaleOptimizer, but "
                            f"got: {inner_optimizer}")
        if not isinstance(dynamic, bool):
            raise TypeError(f'"dynamic" argument to LossScaleOptimizer.__init__ must be a '
                            f'bool, but got: {dynamic!r}')
        if dynamic:
            initial_scale = 2.0 ** 15 if initial_scale is None else initial_scale
            dynamic_growth_steps = 2000 if dynamic_growth_steps is None else \
                dynamic_growth_steps
        else:
            if initial_scale is None:
                raise ValueError('"initial_scale" must be specified if "dynamic" is False')
            if dynamic_growth_steps is not None:
                raise ValueError(f'"dynamic_growth_steps" must be None if "dynamic" is False, '
                                 f'but got: {dynamic_growth_steps}')
        object.__setattr__(self, "_optimizer", inner_optimizer)
        object.__setattr__(self, "_dynamic", dynamic)
        object.__setattr__(self, "_initial_scale", float(initial_scale))
        object.__setattr__(self, "_growth_steps", dynamic_growth_steps)
        object.__setattr__(self, "_state", _LossScaleState(initial_scale, dynamic))

    # --- delegation --------------------------------------------------------
    def __getattr__(self, name):
        if name.startswith("__") or name == "_optimizer":
            raise AttributeError(name)
        return getattr(self._optimizer, name)

    def __setattr__(self, name, value):
        inner = self.__dict__.get("_optimizer")
        if inner is not None and (name in ("lr", "learning_rate") or name in inner._hyper):
            setattr(inner, name, value)
        else:
            object.__setattr__(self, name, value)

    @property
    def inner_optimizer(self):
        return self._optimizer

    @property
    def dynamic(self) -> bool:
        return self._dynamic

    @property
    def loss_scale(self):
        """The current loss scale (a float32 scalar tensor)."""
        return self._state.current_loss_scale.read_value()

    @property
    def dynamic_counter(self):
        """Finite steps since the last change of the scale (None if not dynamic)."""
        return self._state.good_steps

    @property
    def initial_scale(self) -> float:
        return self._initial_scale

    @property
    def dynamic_growth_steps(self):
        return self._growth_steps

    @property
    def iterations(self):
        return self._optimizer.iterations

    @iterations.setter
    def iterations(self, variable):
        self._optimizer.iterations = variable

    @property
    def weights(self):
        return self._optimizer.weights

    def variables(self):
        return self._optimizer.variables()

    def get_weights(self):
        return self._optimizer.get_weights()

    def set_weights(self, weights):
        return self._optimizer.set_weights(weights)

    def get_slot(self, var, slot_name):
        return self._optimizer.get_slot(var, slot_name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def add_slot(self, var, slot_name, initializer="zeros"):
        return self._optimizer.add_slot(var, slot_name, initializer)

    def _checkpoint_dependencies(self):
        return [("base_optimizer", self._optimizer), ("loss_scale", self._state)]

    # --- scaling -----------------------------------------------------------
    def get_scaled_loss(self, loss):
        """``loss * loss_scale`` (a callable loss gives a callable)."""
        if callable(loss):
            def scaled():
                v = convert_to_tensor(loss())
                return v * cast(self.loss_scale, v.dtype)

            return scaled
        loss = convert_to_tensor(loss)
        return loss * cast(self.loss_scale, loss.dtype)

    def get_unscaled_gradients(self, grads):
        """Each gradient divided by the loss scale (None stays None)."""
        inv = 1.0 / self._state.current_loss_scale.read_value()
        return [None if g is None else convert_to_tensor(g) * cast(inv, convert_to_tensor(
            g).dtype) for g in grads]

    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None):
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed.")
        if callable(loss):
            scaled = self.get_scaled_loss(loss)
        else:
            with tape:
                scaled = self.get_scaled_loss(loss)
        gv = self._optimizer._compute_gradients(scaled, var_list, grad_loss, tape=tape)
        grads = self.get_unscaled_gradients([g for g, _ in gv])
        return list(zip(grads, [v for _, v in gv]))

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        gv = self._compute_gradients(loss, var_list, grad_loss, tape=tape)
        return self.apply_gradients(gv, name=name)

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Updates a dynamic loss scale; applies the gradients only if all are finite.

        A skipped step still increments ``iterations``, as in TF.
        """
        pairs = list(grads_and_vars)
        inner = self._optimizer
        if experimental_aggregate_gradients:
            present = [(g, v) for g, v in pairs if g is not None]
            present = inner._aggregate_gradients(
                inner._transform_unaggregated_gradients(present))
            pairs = present
        finite = True
        if self._dynamic:  # a fixed scale applies every step, as in TF
            ctx = ds_context.current_replica()
            grads = [g for g, _ in pairs if g is not None]
            if ctx is None:
                finite = self._finite_and_update(grads)
            else:
                # tf.distribute: the scale is checked over every replica's gradients
                # and updated once per step, in cross-replica context (as TF does).
                finite = ctx.merge_call(lambda strategy, *per_replica: self._finite_and_update(
                    [t for g in per_replica for t in strategy.experimental_local_results(g)]),
                    args=tuple(grads))
        if finite:
            return inner.apply_gradients(pairs, name=name,
                                         experimental_aggregate_gradients=False)
        inner._create_all_weights([v for g, v in pairs if g is not None])
        inner.iterations.assign_add(1)
        return inner.iterations

    def _finite_and_update(self, grads) -> bool:
        # One host read for all gradients, not one per gradient.
        flags = [reduce_all(is_finite(convert_to_tensor(g))) for g in grads]
        finite = bool(reduce_all(stack(flags)).numpy()) if flags else True
        self._update_scale(finite)
        return finite

    def _update_scale(self, finite: bool) -> None:
        scale = self._state.current_loss_scale
        good = self._state.good_steps
        if finite:
            n = int(good.numpy()) + 1
            if n >= self._growth_steps:
                new = float(scale.numpy()) * 2.0
                if new != float("inf"):
                    scale.assign(new)
                good.assign(0)
            else:
                good.assign(n)
        else:
            scale.assign(max(float(scale.numpy()) / 2.0, 1.0))
            good.assign(0)

    # --- config ------------------------------------------------------------
    def get_config(self):
        return {"inner_optimizer": serialize(self._optimizer), "dynamic": self._dynamic,
                "initial_scale": self._initial_scale,
                "dynamic_growth_steps": self._growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "loss_scale" in config:  # TF 2.3 experimental configs
            raise ValueError("Configs of the experimental LossScaleOptimizer are not supported")
        config["inner_optimizer"] = deserialize(config["inner_optimizer"],
                                                custom_objects=custom_objects)
        return cls(**config)
