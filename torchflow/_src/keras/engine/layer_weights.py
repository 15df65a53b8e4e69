"""The weights and trainable state of ``tf.keras.layers.Layer``: ``add_weight``,
the ``trainable``/``non_trainable`` weight lists (cached per layer-tree
generation), ``get_weights``/``set_weights`` and ``count_params``. Mixed into
``Layer``, which holds the tracking lists these read (``_trainable_weights``,
``_non_trainable_weights``, ``_self_tracked_layers``).
"""

from __future__ import annotations

import functools

import numpy as np

from torchflow._src.core import dtypes, tracking
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.variable_scope import name_scope
from torchflow._src.core.variables import Variable, VariableAggregation, VariableSynchronization
from torchflow._src.distribute.ps_values import ShardedVariable
from torchflow._src.keras import backend, constraints, regularizers
from torchflow._src.keras import initializers as init_lib
from torchflow._src.keras.engine.tree_generation import bump as _bump
from torchflow._src.keras.engine.tree_generation import generation as _generation
from torchflow._src.keras.mixed_precision import autocast_variable as acv


class LayerWeightsMixin:
    """``Layer``'s weight creation, weight lists and trainable flag."""

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        for layer in self._flatten_layers():
            layer._trainable = bool(value)
        _bump()

    @property
    def trainable_weights(self) -> list:
        cache = self._tw_cache
        if cache is not None and cache[0] == _generation[0] and cache[1] is self:
            return list(cache[2])
        if not self._trainable:
            return []
        out = list(self._trainable_weights)
        for layer in self._self_tracked_layers:
            out.extend(layer.trainable_weights)
        out = dedup(out)
        # Only a tree of layers that all use this property can be cached: a
        # subclass computing its own list may change it at any time.
        if all(type(l).trainable_weights is _TRAINABLE_WEIGHTS for l in self._flat_layers()):
            object.__setattr__(self, "_tw_cache", (_generation[0], self, out))
        return list(out)

    @property
    def non_trainable_weights(self) -> list:
        if self._trainable:
            out = list(self._non_trainable_weights)
            for layer in self._self_tracked_layers:
                out.extend(layer.non_trainable_weights)
        else:
            out = list(self._trainable_weights) + list(self._non_trainable_weights)
            for layer in self._self_tracked_layers:
                out.extend(layer.weights)
        return dedup(out)

    @property
    def weights(self) -> list:
        return dedup(self.trainable_weights + self.non_trainable_weights)

    @property
    def variables(self):
        return self.weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays, in ``weights`` order."""
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights) -> None:
        """Sets the weights from NumPy arrays in ``weights`` order.

        Raises:
          ValueError: If the count or a shape does not match.
        """
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on layer \"{self.name}\" with a weight list "
                f"of length {len(weights)}, but the layer was expecting {len(params)} weights. "
                f"Provided weights: {str(weights)[:50]}...")
        for p, w in zip(params, weights):
            w = np.asarray(w)
            if not p.shape.is_compatible_with(w.shape):
                raise ValueError(f"Layer {self.name} weight shape {p.shape} is not compatible "
                                 f"with provided weight shape {w.shape}")
            p.assign(w.astype(p.dtype.as_numpy_dtype) if p.dtype.as_numpy_dtype else w)

    # --- weights ------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, partitioner=None, use_resource=None,
                   synchronization=VariableSynchronization.AUTO,
                   aggregation=VariableAggregation.NONE, **kwargs):
        """Creates a weight variable of this layer and tracks it.

        Args:
          name: The variable's name (scoped under the layer's name).
          shape: Its shape (default ``()``, a scalar).
          dtype: Its dtype (default: the layer's variable dtype, from its dtype
            policy, else ``floatx()``).
          initializer: How to fill it: an initializer object, its name or a
            callable ``(shape, dtype)``. Default ``glorot_uniform`` for floating
            dtypes, ``zeros`` for integers and booleans.
          regularizer: A regularizer (object, name or callable); its value on
            the weight is added to the layer's ``losses``.
          trainable: Whether the optimizer updates it (it is then listed in
            ``trainable_weights``); default True.
          constraint: A projection applied to the weight after each optimizer
            update (e.g. ``tf.keras.constraints.NonNeg()``).
          partitioner: TF 1 variable partitioning (accepted and unused).
          use_resource: TF 1 resource-variable switch (accepted; all variables
            are resource variables).
          synchronization: When a distributed variable's copies are
            synchronised (``tf.VariableSynchronization``); ``ON_READ`` requires
            ``trainable=False``.
          aggregation: How a distributed variable's copies are combined
            (``tf.VariableAggregation``).
          **kwargs: ``getter``, ``collections``, ``caching_device`` (accepted
            for TF's signature) and ``experimental_autocast`` (False keeps the
            variable out of mixed-precision auto-casting).

        Returns:
          The variable (an ``AutoCastVariable`` under a mixed precision policy).

        Raises:
          TypeError: For another keyword argument.
          ValueError: For a trainable variable with ``ON_READ`` synchronization,
            or a dtype with no default initializer and none given.
        """
        for k in kwargs:
            if k not in ("getter", "collections", "experimental_autocast", "caching_device"):
                raise TypeError(f"Unknown keyword argument: {k}")
        shape = () if shape is None else shape
        dtype = as_dtype(dtype or self.dtype or backend.floatx())
        if synchronization is VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError("Synchronization value can be set to VariableSynchronization."
                                 "ON_READ only for non-trainable variables. You have specified "
                                 "trainable=True and synchronization=VariableSynchronization."
                                 "ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
            if not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
                raise ValueError(f"An initializer for variable {name} of type {dtype.name} is "
                                 f"required for layer {self.name}")
        init = init_lib.get(initializer)
        shape_t = TensorShape(shape)
        if constraint is not None:
            constraint = constraints.get(constraint)
        with name_scope(self._scope_name + "/" if not self._scope_name.endswith("/")
                        else self._scope_name):
            var = Variable(lambda: init(shape_t.as_list(), dtype=dtype), dtype=dtype,
                           trainable=trainable, name=name, constraint=constraint,
                           synchronization=synchronization, aggregation=aggregation)
        if (kwargs.get("experimental_autocast", True) and dtype.is_floating
                and self._dtype_policy.should_cast_variables):
            var = acv.create_autocast_variable(var)
        if regularizer is not None:
            reg = regularizers.get(regularizer)
            self._callable_losses.append(functools.partial(_reg_loss, reg, var))
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if isinstance(var, ShardedVariable):
            # A ParameterServerStrategy partitioner's weight: listed as its shards (TF 2.4).
            weights.extend(var.variables)
        else:
            weights.append(var)
        if tracking._pending and name:
            tracking.notify(self, name, var)
        return var

    def count_params(self) -> int:
        """The number of scalars in the layer's weights.

        Raises:
          ValueError: If the layer is not built.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the "
                             f"layer isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        n = 0
        for w in self.weights:
            n += int(w.shape.num_elements() or 0)
        return n


_TRAINABLE_WEIGHTS = LayerWeightsMixin.trainable_weights


def as_dtype(d):
    return dtypes.as_dtype(d)


def dedup(items):
    """``items`` without repeats (by identity), in first-seen order."""
    seen = set()
    out = []
    for x in items:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


def _reg_loss(reg, var):
    return reg(var)
