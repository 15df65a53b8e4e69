"""A torchflow dataset rebuilt from a TF ``GraphDef`` of dataset ops.

The reverse of ``dataset_graph``: reads a graph that torchflow or TensorFlow wrote
(``dataset._as_serialized_graph()``), starting from the input of its ``_Retval``,
and makes each dataset node the torchflow transformation of the same name. The
functions of ``map``/``filter`` run as their ``FunctionDef``\\ s in torchflow's graph
interpreter (``graph_exec.FunctionLibrary``); the function of ``flat_map``/``interleave``
(whose body is dataset ops and constants, as TF writes a file reader over a list of
names) rebuilds its dataset from each element's tensors. No Python of the program that
wrote the graph runs, so a graph can come from anyone the caller trusts with its data.

A graph keeps only the flat components of each element, so an element is a tuple
of its components (a single component: that tensor) unless ``element_spec`` gives
the structure of the result. Ops with no torchflow counterpart (``PyFunc``, the
dataset ops not listed in ``_READERS``) raise ``UnimplementedError``.
"""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from torchflow._src.core import dtypes, errors
from torchflow._src.core.proto import tf_graph_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.data import _structure, dataset_graph_ragged, readers
from torchflow._src.data._runtime import close_iter
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.data.transforms import UnaryDataset
from torchflow._src.ops import data_ops, graph_exec
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor

# Dataset ops that do not change the elements (threading, autotuning, options).
_PASS_THROUGH = frozenset({"OptionsDataset", "ModelDataset", "MaxIntraOpParallelismDataset",
                           "PrivateThreadPoolDataset", "ExperimentalMaxIntraOpParallelismDataset",
                           "ExperimentalPrivateThreadPoolDataset", "AssertNextDataset",
                           "ExperimentalAssertNextDataset", "Identity"})


def _ref(inp: str) -> str:
    name = inp.split(":")[0]
    return name


class _Reader:
    def __init__(self, gd):
        self.nodes = {n.name: n for n in gd.node}
        self.library = graph_exec.FunctionLibrary(gd.library)
        self._memo: dict = {}

    def data_inputs(self, node) -> list:
        return [i for i in node.input if not i.startswith("^")]

    def value(self, inp: str):
        """The tensor of a ``Const`` input."""
        node = self.nodes.get(_ref(inp))
        if node is None:
            raise errors.InvalidArgumentError(None, None, f"Node {inp} is not in the graph")
        if node.op == "Identity":
            return self.value(self.data_inputs(node)[0])
        if node.op != "Const":
            raise errors.UnimplementedError(
                None, None, f"Cannot rebuild a dataset whose argument {node.name} is computed by "
                f"{node.op}; only constants are read")
        return graph_exec.attr_value(node.attr["value"])

    def scalar(self, inp: str):
        return data_ops.to_python(self.value(inp))

    def dataset(self, inp: str) -> DatasetV2:
        name = _ref(inp)
        got = self._memo.get(name)
        if got is None:
            node = self.nodes.get(name)
            if node is None:
                raise errors.InvalidArgumentError(None, None, f"Node {name} is not in the graph")
            if node.op in _PASS_THROUGH:
                got = self.dataset(self.data_inputs(node)[0])
            else:
                build = _READERS.get(node.op)
                if build is None:
                    raise errors.UnimplementedError(
                        None, None, f"Cannot rebuild dataset op {node.op} (node {node.name}) "
                        "in torchflow")
                got = build(self, node)
            self._memo[name] = got
        return got

    def function(self, node, key: str, trailing: int = 0):
        """A Python function of an element's components that runs function ``key`` of
        ``node`` in the interpreter, with the node's ``other_arguments`` (its inputs
        after the input dataset, less ``trailing`` scalar arguments) after them."""
        name = node.attr[key].func.name
        self.library.function_def(name)  # NotFoundError now, not at the first element
        others = self.data_inputs(node)[1:]
        captured = [self.value(i) for i in others[:len(others) - trailing]]
        library = self.library

        def fn(*args):
            out = library.call(name, _structure.flatten(args) + captured)
            return out[0] if len(out) == 1 else tuple(out)

        fn.__name__ = "".join(c if c.isalnum() else "_" for c in name)
        return fn


class _FunctionReader(_Reader):
    """Reads the body of a function that returns a dataset (``flat_map``'s ``f``): its
    arguments are the element's tensors, its nodes dataset ops and constants."""

    def __init__(self, parent: _Reader, fdef, args: dict):
        self.nodes = {n.name: n for n in fdef.node_def}
        self.library = parent.library
        self._memo = {}
        self._args = args

    def value(self, inp: str):
        got = self._args.get(_ref(inp))
        if got is not None:
            return got
        node = self.nodes.get(_ref(inp))
        if node is not None and node.op not in ("Const", "Identity") and \
                node.op not in _READERS:
            # A tensor the body computes from the element (``range(x * 2)``): the op
            # runs in the graph interpreter on the element's tensors.
            _, arg, index = graph_exec._parse_input(inp, True)
            run = graph_exec._Node(node, True)
            out = run.call(self.library, [self.value(i) for i in self.data_inputs(node)])
            out = out if isinstance(out, (list, tuple)) else [out]
            return out[run.flat_index(arg, index)]
        return super().value(inp)

    def dataset(self, inp: str) -> DatasetV2:
        got = self._args.get(_ref(inp))
        if got is not None:
            if not isinstance(got, DatasetV2):
                raise errors.InvalidArgumentError(
                    None, None, f"Argument {inp} of a dataset function is not a dataset")
            return got
        return super().dataset(inp)


def _dataset_function(r: _Reader, node, trailing: int = 0):
    """``node``'s ``f`` (a function returning a dataset) as a Python function of an
    element's components that rebuilds the dataset its body describes."""
    fdef = r.library.function_def(node.attr["f"].func.name)
    others = r.data_inputs(node)[1:]
    captured = [r.value(i) for i in others[:len(others) - trailing]]
    names = [a.name for a in fdef.signature.input_arg]
    if len(fdef.signature.output_arg) != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Function {fdef.signature.name} must return one dataset")
    out = fdef.ret[fdef.signature.output_arg[0].name]

    def fn(*args):
        values = _structure.flatten(args) + captured
        return _FunctionReader(r, fdef, dict(zip(names, values))).dataset(out)

    return fn


def _flat_map(r: _Reader, node):
    return r.dataset(r.data_inputs(node)[0]).flat_map(_dataset_function(r, node))


# Scalar inputs after other_arguments: (cycle_length, block_length[, ...], num_parallel_calls).
_INTERLEAVE_TRAILING = {"InterleaveDataset": 2, "ParallelInterleaveDatasetV2": 3,
                        "ParallelInterleaveDatasetV3": 3, "ParallelInterleaveDatasetV4": 5}


def _interleave(r: _Reader, node):
    ins = r.data_inputs(node)
    k = _INTERLEAVE_TRAILING[node.op]
    tail = [int(r.scalar(i)) for i in ins[len(ins) - k:]]
    parallel = tail[-1] if k > 2 else None
    det = node.attr["deterministic"].s.decode() if "deterministic" in node.attr else "default"
    return r.dataset(ins[0]).interleave(
        _dataset_function(r, node, trailing=k), cycle_length=tail[0], block_length=tail[1],
        num_parallel_calls=parallel, deterministic={"true": True, "false": False}.get(det))


def _window(r: _Reader, node):
    ins = r.data_inputs(node)
    size, shift, stride = (int(r.scalar(i)) for i in ins[1:4])
    return r.dataset(ins[0]).window(size, shift, stride, drop_remainder=bool(r.scalar(ins[4])))


def _component(r: _Reader, inp: str):
    node = r.nodes.get(_ref(inp))
    if node is not None and node.op == "Const" and \
            node.attr["dtype"].type == dataset_graph_ragged.DT_VARIANT:
        return dataset_graph_ragged.ragged_from_rows(node.attr["value"].tensor)
    if node is not None and node.op == "RaggedTensorToVariant" and \
            node.attr["batched_input"].b:  # as TF writes it inside a function
        parts = [r.value(i) for i in r.data_inputs(node)]
        return RaggedTensor.from_nested_row_splits(parts[-1], parts[:-1], validate=False)
    return r.value(inp)


def _components(r: _Reader, node):
    flat = [_component(r, i) for i in r.data_inputs(node)]
    return flat[0] if len(flat) == 1 else tuple(flat)


def _range(r: _Reader, node):
    # tensors, not Python ints: inside a flat_map function they are the element's
    start, stop, step = (r.value(i) for i in r.data_inputs(node)[:3])
    types = graph_exec.attr_value(node.attr["output_types"]) if "output_types" in node.attr \
        else [dtypes.int64]
    return DatasetV2.range(start, stop, step, output_type=types[0])


def _map(r: _Reader, node):
    inp = r.dataset(r.data_inputs(node)[0])
    if node.op == "MapDataset":
        return inp.map(r.function(node, "f"))
    parallel = r.scalar(r.data_inputs(node)[-1])  # num_parallel_calls follows other_arguments
    det = node.attr["deterministic"].s.decode() if "deterministic" in node.attr else "default"
    return inp.map(r.function(node, "f", trailing=1), num_parallel_calls=int(parallel),
                   deterministic={"true": True, "false": False}.get(det))


def _filter(r: _Reader, node):
    return r.dataset(r.data_inputs(node)[0]).filter(r.function(node, "predicate"))


def _batch(r: _Reader, node):
    ins = r.data_inputs(node)
    drop = bool(r.scalar(ins[2])) if len(ins) > 2 else False
    return r.dataset(ins[0]).batch(int(r.scalar(ins[1])), drop_remainder=drop)


def _padded_batch(r: _Reader, node):
    ins = r.data_inputs(node)
    n = node.attr["N"].i
    inp = r.dataset(ins[0])
    shapes = [[None if d < 0 else d for d in np.asarray(r.value(i).numpy()).tolist()]
              for i in ins[2:2 + n]]
    values = [r.value(i) for i in ins[2 + n:2 + 2 * n]]
    drop = bool(r.scalar(ins[2 + 2 * n])) if len(ins) > 2 + 2 * n else False
    spec = inp.element_spec
    return inp.padded_batch(int(r.scalar(ins[1])), padded_shapes=_structure.pack_as(spec, shapes),
                            padding_values=_structure.pack_as(spec, values), drop_remainder=drop)


def _map_and_batch(r: _Reader, node):
    ins = r.data_inputs(node)
    size, parallel, drop = (r.scalar(i) for i in ins[-3:])
    return r.dataset(ins[0]).map(r.function(node, "f", trailing=3),
                                 num_parallel_calls=int(parallel)).batch(
        int(size), drop_remainder=bool(drop))


def _shuffle(r: _Reader, node):
    ins = r.data_inputs(node)
    buf = int(r.scalar(ins[1]))
    reshuffle = node.attr["reshuffle_each_iteration"].b if "reshuffle_each_iteration" in \
        node.attr else True
    ds = r.dataset(ins[0]).shuffle(buf, reshuffle_each_iteration=reshuffle)
    if node.op in ("ShuffleDataset", "ShuffleDatasetV3"):
        seeds = (int(r.scalar(ins[2])), int(r.scalar(ins[3])))
        if seeds != (0, 0):  # TF's "no seed"; otherwise the pair the graph fixed
            ds._seeds = seeds
            ds._fixed = hash(seeds) & (2**63 - 1)
    return ds


def _unary(method: str):
    def build(r: _Reader, node):
        ins = r.data_inputs(node)
        return getattr(r.dataset(ins[0]), method)(*[r.scalar(i) for i in ins[1:]])
    return build


def _cache(r: _Reader, node):
    ins = r.data_inputs(node)
    name = r.scalar(ins[1])
    return r.dataset(ins[0]).cache(name.decode() if isinstance(name, bytes) else name)


def _zip(r: _Reader, node):
    return DatasetV2.zip(tuple(r.dataset(i) for i in r.data_inputs(node)))


def _concatenate(r: _Reader, node):
    a, b = r.data_inputs(node)[:2]
    return r.dataset(a).concatenate(r.dataset(b))


def _file_reader(cls):
    def build(r: _Reader, node):
        ins = r.data_inputs(node)
        comp = r.scalar(ins[1]) if len(ins) > 1 else b""
        comp = comp.decode() if isinstance(comp, bytes) else comp
        return cls(r.value(ins[0]), compression_type=comp)
    return build


_READERS = {
    "RangeDataset": _range,
    "TensorSliceDataset": lambda r, n: DatasetV2.from_tensor_slices(_components(r, n)),
    "TensorDataset": lambda r, n: DatasetV2.from_tensors(_components(r, n)),
    "MapDataset": _map,
    "ParallelMapDataset": _map,
    "ParallelMapDatasetV2": _map,
    "FilterDataset": _filter,
    "BatchDataset": _batch,
    "BatchDatasetV2": _batch,
    "PaddedBatchDataset": _padded_batch,
    "PaddedBatchDatasetV2": _padded_batch,
    "UnbatchDataset": lambda r, n: r.dataset(r.data_inputs(n)[0]).unbatch(),
    "MapAndBatchDataset": _map_and_batch,
    "ShuffleDataset": _shuffle,
    "ShuffleDatasetV2": _shuffle,
    "ShuffleDatasetV3": _shuffle,
    "RepeatDataset": _unary("repeat"),
    "TakeDataset": _unary("take"),
    "SkipDataset": _unary("skip"),
    "PrefetchDataset": lambda r, n: r.dataset(r.data_inputs(n)[0]).prefetch(
        int(r.scalar(r.data_inputs(n)[1]))),
    "ShardDataset": lambda r, n: r.dataset(r.data_inputs(n)[0]).shard(
        int(r.scalar(r.data_inputs(n)[1])), int(r.scalar(r.data_inputs(n)[2]))),
    "CacheDataset": _cache,
    "CacheDatasetV2": _cache,
    "ZipDataset": _zip,
    "FlatMapDataset": _flat_map,
    "WindowDataset": _window,
    **{op: _interleave for op in _INTERLEAVE_TRAILING},
    "ConcatenateDataset": _concatenate,
    "TFRecordDataset": _file_reader(readers.TFRecordDataset),
    "TFRecordDatasetV2": _file_reader(readers.TFRecordDataset),
    "TextLineDataset": _file_reader(readers.TextLineDataset),
}


def dataset_from_graph(graph_def, element_spec=None) -> DatasetV2:
    """The dataset a ``GraphDef`` of TF dataset ops describes.

    Args:
      graph_def: A ``tensorflow.GraphDef`` proto or its serialized bytes (what
        ``dataset_graph.serialize`` or TF's ``dataset._as_serialized_graph()`` gives).
      element_spec: The nested ``tf.TensorSpec`` structure of the elements; None:
        each element is the tuple of its components (one component: that tensor).

    Raises:
      InvalidArgumentError: The graph has no ``_Retval`` or is malformed.
      UnimplementedError: The graph holds an op torchflow cannot rebuild.
    """
    if isinstance(graph_def, (bytes, bytearray, memoryview)):
        gd = tf_graph_pb2.GraphDef()
        try:
            gd.ParseFromString(bytes(graph_def))
        except DecodeError as e:
            raise errors.InvalidArgumentError(None, None, f"Invalid GraphDef: {e}") from None
    else:
        gd = graph_def
    rets = [n for n in gd.node if n.op == "_Retval"]
    if len(rets) != 1 or not rets[0].input:
        raise errors.InvalidArgumentError(
            None, None, "The dataset graph must have exactly one _Retval node")
    r = _Reader(gd)
    last = r.data_inputs(rets[0])[0]
    ds = r.dataset(last)
    if element_spec is None:
        return ds
    flat = _structure.flatten(element_spec)
    node = r.nodes[_ref(last)]
    types = node.attr["output_types"] if "output_types" in node.attr else \
        node.attr.get("Toutput_types")
    n = len(types.list.type) if types is not None else len(_structure.flatten(ds.element_spec))
    if len(flat) != n:
        raise errors.InvalidArgumentError(
            None, None, f"The dataset graph's elements have {n} components but "
            f"element_spec has {len(flat)}")
    return _Restructured(ds, element_spec)


class _Restructured(UnaryDataset):
    """The elements of ``input_dataset`` (flat components) in ``element_spec``'s
    structure, with that spec (a graph's shapes may be less specific)."""

    def __init__(self, input_dataset, element_spec):
        super().__init__(input_dataset)
        self._spec = element_spec

    def _compute_spec(self):
        return self._spec

    def _make_iter(self, ctx):
        spec, it = self._spec, self._input._make_iter(ctx)
        try:
            for e in it:
                yield _structure.pack_as(spec, _leaves((e,)))
        finally:
            close_iter(it)


def release(dataset) -> None:
    """Stops the iterators that computing ``element_spec`` left running in ``dataset``'s
    pipeline (a spec computation keeps its first elements for the next iteration;
    a dataset that is never iterated would keep its threads)."""
    todo, seen = [dataset], set()
    while todo:
        ds = todo.pop()
        if id(ds) in seen:
            continue
        seen.add(id(ds))
        primed = ds.__dict__.pop("_primed", None)
        if primed is not None:
            primed.close()
        todo.extend(ds._inputs())


def _leaves(xs) -> list:
    out = []
    for x in xs:
        if isinstance(x, Tensor):
            out.append(x)
        else:
            out.extend(_structure.flatten(x))
    return out
