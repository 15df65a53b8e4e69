"""A dataset as a TF ``GraphDef`` of dataset ops (what ``dataset._as_serialized_graph()`` writes).

Each transformation is one node with TF's op name, inputs and attributes
(``RangeDataset``, ``TensorSliceDataset``, ``MapDataset`` / ``ParallelMapDatasetV2``,
``FilterDataset``, ``BatchDatasetV2``, ``PaddedBatchDatasetV2``, ``UnbatchDataset``,
``ShuffleDataset``, ``RepeatDataset``,
``TakeDataset``, ``SkipDataset``, ``PrefetchDataset``, ``ShardDataset``, ``ZipDataset``,
``ConcatenateDataset``, ``CacheDataset``, ``TFRecordDataset``, ``TextLineDataset``;
``FlatMapDataset``, ``InterleaveDataset``, ``ParallelInterleaveDatasetV4`` and
``WindowDataset`` in ``dataset_graph_fn``),
scalar arguments are ``Const`` nodes, and the graph's one ``_Retval`` (``dataset``)
reads the last dataset. Element functions (``map``, ``filter``) are their traced
graphs, written as ``FunctionDef``\\ s into the graph's library (captured tensors
become constants inside the function). Real TF runs such a graph with
``tf.raw_ops.DatasetFromGraph``; ``dataset_graph_read.dataset_from_graph`` rebuilds a
torchflow dataset from it (or from one TF wrote).

A dataset that cannot be written so raises ``UnserializableDatasetError``: a source
of Python values (``from_generator``), a function whose graph holds no TF op
(``py_function``), reads a variable or whose recording runs eagerly (it reads
element values into Python, or calls string ops that run outside the recording),
sparse elements, ragged elements except through ``from_tensor_slices`` or
``from_tensors`` of a RaggedTensor and the transformations that do not look into an
element (each ragged element is one ``DT_VARIANT``: ``dataset_graph_ragged``; a
function of ragged elements, ``unbatch`` and ``padded_batch`` of them are not
written), a ``flat_map``/``interleave`` function whose dataset is built from string
tensors computed from the element or from values read into Python
(``dataset_graph_fn``), and the transformations not listed above.
``OptionsDataset`` (``with_options``) is left out of the graph: options do not change
the elements.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import dtypes, errors, graph_trace, op_graph
from torchflow._src.core.proto import tf_function_pb2, tf_graph_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import (
    _structure,
    batching,
    dataset_graph_ragged,
    parallel,
    readers,
    sources,
    transforms,
)
from torchflow._src.ops import data_ops
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec

_PRODUCER = 561  # TF 2.4's GraphDef version
_READ_BUFFER = 256 * 1024  # TF's default reader buffer (bytes)
_DT_VARIANT = 21  # tensorflow.DataType DT_VARIANT (no torchflow dtype)


class UnserializableDatasetError(errors.UnimplementedError):
    """The dataset cannot be written as a graph of TF dataset ops."""

    def __init__(self, message: str):
        super().__init__(None, None, message)


def _flat_specs(ds, ragged: bool = False) -> list:
    """The flat specs of ``ds``'s elements; raises for composite ones (RaggedTensors,
    one ``DT_VARIANT`` each, where ``ragged``)."""
    flat = _structure.flatten(ds.element_spec)
    for s in flat:
        if type(s) is not TensorSpec and not (ragged and type(s) is RaggedTensorSpec):
            raise UnserializableDatasetError(
                f"Cannot write a dataset of {type(s).__name__} elements as a graph")
    return flat


def _shape(s):
    if type(s) is not TensorSpec or s.shape.rank is None:
        return op_graph.shape_attr(None)
    return op_graph.shape_attr(s.shape.as_list())


class _Variant:
    """``DT_VARIANT`` in a type-list attribute (no torchflow dtype)."""


VARIANT = _Variant()


_SCALAR_FIELDS = {dtypes.int64: "int64_val", dtypes.int32: "int_val", dtypes.bool: "bool_val"}


class _Writer:
    """Builds the GraphDef: one node per dataset (each written once), constants and
    the library of functions."""

    def __init__(self):
        self.gd = tf_graph_pb2.GraphDef()
        self._count = 0
        self._memo: dict = {}
        self._fn_count = 0

    def _name(self, op: str) -> str:
        name = f"{op}/_{self._count}"
        self._count += 1
        return name

    def node(self, op: str, inputs: list, attrs: dict) -> str:
        nd = self.gd.node.add(name=self._name(op), op=op)
        nd.input.extend(inputs)
        for k, v in attrs.items():
            if type(v) is list and any(x is VARIANT for x in v):
                nd.attr[k].list.type.extend(
                    _DT_VARIANT if x is VARIANT else x.as_datatype_enum for x in v)
            else:
                nd.attr[k].CopyFrom(op_graph.attr_value(v))
        return nd.name

    def const(self, value, dtype=None) -> str:
        if isinstance(value, Tensor):
            arr = np.asarray(value.numpy())
            dtype = value.dtype
        else:
            arr = np.asarray(value, dtype=None if dtype is None else dtype.as_numpy_dtype)
            if dtype is None:
                dtype = dtypes.as_dtype(arr.dtype) if arr.dtype.kind not in "SUO" \
                    else dtypes.string
        if dtype == dtypes.string:
            arr = np.asarray(arr, dtype=object)
        name = self.node("Const", [], {"value": arr, "dtype": dtype})
        field = _SCALAR_FIELDS.get(dtype)
        if arr.ndim == 0 and field is not None:
            # A scalar in its typed field, as TF writes it: TF's tf.data rewrites read
            # int64_val of a count (noop_elimination took skip(1) in a function, held in
            # tensor_content, for skip(0) and removed it).
            t = self.gd.node[-1].attr["value"].tensor
            t.ClearField("tensor_content")
            getattr(t, field).append(arr.item())
        return name

    def type_attrs(self, ds, types_key="output_types") -> dict:
        flat = _flat_specs(ds, ragged=True)
        return {types_key: [s.dtype if type(s) is TensorSpec else VARIANT for s in flat],
                "output_shapes": [_shape(s) for s in flat]}

    def ragged_const(self, rt, rows: bool = True) -> str:
        """A ``DT_VARIANT`` constant of ``rt``'s rows (``from_tensor_slices``) or, not
        ``rows``, of all of it (``from_tensors``)."""
        nd = self.gd.node.add(name=self._name("Const"), op="Const")
        nd.attr["value"].tensor.CopyFrom(dataset_graph_ragged.rows_proto(rt) if rows else
                                         dataset_graph_ragged.value_proto(rt))
        nd.attr["dtype"].type = _DT_VARIANT
        return nd.name

    def dataset(self, ds) -> str:
        name = self._memo.get(id(ds))
        if name is None:
            write = _WRITERS.get(type(ds))
            if write is None:
                raise UnserializableDatasetError(
                    f"Cannot write {type(ds).__name__} as a graph of TF dataset ops")
            name = self._memo[id(ds)] = write(self, ds)
        return name

    def function(self, fn, input_ds, what: str, ds=None) -> str:
        """Writes the traced graph of element function ``fn`` (called on elements of
        ``input_ds``; of dataset ``ds``, whose spec traces it on a real element) into
        the library; returns its name."""
        if ds is not None:
            ds.element_spec  # noqa: B018 - computing it records fn on the first element
        get = getattr(fn, "get_concrete_function", None)
        if get is None:
            raise UnserializableDatasetError(f"The {what} function is not a traced function")
        spec = input_ds.element_spec
        _flat_specs(input_ds)
        if ds is not None:
            _flat_specs(ds)  # a function returning a RaggedTensor: its components
        try:
            concrete = get(*spec) if type(spec) is tuple else get(spec)
            graph = concrete._export_graph()
        except (errors.OpError, graph_trace.TraceUnsafe, TypeError, ValueError) as e:
            raise UnserializableDatasetError(
                f"The {what} function has no TF graph: {e}") from None
        if any(g is None for g in concrete._graphs.values()):
            # A recording with real elements ran eagerly: the body may read tensor values
            # into Python (tf.range(x) sized by an element), which the op graph fixes to
            # the values of the trace's stand-ins. (String ops run eagerly too; the
            # recording does not say which reason held, so both take the pickle.)
            raise UnserializableDatasetError(
                f"The {what} function's recording runs eagerly (it reads element values "
                "into Python, or calls an op outside the recording)")
        if len(graph.inputs) > len(graph.arg_names):
            raise UnserializableDatasetError(
                f"The {what} function reads a tf.Variable, which a dataset graph cannot hold")
        self._fn_count += 1
        name = f"__inference_Dataset_{what}_{getattr(fn, '__name__', 'fn')}_{self._fn_count}"
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
        self._add_function(graph, name, what)
        return name

    def _add_function(self, graph, name: str, what: str) -> None:
        writer = op_graph._FUNCTION_WRITER
        if writer is None:  # set when torchflow's saved_model writer is imported
            raise UnserializableDatasetError("No FunctionDef writer is loaded")
        try:
            fd = writer(graph, name)
        except (errors.OpError, TypeError) as e:
            raise UnserializableDatasetError(
                f"The {what} function cannot be written as TF ops: {e}") from None
        fd.attr["_tf_data_function"].b = True
        self.gd.library.function.append(fd)
        have = {f.signature.name for f in self.gd.library.function}
        for sub_name, sub in graph.functions.items():
            if sub_name not in have:
                self._add_function(sub, sub_name, what)

    def cast_function(self, src, dst) -> str:
        """A FunctionDef casting one ``src`` tensor to ``dst`` (``range(output_type=)``)."""
        self._fn_count += 1
        fd = tf_function_pb2.FunctionDef()
        fd.signature.name = f"__inference_Dataset_range_cast_{self._fn_count}"
        fd.signature.input_arg.add(name="x", type=src.as_datatype_enum)
        fd.signature.output_arg.add(name="identity", type=dst.as_datatype_enum)
        nd = fd.node_def.add(name="Cast", op="Cast", input=["x"])
        for k, v in {"SrcT": src, "DstT": dst, "Truncate": False}.items():
            nd.attr[k].CopyFrom(op_graph.attr_value(v))
        fd.ret["identity"] = "Cast:y:0"
        fd.attr["_tf_data_function"].b = True
        self.gd.library.function.append(fd)
        return fd.signature.name


def _int(x) -> int:
    return int(data_ops.to_python(x)) if isinstance(x, Tensor) else int(x)


def _range(w: _Writer, ds) -> str:
    r = ds._range
    i64 = dtypes.int64
    out = w.node("RangeDataset", [w.const(r.start, i64), w.const(r.stop, i64),
                                  w.const(r.step, i64)],
                 {"output_types": [i64], "output_shapes": [op_graph.shape_attr([])]})
    if ds._dtype == i64:
        return out
    return w.node("MapDataset", [out], {"f": op_graph.NameAttrList(w.cast_function(i64, ds._dtype)),
                                        "Targuments": [], "output_types": [ds._dtype],
                                        "output_shapes": [op_graph.shape_attr([])],
                                        "preserve_cardinality": True})


def _slices(w: _Writer, ds) -> str:
    attrs = w.type_attrs(ds, "Toutput_types")  # first: raises for sparse components
    return w.node("TensorSliceDataset",
                  [w.ragged_const(t) if isinstance(t, RaggedTensor) else w.const(t)
                   for t in ds._flat], attrs)


def _tensors(w: _Writer, ds) -> str:
    attrs = w.type_attrs(ds, "Toutput_types")  # first: raises for sparse components
    return w.node("TensorDataset",
                  [w.ragged_const(t, rows=False) if isinstance(t, RaggedTensor) else w.const(t)
                   for t in _structure.flatten(ds._element)], attrs)


def _map(w: _Writer, ds) -> str:
    attrs = {"f": op_graph.NameAttrList(w.function(ds._fn, ds._input, "map", ds)),
             "Targuments": [], **w.type_attrs(ds), "preserve_cardinality": True}
    inp = w.dataset(ds._input)
    if type(ds) is transforms.MapDataset:
        return w.node("MapDataset", [inp], attrs)
    det = {True: "true", False: "false"}.get(ds._deterministic, "default")
    return w.node("ParallelMapDatasetV2", [inp, w.const(ds._parallel, dtypes.int64)],
                  {**attrs, "deterministic": det})


def _filter(w: _Writer, ds) -> str:
    attrs = {"predicate": op_graph.NameAttrList(w.function(ds._pred, ds._input, "filter")),
             "Targuments": [], **w.type_attrs(ds)}
    return w.node("FilterDataset", [w.dataset(ds._input)], attrs)


def _batch(w: _Writer, ds) -> str:
    return w.node("BatchDatasetV2", [w.dataset(ds._input), w.const(ds._size, dtypes.int64),
                                     w.const(ds._drop, dtypes.bool)], w.type_attrs(ds))


def _unbatch(w: _Writer, ds) -> str:
    _flat_specs(ds._input)
    return w.node("UnbatchDataset", [w.dataset(ds._input)], w.type_attrs(ds))


def _padded_batch(w: _Writer, ds) -> str:
    _flat_specs(ds)
    if any(s is None for s in ds._shapes):
        raise UnserializableDatasetError("Cannot write padded_batch of components of unknown "
                                         "rank as a graph")
    shapes = [w.const(np.array([-1 if d is None else d for d in s], np.int64))
              for s in ds._shapes]
    values = [w.const(v) for v in ds._values]
    return w.node("PaddedBatchDatasetV2",
                  [w.dataset(ds._input), w.const(ds._size, dtypes.int64), *shapes, *values,
                   w.const(ds._drop, dtypes.bool)],
                  {**w.type_attrs(ds, "Toutput_types"), "N": len(shapes)})


def _shuffle(w: _Writer, ds) -> str:
    seed, seed2 = ds._seeds if ds._seeds is not None else (0, 0)
    i64 = dtypes.int64
    return w.node("ShuffleDataset", [w.dataset(ds._input), w.const(ds._buffer, i64),
                                     w.const(seed, i64), w.const(seed2, i64)],
                  {"reshuffle_each_iteration": ds._reshuffle is not False, **w.type_attrs(ds)})


def _counted(op: str):
    def write(w: _Writer, ds) -> str:
        return w.node(op, [w.dataset(ds._input), w.const(_int(ds._count), dtypes.int64)],
                      w.type_attrs(ds))
    return write


def _prefetch(w: _Writer, ds) -> str:
    return w.node("PrefetchDataset", [w.dataset(ds._input), w.const(ds._size, dtypes.int64)],
                  w.type_attrs(ds))


def _shard(w: _Writer, ds) -> str:
    i64 = dtypes.int64
    return w.node("ShardDataset", [w.dataset(ds._input), w.const(ds._n, i64),
                                   w.const(ds._i, i64)], w.type_attrs(ds))


def _zip(w: _Writer, ds) -> str:
    inputs = [w.dataset(d) for d in ds._flat]
    return w.node("ZipDataset", inputs, {**w.type_attrs(ds), "N": len(inputs)})


def _concatenate(w: _Writer, ds) -> str:
    return w.node("ConcatenateDataset", [w.dataset(ds._a), w.dataset(ds._b)], w.type_attrs(ds))


def _cache(w: _Writer, ds) -> str:
    return w.node("CacheDataset", [w.dataset(ds._input), w.const(ds._filename, dtypes.string)],
                  w.type_attrs(ds))


def _options(w: _Writer, ds) -> str:
    return w.dataset(ds._input)


def _reader(op: str):
    def write(w: _Writer, ds) -> str:
        files = ds._files
        if ds._parallel is not None or type(files) is not sources.TensorSliceDataset:
            raise UnserializableDatasetError(
                f"Cannot write {type(ds).__name__} with num_parallel_reads or a computed file "
                "list as a graph")
        return w.node(op, [w.const(files._flat[0]), w.const(ds._compression, dtypes.string),
                           w.const(_READ_BUFFER, dtypes.int64)], {})
    return write


_WRITERS = {
    sources.RangeDataset: _range,
    sources.TensorSliceDataset: _slices,
    sources.TensorDataset: _tensors,
    sources.ZipDataset: _zip,
    sources.ConcatenateDataset: _concatenate,
    transforms.MapDataset: _map,
    parallel.ParallelMapDataset: _map,
    transforms.FilterDataset: _filter,
    batching.BatchDataset: _batch,
    batching.PaddedBatchDataset: _padded_batch,
    batching.UnbatchDataset: _unbatch,
    transforms.ShuffleDataset: _shuffle,
    transforms.RepeatDataset: _counted("RepeatDataset"),
    transforms.TakeDataset: _counted("TakeDataset"),
    transforms.SkipDataset: _counted("SkipDataset"),
    parallel.PrefetchDataset: _prefetch,
    transforms.ShardDataset: _shard,
    transforms.CacheDataset: _cache,
    transforms.OptionsDataset: _options,
    readers.TFRecordDataset: _reader("TFRecordDataset"),
    readers.TextLineDataset: _reader("TextLineDataset"),
}

def dataset_graph_def(dataset):
    """``dataset``'s pipeline as a ``tensorflow.GraphDef`` proto (TF's dataset ops).

    Raises:
      UnserializableDatasetError: A part of the pipeline has no graph form.
    """
    # cycle: dataset_graph_fn's writers subclass _Writer; importing it registers them.
    from torchflow._src.data import dataset_graph_fn  # noqa: F401

    w = _Writer()
    last = w.dataset(dataset)
    ret = w.gd.node.add(name="dataset", op="_Retval", input=[last])
    ret.attr["T"].type = _DT_VARIANT
    ret.attr["index"].i = 0
    w.gd.versions.producer = _PRODUCER
    w.gd.versions.min_consumer = 12
    return w.gd


def serialize(dataset) -> bytes:
    """``dataset_graph_def(dataset)`` as protobuf bytes (``_as_serialized_graph()``),
    the same bytes for the same pipeline in any process (map fields in key order)."""
    return dataset_graph_def(dataset).SerializeToString(deterministic=True)

