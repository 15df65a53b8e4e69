"""``tf.GradientTape``: TF's tape semantics on torch autograd.

torch's grad mode is off in every thread except while a tape records there
(``__enter__`` turns it on, the last recording tape's ``__exit__`` turns it
off); ops never toggle it. Which sources a tape answers for is TF's rule, kept
in the tape: tensors it watched, trainable variables read while it recorded
(unless ``watch_accessed_variables=False``), variables it watched, and tensors
computed while it recorded. Anything else answers None (or zeros).

``gradient()`` is one ``torch.autograd.grad`` call: ``retain_graph`` when the
tape is persistent or another tape that overlapped it may still need the graph,
``create_graph`` when a tape is recording at the call (higher-order gradients).
``jacobian``/``batch_jacobian`` batch the backward passes with
``is_grads_batched`` (vmap over autograd) and fall back to a loop of backward
passes where vmap cannot run an op's backward.
"""

from __future__ import annotations

import enum
import logging
import sys
import threading
import weakref

import torch

from torchflow._src.core import context, dtypes, graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.indexed_slices import IndexedSlices, RowCollector
from torchflow._src.core.stop_gradients import stopped_gradients
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest
from torchflow._src.util.api import public

_state = context.thread_state()
_log = logging.getLogger("tensorflow")


# torch starts every new thread with grad mode ON; TF records nothing outside a
# tape in any thread. A one-shot ``threading`` profile hook turns grad mode off
# as each thread starts (before ``run()``), then hands over to any profile hook
# that was installed before torchflow (and removes itself from that thread).
_previous_profile = threading.getprofile() if hasattr(threading, "getprofile") else None


def _thread_start_hook(frame, event, arg):
    torch.set_grad_enabled(False)
    sys.setprofile(_previous_profile)
    if _previous_profile is not None:
        return _previous_profile(frame, event, arg)
    return None


if _previous_profile is not _thread_start_hook:
    threading.setprofile(_thread_start_hook)


@public("torchflow")
class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for sources not connected to the target.

    ``NONE`` (the default of ``GradientTape.gradient``) gives None for such a source;
    ``ZERO`` gives zeros of the source's shape and dtype.
    """

    NONE = "none"
    ZERO = "zero"


def _unconnected_mode(value) -> UnconnectedGradients:
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        pass
    name = getattr(value, "value", None)
    if name in ("none", "zero"):
        return UnconnectedGradients(name)
    raise ValueError(f"Unknown value for unconnected_gradients: {value!r}")


def _differentiable(d: dtypes.DType) -> bool:
    return d.is_floating or d.is_complex


def _grad(outs, inputs, gouts, retain: bool, create: bool):
    """``torch.autograd.grad(outs, inputs, gouts, allow_unused=True)``; the grad
    outputs already match the outputs' shapes and dtypes, so the engine is called
    directly (``graph_trace.engine_grad``) unless a trace must record the call."""
    if graph_trace._ACTIVE is None:
        r = graph_trace.engine_grad(outs, inputs, gouts, retain, create, True)
        if r is not None:
            return r
    return torch.autograd.grad(outs, inputs, gouts, retain_graph=retain,
                               create_graph=create, allow_unused=True)


def _grad_with_rows(outs, srcs: list, dts: list, gouts, retain: bool, create: bool) -> list:
    """``_grad`` whose sources used through row gathers get ``IndexedSlices`` (first
    order only; see ``indexed_slices.py``)."""
    if create:
        return list(_grad(outs, srcs, gouts, retain, create))
    rec = graph_trace.active()
    if rec is not None and rec.row_gathers:
        # The rows reach the collector in Python: a traced function runs the whole
        # gradient as one host node, so that every replay collects them again.
        res = _rows_grad_node(outs, srcs, dts, gouts, retain)
        return [r._t if type(r) is Tensor else r for r in res]
    return _rows_grad(outs, srcs, dts, gouts, retain)


def _rows_grad(outs, srcs: list, dts: list, gouts, retain: bool) -> list:
    rows = RowCollector(srcs)
    with rows:
        res = _grad(outs, srcs, gouts, retain, False)
    if not rows.rows:
        return list(res)
    return [rows.result(s, r, d) for s, r, d in zip(srcs, res, dts)]


@graph_trace.host_op(dry=graph_trace.RUN)
def _rows_grad_node(outs, srcs: list, dts: list, gouts, retain: bool) -> list:
    """``_rows_grad`` as a host node: dense results wrapped, so the recording sees them."""
    res = _rows_grad(outs, srcs, dts, gouts, retain)
    return [wrap(r, d) if isinstance(r, torch.Tensor) else r for r, d in zip(res, dts)]


def _sync_grad_mode() -> None:
    rec = any(t._recording for t in _state.tapes)
    _state.recording = rec
    torch.set_grad_enabled(rec)


@public("torchflow")
class GradientTape:
    """Records operations for automatic differentiation.

    Args:
      persistent: If True, ``gradient``/``jacobian`` may be called more than once.
      watch_accessed_variables: If True (default), trainable variables read
        while the tape records are watched automatically.

    >>> import torchflow as tf
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as g:
    ...     g.watch(x)
    ...     y = x * x
    >>> float(g.gradient(y, x))
    6.0

    As in TF, the gradient of a variable used only through row gathers
    (``tf.gather``, ``tf.nn.embedding_lookup``, Keras ``Embedding``) is a
    ``tf.IndexedSlices``. Differences from TensorFlow 2.4: higher-order
    gradients (an outer tape recording) and jacobians of such gathers are dense.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._recording = False
        self._used = False
        self._vars: dict[int, Variable] = {}
        self._tensors: dict[int, torch.Tensor] = {}
        self._peers: list = []
        self._thread_state = None

    # --- recording ---------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        self._push()
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        s = context.thread_state()
        me = weakref.ref(self)
        for other in s.tapes:
            other._peers.append(me)
            self._peers.append(weakref.ref(other))
        s.tapes.append(self)
        self._recording = True
        self._thread_state = s
        s.recording = True
        torch.set_grad_enabled(True)

    def _pop(self) -> None:
        s = context.thread_state()
        if self in s.tapes:
            s.tapes.remove(self)
        self._recording = False
        _sync_grad_mode()

    def stop_recording(self):
        """A context manager in which operations are not recorded on this tape.

        Raises:
          RuntimeError: If the tape is not recording.
        """
        if not self._recording:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        return _StopRecording(self)

    def reset(self) -> None:
        """Forgets everything watched so far (as if re-entering a new tape).

        Use it inside the ``with`` block to discard what was recorded, e.g. at the start of
        each iteration of a loop that reuses one tape.
        """
        recording = self._recording
        if recording:
            self._pop()
        self._vars.clear()
        self._tensors.clear()
        self._used = False
        if recording:
            self._push()

    def _on_variable_read(self, var: Variable) -> None:
        # Trainable variables of any dtype: TF lists an int variable read under a
        # tape in watched_variables() (its gradient stays None).
        if self._watch_accessed and var._trainable:
            self._vars.setdefault(id(var), var)

    def watch(self, tensor) -> None:
        """Ensures ``tensor`` (a Tensor, Variable, or nested structure of them) is traced.

        Trainable variables are watched automatically when read; constants and
        non-trainable variables need ``watch`` to get gradients.

        Args:
          tensor: A Tensor, a Variable, or a nested structure of them.

        Raises:
          ValueError: If an element is not a Tensor or Variable.
        """
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                if not _differentiable(t._dtype):
                    _log.warning("The dtype of the watched tensor must be floating (e.g. "
                                 "tf.float32), got %r", t._dtype)
                    self._vars.setdefault(id(t), t)  # listed, as TF does; no gradient
                    continue
                if not t._leaf.requires_grad:
                    t._leaf.requires_grad_(True)
                self._vars.setdefault(id(t), t)
                continue
            if not isinstance(t, Tensor):
                conv = getattr(t, "_tape_variable", None)
                if conv is not None:
                    self.watch(conv())
                    continue
                raise ValueError(f"Passed in object {t!r} of type '{type(t).__name__}', not "
                                 f"tf.Tensor or tf.Variable or ExtensionType.")
            if not _differentiable(t._dtype):
                _log.warning("The dtype of the watched tensor must be floating (e.g. "
                             "tf.float32), got %r", t._dtype)
                continue
            if not t._t.requires_grad:
                t._t = t._t.detach().requires_grad_(True)
            self._tensors[id(t._t)] = t._t

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in first-access order.

        Returns:
          A tuple of ``tf.Variable``.
        """
        return tuple(self._vars.values())

    # --- differentiation ---------------------------------------------------
    def _check_usable(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute "
                               "one set of gradients (or jacobians)")

    def _retain(self) -> bool:
        if self._persistent or self._recording:
            return True
        for ref in self._peers:
            other = ref()
            if other is not None and (other._persistent or not other._used):
                return True
        return False

    def _source_tensor(self, src):
        """The torch tensor to differentiate against for one source, or None."""
        if isinstance(src, Variable):
            if id(src) not in self._vars or not src._leaf.requires_grad:
                return None
            return src._leaf
        if not isinstance(src, Tensor):
            conv = getattr(src, "_tape_variable", None)
            if conv is not None:
                return self._source_tensor(conv())
            raise ValueError(f"Passed in object {src!r} of type '{type(src).__name__}', not "
                             f"tf.Tensor or tf.Variable or ExtensionType.")
        t = src._t
        if not _differentiable(src._dtype):
            _log.warning("The dtype of the source tensor must be floating (e.g. tf.float32) "
                         "when calling GradientTape.gradient, got %r", src._dtype)
            return None
        if not isinstance(t, torch.Tensor) or not t.requires_grad:
            return None
        if id(t) in self._tensors or t.grad_fn is not None:
            return t
        for v in self._vars.values():
            if v._leaf is t:
                return t
        return None

    @staticmethod
    def _target_tensor(t):
        if isinstance(t, Variable):
            return t._leaf, t._dtype
        if not isinstance(t, Tensor):
            t = to_tensor(t)
        return t._t, t._dtype

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Computes the gradient of ``target`` (summed over its elements and over
        all targets) with respect to each of ``sources``.

        Args:
          target: A Tensor or (nested) list of Tensors/Variables.
          sources: A Tensor/Variable or nested structure of them.
          output_gradients: Upstream gradients, one per target (None: ones).
          unconnected_gradients: ``tf.UnconnectedGradients.NONE`` (None for
            unconnected sources) or ``ZERO`` (zeros).

        Returns:
          Gradients in the structure of ``sources``.

        Raises:
          RuntimeError: On a second call on a non-persistent tape.
          ValueError: For an unknown ``unconnected_gradients`` or a source that
            is not a Tensor or Variable.
        """
        self._check_usable()
        mode = _unconnected_mode(unconnected_gradients)
        flat_targets = nest.flatten(target)
        flat_sources = nest.flatten(sources)
        if output_gradients is not None:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) != len(flat_targets):
                flat_out = (flat_out + [None] * len(flat_targets))[: len(flat_targets)]
        else:
            flat_out = [None] * len(flat_targets)
        outs, gouts = [], []
        for t, g in zip(flat_targets, flat_out):
            tt, td = self._target_tensor(t)
            if not isinstance(tt, torch.Tensor) or not tt.requires_grad:
                continue
            outs.append(tt)
            if g is None:
                gouts.append(torch.ones_like(tt))
            else:
                gt = g._leaf if isinstance(g, Variable) else to_tensor(g, td)._t
                gouts.append(gt.to(tt.dtype).expand(tt.shape) if gt.shape != tt.shape else gt)
        srcs = [self._source_tensor(s) for s in flat_sources]
        live = [i for i, s in enumerate(srcs) if s is not None]
        grads: list = [None] * len(flat_sources)
        if outs and live:
            create = _state.recording
            # A source listed twice must get its gradient twice: dedupe for torch.
            uniq: dict[int, torch.Tensor] = {}
            for i in live:
                uniq.setdefault(id(srcs[i]), srcs[i])  # pyright: ignore[reportArgumentType] - live sources are not None
            keys = list(uniq)
            dts = {id(srcs[i]): flat_sources[i].dtype for i in live}
            try:
                with torch.set_grad_enabled(create):
                    res = _grad_with_rows(outs, [uniq[k] for k in keys], [dts[k] for k in keys],
                                          gouts, self._retain() or create, create)
            except RuntimeError as e:
                raise RuntimeError(f"GradientTape.gradient: {e}") from None
            by_id = dict(zip(keys, res))
            for i in live:
                grads[i] = by_id[id(srcs[i])]
        if not self._persistent:
            self._used = True
        out = []
        for s, g in zip(flat_sources, grads):
            d = s._dtype if isinstance(s, (Tensor, Variable)) else None
            if g is None:
                if mode is UnconnectedGradients.ZERO:
                    out.append(_zeros_like_source(s))
                else:
                    out.append(None)
            elif isinstance(g, IndexedSlices):
                out.append(g)
            else:
                if g._is_zerotensor():  # torch's lazy zeros (e.g. 2nd derivative of abs)
                    g = torch.zeros(g.shape, dtype=g.dtype, device=g.device)
                out.append(wrap(g, d))
        if not self._persistent:
            self._release()
        return nest.pack_sequence_as(sources, out)

    def _release(self) -> None:
        self._tensors.clear()

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Computes the Jacobian of ``target`` with respect to each of ``sources``.

        Each result has shape ``target.shape + source.shape``.

        Args:
          target: A Tensor.
          sources: A Tensor/Variable or nested structure of them.
          unconnected_gradients: As in ``gradient``.
          parallel_iterations: Accepted for compatibility (the backward passes
            are batched).
          experimental_use_pfor: If True (default), the backward passes run
            vectorised (``is_grads_batched``); if False, one by one.

        Returns:
          Jacobians in the structure of ``sources``.
        """
        self._check_usable()
        mode = _unconnected_mode(unconnected_gradients)
        tt, _ = self._target_tensor(target)
        flat_sources = nest.flatten(sources)
        srcs = [self._source_tensor(s) for s in flat_sources]
        live = [i for i, s in enumerate(srcs) if s is not None]
        tshape = tuple(tt.shape)
        n = tt.numel()
        results: list = [None] * len(flat_sources)
        if live and isinstance(tt, torch.Tensor) and tt.requires_grad and n:
            eye = torch.eye(n, dtype=tt.dtype, device=tt.device).reshape((n,) + tshape)
            res = self._batched_grads([tt], [srcs[i] for i in live], [eye],
                                      experimental_use_pfor)
            for i, g in zip(live, res):
                if g is not None:
                    results[i] = g.reshape(tshape + tuple(srcs[i].shape))  # pyright: ignore[reportOptionalMemberAccess] - live sources are not None
        if not self._persistent:
            self._used = True
        out = []
        for s, g in zip(flat_sources, results):
            if g is None:
                if mode is UnconnectedGradients.ZERO:
                    z = _zeros_like_source(s)
                    out.append(wrap(torch.zeros(tshape + tuple(z._t.shape), dtype=z._t.dtype,
                                                device=z._t.device), z._dtype))
                else:
                    out.append(None)
            else:
                out.append(wrap(g, s._dtype))
        if not self._persistent:
            self._release()
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Jacobian of each ``target[i]`` with respect to ``source[i]``.

        Assumes example ``i`` of ``target`` depends only on example ``i`` of
        ``source`` (as TF does). The result has shape
        ``[batch] + target.shape[1:] + source.shape[1:]``.

        Args:
          target: A Tensor of rank at least 1, computed under the tape.
          source: A Tensor of rank at least 1 with the same first dimension, watched.
          unconnected_gradients: ``tf.UnconnectedGradients.NONE`` (None for an unconnected
            source) or ``ZERO`` (zeros).
          parallel_iterations: Accepted for TF compatibility; ignored.
          experimental_use_pfor: Accepted for TF compatibility; ignored.

        Returns:
          A Tensor, or None when unconnected with ``NONE``.

        Raises:
          ValueError: If target and source batch sizes differ or are rank 0.
        """
        self._check_usable()
        mode = _unconnected_mode(unconnected_gradients)
        tt, _ = self._target_tensor(target)
        src = self._source_tensor(source)
        sshape = tuple(source.shape)
        if tt.ndim < 1 or len(sshape) < 1:
            raise ValueError("Need first dimension of `target` and `source` to match, got "
                             f"{tuple(tt.shape)} and {sshape}")
        if tt.shape[0] != sshape[0]:
            raise ValueError(f"Need first dimension of `target` shape ({tuple(tt.shape)}) and "
                             f"`source` shape ({sshape}) to match.")
        b = tt.shape[0]
        rest = tuple(tt.shape[1:])
        m = 1
        for d in rest:
            m *= d
        result = None
        if src is not None and tt.requires_grad and m and b:
            eye = torch.eye(m, dtype=tt.dtype, device=tt.device).reshape((m, 1) + rest)
            eye = eye.expand((m, b) + rest)
            (g,) = self._batched_grads([tt], [src], [eye], experimental_use_pfor)
            if g is not None:
                # g: [m, b, *src_rest] -> [b, *rest, *src_rest]
                g = g.reshape((m, b) + sshape[1:]).movedim(0, 1)
                result = g.reshape((b,) + rest + sshape[1:])
        if not self._persistent:
            self._used = True
            self._release()
        if result is None:
            if mode is UnconnectedGradients.ZERO:
                z = _zeros_like_source(source)
                return wrap(torch.zeros((b,) + rest + sshape[1:], dtype=z._t.dtype,
                                        device=z._t.device), z._dtype)
            return None
        return wrap(result, source.dtype)

    def _batched_grads(self, outs, srcs, batched_gouts, vectorize):
        create = _state.recording
        uniq: dict[int, torch.Tensor] = {}
        for s in srcs:
            uniq.setdefault(id(s), s)
        keys = list(uniq)
        inputs = [uniq[k] for k in keys]
        res = None
        if vectorize:
            try:
                with torch.set_grad_enabled(create):
                    res = torch.autograd.grad(outs, inputs, batched_gouts, retain_graph=True,
                                              create_graph=create, allow_unused=True,
                                              is_grads_batched=True)
            except RuntimeError:
                res = None  # an op's backward has no batching rule: loop instead
        if res is None:
            n = batched_gouts[0].shape[0]
            rows = []
            with torch.set_grad_enabled(create):
                for j in range(n):
                    rows.append(torch.autograd.grad(
                        outs, inputs, [g[j] for g in batched_gouts], retain_graph=True,
                        create_graph=create, allow_unused=True))
            res = []
            for k in range(len(inputs)):
                col = [r[k] for r in rows]
                if all(c is None for c in col):
                    res.append(None)
                else:
                    res.append(torch.stack([c if c is not None else torch.zeros_like(inputs[k])
                                            for c in col]))
        res = [torch.zeros(r.shape, dtype=r.dtype, device=r.device)
               if r is not None and r._is_zerotensor() else r for r in res]
        by_id = dict(zip(keys, res))
        return [by_id[id(s)] for s in srcs]

    def __del__(self):
        try:
            if self._recording and self._thread_state is not None:
                if self in self._thread_state.tapes:
                    self._thread_state.tapes.remove(self)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


class _StopRecording:
    __slots__ = ("_tape",)

    def __init__(self, tape):
        self._tape = tape

    def __enter__(self):
        self._tape._recording = False
        _sync_grad_mode()

    def __exit__(self, *exc):
        self._tape._recording = True
        _sync_grad_mode()


def _zeros_like_source(s) -> Tensor:
    if isinstance(s, Variable):
        return wrap(torch.zeros_like(s._leaf.detach()), s._dtype)
    t = s._t.detach() if isinstance(s._t, torch.Tensor) else s._t
    return wrap(torch.zeros_like(t), s._dtype)


@public("torchflow")
class AggregationMethod:
    """How gradient contributions are summed (accepted for compatibility; torch's
    autograd accumulates them)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


@public("torchflow")
def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """Symbolic gradients of ``sum(ys)`` with respect to each of ``xs``, inside a
    ``tf.function`` (TF's graph-mode ``tf.gradients``).

    Args:
      ys: A Tensor or list of Tensors to differentiate.
      xs: A Tensor, Variable or list of them.
      grad_ys: Optional Tensors of ``ys``' shapes: the gradients flowing into ``ys``
        (ones by default).
      name, gate_gradients, aggregation_method: Accepted for compatibility.
      stop_gradients: Optional Tensor or list of Tensors held constant with respect
        to all ``xs``: no gradient flows back through them (as if each were made with
        ``tf.stop_gradient``), while the gradient at one of them that is also in
        ``xs`` is still computed.
      unconnected_gradients: ``tf.UnconnectedGradients.NONE`` (None for an ``x``
        that ``ys`` do not depend on) or ``ZERO``.

    Returns:
      A list with one Tensor (or None) per element of ``xs``.

    Raises:
      RuntimeError: When eager execution is enabled (outside ``tf.function``), as TF.

    >>> import torchflow as tf
    >>> @tf.function
    ... def f(a):
    ...     b = 2 * a
    ...     return tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    >>> [float(g) for g in f(tf.constant(0.))]
    [1.0, 1.0]
    """
    if _state.function_depth == 0 or not torch.is_grad_enabled():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    mode = _unconnected_mode(unconnected_gradients)
    ys_l = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs_l = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    if stop_gradients is not None:
        stops = list(stop_gradients) if isinstance(stop_gradients, (list, tuple)) \
            else [stop_gradients]
        g_l = None if grad_ys is None else (
            list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys])
        return stopped_gradients(ys_l, xs_l, g_l, stops, mode is UnconnectedGradients.ZERO)
    ys_t = [y._t if isinstance(y, Tensor) else to_tensor(y)._t for y in ys_l]
    xs_t = [x._leaf if isinstance(x, Variable) else x._t for x in xs_l]
    if grad_ys is None:
        gys = [torch.ones_like(y) for y in ys_t]
    else:
        g_l = list(grad_ys) if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        gys = [to_tensor(g)._t.to(y.dtype).expand(y.shape) for g, y in zip(g_l, ys_t)]
    pairs = [(y, g) for y, g in zip(ys_t, gys) if y.requires_grad]
    wanted = [i for i, x in enumerate(xs_t) if x.requires_grad]
    res: list = [None] * len(xs_t)
    if pairs and wanted:
        got = torch.autograd.grad([y for y, _ in pairs], [xs_t[i] for i in wanted],
                                  [g for _, g in pairs], retain_graph=True, create_graph=True,
                                  allow_unused=True)
        for i, g in zip(wanted, got):
            res[i] = g
    out = []
    for x, g in zip(xs_l, res):
        if g is None:
            out.append(None if mode is UnconnectedGradients.NONE else
                       wrap(torch.zeros_like(x._leaf if isinstance(x, Variable) else x._t),
                            x.dtype))
        else:
            out.append(wrap(g, x.dtype))
    return out


@public("torchflow")
def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """The Hessian of ``sum(ys)`` with respect to each of ``xs``, inside a
    ``tf.function`` (TF's graph-mode ``tf.hessians``).

    Args:
      ys: A Tensor or list of Tensors.
      xs: A Tensor or list of Tensors.
      gate_gradients, aggregation_method, name: Accepted for compatibility.

    Returns:
      A list with, per ``x``, a Tensor of shape ``x.shape + x.shape`` (or None).

    Raises:
      RuntimeError: When eager execution is enabled, as TF.
    """
    xs_l = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    firsts = gradients(ys, xs_l)
    out = []
    for x, g in zip(xs_l, firsts):
        if g is None:
            out.append(None)
            continue
        xt = x._leaf if isinstance(x, Variable) else x._t
        flat = g._t.reshape(-1)
        rows = []
        for k in range(flat.numel()):
            (h,) = torch.autograd.grad([flat[k]], [xt], retain_graph=True, create_graph=True,
                                       allow_unused=True)
            rows.append(torch.zeros_like(xt) if h is None else h)
        out.append(wrap(torch.stack(rows).reshape(tuple(xt.shape) * 2), x.dtype))
    return out


_barriers_installed = []


def install_compile_barriers() -> None:
    """Makes torch.compile run the tape's bookkeeping eagerly (graph breaks).

    Under ``tf.function(jit_compile=True)`` the differentiated ops are compiled,
    with AOTAutograd supplying their backward, while entering/leaving tapes,
    watching and ``gradient`` run eagerly between compiled segments. Installed
    on the first jit_compile call only: the wrappers cost ~0.6 us per call.
    """
    if _barriers_installed:
        return
    _barriers_installed.append(True)
    for name in ("__enter__", "__exit__", "watch", "gradient", "jacobian", "batch_jacobian",
                 "stop_recording", "reset", "_on_variable_read"):
        setattr(GradientTape, name, torch.compiler.disable(getattr(GradientTape, name)))
