"""Functions that return datasets (``flat_map``, ``interleave``) and ``window`` as TF graph nodes.

TF writes ``flat_map``/``interleave`` as ``FlatMapDataset`` / ``InterleaveDataset`` /
``ParallelInterleaveDatasetV4`` whose attr ``f`` is a ``FunctionDef``: its arguments are
the element's components, its body the dataset ops that build the inner dataset, its one
output that dataset (``DT_VARIANT``). Here the body is found by calling the function's
Python twice, on two probe elements of the input's ``element_spec`` (other values, other
sizes of the unknown dimensions; a window's datasets are probe datasets), and writing the
two datasets it returns: the nodes must agree, a constant that is the same in both is a
constant of the body, one that is the probe's value is the function's argument (reshaped
or cast where the dataset holds it so). A constant computed from the element
(``range(x * 2)``) comes from the function's recorded trace instead: the trace's
dataset is written with its tensors as the outputs of the recorded graph, whose nodes
are inlined into the body (numeric elements only: string ops are not recorded). Any
other difference (a string computed from the element, a nested function that captures
it, values read into Python) has no graph form here and raises
``UnserializableDatasetError``, so the dataset keeps the pickle path.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import autograph_convert, dtypes, op_graph
from torchflow._src.core.proto import tf_function_pb2
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.data import (
    _fn_spec,
    _structure,
    batching,
    dataset_graph,
    interleave,
    sources,
    traced_fn,
)
from torchflow._src.data.dataset_graph import UnserializableDatasetError
from torchflow._src.data.dataset_ops import AUTOTUNE, DatasetV2
from torchflow._src.ops import data_ops, graph_exec

_DT_VARIANT = dataset_graph._DT_VARIANT
_OUT_ARG = {"Const": "output", "Reshape": "output", "Cast": "y"}  # others: "handle"
_FN_ATTRS = ("f", "predicate")
_READER_OPS = ("TFRecordDataset", "TextLineDataset")  # file names: a scalar or a vector


def _probe(spec, k: int):
    """Probe element ``k`` (0 or 1) for one leaf of an element spec."""
    if isinstance(spec, DatasetV2):  # a window's dataset
        return sources.ListDataset([], spec.element_spec)
    if type(spec) is not TensorSpec or spec.shape.rank is None:
        raise UnserializableDatasetError(
            f"Cannot write a dataset function of {type(spec).__name__} arguments of unknown "
            "rank as a graph")
    shape = [2 + k if d is None else d for d in spec.shape.as_list()]
    if spec.dtype == dtypes.string:
        return data_ops.bytes_tensor([b"probe-%d" % k] * int(np.prod(shape)), shape)
    value = bool(k) if spec.dtype == dtypes.bool else 2 + k
    return data_ops.from_numpy(np.full(shape, value, spec.dtype.as_numpy_dtype), spec.dtype)


class _BodyWriter(dataset_graph._Writer):
    """Writes the dataset a function returned; its arguments are ``__argI`` inputs."""

    def __init__(self, parent: dataset_graph._Writer, args: list, leaves=()):
        super().__init__()
        self._fn_count = parent._fn_count
        self._args = {id(a): i for i, a in enumerate(args)}
        self._leaves = {id(t): k for k, t in enumerate(leaves)}  # a trace's tensors

    def dataset(self, ds) -> str:
        i = self._args.get(id(ds))
        if i is not None:
            return f"__arg{i}"
        if self._leaves and type(ds) is sources.RangeDataset and id(ds) not in self._memo:
            self._memo[id(ds)] = self._traced_range(ds)
        return super().dataset(ds)

    def _traced_range(self, ds) -> str:
        # Made in a trace: the bounds are the trace's tensors (sources.RangeDataset).
        i64 = dtypes.int64
        a = list(ds._args)
        bounds = [0, a[0], 1] if len(a) == 1 else (a + [1] if len(a) == 2 else a)
        if ds._dtype != i64 or any(isinstance(b, Tensor) and b.dtype != i64 for b in bounds):
            raise _Computed("A range of a traced non-int64 bound is not written")
        return self.node("RangeDataset", [self.const(b, i64) for b in bounds],
                         {"output_types": [i64], "output_shapes": [op_graph.shape_attr([])]})

    def const(self, value, dtype=None) -> str:
        i = self._args.get(id(value)) if isinstance(value, Tensor) else None
        if i is not None:
            return f"__arg{i}"
        k = self._leaves.get(id(value)) if isinstance(value, Tensor) else None
        return f"__leaf{k}" if k is not None else super().const(value, dtype)


class _Computed(UnserializableDatasetError):
    """A body tensor is computed from the element (the trace's graph may compute it)."""


def _normal(fd) -> bytes:
    fd = tf_function_pb2.FunctionDef.FromString(fd.SerializeToString())
    fd.signature.name = ""
    return fd.SerializeToString(deterministic=True)


def _merge_shapes(a, b):
    out = []
    for sa, sb in zip(a.list.shape, b.list.shape):
        if sa.unknown_rank or sb.unknown_rank or len(sa.dim) != len(sb.dim):
            out.append(None)
        else:
            out.append([x.size if x.size == y.size else None for x, y in zip(sa.dim, sb.dim)])
    return op_graph.attr_value([op_graph.shape_attr(s) for s in out])


def _numpy(node) -> np.ndarray:
    return np.asarray(graph_exec.attr_value(node.attr["value"]).numpy())


def _as_arg(a, b, probes, what: str):
    """The argument index (with the reshape/cast it needs) that Const nodes ``a`` (probe
    0's body) and ``b`` (probe 1's) hold, or raises."""
    va, vb = _numpy(a), _numpy(b)
    for i, (pa, pb) in enumerate(zip(*probes)):
        if not isinstance(pa, Tensor):
            continue
        xa, xb = np.asarray(pa.numpy()), np.asarray(pb.numpy())
        if va.size == xa.size and vb.size == xb.size and \
                np.array_equal(va.reshape(-1), xa.reshape(-1)) and \
                np.array_equal(vb.reshape(-1), xb.reshape(-1)):
            shape = None
            if va.shape != xa.shape or vb.shape != xb.shape:
                if va.shape == vb.shape:
                    shape = list(va.shape)
                elif va.ndim == 1 and vb.ndim == 1:
                    shape = [-1]
                else:
                    break
            return i, shape, a.attr["dtype"].type
    raise _Computed(
        f"The {what} function builds its dataset from a tensor computed from the element "
        "in a way its trace does not record; torchflow writes only its arguments, "
        "constants and recorded computations into a dataset function")


def _check_traces(fn, input_spec, what: str) -> None:
    """Raises where ``fn`` cannot be traced as TF traces it (on symbolic elements: a
    Python branch on an element's value, ``int(x)``), which the probes cannot see."""
    datasets: list = []

    def stand_in(x):
        if isinstance(x, DatasetV2):
            datasets.append(x)
            return traced_fn._DatasetArg(len(datasets) - 1, x.element_spec)
        return x

    keyed = tuple(_structure.map_structure(stand_in, a) for a in _fn_spec.args_of(input_spec))
    fn._local.datasets = datasets
    try:
        return fn._traced.get_concrete_function(keyed)
    except Exception as e:  # noqa: BLE001 - the user's function: the pickle path
        raise UnserializableDatasetError(
            f"The {what} function cannot be traced on symbolic elements: {e}") from None
    finally:
        fn._local.datasets = None


def _traced_body(w: dataset_graph._Writer, fn, input_spec, what: str):
    """The body from ``fn``'s recorded trace: its template dataset written with the
    trace's tensors as the outputs of the recorded graph (a FunctionDef inlined into
    the body); None where there is no recording (string elements, values read)."""
    leaves = _structure.flatten(input_spec)
    if any(type(s) is not TensorSpec for s in leaves):
        return None
    conc = _check_traces(fn, input_spec, what)
    if not conc._graphs or any(g is None for g in conc._graphs.values()):
        return None
    fn._local.datasets = []
    try:
        graph = conc._export_graph()
    except Exception:  # noqa: BLE001 - no graph: the probes' error stands
        return None
    finally:
        fn._local.datasets = None
    template = graph.structured_outputs[0]
    if len(graph.inputs) > len(graph.arg_names) or template.args:
        return None
    writer = op_graph._FUNCTION_WRITER
    if writer is None:
        return None
    try:
        leaf_fd = writer(graph, "leaves")
    except Exception:  # noqa: BLE001 - no graph: the probes' error stands
        return None
    if len(leaf_fd.signature.input_arg) != len(leaves):
        return None
    bw = _BodyWriter(w, [], template.leaves)
    last = bw.dataset(template.dataset)
    have = {f.signature.name for f in bw.gd.library.function}
    for sub_name, sub in graph.functions.items():
        if sub_name not in have:
            bw._add_function(sub, sub_name, what)
    w._fn_count = bw._fn_count
    return list(bw.gd.node), last, bw.gd.library, leaves, leaf_fd


def _inline(fd, leaf_fd) -> list:
    """Adds ``leaf_fd``'s nodes to ``fd`` (its arguments are ``fd``'s); returns the
    references of its outputs."""
    argmap = {a.name: f"args_{i}" for i, a in enumerate(leaf_fd.signature.input_arg)}

    def ref(r: str) -> str:
        ctrl = r.startswith("^")
        head, *rest = (r[1:] if ctrl else r).split(":")
        new = argmap.get(head, f"leaves_{head}")
        return ("^" if ctrl else "") + ":".join([new] + rest)

    for n in leaf_fd.node_def:
        nd = fd.node_def.add()
        nd.CopyFrom(n)
        nd.name = f"leaves_{n.name}"
        del nd.input[:]
        nd.input.extend(ref(i) for i in n.input)
    return [ref(leaf_fd.ret[o.name]) for o in leaf_fd.signature.output_arg]


def _body(w: dataset_graph._Writer, fn, input_spec, what: str):
    """The nodes (probe 0's) and library of the dataset ``fn`` returns, with the
    argument references resolved."""
    leaves = _structure.flatten(input_spec)
    _check_traces(fn, input_spec, what)
    body = autograph_convert.convert(fn.python_function)
    bodies, probes = [], []
    for k in (0, 1):
        flat = [_probe(s, k) for s in leaves]
        element = _structure.pack_as(input_spec, flat)
        try:
            ds = body(*_fn_spec.args_of(element))
        except Exception as e:  # noqa: BLE001 - the user's function: the pickle path
            raise UnserializableDatasetError(
                f"The {what} function cannot run on stand-in elements: {e}") from None
        if not isinstance(ds, DatasetV2):
            raise UnserializableDatasetError(f"The {what} function does not return a dataset")
        bw = _BodyWriter(w, flat)
        bodies.append((bw, bw.dataset(ds)))
        probes.append(flat)
    (wa, last), (wb, last_b) = bodies
    na, nb = list(wa.gd.node), list(wb.gd.node)
    if last != last_b or len(na) != len(nb) or any(
            (x.name, x.op, list(x.input)) != (y.name, y.op, list(y.input)) for x, y in zip(na, nb)):
        raise UnserializableDatasetError(
            f"The {what} function builds a different pipeline for other elements")
    libs = [{f.signature.name: f for f in bw.gd.library.function} for bw, _ in bodies]
    args: dict = {}
    for x, y in zip(na, nb):
        if x.op == "Const":
            if x.attr["value"].SerializeToString(deterministic=True) != \
                    y.attr["value"].SerializeToString(deterministic=True):
                args[x.name] = _as_arg(x, y, probes, what)
            continue
        for key in set(x.attr) | set(y.attr):
            ax, ay = x.attr[key], y.attr[key]
            if key in _FN_ATTRS:
                if _normal(libs[0][ax.func.name]) != _normal(libs[1][ay.func.name]):
                    raise UnserializableDatasetError(
                        f"A function inside the {what} function captures the element")
            elif key == "output_shapes" and ax != ay:
                x.attr[key].CopyFrom(_merge_shapes(ax, ay))
            elif ax != ay:
                raise UnserializableDatasetError(
                    f"The {what} function builds {x.op} with other attributes for other "
                    "elements")
    w._fn_count = wa._fn_count
    return na, last, args, wa.gd.library, leaves


def dataset_function(w: dataset_graph._Writer, fn, input_ds, what: str) -> str:
    """Writes ``fn`` (a ``DatasetFunction`` of ``input_ds``'s elements) as a FunctionDef
    returning its dataset; returns its name."""
    spec = input_ds.element_spec
    leaf_fd = None
    try:
        nodes, last, args, library, leaves = _body(w, fn, spec, what)
    except _Computed as e:
        got = _traced_body(w, fn, spec, what)
        if got is None:
            raise UnserializableDatasetError(str(e)) from None
        nodes, last, library, leaves, leaf_fd = got
        args = {}
    w._fn_count += 1
    fd = tf_function_pb2.FunctionDef()
    name = f"__inference_Dataset_{what}_{getattr(fn.python_function, '__name__', 'fn')}"
    fd.signature.name = "".join(c if c.isalnum() or c == "_" else "_"
                                for c in f"{name}_{w._fn_count}")
    for i, s in enumerate(leaves):
        fd.signature.input_arg.add(name=f"args_{i}", type=s.dtype.as_datatype_enum
                                   if type(s) is TensorSpec else _DT_VARIANT)
    fd.signature.output_arg.add(name="identity", type=_DT_VARIANT)
    ops = {n.name: n.op for n in nodes}
    renamed = {n.name: n.name.replace("/", "") for n in nodes}
    leaf_refs = _inline(fd, leaf_fd) if leaf_fd is not None else []

    def ref(inp: str, consumer: str) -> str:
        if inp.startswith("__arg"):
            return f"args_{inp[5:]}"
        if inp.startswith("__leaf"):
            return leaf_refs[int(inp[6:])]
        got = args.get(inp)
        if got is not None:
            i, shape, dtype = got
            out = f"args_{i}"
            if leaves[i].dtype.as_datatype_enum != dtype:
                nd = fd.node_def.add(name=f"{renamed[inp]}_cast", op="Cast", input=[out])
                for k, v in {"SrcT": leaves[i].dtype, "DstT": dtypes.as_dtype(dtype),
                             "Truncate": False}.items():
                    nd.attr[k].CopyFrom(op_graph.attr_value(v))
                out = f"{nd.name}:y:0"
            if shape is not None and consumer not in _READER_OPS:
                sh = fd.node_def.add(name=f"{renamed[inp]}_shape", op="Const")
                sh.attr["value"].CopyFrom(op_graph.attr_value(np.array(shape, np.int64)))
                sh.attr["dtype"].CopyFrom(op_graph.attr_value(dtypes.int64))
                nd = fd.node_def.add(name=f"{renamed[inp]}_reshape", op="Reshape",
                                     input=[out, f"{sh.name}:output:0"])
                nd.attr["T"].CopyFrom(op_graph.attr_value(dtypes.as_dtype(dtype)))
                nd.attr["Tshape"].CopyFrom(op_graph.attr_value(dtypes.int64))
                out = f"{nd.name}:output:0"
            return out
        return f"{renamed[inp]}:{_OUT_ARG.get(ops[inp], 'handle')}:0"

    for n in nodes:
        if n.name in args:
            continue
        nd = fd.node_def.add()
        nd.CopyFrom(n)
        nd.name = renamed[n.name]
        del nd.input[:]
        nd.input.extend(ref(i, n.op) for i in n.input)
    fd.ret["identity"] = ref(last, "")
    fd.attr["_tf_data_function"].b = True
    have = {f.signature.name for f in w.gd.library.function}
    w.gd.library.function.extend(f for f in library.function if f.signature.name not in have)
    w.gd.library.function.append(fd)
    return fd.signature.name


def _interleave(w: dataset_graph._Writer, ds) -> str:
    f = op_graph.NameAttrList(dataset_function(w, ds._fn, ds._input, "flat_map"))
    attrs = {"f": f, "Targuments": [], **w.type_attrs(ds)}
    inp = w.dataset(ds._input)
    i64 = dtypes.int64
    parallel = ds._parallel is not None and ds._parallel != 0
    if ds._cycle == 1 and ds._block == 1 and not parallel:
        return w.node("FlatMapDataset", [inp], attrs)
    cycle, block = w.const(ds._cycle, i64), w.const(ds._block, i64)
    if not parallel:
        return w.node("InterleaveDataset", [inp, cycle, block], attrs)
    det = {True: "true", False: "false"}.get(ds._deterministic, "default")
    return w.node("ParallelInterleaveDatasetV4",
                  [inp, cycle, block, w.const(AUTOTUNE, i64), w.const(AUTOTUNE, i64),
                   w.const(int(ds._parallel), i64)], {**attrs, "deterministic": det})


def _window(w: dataset_graph._Writer, ds) -> str:
    i64 = dtypes.int64
    dataset_graph._flat_specs(ds._input)
    n = len(_structure.flatten(ds.element_spec))
    name = w.node("WindowDataset", [w.dataset(ds._input), w.const(ds._size, i64),
                                    w.const(ds._shift, i64), w.const(ds._stride, i64),
                                    w.const(ds._drop, dtypes.bool)],
                  {"output_shapes": [op_graph.shape_attr([])] * n})
    w.gd.node[-1].attr["output_types"].list.type.extend([_DT_VARIANT] * n)
    return name


dataset_graph._WRITERS[interleave.InterleaveDataset] = _interleave
dataset_graph._WRITERS[batching.WindowDataset] = _window
