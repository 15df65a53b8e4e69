"""``tf.custom_gradient``, ``tf.stop_gradient``, ``tf.recompute_grad``,
``tf.grad_pass_through`` on torch autograd.

``custom_gradient`` runs the forward function with autograd paused (recording
which variables it reads), then attaches the user's gradient function to the
outputs through one ``torch.autograd.Function`` whose inputs are the tensor
arguments and the variables read. Outside a recording tape it is a plain call.
"""

from __future__ import annotations

import functools
import inspect

import torch
import torch.utils.checkpoint

from torchflow._src.core import context, graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_state = context.thread_state()


class _VariableWatcher:
    """A pseudo-tape that records every variable read while it is installed."""

    def __init__(self):
        self._recording = True
        self._peers: list = []
        self.variables: dict[int, Variable] = {}

    def _on_variable_read(self, var: Variable) -> None:
        self.variables.setdefault(id(var), var)


def _make_attach(outs, backward):
    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            return tuple(o.detach() for o in outs)

        @staticmethod
        def backward(ctx, *dys):
            return tuple(backward(dys))

    return Fn


def _grad_to_torch(g, like: torch.Tensor):
    if g is None:
        return None
    if isinstance(g, Variable):
        g = g.value()
    if not isinstance(g, Tensor):
        g = to_tensor(g)
    t = g._t
    if t.dtype != like.dtype:
        t = t.to(like.dtype)
    if t.shape != like.shape:
        t = t.expand(like.shape) if t.numel() == 1 else t.reshape(like.shape)
    return t


@public("torchflow")
def custom_gradient(f=None):
    """Decorator to define a function with a custom gradient.

    ``f(*x)`` must return ``(y, grad_fn)``: ``grad_fn(*dy)`` returns the
    gradients with respect to the tensor arguments ``x`` (one per tensor, in
    order). If ``f`` reads variables, ``grad_fn(*dy, variables=None)`` must
    accept ``variables`` and return ``(input_grads, variable_grads)``.

    Args:
      f: The function.

    Returns:
      A function ``h(*x)`` returning ``y``, whose gradient is ``grad_fn``.

    Raises:
      TypeError: If ``f`` uses variables and ``grad_fn`` does not accept
        ``variables``.

    >>> import torchflow as tf
    >>> @tf.custom_gradient
    ... def clip_grad(x):
    ...     def grad(dy):
    ...         return tf.clip_by_value(dy, -1.0, 1.0)
    ...     return tf.identity(x), grad
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call_custom(f, args, kwargs)

    return decorated


# Traced functions call f again each time (its grad_fn is Python).
@graph_trace.host_op(dry=graph_trace.RUN)
def _call_custom(f, args, kwargs):
    s = _state
    if not s.recording:
        result, _ = f(*args, **kwargs)
        return result
    watcher = _VariableWatcher()
    s.tapes.append(watcher)
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        s.tapes.remove(watcher)
        torch.set_grad_enabled(prev)
    variables = list(watcher.variables.values())
    flat_args = [a for a in nest.flatten(args) if isinstance(a, (Tensor, Variable))]
    in_tensors = [a._leaf if isinstance(a, Variable) else a._t for a in flat_args]
    var_leaves = [v._leaf for v in variables if v._leaf.requires_grad]
    diff_vars = [v for v in variables if v._leaf.requires_grad]
    if variables:
        try:
            params = inspect.signature(grad_fn).parameters
            ok = "variables" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):
            ok = True
        if not ok:
            raise TypeError("If using @custom_gradient with a function that uses variables, "
                            "then grad_fn must accept a keyword argument 'variables'.")
    flat_res = nest.flatten(result)
    res_tensors = [r for r in flat_res if isinstance(r, Tensor)]
    if not res_tensors:
        return result
    out_dtypes = [r._dtype for r in res_tensors]

    def backward(dys):
        dy = [wrap(d, dt) for d, dt in zip(dys, out_dtypes)]
        if variables:
            in_grads, var_grads = grad_fn(*dy, variables=diff_vars)
        else:
            in_grads, var_grads = grad_fn(*dy), []
        if not isinstance(in_grads, (list, tuple)):
            in_grads = [in_grads]
        in_grads = nest.flatten(list(in_grads)) if len(in_grads) != len(in_tensors) \
            else list(in_grads)
        if len(in_grads) != len(in_tensors):
            raise ValueError(f"custom_gradient function expected to return {len(in_tensors)} "
                             f"gradients, but returned {len(in_grads)} instead.")
        var_grads = list(var_grads or [])
        if len(var_grads) != len(var_leaves):
            raise ValueError(f"custom_gradient function expected to return {len(var_leaves)} "
                             f"variable gradients, but returned {len(var_grads)} instead.")
        out = [_grad_to_torch(g, t) for g, t in zip(in_grads, in_tensors)]
        out += [_grad_to_torch(g, t) for g, t in zip(var_grads, var_leaves)]
        return out

    fn = _make_attach([r._t for r in res_tensors], backward)
    with torch.enable_grad():
        outs = fn.apply(*in_tensors, *var_leaves)
    it = iter(outs)
    new_flat = [wrap(next(it), r._dtype) if isinstance(r, Tensor) else r for r in flat_res]
    return nest.pack_sequence_as(result, new_flat)


@public("torchflow")
def stop_gradient(input, name=None) -> Tensor:
    """Returns ``input`` with no gradient flowing back through it.

    Args:
      input: A tensor (or nested structure of tensors).
      name: Unused (eager).

    Returns:
      A tensor of ``input``'s dtype, shape and values.

    >>> import torchflow as tf
    >>> x = tf.constant(2.0)
    >>> with tf.GradientTape() as g:
    ...     g.watch(x)
    ...     y = tf.stop_gradient(x) * x
    >>> float(g.gradient(y, x))
    2.0
    """
    if type(input) is Tensor:
        t = input._t
        return wrap(t.detach(), input._dtype) if t.requires_grad else input
    if isinstance(input, Variable):
        v = input.value()
        return wrap(v._t.detach(), v._dtype)
    if nest.is_nested(input):
        return nest.map_structure(stop_gradient, input)  # pyright: ignore[reportReturnType] - a nested input gives the same structure
    t = to_tensor(input)
    return wrap(t._t.detach(), t._dtype) if isinstance(t._t, torch.Tensor) else t


@public("torchflow")
def recompute_grad(f):
    """Makes ``f`` recompute its forward pass during backprop to save memory
    (``torch.utils.checkpoint``). Values and gradients equal those of ``f``.

    Args:
      f: A callable taking and returning tensors.

    Returns:
      A callable computing ``f``, whose activations are recomputed in the backward pass.
    """

    @functools.wraps(f)
    def inner(*args, **kwargs):
        if not _state.recording:
            return f(*args, **kwargs)
        flat = nest.flatten(args)
        pos = [i for i, a in enumerate(flat) if isinstance(a, Tensor)]
        structure: list = []

        def run(*ts):
            new = list(flat)
            for i, t in zip(pos, ts):
                new[i] = wrap(t, flat[i]._dtype)
            # The recomputation inside backward (possibly after the tape exited, on a
            # persistent tape) must read variables as the recorded forward did, or
            # it saves other tensors than the forward and torch refuses it.
            recording = _state.recording
            _state.recording = True
            try:
                out = f(*nest.pack_sequence_as(args, new), **kwargs)
            finally:
                _state.recording = recording
            structure[:] = [out]
            return tuple(x._t if isinstance(x, Tensor) else x for x in nest.flatten(out))

        # No early stop: it aborts the recomputation by raising inside ops, which
        # torchflow ops would translate into TF errors.
        with torch.utils.checkpoint.set_checkpoint_early_stop(False):
            leaves = torch.utils.checkpoint.checkpoint(run, *[flat[i]._t for i in pos],
                                                       use_reentrant=False)
        template = structure[0]
        tl = nest.flatten(template)
        out = [wrap(l, t._dtype) if isinstance(t, Tensor) else t for t, l in zip(tl, leaves)]
        return nest.pack_sequence_as(template, out)

    return inner


@public("torchflow")
def grad_pass_through(f):
    """Wraps ``f`` so its gradient is the identity (straight-through).

    The forward pass computes ``f(x)``; the backward pass passes ``dy``
    through unchanged to ``x`` (and gives variables ``f`` reads no gradient).

    Args:
      f: A callable taking and returning tensors.

    Returns:
      A callable with ``f``'s forward behaviour and an identity gradient.

    >>> import torchflow as tf
    >>> x = tf.constant(1.4)
    >>> with tf.GradientTape() as g:
    ...     g.watch(x)
    ...     y = tf.grad_pass_through(tf.round)(x)
    >>> float(g.gradient(y, x))
    1.0
    """

    @custom_gradient
    def passthrough(*args, **kwargs):
        def grad(*dy, variables=None):
            if variables:
                return dy, [None] * len(variables)
            return dy

        return f(*args, **kwargs), grad

    return functools.wraps(f)(passthrough) if callable(f) else passthrough
