"""The threaded transformations: parallel ``map`` and ``prefetch``, and AUTOTUNE.

Both run user work on daemon threads that ``IterContext.close`` stops (an
iterator dropped mid-epoch leaves no thread behind). Memory is bounded: a
parallel map holds at most ``2 * parallelism`` elements in flight or waiting, a
prefetch at most its buffer size.

AUTOTUNE (``num_parallel_calls=tf.data.AUTOTUNE``) measures the map function on
the first elements. Functions that take only microseconds are pure Python
overhead that threads cannot speed up under the GIL, so they run inline in the
consumer's thread; heavier functions (torch kernels release the GIL) go to a
thread pool whose size is hill-climbed on the measured throughput, doubling
while throughput improves by more than 10% and stepping back when it drops
(back to inline if threads never beat the inline rate). The dataset remembers
the choice, so later epochs start from it.
"""

from __future__ import annotations

import collections
import threading
import time

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.data import _structure, traced_fn, vectorize
from torchflow._src.data._runtime import add_context, close_iter, start_thread
from torchflow._src.data.dataset_ops import AUTOTUNE, int64_arg
from torchflow._src.data.transforms import (
    UnaryDataset,
    function_output_spec,
    normalize_output,
    spec_from_element,
    take_primed,
)

_PROBE = 64  # elements timed before AUTOTUNE chooses inline or threaded
_WARMUP = 8  # first elements left out of the inline rate
_INLINE_BELOW_S = 40e-6  # map functions faster than this stay in the consumer's thread
_STOP = object()


class ParallelMapDataset(UnaryDataset):
    _tuned = None  # (pool size, parallelism) AUTOTUNE settled on

    def _spec_inferred(self) -> bool:
        return spec_from_element(self)

    def __init__(self, input_dataset, fn, num_parallel_calls, deterministic):
        super().__init__(input_dataset)
        if not callable(fn):
            raise TypeError(f"`map_func` must be callable, got {fn!r}.")
        if num_parallel_calls < 1 and num_parallel_calls != AUTOTUNE:
            raise ValueError("num_parallel_calls must be positive or tf.data.AUTOTUNE, got "
                             f"{num_parallel_calls}.")
        self._fn = traced_fn.traced(fn)
        self._parallel = num_parallel_calls
        self._deterministic = deterministic

    def _compute_spec(self):
        return function_output_spec(self, self._fresh_iter, self._fn, "Dataset.map()")

    def _make_iter(self, ctx):
        return take_primed(self, ctx) or self._fresh_iter(ctx)

    def _fresh_iter(self, ctx):
        if vectorize.enabled(self._input, ctx):
            # One call per chunk of rows: nothing left to spread over threads.
            return vectorize.vectorized_map_iter(vectorize.slices_source(self._input, ctx),
                                                 self._fn)
        det = ctx.deterministic if self._deterministic is None else bool(self._deterministic)
        it = ParallelMapIterator(self._input._make_iter(ctx), self._fn, self._parallel, det,
                                 ctx.pool_size, self)
        ctx.register(it)
        return it


def _apply(fn, element):
    out = fn(*element) if type(element) is tuple else fn(element)
    return normalize_output(out)


class ParallelMapIterator:
    """Order-preserving (or completion-order) map on a pool of worker threads."""

    def __init__(self, input_it, fn, parallelism, deterministic, pool_size, owner=None):
        self._in = input_it
        self._fn = fn
        self._det = deterministic
        self._cap = max(1, pool_size)
        self._autotune = parallelism == AUTOTUNE
        self._p = 0 if self._autotune else parallelism
        self._cv = threading.Condition()
        self._in_lock = threading.Lock()
        self._next_in = 0      # sequence number of the next input element
        self._next_out = 0     # next sequence number the consumer wants
        self._done: dict = {}  # seq -> (ok, value), deterministic mode
        self._ready = collections.deque()  # (ok, value), completion order
        self._consumed = 0
        self._end = None       # sequence number where the input ended
        self._stop = False
        self._threads: list = []
        self._probe_n = 0
        self._probe_s = 0.0
        self._window_start = None
        self._window_n = 0
        self._best = (0, 0.0)  # (parallelism, throughput); 0 = inline
        self._frozen = False
        self._busy = 0         # workers holding an element (drained before going inline)
        self._pending = collections.deque()  # results left when switching to inline
        self._probe_t0 = None
        # AUTOTUNE's choice is remembered by the dataset: later iterators (epochs)
        # start from it instead of tuning again.
        self._owner = owner
        tuned = getattr(owner, "_tuned", None)
        if self._autotune and tuned is not None and tuned[0] == pool_size:
            self._p = tuned[1]
            self._frozen = True

    def __iter__(self):
        return self

    # --- threads -----------------------------------------------------------
    def _set_parallelism(self, p: int) -> None:
        with self._cv:
            self._p = p
            self._cv.notify_all()
        while len(self._threads) < p:
            i = len(self._threads)
            self._threads.append(start_thread(lambda i=i: self._work(i),
                                              f"tf.data.map.{i}"))

    def _work(self, index: int) -> None:
        cv = self._cv
        while True:
            with cv:
                while not self._stop and self._end is None and (
                        index >= self._p or self._next_in - self._consumed >= 2 * self._p):
                    cv.wait()
                if self._stop or self._end is not None:
                    return
            with self._in_lock:
                if self._stop or self._end is not None:
                    return
                seq = self._next_in
                try:
                    element = next(self._in)
                except StopIteration:
                    with cv:
                        self._end = seq
                        cv.notify_all()
                    return
                except BaseException as e:  # noqa: BLE001 - delivered to the consumer
                    element = _STOP
                    err = e
                with cv:
                    self._next_in = seq + 1
                    self._busy += 1
            if element is _STOP:
                result = (False, err)
            else:
                try:
                    result = (True, _apply(self._fn, element))
                except BaseException as e:  # noqa: BLE001 - delivered to the consumer
                    result = (False, add_context(
                        e, f"  raised by the function passed to Dataset.map() on input "
                           f"element {seq}"))
            with cv:
                if self._det:
                    self._done[seq] = result
                else:
                    self._ready.append(result)
                self._busy -= 1
                cv.notify_all()

    # --- consumer ----------------------------------------------------------
    def __next__(self):
        if self._p == 0:
            return self._next_inline()
        if not self._threads:
            self._set_parallelism(self._p)
        cv = self._cv
        with cv:
            while True:
                if self._det:
                    r = self._done.pop(self._next_out, None)
                    if r is not None:
                        self._next_out += 1
                        break
                elif self._ready:
                    r = self._ready.popleft()
                    break
                if self._end is not None and self._consumed >= self._end:
                    raise StopIteration
                if self._stop:
                    raise StopIteration
                cv.wait()
            self._consumed += 1
            cv.notify_all()
        if self._autotune and not self._frozen:
            self._tune()
        ok, value = r
        if ok:
            return value
        raise value

    def _next_inline(self):
        if self._pending:
            ok, value = self._pending.popleft()
            if ok:
                return value
            raise value
        element = next(self._in)
        if not self._autotune or self._frozen:
            try:
                return _apply(self._fn, element)
            except BaseException as e:  # noqa: BLE001 (re-raised as the TF error)
                raise add_context(e, f"  raised by the function passed to Dataset.map() on "
                                     f"input element {self._consumed}") from None
            finally:
                self._consumed += 1
        t0 = time.perf_counter()
        if self._probe_t0 is None and self._probe_n >= _WARMUP:
            self._probe_t0 = t0  # the first calls pay one-off costs (caches, thread pools)
        try:
            out = _apply(self._fn, element)
        finally:
            self._consumed += 1
        if self._probe_n >= _WARMUP:  # not the first calls (a traced function's trace)
            self._probe_s += time.perf_counter() - t0
        self._probe_n += 1
        if self._probe_n >= _PROBE:
            if self._probe_s / (self._probe_n - _WARMUP) < _INLINE_BELOW_S or self._cap < 2:
                self._freeze()
            else:
                # Threads must beat the measured inline rate to be kept.
                elapsed = time.perf_counter() - self._probe_t0
                self._best = (0, (self._probe_n - _WARMUP) / max(elapsed, 1e-9))
                with self._cv:
                    self._next_in = self._next_out = self._consumed
                self._set_parallelism(2)
                self._window_n = -4  # new threads warm up first
                self._window_start = time.perf_counter()
        return out

    def _freeze(self) -> None:
        self._frozen = True
        if self._owner is not None:
            self._owner._tuned = (self._cap, self._p)

    def _tune(self) -> None:
        self._window_n += 1
        if self._window_n <= 0:
            self._window_start = time.perf_counter()
            return
        if self._window_n < max(32, 8 * self._p):
            return
        now = time.perf_counter()
        rate = self._window_n / max(now - self._window_start, 1e-9)
        self._window_n = 0
        self._window_start = now
        best_p, best_rate = self._best
        if rate > best_rate * 1.1:
            self._best = (self._p, rate)
            if self._p < self._cap:
                self._set_parallelism(min(self._cap, self._p * 2))
                self._window_n = -2 * self._p
            else:
                self._freeze()
        else:
            if best_p == 0:
                self._go_inline()
            else:
                with self._cv:
                    self._p = best_p
                    self._cv.notify_all()
            self._freeze()

    def _go_inline(self) -> None:
        """Stops handing out work, waits for the elements in flight, then runs inline."""
        cv = self._cv
        with cv:
            self._p = 0
            cv.notify_all()
            while self._busy:
                cv.wait()
            if self._det:
                for seq in sorted(self._done):
                    self._pending.append(self._done.pop(seq))
            else:
                self._pending.extend(self._ready)
                self._ready.clear()
            self._consumed += len(self._pending)

    @property
    def parallelism(self) -> int:
        """The parallelism in use (0: inline in the consumer's thread)."""
        return self._p

    def close(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        self.join()
        if not any(t.is_alive() for t in self._threads):
            close_iter(self._in)

    def join(self) -> None:
        me = threading.current_thread()
        for t in self._threads:
            if t is not me:
                t.join(timeout=10)


class PrefetchDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        buffer_size = int64_arg(buffer_size, "buffer_size")
        if buffer_size < 0 and buffer_size != AUTOTUNE:
            raise InvalidArgumentError(None, None, "buffer_size must be >= 0 or set buffer_size "
                                       "to be -1 for auto-tuning")
        self._size = buffer_size

    def _make_iter(self, ctx):
        if self._size == 0:
            return self._input._make_iter(ctx)
        it = PrefetchIterator(self._input._make_iter(ctx), self._size)
        ctx.register(it)
        return it


class PrefetchIterator:
    """Runs its input on one background thread, ``buffer_size`` elements ahead.

    With AUTOTUNE the buffer starts at 2 and grows by one (up to 32) each time
    the consumer finds it empty, so it settles where production keeps up.
    """

    _MAX_AUTOTUNE = 32

    def __init__(self, input_it, size):
        self._in = input_it
        self._autotune = size == AUTOTUNE
        self._cap = 2 if self._autotune else size
        self._buf = collections.deque()
        self._cv = threading.Condition()
        self._end = False
        self._stop = False
        self._thread = None

    def __iter__(self):
        return self

    def _produce(self) -> None:
        cv = self._cv
        it = self._in
        while True:
            with cv:
                while len(self._buf) >= self._cap and not self._stop:
                    cv.wait()
                if self._stop:
                    return
            try:
                item = (True, next(it))
            except StopIteration:
                with cv:
                    self._end = True
                    cv.notify_all()
                return
            except BaseException as e:  # noqa: BLE001 - delivered to the consumer
                item = (False, e)
            with cv:
                self._buf.append(item)
                cv.notify_all()

    def __next__(self):
        if self._thread is None:
            self._thread = start_thread(self._produce, "tf.data.prefetch")
        cv = self._cv
        with cv:
            if not self._buf and not self._end and self._autotune and \
                    self._cap < self._MAX_AUTOTUNE:
                self._cap += 1
                cv.notify_all()
            while not self._buf:
                if self._end or self._stop:
                    raise StopIteration
                cv.wait()
            ok, value = self._buf.popleft()
            cv.notify_all()
        if ok:
            return value
        raise value

    @property
    def buffer_size(self) -> int:
        return self._cap

    def close(self) -> None:
        with self._cv:
            self._stop = True
            self._buf.clear()
            self._cv.notify_all()
        self.join()
        if self._thread is None or not self._thread.is_alive():
            close_iter(self._in)

    def join(self) -> None:
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=10)


__all__ = ["ParallelMapDataset", "PrefetchDataset", "_structure"]
