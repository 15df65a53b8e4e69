"""``tf.keras.layers.RNN`` (a cell applied over time) and ``StackedRNNCells``.

The step loop follows Keras' backend ``rnn``: at a masked step the states keep
their previous values and the output repeats the previous output (zeros with
``zero_output_for_mask``, which ``Bidirectional`` sets for sequences).
Subclasses (LSTM, GRU) may provide ``_fused_call`` to run the whole sequence in
one kernel when TF 2.4's cuDNN conditions hold.
"""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import executing_eagerly
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.variables import Variable
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.functional_utils import in_symbolic_pass
from torchflow._src.keras.engine.serialization import deserialize_layer, serialize_layer
from torchflow._src.keras.layers.rnn.cells import _Cell, _zeros_state
from torchflow._src.ops import rnn_ops
from torchflow._src.ops.array_ops import stack, unstack
from torchflow._src.ops.creation_ops import cast, zeros, zeros_like
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor
from torchflow._src.ops.shape_ops import sequence_mask
from torchflow._src.ops.shape_ops import shape as _shape
from torchflow._src.util import nest
from torchflow._src.util.api import public


def _flat_sizes(state_size):
    if isinstance(state_size, (list, tuple)):
        out = []
        for s in state_size:
            out.extend(_flat_sizes(s))
        return out
    return [state_size]


@public("torchflow.keras.layers")
class StackedRNNCells(Layer):
    """Wraps a list of cells into one cell whose state is all their states.

    Args:
      cells: List of RNN cells.
    """

    def __init__(self, cells, **kwargs):
        for cell in cells:
            if not hasattr(cell, "call"):
                raise ValueError(f"All cells must have a `call` method. Received cells: {cells}")
            if not hasattr(cell, "state_size"):
                raise ValueError(f"All cells must have a `state_size` attribute. Received "
                                 f"cells: {cells}")
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self):
        return tuple(c.state_size for c in self.cells)

    @property
    def output_size(self):
        last = self.cells[-1]
        return getattr(last, "output_size", _flat_sizes(last.state_size)[0])

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        out = []
        for c in self.cells:
            if hasattr(c, "get_initial_state"):
                out.append(c.get_initial_state(inputs=inputs, batch_size=batch_size,
                                               dtype=dtype))
            else:
                out.append(_zeros_state(c.state_size, batch_size, dtype))
        return tuple(out)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                nest_scope(self, cell)
                cell.build(shape)
                cell.built = True
            out = getattr(cell, "output_size", _flat_sizes(cell.state_size)[0])
            shape = TensorShape([shape[0]] + _flat_sizes([out])[:1] if not isinstance(
                out, TensorShape) else [shape[0]] + out.as_list())
        self.built = True

    def call(self, inputs, states, training=None):
        flat = nest.flatten(states)
        new_states = []
        pos = 0
        for cell in self.cells:
            n = len(_flat_sizes(cell.state_size))
            s = flat[pos:pos + n]
            pos += n
            inputs, ns = _cell_step(cell, inputs, s, training)
            new_states.append(nest.flatten(ns))
        return inputs, [s for group in new_states for s in group]

    def get_config(self):
        config = super().get_config()
        config["cells"] = [serialize_layer(c) for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [deserialize_layer(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)


def nest_scope(parent, child):
    """Names ``child``'s weights under ``parent``'s scope (``lstm/lstm_cell/kernel:0``),
    as tf.keras does for cells and wrapped layers."""
    child._scope_name = parent._scope_name.rstrip("/") + "/" + child.name


def _is_nested_input(inputs) -> bool:
    """A tuple of two or more tensors or shapes: TF 2.4's RNN reads it as one nested
    input, where a list means ``[inputs, *initial_states]``."""
    return (type(inputs) is tuple and len(inputs) > 1
            and not isinstance(inputs[0], (int, type(None))))


def _cell_step(cell, x, states, training):
    spec = getattr(cell, "_call_spec", None)
    if spec is not None and spec.accepts_training:
        return cell.call(x, states, training=training)
    return cell.call(x, states)


@public("torchflow.keras.layers")
class RNN(Layer):
    """Applies an RNN cell over the time axis.

    Args:
      cell: A cell (layer with ``call(inputs, states)`` and ``state_size``) or a list
        of cells (stacked).
      return_sequences: Return every step's output, not only the last.
      return_state: Also return the final states.
      go_backwards: Process the sequence backwards (outputs stay reversed).
      stateful: Keep the final states of a batch as the initial states of the next.
      unroll: Accepted for compatibility (the loop is always a Python loop).
      time_major: Inputs are ``[time, batch, ...]``.

    >>> import torchflow as tf
    >>> rnn = tf.keras.layers.RNN(tf.keras.layers.LSTMCell(4), return_sequences=True)
    >>> rnn(tf.ones([2, 3, 5])).shape
    TensorShape([2, 3, 4])
    """

    # tf.keras names cell weights `rnn/lstm_cell/kernel`, but ConvLSTM2D's `conv_lstm2d/kernel`.
    _cell_in_own_scope = True

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call"):
            raise ValueError(f"`cell` should have a `call` method. The RNN was passed: {cell}")
        if not hasattr(cell, "state_size"):
            raise ValueError("The RNN cell should have an attribute `state_size` (tuple of "
                             "integers, one integer per RNN state).")
        self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        kwargs.pop("input_length", None)
        input_dim = kwargs.pop("input_dim", None)
        if input_dim is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (None, input_dim)
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major
        self.supports_masking = True
        self.input_spec = None
        self.__dict__["_states"] = None
        self._num_constants = 0

    # --- states -----------------------------------------------------------
    @property
    def states(self):
        s = self.__dict__.get("_states")
        if s is None:
            return [None] * len(_flat_sizes(self.cell.state_size))
        return s

    def reset_states(self, states=None):
        """Resets the state variables of a stateful RNN (to zeros or to ``states``).

        Raises:
          AttributeError: If the layer is not stateful.
          ValueError: If ``states`` do not match the state sizes.
        """
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        sizes = _flat_sizes(self.cell.state_size)
        cur = self.__dict__.get("_states")
        if states is None:
            if cur is not None:
                for v in cur:
                    v.assign(zeros_like(v))
            return
        states = nest.flatten(states)
        if len(states) != len(sizes):
            raise ValueError(f"Layer {self.name} expects {len(sizes)} states, but it received "
                             f"{len(states)} state values. Input received: {states}")
        if cur is None:
            self.__dict__["_states"] = [
                Variable(cast(s, self.dtype) if hasattr(s, "dtype") else
                         cast(_to_tensor(s), self.dtype), trainable=False) for s in states]
        else:
            for v, s in zip(cur, states):
                v.assign(cast(_to_tensor(s), v.dtype))

    def get_initial_state(self, inputs):
        """Zero initial states for ``inputs`` (``[batch, time, ...]``)."""
        axis = 1 if self.time_major else 0
        batch = inputs.shape[axis]
        dtype = inputs.dtype
        zeros = _zero_states(self.cell, inputs, axis, dtype)
        if zeros is not None:  # the batch read at run time: a graph for any batch size
            return zeros
        if hasattr(self.cell, "get_initial_state"):
            init = self.cell.get_initial_state(inputs=None, batch_size=batch, dtype=dtype)
        else:
            init = _zeros_state(self.cell.state_size, batch, dtype)
        return nest.flatten(init)

    # --- build --------------------------------------------------------------
    def build(self, input_shape):
        if _is_nested_input(input_shape):
            self._build_nested(input_shape)
            return
        if isinstance(input_shape, (list, tuple)) and input_shape and \
                not isinstance(input_shape[0], (int, type(None))):
            input_shape = input_shape[0]
        shape = TensorShape(input_shape)
        if shape.rank is not None and shape.rank < 3:
            raise ValueError(f"Input {shape} should have at least 3 dimensions "
                             f"(batch, time, features).")
        dims = shape.as_list()
        if self.stateful and dims and dims[1 if self.time_major else 0] is None:
            raise ValueError(_STATEFUL_BATCH)
        step = [dims[1]] + dims[2:] if self.time_major else [dims[0]] + dims[2:]
        self._build_cell(TensorShape(step))
        self.built = True

    def _build_cell(self, step_shape):
        """Builds the cell (in its scope) for the shape(s) of one step's input."""
        if isinstance(self.cell, Layer) and not self.cell.built:
            if self._cell_in_own_scope:
                nest_scope(self, self.cell)
            else:
                self.cell._scope_name = self._scope_name
            self.cell.build(step_shape)
            self.cell.built = True

    def _build_nested(self, input_shapes):
        """A tuple of inputs is one nested input (TF 2.4; a list is [inputs, *states]):
        the cell is built with the structure of per-step shapes."""
        steps = []
        for shape in input_shapes:
            dims = TensorShape(shape).as_list()
            if len(dims) < 3:
                raise ValueError(f"Input {TensorShape(shape)} should have at least 3 dimensions "
                                 f"(batch, time, features).")
            steps.append(TensorShape([dims[1]] + dims[2:] if self.time_major
                                     else [dims[0]] + dims[2:]))
        self._build_cell(tuple(steps))
        self.built = True

    # --- call ---------------------------------------------------------------
    def _ragged_call(self, inputs, training, initial_state, constants):
        """A RaggedTensor input: padded, and masked by its row lengths, as TF 2.4."""
        if constants is not None:
            raise NotImplementedError("RNN(constants=...) is not supported by torchflow.")
        lengths = inputs.row_lengths()
        dense = inputs.to_tensor()
        # maxlen is max(lengths) (the padded width), not the static width a trace sees.
        out = self.call(dense, mask=sequence_mask(lengths), training=training,
                        initial_state=initial_state)
        if not self.return_sequences:
            return out
        if self.return_state:
            return [RaggedTensor.from_tensor(out[0], lengths=lengths)] + list(out[1:])
        return RaggedTensor.from_tensor(out, lengths=lengths)

    def call(self, inputs, mask=None, training=None, initial_state=None, constants=None):
        if constants is not None or isinstance(inputs, RaggedTensor):
            return self._ragged_call(inputs, training, initial_state, constants)
        if _is_nested_input(inputs):
            return self._nested_call(inputs, training, initial_state)
        if isinstance(inputs, (list, tuple)):
            if initial_state is None and len(inputs) > 1:
                initial_state = list(inputs[1:])
            inputs = inputs[0]
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if initial_state is not None:
            initial_state = [_to_tensor(s) for s in nest.flatten(initial_state)]
        if self.stateful:
            if initial_state is not None:
                states = initial_state
            else:
                if self.__dict__.get("_states") is None:
                    self.__dict__["_states"] = [
                        Variable(s, trainable=False) for s in self.get_initial_state(inputs)]
                states = [v.value() if hasattr(v, "value") else v
                          for v in self.__dict__["_states"]]
                states = [cast(s, inputs.dtype) if s.dtype != inputs.dtype else s
                          for s in states]
        elif initial_state is not None:
            states = [cast(s, inputs.dtype) if s.dtype != inputs.dtype else s
                      for s in nest.flatten(initial_state)]
        else:
            states = self.get_initial_state(inputs)
        n = len(_flat_sizes(self.cell.state_size))
        if len(states) != n:
            raise ValueError(f"An `initial_state` was passed that is not compatible with "
                             f"`cell.state_size`. Received `state_spec`={len(states)} states; "
                             f"however `cell.state_size` is {self.cell.state_size}")
        _check_state_batch(inputs, states, 1 if self.time_major else 0)
        for c in _all_cells(self.cell):
            if hasattr(c, "reset_dropout_mask"):
                c.reset_dropout_mask()
                c.reset_recurrent_dropout_mask()
        fused = self._fused_call(inputs, states, training, mask)
        if fused is not None:
            outputs, last_output, new_states = fused
        else:
            outputs, last_output, new_states = self._step_loop(inputs, states, mask, training)
        if self.stateful and not in_symbolic_pass():
            for v, s in zip(self.__dict__["_states"], new_states):
                v.assign(cast(s, v.dtype) if s.dtype != v.dtype else s)
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            return [output] + list(new_states)
        return output

    def _fused_call(self, inputs, states, training, mask=None):
        return None

    def _nested_call(self, inputs, training, initial_state):
        """The step loop over a tuple of inputs: each step gives the cell the tuple of
        the inputs' slices; outputs keep the cell's output structure."""
        if self.stateful or self.go_backwards:
            raise NotImplementedError("torchflow's RNN takes a nested (tuple) input only "
                                      "without stateful=True and go_backwards=True.")
        first = inputs[0]
        if initial_state is not None:
            states = [_to_tensor(st) for st in nest.flatten(initial_state)]
        else:
            states = self.get_initial_state(first)
        axis = 0 if self.time_major else 1
        per_input = [unstack(x, axis=axis) for x in inputs]
        outs = []
        for xs in zip(*per_input):
            out, new_states = _cell_step(self.cell, tuple(xs), states, training)
            states = nest.flatten(new_states)
            outs.append(out)
        last = outs[-1]
        output = (nest.map_structure(lambda *ts: stack(list(ts), axis=axis), *outs)
                  if self.return_sequences else last)
        if self.return_state:
            return [output] + list(states)
        return output

    def _step_loop(self, inputs, states, mask, training):
        cell = self.cell

        def step(x, s):
            return _cell_step(cell, x, s, training)

        if training and any(getattr(c, "dropout", 0) or getattr(c, "recurrent_dropout", 0)
                            for c in _all_cells(cell) if hasattr(c, "reset_dropout_mask")):
            # As TF's backend.rnn: a step at time zero outside the loop draws the cells'
            # dropout masks (one per sequence, of the run-time batch), which every step of
            # the loop reuses (a graph's While reads them as loop inputs).
            step(inputs[0] if self.time_major else inputs[:, 0], states)
        return rnn_ops.cell_loop(step, inputs, states, mask, self.time_major, self.go_backwards,
                                 self.zero_output_for_mask, self.return_sequences)

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            return [out] + [None] * len(_flat_sizes(self.cell.state_size))
        return out

    def _base_config(self):
        config = Layer.get_config(self)
        config.update({
            "return_sequences": self.return_sequences, "return_state": self.return_state,
            "go_backwards": self.go_backwards, "stateful": self.stateful,
            "unroll": self.unroll, "time_major": self.time_major,
        })
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = True
        return config

    def get_config(self):
        config = self._base_config()
        config["cell"] = serialize_layer(self.cell)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = deserialize_layer(config.pop("cell"), custom_objects)
        return cls(cell, **config)


_STATEFUL_BATCH = (  # TF 2.4's message
    "If a RNN is stateful, it needs to know its batch size. Specify the batch size of your "
    "input tensors: \n- If using a Sequential model, specify the batch size by passing a "
    "`batch_input_shape` argument to your first layer.\n- If using the functional API, "
    "specify the batch size by passing a `batch_shape` argument to your Input layer.")


def _check_state_batch(inputs, states, axis: int) -> None:
    """TF's error for states whose batch is not the inputs' (the loop's shape check)."""
    batch = inputs.shape[axis]
    for st in states:
        dims = st.shape.as_list() if st.shape.rank else None
        if batch is not None and dims and dims[0] is not None and dims[0] != batch:
            raise ValueError(f"Tensor's shape {tuple([batch] + dims[1:])} is not compatible "
                             f"with supplied shape {tuple(dims)}.")


def _zero_states(cell, inputs, axis, dtype):
    """The zero initial states of built-in cells (also stacked), or None when a cell
    defines its own ``get_initial_state``."""
    if isinstance(cell, StackedRNNCells):
        parts = [_zero_states(c, inputs, axis, dtype) for c in cell.cells]
        return None if any(p is None for p in parts) else [s for p in parts for s in p]
    own = getattr(type(cell), "get_initial_state", None)
    if own is not None and own is not _Cell.get_initial_state:
        return None
    sizes = _flat_sizes(cell.state_size)
    if not all(isinstance(s, int) for s in sizes):
        return None
    if not executing_eagerly():  # a trace's batch is its call's: read it at run time
        batch = _shape(inputs)[axis]
        return [zeros(stack([batch, s]), dtype=dtype) for s in sizes]
    return [rnn_ops.zero_state(inputs, s, axis, dtype) for s in sizes]


def _all_cells(cell):
    if isinstance(cell, StackedRNNCells):
        return cell.cells
    return [cell]


def _to_tensor(x):
    return convert_to_tensor(x)

