"""``tf.nn.RNNCellDropoutWrapper``, ``RNNCellResidualWrapper`` and
``RNNCellDeviceWrapper``: TF 2.4's Keras RNN cell wrappers (``rnn_cell_wrapper_v2``).

Each wraps a Keras RNN cell, has its ``state_size``/``output_size`` and runs it
inside ``tf.keras.layers.RNN``: dropout on the cell's inputs/states/outputs
(always applied, as in TF, not only in training), a residual connection
``inputs + outputs``, or the cell's ops under a device scope.
"""

from __future__ import annotations

import zlib

from torchflow._src.core import dtypes
from torchflow._src.core.device import device as device_scope
from torchflow._src.keras.engine.serialization import deserialize_layer, serialize_layer
from torchflow._src.keras.layers.rnn.base_rnn import _cell_step, nest_scope
from torchflow._src.keras.layers.rnn.cells import AbstractRNNCell
from torchflow._src.ops.math_ops import add, divide, multiply
from torchflow._src.ops.nn_ops import dropout
from torchflow._src.ops.random_ops import uniform
from torchflow._src.ops.unary_math_ops import floor
from torchflow._src.util import nest
from torchflow._src.util.api import public


class _RNNCellWrapper(AbstractRNNCell):
    """Holds ``self.cell`` and forwards sizes, building and initial states."""

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cell = cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def build(self, input_shape):
        nest_scope(self, self.cell)
        if not self.cell.built:
            self.cell.build(input_shape)
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return self.cell.get_initial_state(inputs=inputs, batch_size=batch_size, dtype=dtype)

    def call(self, inputs, states, training=None):
        return self._call_wrapped_cell(
            inputs, states, lambda x, s: _cell_step(self.cell, x, s, training))

    def _call_wrapped_cell(self, inputs, states, cell_call_fn):
        raise NotImplementedError

    def get_config(self):
        config = super().get_config()
        config["cell"] = serialize_layer(self.cell)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = deserialize_layer(config.pop("cell"), custom_objects)
        return cls(cell, **config)


def _check_prob(name, p):
    if isinstance(p, (int, float)) and not 0 < p <= 1:
        raise ValueError(f"Parameter {name} must be between 0 and 1: {p}")
    return p


@public("torchflow.nn")
class RNNCellDropoutWrapper(_RNNCellWrapper):
    """Applies dropout to a cell's inputs, states and outputs (keep probabilities).

    Args:
      cell: A Keras RNN cell.
      input_keep_prob: Keep probability of the inputs (1: no dropout).
      output_keep_prob: Keep probability of the outputs.
      state_keep_prob: Keep probability of the new states.
      variational_recurrent: Use the same dropout mask at every time step (needs
        ``dtype``, and ``input_size`` when ``input_keep_prob < 1``).
      input_size: The input depth (for variational input dropout).
      dtype: The dtype of the masks (variational only).
      seed: Optional seed.
      dropout_state_filter_visitor: ``fn(substate) -> bool``: which states dropout
        applies to (default: all).
      **kwargs: Layer arguments.

    Raises:
      ValueError: For a keep probability outside (0, 1], or missing ``dtype`` /
        ``input_size`` in variational mode.
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and \
                not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._filter = dropout_state_filter_visitor or (lambda s: True)
        self._input_keep_prob = _check_prob("input_keep_prob", input_keep_prob)
        self._output_keep_prob = _check_prob("output_keep_prob", output_keep_prob)
        self._state_keep_prob = _check_prob("state_keep_prob", state_keep_prob)
        self._variational = bool(variational_recurrent)
        self._input_size = input_size
        self._seed = seed
        self._noise = {}
        if self._variational:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            d = dtypes.as_dtype(dtype)

            def noise(sizes, salt):
                return [uniform([1, int(s)], dtype=d, seed=self._gen_seed(salt, i))
                        for i, s in enumerate(nest.flatten(sizes))]

            if input_keep_prob < 1:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob "
                                     "< 1.0 or is unknown, input_size must be provided")
                self._noise["input"] = noise(input_size, "input")
            self._noise["state"] = noise(cell.state_size, "state")
            self._noise["output"] = noise(cell.output_size, "output")

    def _gen_seed(self, salt, index):
        if self._seed is None:
            return None
        return (self._seed + zlib.crc32(f"{salt}_{index}".encode())) % (2 ** 31 - 1)

    def _dropout(self, values, salt, keep_prob, use=None):
        flat = nest.flatten(values)
        out = []
        for i, v in enumerate(flat):
            if use is not None and not use[i]:
                out.append(v)
            elif self._variational:
                mask = floor(add(keep_prob, self._noise[salt][i]))
                out.append(multiply(divide(v, keep_prob), mask))
            else:
                out.append(dropout(v, rate=1 - keep_prob, seed=self._gen_seed(salt, i)))
        return nest.pack_sequence_as(values, out)

    def _call_wrapped_cell(self, inputs, states, cell_call_fn):
        def active(p):
            return not isinstance(p, (int, float)) or p < 1

        if active(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_states = cell_call_fn(inputs, states)
        if active(self._state_keep_prob):
            use = [bool(self._filter(s)) for s in nest.flatten(new_states)]
            new_states = self._dropout(new_states, "state", self._state_keep_prob, use)
        if active(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_states

    def get_config(self):
        config = super().get_config()
        config.update({"input_keep_prob": self._input_keep_prob,
                       "output_keep_prob": self._output_keep_prob,
                       "state_keep_prob": self._state_keep_prob,
                       "variational_recurrent": self._variational,
                       "input_size": self._input_size, "seed": self._seed})
        return config


@public("torchflow.nn")
class RNNCellResidualWrapper(_RNNCellWrapper):
    """Adds the cell's inputs to its outputs: ``residual_fn(inputs, outputs)``.

    Args:
      cell: A Keras RNN cell whose output size equals its input size.
      residual_fn: ``fn(inputs, outputs)``; default ``inputs + outputs`` per
        structure element.
      **kwargs: Layer arguments.

    Raises:
      ValueError: At call time, if input and output shapes differ (default fn).
    """

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, states, cell_call_fn):
        outputs, new_states = cell_call_fn(inputs, states)

        def default(inp, out):
            nest.assert_same_structure(inp, out)

            def one(i, o):
                if tuple(i.shape) != tuple(o.shape):
                    raise ValueError(f"Shapes {tuple(i.shape)} and {tuple(o.shape)} are "
                                     f"incompatible")
                return add(i, o)

            return nest.map_structure(one, inp, out)

        fn = self._residual_fn or default
        return fn(inputs, outputs), new_states

    def get_config(self):
        config = super().get_config()
        if self._residual_fn is not None:
            raise NotImplementedError("RNNCellResidualWrapper.get_config: a custom "
                                      "residual_fn cannot be serialized here.")
        return config


@public("torchflow.nn")
class RNNCellDeviceWrapper(_RNNCellWrapper):
    """Runs the cell's ops on ``device``.

    Args:
      cell: A Keras RNN cell.
      device: A device string such as ``"/cpu:0"``.
      **kwargs: Layer arguments.
    """

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        with device_scope(self._device):
            return super().get_initial_state(inputs, batch_size, dtype)

    def _call_wrapped_cell(self, inputs, states, cell_call_fn):
        with device_scope(self._device):
            return cell_call_fn(inputs, states)

    def get_config(self):
        config = super().get_config()
        config["device"] = self._device
        return config
