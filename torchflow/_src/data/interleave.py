"""``interleave`` and ``flat_map``: elements mapped to datasets, then interleaved.

The order is TF's: ``block_length`` elements from each of ``cycle_length``
open datasets in turn; an exhausted one is replaced by the next input's dataset
when its slot comes round. With ``num_parallel_calls`` each open dataset is
produced ahead on its own thread (at most ``cycle_length`` threads, each a few
blocks ahead); the output order stays the same unless ``deterministic=False``,
which lets a slot whose data is not ready yet be passed over.
"""

from __future__ import annotations

from torchflow._src.data import traced_fn
from torchflow._src.data._runtime import IterContext, close_iter
from torchflow._src.data.dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, DatasetV2
from torchflow._src.data.parallel import PrefetchIterator
from torchflow._src.data.transforms import (
    PrimedIterator,
    UnaryDataset,
    call_fn,
    spec_from_element,
    take_primed,
)


class InterleaveDataset(UnaryDataset):
    def _spec_inferred(self) -> bool:
        return spec_from_element(self)

    def __init__(self, input_dataset, fn, cycle_length, block_length, num_parallel_calls,
                 deterministic):
        super().__init__(input_dataset)
        if not callable(fn):
            raise TypeError(f"`map_func` must be callable, got {fn!r}.")
        self._fn = traced_fn.traced_dataset_fn(fn)
        self._cycle = AUTOTUNE if cycle_length is None else int(cycle_length)
        self._block = 1 if block_length is None else int(block_length)
        if self._block < 1:
            raise ValueError("block_length must be positive.")
        if self._cycle < 1 and self._cycle != AUTOTUNE:
            raise ValueError("cycle_length must be positive or tf.data.AUTOTUNE.")
        self._parallel = num_parallel_calls
        self._deterministic = deterministic

    def _cardinality(self):
        n = self._input._cardinality()
        if n == 0:
            return 0
        return INFINITE if n == INFINITE else UNKNOWN

    def _make_ds(self, element):
        ds = call_fn(self._fn, element)
        if not isinstance(ds, DatasetV2):
            raise TypeError(f"`map_func` must return a `Dataset` object. Got {type(ds)}.")
        return ds

    def _compute_spec(self):
        # The trace's spec, as TF's; where ``map_func`` cannot be traced on stand-ins,
        # that of the dataset it returns for the first input element, which is kept
        # and is the one iteration opens first (``map_func`` runs once per element).
        spec = self._fn.output_spec(self._input.element_spec)
        self._spec_from_element = spec is None
        if spec is not None:
            return spec
        ctx = IterContext(self._input.options())
        it = self._input._make_iter(ctx)
        try:
            element = next(it)
        except StopIteration:
            close_iter(it)
            ctx.close()
            raise ValueError("The element_spec of an interleave over an empty dataset is "
                             "unknown.") from None
        except BaseException:
            close_iter(it)
            ctx.close()
            raise
        made = _Made(self._make_ds(element))
        self._primed = PrimedIterator([made], it, ctx)
        return made.dataset.element_spec

    def _make_iter(self, ctx):
        cycle = self._cycle if self._cycle != AUTOTUNE else ctx.pool_size
        parallel = self._parallel is not None and self._parallel != 0
        det = ctx.deterministic if self._deterministic is None else bool(self._deterministic)
        input_it = take_primed(self, ctx) or self._input._make_iter(ctx)
        return _interleave_iter(self, ctx, input_it, cycle, self._block, parallel, det)


class _Made:
    """An input element whose dataset was already made (by the spec computation)."""

    __slots__ = ("dataset",)

    def __init__(self, dataset):
        self.dataset = dataset


def _open(ds, element, ctx, parallel, block):
    made = element.dataset if type(element) is _Made else ds._make_ds(element)
    it = made._make_iter(ctx)
    if parallel:
        it = PrefetchIterator(it, 2 * block)
        ctx.register(it)
    return it


def _interleave_iter(ds, ctx, input_it, cycle, block, parallel, det):
    slots = [None] * cycle
    i = 0
    b = 0
    open_ = 0
    end_of_input = False
    try:
        while not end_of_input or open_ > 0:
            cur = slots[i]
            if cur is not None:
                if parallel and not det and not _has_ready(cur) and open_ > 1:
                    j = _find_ready(slots, i)
                    if j is not None:
                        i, b, cur = j, 0, slots[j]
                try:
                    element = next(cur)
                except StopIteration:
                    close_iter(cur)
                    slots[i] = None
                    open_ -= 1
                    i, b = (i + 1) % cycle, 0
                    continue
                b += 1
                if b >= block:
                    i, b = (i + 1) % cycle, 0
                yield element
            elif not end_of_input:
                try:
                    x = next(input_it)
                except StopIteration:
                    end_of_input = True
                    continue
                slots[i] = _open(ds, x, ctx, parallel, block)
                open_ += 1
            else:
                i, b = (i + 1) % cycle, 0
    finally:
        for s in slots:
            if s is not None:
                close_iter(s)
        close_iter(input_it)


def _has_ready(it) -> bool:
    return bool(getattr(it, "_buf", True)) or getattr(it, "_end", False)


def _find_ready(slots, start):
    n = len(slots)
    for k in range(1, n):
        j = (start + k) % n
        if slots[j] is not None and _has_ready(slots[j]):
            return j
    return None
