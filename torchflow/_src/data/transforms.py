"""Element-wise and ordering transformations: map, filter, take, skip, repeat,
shuffle, cache, shard, options, unique, reduce."""

from __future__ import annotations

import logging
import os
import pickle
import random

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.errors import FailedPreconditionError, InvalidArgumentError, OpError
from torchflow._src.core.tensor import Tensor
from torchflow._src.data import _fn_spec, _structure, traced_fn
from torchflow._src.data._runtime import IterContext, close_iter, op_seeds
from torchflow._src.data.dataset_ops import INFINITE, UNKNOWN, DatasetV2, int64_arg
from torchflow._src.data.iterator_ops import OwnedIterator
from torchflow._src.ops import data_ops


def call_fn(fn, element):
    """Calls a user function TF's way: a tuple element is passed unpacked."""
    if type(element) is tuple:
        return fn(*element)
    return fn(element)


def normalize_output(value, what="Dataset.map()"):
    """A map function's return value as an element (lists read as tuples)."""
    t = type(value)
    if t is Tensor:
        return value
    if t is tuple and all(type(v) is Tensor for v in value):
        return value
    if isinstance(value, DatasetV2) and what != "Dataset.map()":
        return value
    try:
        return _structure.normalize(value, lists_are_tuples=True)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Unsupported return value from function passed to {what}: "
                        f"{value!r} ({e}).") from None


def predicate_value(value, what) -> bool:
    v = value if type(value) is Tensor else data_ops.as_tensor(value)
    if v.dtype != dtypes.bool or v.shape.rank != 0:
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor, but its return type is {_structure.spec_of(v)!r}.")
    return bool(v)


class UnaryDataset(DatasetV2):
    """A dataset with one input; options, spec and cardinality pass through."""

    def __init__(self, input_dataset):
        if not isinstance(input_dataset, DatasetV2):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(input_dataset)}.")
        self._input = input_dataset

    def _inputs(self):
        return [self._input]

    def _cardinality(self):
        return self._input._cardinality()

    def _compute_spec(self):
        return self._input.element_spec


class _Failed:
    """An error raised while producing one element, kept to be raised in its turn."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


class PrimedIterator:
    """An iterator started to learn a dataset's spec, with the elements it produced.

    Finding an ``element_spec`` runs the pipeline up to its first element. Those
    elements (and any errors met on the way) are kept, and the next iterator of
    the dataset continues this one, so no user function runs twice for an element.
    """

    __slots__ = ("_done", "_it", "_ctx")

    def __init__(self, done, it, ctx):
        self._done = done
        self._it = it
        self._ctx = ctx

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            e = self._done.pop(0)
            if type(e) is _Failed:
                raise e.error
            return e
        return next(self._it)

    def close(self):
        self._done = []
        close_iter(self._it)
        self._ctx.close()

    def join(self):
        return None


_EMPTY = object()
_MAX_FAILED = 64  # elements that may raise before the spec computation gives up


def prime(ds, fresh_iter):
    """The first element ``fresh_iter`` produces for ``ds`` (``_EMPTY`` if none).

    The iterator and what it produced are kept on ``ds`` for ``take_primed``.
    Elements whose function raised are kept as errors (raised in their turn
    later) and the search goes on; if every element raised, the first error is
    raised here.
    """
    ctx = IterContext(ds.options())
    it = fresh_iter(ctx)
    done: list = []
    while True:
        try:
            first = next(it)
        except StopIteration:
            close_iter(it)
            ctx.close()
            if done:
                ds._primed = PrimedIterator(done, iter(()), ctx)
                raise done[0].error from None
            return _EMPTY
        except Exception as e:
            done.append(_Failed(e))
            if len(done) < _MAX_FAILED:
                continue
            ds._primed = PrimedIterator(done, it, ctx)
            raise
        done.append(first)
        ds._primed = PrimedIterator(done, it, ctx)
        return first


def take_primed(ds, ctx):
    """The iterator a spec computation left on ``ds`` (once), or None."""
    p = ds.__dict__.pop("_primed", None)
    if p is None:
        return None
    if ctx._replay:
        # A restored iterator replays with its saved shuffle seeds; the primed one drew
        # its own, so it cannot be used (its first elements are recomputed).
        p.close()
        return None
    ctx.seed_log.extend(p._ctx.seed_log)
    ctx.register(p)
    return p


def function_output_spec(ds, fresh_iter, fn, what):
    """Spec of a function's output: its trace's for the input's spec, as TF's
    (``_fn_spec``), or, where the function cannot be traced on stand-ins, that of
    the first element ``ds`` produces (``ds._spec_from_element`` then says so).

    A first element is kept and is the one the next iteration yields (see
    ``PrimedIterator``): the function runs once per element, as in TF. Over an
    empty input the function runs once on zeros of the input's spec.
    """
    spec = _fn_spec.output_spec(fn, _fn_spec.args_of(ds._input.element_spec),
                                lambda out: normalize_output(out, what),
                                _fn_spec.batch_rows(ds._input))
    if spec is not None:
        ds._spec_from_element = False
        return spec
    ds._spec_from_element = True
    first = prime(ds, fresh_iter)
    if first is not _EMPTY:
        return _structure.spec_of(first)
    spec = ds._input.element_spec
    zeros = _structure.map_structure(
        lambda s: data_ops.from_numpy(
            np.zeros([1 if d is None else d for d in (s.shape.as_list() or [])]
                     if s.shape.rank is not None else [],
                     dtype=object if s.dtype == dtypes.string else s.dtype.as_numpy_dtype),
            s.dtype), spec)
    return _structure.spec_of(normalize_output(call_fn(fn, zeros), what))


def spec_from_element(ds) -> bool:
    """Whether ``ds``'s spec (computed here) is its first element's, not a trace's."""
    ds.element_spec  # noqa: B018 - computes it, and the flag with it
    return ds.__dict__.get("_spec_from_element", True)


class MapDataset(UnaryDataset):
    def _spec_inferred(self) -> bool:
        return spec_from_element(self)

    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        if not callable(fn):
            raise TypeError(f"`map_func` must be callable, got {fn!r}.")
        self._fn = traced_fn.traced(fn)

    def _make_iter(self, ctx):
        return take_primed(self, ctx) or self._fresh_iter(ctx)

    def _fresh_iter(self, ctx):
        # cycle: vectorize builds OptionsDataset and normalize_output of this module.
        from torchflow._src.data import vectorize

        if vectorize.enabled(self._input, ctx):
            return vectorize.vectorized_map_iter(vectorize.slices_source(self._input, ctx),
                                                 self._fn)
        return _map_iter(self._input._make_iter(ctx), self._fn)

    def _compute_spec(self):
        return function_output_spec(self, self._fresh_iter, self._fn, "Dataset.map()")


class _MapIterator:
    """A class, not a generator, so iteration goes on after the function raised
    for one element, as in TF."""

    __slots__ = ("_it", "_fn")

    def __init__(self, it, fn):
        self._it = it
        self._fn = fn

    def __iter__(self):
        return self

    def __next__(self):
        element = next(self._it)
        if type(element) is tuple:
            out = self._fn(*element)
        else:
            out = self._fn(element)
        t = type(out)
        if t is not Tensor and not (t is tuple and all(type(v) is Tensor for v in out)):
            out = normalize_output(out)
        return out

    def close(self):
        close_iter(self._it)


def _map_iter(it, fn):
    return _MapIterator(it, fn)


class FilterDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._pred = traced_fn.traced(predicate) if callable(predicate) else predicate

    def _make_iter(self, ctx):
        return _filter_iter(self._input._make_iter(ctx), self._pred)

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN


def _filter_iter(it, pred):
    try:
        for element in it:
            if predicate_value(call_fn(pred, element), "Dataset.filter()"):
                yield element
    finally:
        close_iter(it)


class TakeDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = int64_arg(count, "count")

    def _make_iter(self, ctx):
        if self._count < 0:
            return self._input._make_iter(ctx)
        return _take_iter(self._input._make_iter(ctx), self._count)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == UNKNOWN:
            return UNKNOWN
        return self._count if n == INFINITE else min(n, self._count)


def _take_iter(it, n):
    try:
        for i, element in enumerate(it):
            if i >= n:
                return
            yield element
            if i + 1 >= n:
                return
    finally:
        close_iter(it)


class SkipDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = int64_arg(count, "count")

    def _make_iter(self, ctx):
        return _skip_iter(self._input._make_iter(ctx), self._count)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._count < 0:
            return 0
        return max(0, n - self._count)


def _skip_iter(it, n):
    try:
        if n < 0:
            for _ in it:
                pass
            return
        for i, element in enumerate(it):
            if i >= n:
                yield element
    finally:
        close_iter(it)


class TakeWhileDataset(UnaryDataset):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._pred = traced_fn.traced(predicate) if callable(predicate) else predicate

    def _make_iter(self, ctx):
        return _take_while_iter(self._input._make_iter(ctx), self._pred)

    def _cardinality(self):
        return UNKNOWN


def _take_while_iter(it, pred):
    try:
        for element in it:
            if not predicate_value(call_fn(pred, element), "Dataset.take_while()"):
                return
            yield element
    finally:
        close_iter(it)


class RepeatDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else int64_arg(count, "count")

    def _make_iter(self, ctx):
        return _repeat_iter(self._input, ctx, self._count)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return 0 if n == 0 else (UNKNOWN if n == UNKNOWN else INFINITE)
        if n < 0:
            return n
        return n * self._count


def _repeat_iter(ds, ctx, count):
    i = 0
    while count < 0 or i < count:
        it = ds._make_iter(ctx)
        got = False
        try:
            for element in it:
                got = True
                yield element
        finally:
            close_iter(it)
        if not got:  # an empty input repeated forever is empty, as in TF
            return
        i += 1


class ShuffleDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, buffer_size, seed, reshuffle):
        super().__init__(input_dataset)
        buffer_size = int64_arg(buffer_size, "buffer_size")
        if buffer_size <= 0 and buffer_size != -1:
            raise InvalidArgumentError(None, None, "buffer_size must be greater than zero.")
        self._buffer = buffer_size
        self._seeds = op_seeds(None if seed is None else int(seed))
        self._reshuffle = reshuffle
        self._epoch = 0
        self._fixed = (random.SystemRandom().getrandbits(63) if self._seeds is None
                       else hash(self._seeds) & (2**63 - 1))

    def _iter_seed(self, ctx):
        """(seed, buffer size) for a new iterator (the fused batch path uses it too)."""
        if self._reshuffle:
            self._epoch += 1
            if self._seeds is None:
                fixed = None
            else:
                fixed = hash((self._seeds, self._epoch)) & (2**63 - 1)
        else:
            fixed = self._fixed
        seed = ctx.draw_seed(fixed)
        return seed, (self._buffer if self._buffer > 0 else 1 << 62)

    def _make_iter(self, ctx):
        seed, size = self._iter_seed(ctx)
        return _shuffle_iter(self._input._make_iter(ctx), size, random.Random(seed))


def _shuffle_iter(it, size, rng):
    buf = []
    rand = rng.random
    try:
        for element in it:
            if len(buf) < size:
                buf.append(element)
                continue
            j = int(rand() * size)
            out = buf[j]
            buf[j] = element
            yield out
        while buf:
            j = int(rand() * len(buf))
            out = buf[j]
            buf[j] = buf[-1]
            buf.pop()
            yield out
    finally:
        close_iter(it)


class CacheDataset(UnaryDataset):
    """``cache``: in memory, or in a ``<filename>.tfcache`` file (NumPy arrays, pickled).

    The file is written when the first pass over the input completes; a pass
    that stops early leaves no file, so a later pass reads the input again (TF
    discards a partial cache the same way). Once the file exists, iteration and
    ``element_spec`` read it and never run the input pipeline. The file is
    torchflow's own format, not TF's tensor-bundle ``.index``/``.data`` pair.
    """

    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._filename = os.fspath(filename) if not isinstance(filename, Tensor) else \
            data_ops.to_python(filename).decode()
        self._memory = None

    def _path(self):
        return self._filename + ".tfcache"

    def _compute_spec(self):
        if self._filename and os.path.exists(self._path()):
            return _load_file_cache(self._path())[0]
        return self._input.element_spec

    def _make_iter(self, ctx):
        if not self._filename:
            if self._memory is not None:
                return iter(self._memory)
            return self._fill_memory(self._input._make_iter(ctx))
        path = self._path()
        if os.path.exists(path):
            return _read_file_cache(path)
        # The spec goes into the file. Found before iterating: a spec computation
        # leaves its iterator for the _make_iter that follows, so nothing runs twice.
        spec = self._input.element_spec
        return self._fill_file(self._input._make_iter(ctx), path, spec)

    def _fill_memory(self, it):
        store = []
        try:
            for element in it:
                store.append(element)
                yield element
        finally:
            close_iter(it)
        self._memory = store  # only a complete pass is kept, as TF does

    def _fill_file(self, it, path, spec):
        store = []
        try:
            for element in it:
                store.append(_structure.flatten(element))
                yield element
        finally:
            close_iter(it)
        # Reached only when the input is exhausted: an abandoned pass writes nothing.
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            pickle.dump({"spec": spec, "rows": [[(t.numpy(), t.dtype.name) for t in e]
                                                for e in store]},
                        f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)


def _load_file_cache(path):
    with open(path, "rb") as f:
        data = pickle.load(f)
    return data["spec"], data["rows"]


def _read_file_cache(path):
    spec, rows = _load_file_cache(path)
    for flat in rows:
        yield _structure.pack_as(spec, [data_ops.from_numpy(a, dtypes.as_dtype(d))
                                        for a, d in flat])


class ShardDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        num_shards = int64_arg(num_shards, "num_shards")
        index = int64_arg(index, "index")
        if num_shards < 1:
            raise InvalidArgumentError(None, None, "Number of shards must be greater than zero "
                                       f"(currently num_shards = {num_shards}).")
        if not 0 <= index < num_shards:
            raise InvalidArgumentError(None, None, "Index must be between 0 and "
                                       f"{num_shards - 1} (currently index = {index}).")
        self._n, self._i = num_shards, index

    def _make_iter(self, ctx):
        return _shard_iter(self._input._make_iter(ctx), self._n, self._i)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._n + (1 if n % self._n > self._i else 0)


def _shard_iter(it, n, i):
    try:
        for k, element in enumerate(it):
            if k % n == i:
                yield element
    finally:
        close_iter(it)


class OptionsDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._options_value = options

    def _make_iter(self, ctx):
        return self._input._make_iter(ctx)


class AssertCardinalityDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, expected):
        super().__init__(input_dataset)
        self._expected = int(expected)

    def _cardinality(self):
        return self._expected

    def _make_iter(self, ctx):
        return _assert_card_iter(self._input._make_iter(ctx), self._expected)


def _fmt_card(n):
    return "infinite" if n == INFINITE else ("unknown" if n == UNKNOWN else str(n))


def _assert_card_iter(it, expected):
    n = 0
    try:
        for element in it:
            n += 1
            if expected >= 0 and n > expected:
                raise _card_error(expected, "at least", n)
            yield element
    finally:
        close_iter(it)
    if n != expected:
        raise _card_error(expected, "", n)


def _card_error(expected, qual, n):
    got = f"{qual} {n}".strip()
    unit = "element" if n == 1 and not qual else "elements"
    return FailedPreconditionError(
        None, None, f"Input dataset was expected to contain {_fmt_card(expected)} elements but "
        f"contained only {got} {unit}." if not qual else
        f"Input dataset was expected to contain {_fmt_card(expected)} elements but contained "
        f"{got} {unit}.")


class IgnoreErrorsDataset(UnaryDataset):
    _same_elements = True  # its elements are its input's (_fn_spec.batch_rows)

    def __init__(self, input_dataset, log_warning=False):
        super().__init__(input_dataset)
        self._log = log_warning

    def _cardinality(self):
        return UNKNOWN

    def _make_iter(self, ctx):
        return _ignore_errors_iter(self._input._make_iter(ctx), self._log)


def _ignore_errors_iter(it, log):
    try:
        while True:
            try:
                element = next(it)
            except StopIteration:
                return
            except OpError as e:
                if log:
                    logging.getLogger("torchflow").warning("Error raised with error message %s",
                                                           e)
                continue
            yield element
    finally:
        close_iter(it)


class UniqueDataset(UnaryDataset):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        spec = input_dataset.element_spec
        if _structure.is_nested(spec) or not (spec.dtype.is_integer or spec.dtype ==
                                               dtypes.string):
            raise TypeError("`tf.data.Dataset.unique` does not support type "
                            f"{spec}. It supports scalar integer and string elements.")

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN

    def _make_iter(self, ctx):
        return _unique_iter(self._input._make_iter(ctx))


def _unique_iter(it):
    seen = set()
    try:
        for element in it:
            key = data_ops.to_python(element)
            if key not in seen:
                seen.add(key)
                yield element
    finally:
        close_iter(it)


def check_new_state(state, new, what) -> None:
    """TF 2.4's checks of a new ``reduce``/``scan`` state against the old one: the same
    structure and dtypes (shapes may change: TF traces again with relaxed shapes)."""
    if type(state) is Tensor and type(new) is Tensor:
        if state.dtype == new.dtype:
            return
    elif _structure.same_structure(state, new) and all(
            getattr(a, "dtype", None) == getattr(b, "dtype", None)
            for a, b in zip(_structure.flatten(state), _structure.flatten(new))):
        return
    old_spec, new_spec = _structure.spec_of(state), _structure.spec_of(new)
    if not _structure.same_structure(state, new):
        raise TypeError(f"The element types for the new state must match the initial "
                        f"state. Expected {old_spec}; got {new_spec}.")
    old_t = _structure.map_structure(lambda s: s.dtype, old_spec)
    new_t = _structure.map_structure(lambda s: s.dtype, new_spec)
    if _structure.flatten(old_t) != _structure.flatten(new_t):
        raise TypeError(f"The element types for the new state must match the initial "
                        f"state. Expected {old_t}; got {new_t}.")


def reduce_dataset(dataset, initial_state, reduce_func):
    state = normalize_output(initial_state, "Dataset.reduce()")
    fn = traced_fn.traced(reduce_func)
    it = OwnedIterator(dataset)
    try:
        for element in it:
            new = normalize_output(fn(state, element), "Dataset.reduce()")
            check_new_state(state, new, "Dataset.reduce()")
            state = new
    finally:
        it._close()
    return state
