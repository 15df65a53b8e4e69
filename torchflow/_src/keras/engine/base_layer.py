"""``tf.keras.layers.Layer``: tracking, lazy building, calling conventions.

Weight creation, the weight lists and the trainable flag are in
``layer_weights.LayerWeightsMixin``; TF 2.4's older members in
``layer_compat.LayerCompatMixin``.

``__call__`` does, in order: route symbolic (KerasTensor) inputs to the
Functional API; build from the first input's shape; check ``input_spec``; cast
floating inputs to the compute dtype; fill in ``training`` (from the outer
layer's call, else the learning phase) and ``mask`` (from the inputs'
``_keras_mask``); run ``call`` with AutoCastVariables reading in the compute
dtype; attach the output mask.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from torchflow._src.core import context
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.module import Module
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variable_scope import name_scope
from torchflow._src.core.variables import Variable
from torchflow._src.keras import backend, regularizers
from torchflow._src.keras.engine import functional_utils, layer_weights
from torchflow._src.keras.engine import input_spec as input_spec_lib
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.keras.engine.layer_compat import LayerCompatMixin
from torchflow._src.keras.engine.layer_weights import LayerWeightsMixin
from torchflow._src.keras.engine.tree_generation import TrackedList as _TrackedList
from torchflow._src.keras.engine.tree_generation import generation as _generation
from torchflow._src.keras.mixed_precision import policy as policy_lib
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.shape_ops import shape
from torchflow._src.train import object_graph
from torchflow._src.util import nest
from torchflow._src.util.api import public

_state = context.thread_state

_NOT_TRACKED = frozenset((
    "_self_tracked_layers", "_trainable_weights", "_non_trainable_weights", "_inbound_nodes",
    "_outbound_nodes", "_eager_losses", "_callable_losses", "_metrics", "_input_spec",
    "_dtype_policy", "_call_spec", "_layers_cache", "_flat_cache", "_tw_cache", "_plan_cache",
    "_spec_seen",
    # A Functional model's graph bookkeeping: its layers are its `layer-N` children
    # (as in tf.keras), not also `_output_layers/0` etc. (which would map a
    # checkpoint's output layer onto another model's output layer).
    "_input_layers", "_output_layers", "_nodes", "_nodes_by_depth",
    # A Sequential's stack: its layers are its `layer-N` children too (a stack rebuilt
    # from its config holds its InputLayer where one built with input_shape did not).
    "_seq_layers",
))


def _init_tracking(layer) -> None:
    object.__setattr__(layer, "_self_tracked_layers", _TrackedList())
    object.__setattr__(layer, "_trainable_weights", _TrackedList())
    object.__setattr__(layer, "_non_trainable_weights", _TrackedList())
    object.__setattr__(layer, "_flat_cache", None)
    object.__setattr__(layer, "_tw_cache", None)


class _CallSpec:
    __slots__ = ("arg_names", "accepts_training", "accepts_mask", "accepts_kwargs",
                 "training_index", "mask_index")

    def __init__(self, fn):
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
        self.arg_names = names
        self.accepts_kwargs = any(p.kind == p.VAR_KEYWORD for p in params)
        all_names = {p.name for p in params}
        self.accepts_training = "training" in all_names or self.accepts_kwargs
        self.accepts_mask = "mask" in all_names or self.accepts_kwargs
        self.training_index = names.index("training") if "training" in names else None
        self.mask_index = names.index("mask") if "mask" in names else None


class CallContext:
    """What nested layer calls inherit from the outer call (``training``)."""

    __slots__ = ("training", "depth")

    def __init__(self, training, depth):
        self.training = training
        self.depth = depth


_TREE_ATTRS = frozenset(("_self_tracked_layers", "_trainable_weights",
                         "_non_trainable_weights"))


_PLAIN_KWARG_TYPES = frozenset((bool, type(None), int, float, str))


def _is_float(t) -> bool:
    return isinstance(t, Tensor) and t._dtype._kind == "f"


def _save_spec_of(inputs):
    """The TensorSpecs of a model's first inputs with the batch size left unknown
    (None where an input is not a tensor)."""
    try:
        flat = nest.flatten(inputs)
        if not flat or not all(isinstance(t, Tensor) for t in flat):
            return None
        return nest.map_structure(
            lambda t: TensorSpec([None] + t.shape.as_list()[1:] if t.shape.rank else t.shape,
                                 t.dtype), inputs)
    except (TypeError, ValueError):
        return None


@public("torchflow.keras.layers")
class Layer(LayerCompatMixin, LayerWeightsMixin, Module):
    """The base class of all Keras layers.

    Args:
      trainable: Whether the layer's weights are updated by training.
      name: The layer name (default: the class name in snake_case, made unique).
      dtype: The layer's dtype policy: a ``Policy``, a policy name or a dtype
        (default: the global policy).
      dynamic: Accepted for compatibility (all layers run eagerly).

    Subclasses implement ``build(input_shape)`` (create weights with
    ``add_weight``) and ``call(inputs, training=None, mask=None)``.
    """

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        allowed = {"input_dim", "input_shape", "batch_input_shape", "batch_size", "weights",
                   "activity_regularizer", "autocast", "implementation"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"Keyword argument not understood: {k}")
        if "_self_tracked_layers" not in self.__dict__:  # else attributes set before this
            _init_tracking(self)
        if name is None:
            name = backend.unique_object_name(backend.to_snake_case(type(self).__name__),
                                              zero_based=True)
        elif not isinstance(name, str):
            raise TypeError(f"Layer name must be a string, got {name!r}")
        self._name = name
        self._scope_name = name
        self._trainable = bool(trainable)
        self._dtype_policy = policy_lib.get_policy(dtype)
        cd = self._dtype_policy.compute_dtype
        self._compute_dtype_obj = None if cd is None else layer_weights.as_dtype(cd)
        self._autocast = bool(kwargs.get("autocast", True))
        self.built = False
        self._input_spec = None
        self.supports_masking = False
        self._inbound_nodes: list = []
        self._outbound_nodes: list = []
        self._eager_losses: list = []
        self._callable_losses: list = []
        self._metrics: list = []
        self._call_spec = _call_spec_for(type(self))
        self._dynamic = dynamic
        self._initial_weights = kwargs.get("weights")
        self._activity_regularizer = None
        if kwargs.get("activity_regularizer") is not None:
            self._activity_regularizer = regularizers.get(kwargs["activity_regularizer"])
        if "input_shape" in kwargs or "batch_input_shape" in kwargs or "input_dim" in kwargs:
            if "batch_input_shape" in kwargs:
                bis = tuple(kwargs["batch_input_shape"])
            else:
                shape = kwargs["input_shape"] if "input_shape" in kwargs else (
                    kwargs["input_dim"],)
                bis = (kwargs.get("batch_size"),) + tuple(shape)
            self._batch_input_shape = bis

    # --- attribute tracking -------------------------------------------------
    def __getstate__(self):
        # Copies and pickles (a model sent to a parameter-server worker) leave the call
        # caches behind: they hold ids of this process's objects.
        state = self.__dict__.copy()
        state.pop("_plan_cache", None)
        state.pop("_spec_seen", None)
        state["_flat_cache"] = None
        state["_tw_cache"] = None
        return state

    def __setattr__(self, name, value):
        if "_self_tracked_layers" not in self.__dict__:
            # Set before super().__init__() (or without it): tracked all the same, as in
            # TF, which raises only when such a layer is called (a Model at once, when
            # given a layer or variable).
            if isinstance(value, (Layer, Variable)) and \
                    any(c.__name__ == "Model" for c in type(self).__mro__):
                raise RuntimeError("It looks like you are subclassing `Model` and you forgot "
                                   "to call `super().__init__()`. Always start with this "
                                   "line.")
            _init_tracking(self)
        if not name.startswith("__") and name not in _NOT_TRACKED:
            if name == "_trainable":
                _generation[0] += 1
            self._track(value)
        elif name in _TREE_ATTRS:
            _generation[0] += 1
            if type(value) is not _TrackedList and isinstance(value, list):
                value = _TrackedList(value)
        Module.__setattr__(self, name, value)

    def _track(self, value) -> None:
        if isinstance(value, Layer):
            if value is not self and all(value is not l for l in self._self_tracked_layers):
                self._self_tracked_layers.append(value)
        elif isinstance(value, Variable):
            if not any(value is w for w in self._trainable_weights) and \
                    not any(value is w for w in self._non_trainable_weights):
                (self._trainable_weights if value.trainable
                 else self._non_trainable_weights).append(value)
        elif isinstance(value, (list, tuple)) and value and not isinstance(value, KerasTensor):
            for v in value:
                if isinstance(v, (Layer, Variable, list, tuple, dict)):
                    self._track(v)
        elif isinstance(value, dict):
            for v in value.values():
                if isinstance(v, (Layer, Variable, list, tuple, dict)):
                    self._track(v)

    def _checkpoint_dependencies(self):
        deps = [(n, c) for n, c in object_graph.attribute_children(self) if n not in _NOT_TRACKED
                and not n.startswith("_inbound")]
        seen = {id(c) for _, c in deps}
        for _, c in deps:  # a ShardedVariable is saved as one variable, not its shards
            shards = getattr(c, "_checkpoint_shards", None)
            if callable(shards) and not isinstance(c, type):
                seen.update(id(s) for s in shards())
        for w in self._trainable_weights + self._non_trainable_weights:
            if id(w) not in seen:
                seen.add(id(w))
                deps.append((_weight_short_name(w), w))
        for i, layer in enumerate(self._self_tracked_layers):
            if id(layer) not in seen:
                seen.add(id(layer))
                deps.append((f"layer-{i}", layer))
        return deps

    # --- properties ---------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self):
        """The variable dtype name of the layer's policy."""
        return self._dtype_policy.variable_dtype

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @property
    def compute_dtype(self):
        return self._dtype_policy.compute_dtype

    @property
    def _compute_dtype(self):
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self):
        return self._dtype_policy.variable_dtype

    @property
    def dynamic(self) -> bool:
        return self._dynamic

    @property
    def input_spec(self):
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value) -> None:
        for v in nest.flatten(value):
            if v is not None and not isinstance(v, input_spec_lib.InputSpec):
                raise TypeError(f"Layer input_spec must be an instance of InputSpec. Got: {v}")
        self._input_spec = value

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, value):
        self._activity_regularizer = value

    def _flatten_layers(self, include_self=True, recursive=True):
        if include_self and recursive:
            return list(self._flat_layers())
        return self._walk_layers(include_self, recursive)

    def _flat_layers(self) -> list:
        """``_flatten_layers()``, cached until the layer tree changes (do not mutate)."""
        cache = self._flat_cache
        # (the owner check keeps a copy.copy'd layer from using its original's list)
        if cache is not None and cache[0] == _generation[0] and cache[1][0] is self:
            return cache[1]
        out = self._walk_layers(True, True)
        object.__setattr__(self, "_flat_cache", (_generation[0], out))
        return out

    def _walk_layers(self, include_self, recursive):
        seen = set()
        stack = [self] if include_self else list(reversed(self._self_tracked_layers))
        out = []
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            if recursive or layer is self:
                stack.extend(reversed(layer._self_tracked_layers))
        return out

    @property
    def layers_flat(self):
        return self._flatten_layers(include_self=False)

    @property
    def submodules(self):
        return tuple(self._flatten_layers(include_self=False))

    # --- losses and metrics -------------------------------------------------
    def add_loss(self, losses, inputs=None, **kwargs):
        """Adds loss tensors (or zero-argument callables) to the layer.

        Losses added in ``call`` are reset at each top-level call and collected by
        ``losses``; ``fit`` adds them to the model's loss. Callables (regularization on
        weights) are evaluated each time ``losses`` is read.

        Args:
          losses: A loss Tensor, a zero-argument callable returning one, or a list of them.
          inputs: Accepted for TF compatibility; ignored.
          **kwargs: Accepted for TF compatibility; ignored.
        """
        for loss in nest.flatten(losses):
            if loss is None:
                continue
            if callable(loss) and not isinstance(loss, (Tensor, KerasTensor)):
                self._callable_losses.append(loss)
            elif isinstance(loss, KerasTensor):
                self._symbolic_losses = getattr(self, "_symbolic_losses", []) + [loss]
            else:
                self._eager_losses.append(loss)

    @property
    def losses(self) -> list:
        """Losses added by ``add_loss`` and weight regularizers, this layer's and its sublayers'."""
        out = []
        for layer in self._flat_layers():
            out.extend(layer._eager_losses)
            for fn in layer._callable_losses:
                v = fn()
                if v is not None:
                    out.append(v)
        return out

    def _clear_losses(self) -> None:
        for layer in self._flat_layers():
            if layer._eager_losses:
                layer._eager_losses = []

    def add_metric(self, value, name=None, aggregation=None, **kwargs):
        """Tracks ``value`` as a metric (a running mean unless already a Metric result).

        The metric shows in ``model.metrics`` and in ``fit``'s logs under ``name``.

        Args:
          value: A Tensor (averaged over the epoch by a ``tf.keras.metrics.Mean``).
          name: str, the metric's name (required).
          aggregation: Accepted for TF compatibility; values are always averaged.
          **kwargs: Accepted for TF compatibility; ignored.

        Raises:
          ValueError: ``name`` is None.
        """
        if isinstance(value, KerasTensor):
            return
        # cycle: metrics are Layers (base_metric imports this module).
        from torchflow._src.keras.metrics import Mean

        if name is None:
            raise ValueError("Please provide a name for your metric like "
                             "`self.add_metric(tf.reduce_sum(inputs), name='mean_activation')`")
        for m in self._metrics:
            if m.name == name:
                m.update_state(value)
                return
        m = Mean(name=name)
        m.update_state(value)
        self._metrics.append(m)

    @property
    def metrics(self) -> list:
        out = []
        for layer in self._flat_layers():
            out.extend(layer._metrics)
        return out

    # --- building -----------------------------------------------------------
    def build(self, input_shape) -> None:
        """Creates the layer's weights; ``__call__`` runs it once, before the first ``call``.

        Override it to create weights that depend on the input shape (with
        ``add_weight``); the base implementation only marks the layer built.

        Args:
          input_shape: A ``TensorShape`` (or a structure of them for several inputs).
        """
        if not hasattr(self, "_build_input_shape"):
            self._build_input_shape = input_shape
        self.built = True

    def _maybe_build(self, inputs) -> None:
        if self.built:
            return
        shapes = nest.map_structure(_shape_of, inputs)
        if self._input_spec is not None:
            input_spec_lib.assert_input_compatibility(self._input_spec, inputs, self.name)
        with name_scope(self._scope_name + "/" if not self._scope_name.endswith("/")
                        else self._scope_name):
            if getattr(type(self).build, "_is_default", False):
                # TF calls build only where the user overrode it: Model.build would run
                # the call on float placeholders (a model of string inputs cannot)
                Layer.build(self, shapes)
            elif isinstance(shapes, (list, tuple)) and len(shapes) == 1 and \
                    isinstance(shapes[0], TensorShape) and type(self).build is not Layer.build:
                self.build(shapes[0] if _build_takes_single(self) else shapes)
            else:
                self.build(shapes)
        self._build_input_shape = shapes
        self.built = True
        if getattr(self, "_is_model", False) and getattr(self, "_save_spec", None) is None:
            # TF's Model._set_save_spec: what model.save traces a subclassed model's call on.
            object.__setattr__(self, "_save_spec", _save_spec_of(inputs))  # not tracked
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def compute_output_shape(self, input_shape):
        """The layer's output shape for an input shape.

        The default infers it by running the layer on placeholder values; override it
        for layers that cannot run on those.

        Args:
          input_shape: A ``TensorShape`` (or a structure of them), None for unknown
            dimensions.

        Returns:
          A ``TensorShape`` (or a structure of them).
        """
        return functional_utils.infer_output_shape(self, input_shape)

    def compute_output_signature(self, input_signature):
        """The ``tf.TensorSpec`` (shape and dtype) of the output for an input signature.

        Args:
          input_signature: A ``tf.TensorSpec`` (or a structure of them).

        Returns:
          A ``tf.TensorSpec`` (or a structure of them) in the layer's compute dtype.
        """
        shape = self.compute_output_shape(nest.map_structure(lambda s: s.shape, input_signature))
        return nest.map_structure(lambda s: TensorSpec(s, self.compute_dtype), shape)

    def compute_mask(self, inputs, mask=None):
        """The output mask: the input mask if the layer supports masking, else None.

        Args:
          inputs: The layer's input tensors.
          mask: None or the input mask (a bool tensor, or a structure of them).

        Returns:
          The output mask, or None.

        Raises:
          TypeError: If a mask is passed to a layer that does not support masking.
        """
        if not self.supports_masking:
            if any(m is not None for m in nest.flatten(mask)):
                raise TypeError(f"Layer {self.name} does not support masking, but was passed "
                                f"an input_mask: {mask}")
            return None
        return mask

    # --- calling ------------------------------------------------------------
    def call(self, inputs, *args, **kwargs):
        """The layer's computation; subclasses override it (the base returns ``inputs``).

        ``__call__`` builds the layer and then calls it; ``call`` may take ``training``
        and ``mask`` keyword arguments, which Keras passes when ``call`` declares them.

        Args:
          inputs: The input tensor(s).
          *args: Further positional arguments of the subclass.
          **kwargs: Further keyword arguments (``training``, ``mask``, ...).

        Returns:
          The output tensor(s).
        """
        return inputs

    def __call__(self, *args, **kwargs):
        """Calls the layer on inputs: builds it on first use, then runs ``call``.

        On the first call the layer is built (``build(input_shape)`` creates its
        weights); each call checks the inputs against ``input_spec``, casts
        floating inputs to the layer's compute dtype (mixed precision), passes
        ``training`` and ``mask`` to ``call`` when it takes them, adds activity
        regularization to ``losses`` and attaches the output mask. On
        ``tf.keras.Input`` tensors it records the call in a Functional graph
        instead of computing values.

        Args:
          *args: Positional arguments of ``call``; the first is the inputs: a
            tensor, an array, or a (nested) list/tuple/dict of them.
          **kwargs: Keyword arguments of ``call``, notably ``training`` (a bool:
            training or inference behaviour, e.g. for Dropout and
            BatchNormalization; inherited from an outer layer's call when not
            given) and ``mask`` (a boolean tensor of valid timesteps).

        Returns:
          The output of ``call``: tensors (or KerasTensors when called on
          ``tf.keras.Input`` values).

        Raises:
          ValueError: If the inputs do not match the layer's ``input_spec``
            (rank, shape or dtype), or ``call`` needs arguments not given.
          RuntimeError: If the subclass's ``__init__`` did not call
            ``super().__init__()``.
        """
        if len(args) == 1 and type(args[0]) is Tensor:
            # The common eager call: one Tensor and plain keyword flags (training=...).
            for v in kwargs.values():
                if type(v) not in _PLAIN_KWARG_TYPES:
                    break
            else:
                return self._eager_call(args[0], args, kwargs)
        if not args:
            spec = self._call_spec
            if spec.arg_names and spec.arg_names[0] != "self" and spec.arg_names[0] in kwargs:
                first = spec.arg_names[0]
            elif len(spec.arg_names) > 1 and spec.arg_names[1] in kwargs:
                first = spec.arg_names[1]
            else:
                raise ValueError("The first argument to `Layer.call` must always be passed.")
            args = (kwargs.pop(first),)
        inputs = args[0]
        if type(inputs) is not Tensor and isinstance(inputs, (np.ndarray, np.generic, float, int)):
            inputs = convert_to_tensor(inputs)
            args = (inputs,) + args[1:]
        elif isinstance(inputs, (list, tuple, dict)) and any(
                isinstance(x, np.ndarray) for x in nest.flatten(inputs)):
            inputs = nest.map_structure(
                lambda x: convert_to_tensor(x) if isinstance(x, np.ndarray) else x, inputs)
            args = (inputs,) + args[1:]
        if _has_symbolic(args, kwargs):
            return functional_utils.symbolic_call(self, args, kwargs)
        return self._eager_call(inputs, args, kwargs)

    def _eager_call(self, inputs, args, kwargs):  # noqa: C901 (one flat dispatch on the hot path)
        st = _state()
        spec = self._call_spec
        outer = st.keras_call_context
        if outer is None:
            self._clear_losses()
        if not self.built:
            self._maybe_build(inputs)
        ispec = self._input_spec
        if ispec is not None:
            self._check_input_spec(ispec, inputs)
        cd = self._compute_dtype_obj
        if self._autocast and cd is not None:
            if type(inputs) is Tensor:
                if inputs._dtype._kind == "f" and inputs._dtype is not cd:
                    mask = getattr(inputs, "_keras_mask", None)
                    inputs = cast(inputs, cd)
                    if mask is not None:
                        inputs._keras_mask = mask
                    args = (inputs,) + args[1:]
            elif isinstance(inputs, (list, tuple, dict)):
                inputs = nest.map_structure(functools.partial(_cast_keep_mask, cd), inputs)
                args = (inputs,) + args[1:]
        # training: explicit > outer call's > learning phase
        training = kwargs.get("training", None)
        if spec.training_index is not None and len(args) > spec.training_index - 1 and \
                spec.training_index - 1 > 0:
            training = args[spec.training_index - 1]
        if training is None:
            if outer is not None:
                training = outer.training
            elif context.GLOBAL.keras_learning_phase is not None:
                training = bool(context.GLOBAL.keras_learning_phase)
            if spec.accepts_training and training is not None and \
                    kwargs.get("training") is None and not (spec.training_index is not None and
                                                            len(args) > spec.training_index - 1):
                if spec.training_index is not None or spec.accepts_kwargs:
                    kwargs["training"] = training
        elif hasattr(training, "numpy"):
            training = bool(training)
            if "training" in kwargs:
                kwargs["training"] = training
        if not spec.accepts_training:
            kwargs.pop("training", None)
        # mask from the inputs
        if spec.accepts_mask and "mask" not in kwargs and not (
                spec.mask_index is not None and len(args) > spec.mask_index - 1):
            mask = _collect_mask(inputs)
            if mask is not None:
                kwargs["mask"] = mask
        st.keras_call_context = CallContext(training, 0 if outer is None else outer.depth + 1)
        old_ac = st.keras_autocast_dtype
        st.keras_autocast_dtype = cd if self._dtype_policy.should_cast_variables else None
        try:
            outputs = self.call(*args, **kwargs)
        finally:
            st.keras_call_context = outer
            st.keras_autocast_dtype = old_ac
        if self._activity_regularizer is not None:
            for o in nest.flatten(outputs):
                self._eager_losses.append(
                    self._activity_regularizer(o) / cast(_batch_size(o), o.dtype))
        if self.supports_masking or type(self).compute_mask is not Layer.compute_mask:
            out_mask = self.compute_mask(inputs, kwargs.get("mask", _collect_mask(inputs)))
            if out_mask is not None:
                _set_mask(outputs, out_mask)
        return outputs

    def _check_input_spec(self, ispec, inputs) -> None:
        if type(inputs) is Tensor and type(ispec) is input_spec_lib.InputSpec:
            # One tensor against one spec: the answer depends only on the spec, the
            # dtype and the shape, so the last one that passed is remembered.
            dims = inputs.shape.as_list()
            seen = self.__dict__.get("_spec_seen")
            if seen is not None and seen[0] is ispec and seen[1] is inputs._dtype and \
                    seen[2] == dims:
                return
            input_spec_lib.assert_input_compatibility(ispec, inputs, self.name)
            object.__setattr__(self, "_spec_seen", (ispec, inputs._dtype, dims))
            return
        input_spec_lib.assert_input_compatibility(ispec, inputs, self.name)

    # --- config -------------------------------------------------------------
    def get_config(self) -> dict:
        """The layer's constructor arguments, as a JSON-serializable dict.

        ``from_config(get_config())`` must rebuild an equivalent layer (without
        its weights); saving a model to HDF5, ``model.get_config()``/``to_json()``
        and ``clone_model`` use it. The base version returns ``name``,
        ``trainable``, ``dtype`` (and ``batch_input_shape`` when set); a subclass
        whose ``__init__`` takes other arguments must override it.

        Returns:
          A dict of the layer's configuration.

        Raises:
          NotImplementedError: If the subclass's ``__init__`` takes arguments
            and it does not override ``get_config`` (as TF 2.4).
        """
        config = {"name": self.name, "trainable": self.trainable}
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        p = self._dtype_policy
        if p.name in ("mixed_float16", "mixed_bfloat16"):
            config["dtype"] = {"class_name": "Policy", "config": {"name": p.name}}
        else:
            config["dtype"] = p.name
        if getattr(self, "dynamic", False):
            config["dynamic"] = True
        if type(self).get_config is Layer.get_config:
            # TF 2.4: arguments of __init__ that the base config does not hold mean
            # the config cannot rebuild the layer. (TF 2.21 no longer raises here.)
            args = inspect.getfullargspec(type(self).__init__).args[1:]
            if "dynamic" in args:
                args.remove("dynamic")
            if [a for a in args if a not in config]:
                raise NotImplementedError(f"Layer {type(self).__name__} has arguments in "
                                          f"`__init__` and therefore must override "
                                          f"`get_config`.")
        return config

    @classmethod
    def from_config(cls, config):
        """Creates a layer from ``get_config()``'s output: ``cls(**config)``.

        Args:
          config: The dict ``get_config`` returned.

        Returns:
          A new layer instance (without weights).
        """
        return cls(**config)

    # --- functional-API bookkeeping -------------------------------------------
    def _get_node_attribute(self, node_index, attr):
        if not self._inbound_nodes:
            raise RuntimeError(f"The layer {self.name} has never been called and thus has no "
                               f"defined {attr}.")
        return getattr(self._inbound_nodes[node_index], attr)

    @property
    def input(self):
        return self._get_node_attribute(0, "input_tensors")

    @property
    def output(self):
        return self._get_node_attribute(0, "output_tensors")

    @property
    def input_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape.as_list()), self.input)

    @property
    def output_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape.as_list()), self.output)

    def get_input_at(self, node_index):
        """The input tensor(s) of the layer's ``node_index``-th call in a Functional graph.

        Args:
          node_index: int, the index of the call (0 is the first).

        Returns:
          A KerasTensor (or a list of them).

        Raises:
          RuntimeError: the layer has never been called.
        """
        return self._get_node_attribute(node_index, "input_tensors")

    def get_output_at(self, node_index):
        """The output tensor(s) of the layer's ``node_index``-th call in a Functional graph.

        Args:
          node_index: int, the index of the call (0 is the first).

        Returns:
          A KerasTensor (or a list of them).

        Raises:
          RuntimeError: the layer has never been called.
        """
        return self._get_node_attribute(node_index, "output_tensors")

    @property
    def inbound_nodes(self):
        return self._inbound_nodes

    @property
    def outbound_nodes(self):
        return self._outbound_nodes

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _weight_short_name(w) -> str:
    n = w.name
    n = n[:-2] if n.endswith(":0") else n
    return n.rsplit("/", 1)[-1]


@functools.lru_cache(maxsize=None)
def _call_spec_for(cls):
    return _CallSpec(cls.call)


def _build_takes_single(layer) -> bool:
    return True


def _shape_of(x):
    if x is None:
        return None
    s = getattr(x, "shape", None)
    if s is None:
        s = convert_to_tensor(x).shape
    return TensorShape(s)


def _cast_keep_mask(cd, x):
    if _is_float(x) and x._dtype is not cd:
        mask = getattr(x, "_keras_mask", None)
        x = cast(x, cd)
        if mask is not None:
            x._keras_mask = mask
    return x


def _collect_mask(inputs):
    if type(inputs) is Tensor:
        return getattr(inputs, "_keras_mask", None)
    if isinstance(inputs, (list, tuple)):
        masks = [getattr(x, "_keras_mask", None) if isinstance(x, Tensor) else None
                 for x in inputs]
        return None if all(m is None for m in masks) else masks
    return None


def _set_mask(outputs, mask):
    if isinstance(outputs, Tensor):
        outputs._keras_mask = mask
    elif isinstance(outputs, (list, tuple)) and isinstance(mask, (list, tuple)):
        for o, m in zip(outputs, mask):
            if isinstance(o, Tensor) and m is not None:
                o._keras_mask = m


def _batch_size(o):
    # The run-time batch (TF's array_ops.shape(output)[0]), so a SavedModel takes any.
    return shape(o)[0] if o.shape.rank else 1


def _has_symbolic(args, kwargs) -> bool:
    for a in args:
        if isinstance(a, KerasTensor):
            return True
        if isinstance(a, (list, tuple, dict)) and any(
                isinstance(x, KerasTensor) for x in nest.flatten(a)):
            return True
    for a in kwargs.values():
        if isinstance(a, KerasTensor):
            return True
        if isinstance(a, (list, tuple, dict)) and any(
                isinstance(x, KerasTensor) for x in nest.flatten(a)):
            return True
    return False
