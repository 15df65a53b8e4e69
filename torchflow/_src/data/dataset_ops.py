"""``tf.data.Dataset``: the public class and its transformation methods.

Each method builds a small dataset object (sources in ``sources.py``,
transformations in ``transforms.py``, ``batching.py``, ``parallel.py``). A
dataset is a description; iterating it builds a chain of Python iterators
(``_make_iter``), with threads only where a transformation asks for
parallelism or prefetching (see ``parallel.py``).
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.tensor import Tensor
from torchflow._src.data import _structure
from torchflow._src.data.iterator_ops import OwnedIterator
from torchflow._src.data.options import Options
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


def int64_arg(value, name: str) -> int:
    """A scalar int64 argument (``batch_size``, ``count`` ...), converted TF's way.

    Python ints, bools and integral NumPy values are accepted; a Python float or
    a string raises ``TypeError`` and a Tensor of another dtype ``ValueError``,
    with TF's messages (TF converts these with ``convert_to_tensor(dtype=int64)``).
    """
    if isinstance(value, (bool, int, np.integer)):
        return int(value)
    if isinstance(value, Tensor):
        if value.dtype != dtypes.int64:
            raise ValueError(f"{name}: Tensor conversion requested dtype int64 for Tensor "
                             f"with dtype {value.dtype.name}: {value!r}")
        return int(value.numpy())
    if value is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor.")
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0 and \
            np.asarray(value).dtype.kind in "iuf" and float(value) == int(value):
        return int(value)
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64")


@public("torchflow.data")
class DatasetV2:
    """A potentially large set of elements, consumed by iteration.

    Build one from a source (``from_tensor_slices``, ``range``, ``from_generator``,
    file readers) and chain transformations (``map``, ``shuffle``, ``batch`` ...).

    >>> import torchflow as tf
    >>> ds = tf.data.Dataset.range(6).map(lambda x: x * 2).batch(4)
    >>> [b.numpy().tolist() for b in ds]
    [[0, 2, 4, 6], [8, 10]]

    Every user function of a transformation (``map``, ``filter``, ``flat_map``,
    ``interleave``, ``reduce``, ``scan``, ``take_while``, ``group_by_window``,
    ``group_by_reducer`` ...) is traced as in TF: its Python runs when it traces,
    its ops (``tf.print``, ``tf.py_function``) for every element, and
    ``tf.executing_eagerly()`` is False inside. A function returning a dataset
    traces once too; later elements get a copy of the traced dataset holding
    their own tensors. Differences from TensorFlow 2.4: a function traces at the
    first element that reaches it (TF: when the transformation is built, so TF's
    construction-time errors come at the first element); a new element shape
    runs the Python again until two recordings at different sizes are the same
    code, which then serves every size (TF traces once, with unknown
    dimensions; docs/function.md); a function whose
    trace cannot be replayed (string tensors, tensor values read into Python, a
    returned dataset whose inner function captures the element) runs its Python
    for every element. The ``element_spec`` of a ``map`` (``scan``,
    ``interleave`` ...) is that of the function's output on the first element:
    that output is kept and is what iteration yields first, so no call is
    repeated; dimensions TF's tracing leaves unknown (because they depend on the
    values) are the first element's there. ``padded_batch`` pads such
    dimensions to the longest in each batch, so varying lengths still work.
    Over an empty input the function is called once on zeros to find the spec.
    ``options.experimental_optimization.map_vectorization.enabled = True``
    calls a ``map`` over ``from_tensor_slices`` on chunks of rows (see
    ``_src/data/vectorize.py``).

    Args:
      *args: ``Dataset`` itself is abstract, built only by its subclasses; make
        one with a source method (``Dataset.range``, ``from_tensor_slices`` ...)
        or a reader class (``tf.data.TFRecordDataset`` ...). TF 2.4's
        constructor takes a variant tensor and is not for users either.
      **kwargs: As ``*args``.
    """

    _spec_cache = None
    _options_value = None
    _born = -1  # graph_trace.serial() at creation: a loop over a dataset a trace made
    #            itself is not recorded (autograph_dataset_loop)

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        obj._born = graph_trace.serial()
        return obj

    # cycle: the methods below build the dataset classes of sources.py, transforms.py,
    # batching.py, parallel.py, interleave.py and readers.py, which all subclass
    # DatasetV2; so each method imports its class when called (the one cycle in _src/data,
    # listed in tests/api/test_layering.py).

    # --- to be provided by subclasses --------------------------------------
    def _make_iter(self, ctx):
        raise NotImplementedError

    def _inputs(self) -> list:
        return []

    def _cardinality(self) -> int:
        return UNKNOWN

    def _compute_spec(self):
        raise NotImplementedError

    def _spec_inferred(self) -> bool:
        """True when the spec was read off a function's output on one element (not
        traced), so its dimensions may be more specific than TF's."""
        return any(d._spec_inferred() for d in self._inputs())

    # --- iteration ---------------------------------------------------------
    def __iter__(self):
        # A loop over a dataset in a traced function is not recorded (TF's AutoGraph
        # makes it a graph loop): such a function runs eagerly.
        graph_trace.mark_eager("the body iterates over a tf.data.Dataset")
        return OwnedIterator(self)

    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __repr__(self) -> str:
        spec = self.element_spec
        return (f"<{type(self).__name__} shapes: {_spec_str(spec, 'shape')}, "
                f"types: {_spec_str(spec, 'dtype')}>")

    def as_numpy_iterator(self):
        """An iterator over the elements as NumPy values (nested structure kept).

        >>> import torchflow as tf
        >>> [int(x) for x in tf.data.Dataset.range(3).as_numpy_iterator()]
        [0, 1, 2]
        """
        for leaf in _structure.flatten(self.element_spec):
            if not hasattr(leaf, "dtype"):
                raise TypeError(f"Dataset.as_numpy_iterator() does not support datasets "
                                f"containing {type(leaf).__name__}.")
        return _NumpyIterator(iter(self))

    # --- metadata ----------------------------------------------------------
    @property
    def element_spec(self):
        """The nested ``tf.TensorSpec`` of one element."""
        if self._spec_cache is None:
            # Not part of a trace that asks for it (a dataset made in a flat_map
            # function): what finding the spec runs (a first element) is not recorded.
            with graph_trace.paused():
                self._spec_cache = self._compute_spec()
        return self._spec_cache

    def cardinality(self):
        """The number of elements as a scalar int64 Tensor; ``INFINITE`` (-1) or
        ``UNKNOWN`` (-2) when it is not a known finite number."""
        return data_ops.scalar(self._cardinality(), dtypes.int64)

    def options(self):
        """The ``tf.data.Options`` in effect for this dataset."""
        if self._options_value is not None:
            return self._options_value
        merged = Options()
        for d in self._inputs():
            merged = merged.merge(d.options())
        return merged

    def with_options(self, options):
        """A dataset with ``options`` merged into the current ones."""
        from torchflow._src.data.transforms import OptionsDataset

        return OptionsDataset(self, self.options().merge(options))

    # --- sources -----------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset whose elements are slices of ``tensors`` along dimension 0.

        Args:
          tensors: A nested structure (tuples, dicts) of tensors, arrays or lists,
            all with the same size of dimension 0.

        Returns:
          A ``Dataset``.

        Raises:
          ValueError: If the components' first dimensions differ, or a component
            is a scalar.

        >>> import torchflow as tf
        >>> [int(x) for x in tf.data.Dataset.from_tensor_slices([1, 2])]
        [1, 2]
        """
        from torchflow._src.data.sources import TensorSliceDataset

        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset with the single element ``tensors``."""
        from torchflow._src.data.sources import TensorDataset

        return TensorDataset(tensors)

    @staticmethod
    def range(*args, **kwargs):
        """``range(stop)``, ``range(start, stop[, step])``; elements int64 unless
        ``output_type=`` says otherwise.

        >>> import torchflow as tf
        >>> [int(x) for x in tf.data.Dataset.range(1, 6, 2)]
        [1, 3, 5]
        """
        from torchflow._src.data.sources import RangeDataset

        dtype = kwargs.pop("output_type", kwargs.pop("dtype", dtypes.int64))
        kwargs.pop("name", None)
        if kwargs:
            raise TypeError(f"range() got unexpected keyword arguments {sorted(kwargs)}")
        return RangeDataset(args, dtypes.as_dtype(dtype))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """A dataset of the values ``generator(*args)`` yields.

        Args:
          generator: A callable returning an iterable.
          output_types: (Deprecated form) nested dtypes of an element.
          output_shapes: (Deprecated form) nested shapes, with ``output_types``.
          args: A tuple of values passed (as Tensors) to ``generator``.
          output_signature: Nested ``tf.TensorSpec`` of an element.

        Raises:
          TypeError: If neither ``output_signature`` nor ``output_types`` is given,
            or both are.
        """
        from torchflow._src.data.sources import GeneratorDataset

        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(datasets, name=None):
        """Zips a (nested) structure of datasets; stops at the shortest.

        >>> import torchflow as tf
        >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(3, 5)
        >>> [tuple(map(int, x)) for x in tf.data.Dataset.zip((a, b))]
        [(0, 3), (1, 4)]
        """
        from torchflow._src.data.sources import ZipDataset

        return ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """A dataset of the file names matching ``file_pattern`` (shuffled by default)."""
        from torchflow._src.data.readers import list_files

        return list_files(file_pattern, shuffle, seed)

    # --- transformations ---------------------------------------------------
    def concatenate(self, dataset, name=None):
        """The elements of ``self`` followed by those of ``dataset`` (same structure)."""
        from torchflow._src.data.sources import ConcatenateDataset

        return ConcatenateDataset(self, dataset)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies ``map_func`` to each element (a tuple element is passed unpacked).

        Args:
          map_func: Function of an element's components, returning a nested
            structure of tensors.
          num_parallel_calls: None (sequential), an int, or ``tf.data.AUTOTUNE``:
            how many elements are processed at once on a thread pool.
          deterministic: False lets elements come out in completion order.

        >>> import torchflow as tf
        >>> [int(x) for x in tf.data.Dataset.range(3).map(lambda x: x + 1)]
        [1, 2, 3]
        """
        if num_parallel_calls is None or num_parallel_calls == 0:
            from torchflow._src.data.transforms import MapDataset

            return MapDataset(self, map_func)
        from torchflow._src.data.parallel import ParallelMapDataset

        return ParallelMapDataset(self, map_func, int(num_parallel_calls), deterministic)

    def filter(self, predicate, name=None):
        """Keeps the elements for which ``predicate`` returns True (a scalar bool)."""
        from torchflow._src.data.transforms import FilterDataset

        return FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks ``batch_size`` consecutive elements into one.

        >>> import torchflow as tf
        >>> [b.numpy().tolist() for b in tf.data.Dataset.range(5).batch(2)]
        [[0, 1], [2, 3], [4]]
        """
        from torchflow._src.data.batching import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches elements of different shapes, padding each component to
        ``padded_shapes`` (None or -1 dims: the longest in the batch)."""
        from torchflow._src.data.batching import PaddedBatchDataset

        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                  drop_remainder)

    def unbatch(self, name=None):
        """Splits each element along dimension 0 into several elements."""
        from torchflow._src.data.batching import UnbatchDataset

        return UnbatchDataset(self)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows, each a (structure of) dataset of ``size`` elements."""
        from torchflow._src.data.batching import WindowDataset

        return WindowDataset(self, size, shift, stride, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Shuffles with a buffer of ``buffer_size`` elements (uniform within it).

        Args:
          buffer_size: Number of elements held; ``>= len`` gives a full shuffle.
          seed: Op seed; with ``tf.random.set_seed`` it makes the order repeatable.
          reshuffle_each_iteration: A new order for each iterator (default True).
        """
        from torchflow._src.data.transforms import ShuffleDataset

        return ShuffleDataset(self, buffer_size, seed,
                              True if reshuffle_each_iteration is None
                              else reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """Repeats the dataset ``count`` times (None or -1: forever)."""
        from torchflow._src.data.transforms import RepeatDataset

        return RepeatDataset(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (-1: all)."""
        from torchflow._src.data.transforms import TakeDataset

        return TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (-1: skip all)."""
        from torchflow._src.data.transforms import SkipDataset

        return SkipDataset(self, count)

    def take_while(self, predicate, name=None):
        """Elements up to (not including) the first for which ``predicate`` is False."""
        from torchflow._src.data.transforms import TakeWhileDataset

        return TakeWhileDataset(self, predicate)

    def prefetch(self, buffer_size, name=None):
        """Produces elements ahead of the consumer on a background thread.

        ``buffer_size`` elements at most are held; ``tf.data.AUTOTUNE`` sizes the
        buffer from how often the consumer has to wait.
        """
        from torchflow._src.data.parallel import PrefetchDataset

        return PrefetchDataset(self, buffer_size)

    def cache(self, filename="", name=None):
        """Caches elements in memory (``filename=""``) or in files under ``filename``
        on the first complete pass; later passes read the cache."""
        from torchflow._src.data.transforms import CacheDataset

        return CacheDataset(self, filename)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """Maps each element to a dataset and interleaves them: ``block_length``
        elements from each of ``cycle_length`` open datasets in turn."""
        from torchflow._src.data.interleave import InterleaveDataset

        return InterleaveDataset(self, map_func, cycle_length, block_length,
                                 num_parallel_calls, deterministic)

    def flat_map(self, map_func, name=None):
        """Maps each element to a dataset and concatenates them."""
        from torchflow._src.data.interleave import InterleaveDataset

        return InterleaveDataset(self, map_func, 1, 1, None, None)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``.

        Raises:
          InvalidArgumentError: If ``num_shards < 1`` or ``index`` is out of range.
        """
        from torchflow._src.data.transforms import ShardDataset

        return ShardDataset(self, num_shards, index)

    def _as_serialized_graph(self, allow_stateful=None, strip_device_assignment=None,
                             external_state_policy=None):
        """The pipeline as a scalar string Tensor: a serialized ``GraphDef`` of TF dataset
        ops (TF's private method; ``tf.raw_ops.DatasetFromGraph`` in TF runs it).

        Raises:
          tf.errors.UnimplementedError: A part of the pipeline has no graph form
            (``from_generator``, ``py_function``, ``flat_map`` ...).
        """
        # cycle: dataset_graph reads the transformation classes, which subclass this one.
        from torchflow._src.data import dataset_graph

        return data_ops.scalar(dataset_graph.serialize(self), dtypes.string)

    def enumerate(self, start=0, name=None):
        """Pairs each element with its int64 index: ``(i, element)``."""
        from torchflow._src.data.sources import RangeDataset, ZipDataset

        return ZipDataset((RangeDataset((int(start), np.iinfo(np.int64).max), dtypes.int64),
                           self))

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds all elements into one state: ``state = reduce_func(state, element)``.

        >>> import torchflow as tf
        >>> int(tf.data.Dataset.range(5).reduce(tf.constant(0, tf.int64),
        ...                                     lambda s, x: s + x))
        10
        """
        from torchflow._src.data.transforms import reduce_dataset

        return reduce_dataset(self, initial_state, reduce_func)

    def apply(self, transformation_func):
        """Returns ``transformation_func(self)`` (which must return a Dataset)."""
        ds = transformation_func(self)
        if not isinstance(ds, DatasetV2):
            raise TypeError("`transformation_func` must return a Dataset. Got "
                            f"{type(ds).__name__}.")
        return ds

    def unique(self, name=None):
        """The distinct elements (scalar int or string components), first seen kept."""
        from torchflow._src.data.transforms import UniqueDataset

        return UniqueDataset(self)


    # --- newer spellings of tf.data.experimental transformations ------------------
    # (TF 2.6+ methods; TF 2.4 programs use the experimental functions, which these call.)
    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        """``tf.data.experimental.group_by_window`` as a method."""
        from torchflow._src.data.experimental import group_by_window

        return self.apply(group_by_window(key_func, reduce_func, window_size,
                                          window_size_func))

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        """``tf.data.experimental.bucket_by_sequence_length`` as a method."""
        from torchflow._src.data.experimental import bucket_by_sequence_length

        return self.apply(bucket_by_sequence_length(
            element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder))

    def scan(self, initial_state, scan_func, name=None):
        """``tf.data.experimental.scan`` as a method."""
        from torchflow._src.data.experimental_ops import scan

        return self.apply(scan(initial_state, scan_func))

    def ignore_errors(self, log_warning=False, name=None):
        """``tf.data.experimental.ignore_errors`` as a method."""
        from torchflow._src.data.experimental import ignore_errors

        return self.apply(ignore_errors(log_warning))

    def get_single_element(self, name=None):
        """``tf.data.experimental.get_single_element`` as a method."""
        from torchflow._src.data.experimental import get_single_element

        return get_single_element(self)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        """``tf.data.experimental.rejection_resample`` as a method."""
        from torchflow._src.data.resampling import rejection_resample

        return self.apply(rejection_resample(class_func, target_dist, initial_dist, seed))

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None,
                 name=None):
        """``tf.data.experimental.snapshot`` as a method."""
        from torchflow._src.data.experimental_ops import snapshot

        return self.apply(snapshot(path, compression, reader_func, shard_func))

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """``tf.data.experimental.save`` as a method."""
        from torchflow._src.data.experimental_ops import save

        return save(self, path, compression, shard_func)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None):
        """``tf.data.experimental.load`` as a static method."""
        from torchflow._src.data.experimental_ops import load

        return load(path, element_spec, compression, reader_func)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """``tf.data.experimental.choose_from_datasets`` (default
        ``stop_on_empty_dataset=True``, as TF's method)."""
        from torchflow._src.data.experimental import choose_from_datasets

        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """``tf.data.experimental.sample_from_datasets`` as a static method."""
        from torchflow._src.data.experimental import sample_from_datasets

        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name=None):
        """``tf.data.experimental.Counter`` as a static method."""
        from torchflow._src.data.experimental_ops import Counter

        return Counter(start, step, dtype)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """``tf.data.experimental.RandomDataset`` as a static method."""
        from torchflow._src.data.experimental_ops import RandomDataset

        return RandomDataset(seed)


class _NumpyIterator:
    __slots__ = ("_it",)

    def __init__(self, it):
        self._it = it

    def __iter__(self):
        return self

    def __next__(self):
        return _structure.to_numpy(next(self._it))

    next = __next__


def _spec_str(spec, what) -> str:
    """TF 2.4's repr of a nested spec's shapes or types: ``{a: (2,), b: ()}``."""
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k}: {_spec_str(v, what)}" for k, v in spec.items()) + "}"
    if isinstance(spec, tuple):
        inner = ", ".join(_spec_str(v, what) for v in spec)
        return f"({inner},)" if len(spec) == 1 else f"({inner})"
    if isinstance(spec, DatasetV2):
        return f"{type(spec).__name__}"
    if what == "dtype":
        return repr(spec.dtype)
    dims = spec.shape.dims
    if dims is None:
        return "<unknown>"
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


Dataset = DatasetV2
