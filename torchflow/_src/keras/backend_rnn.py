"""``tf.keras.backend.rnn``: iterates a step function over the time axis."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.ops import array_ops, creation_ops, gather_ops
from torchflow._src.util import nest
from torchflow._src.util.api import public

_NS = "torchflow.keras.backend"


def _swap_batch_time(t):
    perm = list(range(t.shape.rank))
    perm[0], perm[1] = 1, 0
    return array_ops.transpose(t, perm)


def _expand_mask(mask_t, like, fixed_dim=1):
    """``mask_t`` broadcast (tiled) to ``like``'s shape from axis ``fixed_dim`` on."""
    for _ in range(like.shape.rank - mask_t.shape.rank):
        mask_t = array_ops.expand_dims(mask_t, -1)
    return array_ops.tile(mask_t, [1] * fixed_dim + like.shape.as_list()[fixed_dim:])


def _masked(mask_t, new, old):
    return [gather_ops.where(_expand_mask(mask_t, n), n, o) for n, o in zip(new, old)]


@public(_NS)
def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None,
        unroll=False, input_length=None, time_major=False, zero_output_for_mask=False):
    """Iterates ``step_function`` over the time dimension of ``inputs``.

    Args:
      step_function: ``step_function(input_t, states) -> (output_t, new_states)``
        with ``input_t`` one time step ``(samples, ...)`` (nested like
        ``inputs``) and ``states`` the list of states (then ``constants``).
      inputs: A tensor (or nest of tensors) of rank >= 3,
        ``(samples, time, ...)`` (``(time, samples, ...)`` with ``time_major``).
      initial_states: The list of initial state tensors ``(samples, ...)``.
      go_backwards: Whether to iterate over the time steps in reverse order
        (the outputs are then in that reversed order).
      mask: An optional ``(samples, time)`` (or ``(samples, time, 1)``) boolean
        tensor: where it is False, the states keep their previous values and
        the output repeats the previous output (zeros at first).
      constants: Tensors passed to every step after the states.
      unroll: Whether to unroll the loop (the same computation here; TF
        requires a fixed number of time steps for it).
      input_length: Unused (kept for TF's signature).
      time_major: Whether ``inputs`` and ``mask`` are ``(time, samples, ...)``.
      zero_output_for_mask: Whether masked steps output zeros instead of the
        previous output.

    Returns:
      ``(last_output, outputs, new_states)``: the last step's output
      ``(samples, ...)``, all outputs ``(samples, time, ...)`` (time-major with
      ``time_major``), and the final states.

    Raises:
      ValueError: If an input has rank below 3, or ``unroll`` with an unknown
        number of time steps.

    >>> import torchflow as tf
    >>> step = lambda x, states: (x + states[0], [x + states[0]])
    >>> last, outputs, states = tf.keras.backend.rnn(
    ...     step, tf.ones((2, 3, 1)), [tf.zeros((2, 1))])
    >>> outputs[0, :, 0].numpy()
    array([1., 2., 3.], dtype=float32)
    """
    flat_inputs = [convert_to_tensor(t) for t in nest.flatten(inputs)]
    for t in flat_inputs:
        if t.shape.rank is None or t.shape.rank < 3:
            raise ValueError(f"Shape {t.shape} must have rank at least 3")
    if not time_major:
        flat_inputs = [_swap_batch_time(t) for t in flat_inputs]
    steps = flat_inputs[0].shape[0]
    if unroll and not steps:
        raise ValueError("Unrolling requires a fixed number of timesteps.")
    masks = None
    if mask is not None:
        mask = convert_to_tensor(mask)
        if mask.dtype is not dtypes.bool:
            mask = creation_ops.cast(mask, dtypes.bool)
        if mask.shape.rank == 2:
            mask = array_ops.expand_dims(mask, -1)
        if not time_major:
            mask = _swap_batch_time(mask)
        masks = array_ops.unstack(mask)
    per_input = [array_ops.unstack(t) for t in flat_inputs]
    order = list(range(steps))
    if go_backwards:
        order.reverse()
    constants = list(constants or [])
    states = list(initial_states)
    outputs = []
    for i in order:
        x_t = nest.pack_sequence_as(inputs, [steps_of[i] for steps_of in per_input])
        output, new_states = step_function(x_t, tuple(states) + tuple(constants))
        if masks is None:
            states = new_states
        else:
            prev = outputs[-1] if outputs else creation_ops.zeros_like(output)
            if zero_output_for_mask:
                prev = creation_ops.zeros_like(output)
            output = _masked(masks[i], [output], [prev])[0]
            flat_old = nest.flatten(states)
            states = nest.pack_sequence_as(
                states, _masked(masks[i], nest.flatten(new_states), flat_old))
        outputs.append(output)
    stacked = array_ops.stack(outputs)
    last_output = outputs[-1]
    if not time_major:
        stacked = _swap_batch_time(stacked)
    return last_output, stacked, states
