"""TF lowerings of ``tf.TensorArray``: TensorList ops on a ``DT_VARIANT`` handle.

A TensorArray in a TF 2 function graph is a TensorList: each write makes a new list
value (``TensorListSetItem``), reads and ``stack`` take the current one. The
builder keeps, per array object, the endpoint of its list (``GraphBuilder.lists``):
a write in a ``tf.function`` returns a new array (``TensorArray._target``), which
gets the new list; a ``tf.while_loop`` or ``tf.cond`` carries an array as a variant
(``graph_lowering_loops``, ``graph_lowering_control``).

The element shape handed to the ops is the one the array was declared with
(``element_shape=``), else the rank of its writes with unknown sizes (the trace's
sizes may be stand-ins of dimensions the signature leaves unknown): an empty array of
scalars stacks to shape ``[0]`` as in TF, one of undeclared higher rank fails at run
time where TF's static shapes may know the sizes. A dynamically sized array grows
with ``TensorListResize`` before a write past its end.

An array whose list the builder does not know (made outside the function, or
changed by code with no lowering) becomes an ``Unlowered`` node, so the function is
not saved rather than saved with a stale list.
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.op_graph import register
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import as_shape
from torchflow._src.core.variables import Variable
from torchflow._src.ops.tensor_array import TensorArray

_I32, _I64, _VARIANT = dtypes.int32, dtypes.int64, dtypes.variant


def known(b, ta) -> bool:
    """Whether ``b`` holds the current list of ``ta``."""
    return id(ta) in b.lists


def handle(b, ta) -> str:
    """The endpoint of ``ta``'s TensorList in ``b`` (an ``Unlowered`` node if unknown)."""
    entry = b.lists.get(id(ta))
    if entry is not None:
        return entry[0]
    src = "a TensorArray made or changed outside what the graph records"
    n = b.node("Unlowered", [], {"dtype": _VARIANT, "source": src}, out_dtypes=[_VARIANT],
               exportable=False)
    b.graph.unexportable[-1] = f"Unlowered ({src})"
    return f"{n}:0"


def dims(b, ta):
    """The element dims ``ta`` was declared with in ``b`` (None: unknown rank), else
    the rank its writes merged into it, sizes unknown (a write in a loop body that
    returns a new array still merges its shape into the original, as in TF)."""
    entry = b.lists.get(id(ta))
    if entry is not None and entry[1] is not None:
        return entry[1]
    rank = ta.element_shape.rank if ta._infer_shape else None
    return None if rank is None else [None] * rank


def bind(b, ta, endpoint: str, element_dims) -> None:
    """Records that ``endpoint`` is ``ta``'s list now."""
    b.lists[id(ta)] = (endpoint, element_dims, ta)


def _shape(b, element_dims) -> str:
    if element_dims is None:
        return b.constant(-1, _I32)
    return b.constant([-1 if d is None else d for d in element_dims], _I32)


def _int_input(b, x, want=_I32) -> str:
    """An index-like input as ``want`` (TF's TensorArray converts its indices so)."""
    if isinstance(x, Variable):
        x = x.value()
    if type(x) in (list, tuple) and any(isinstance(e, (Tensor, Variable)) for e in x):
        eps = [_int_input(b, e, want) for e in x]
        n = b.node("Pack", eps, {"N": len(eps), "T": want, "axis": 0}, out_dtypes=[want])
        return f"{n}:0"
    if isinstance(x, Tensor) and x.dtype != want:
        if not x.dtype.is_integer:
            raise TypeError(f"TensorArray index of dtype {x.dtype.name}")
        n = b.node("Cast", [b.input(x)], {"SrcT": x.dtype, "DstT": want, "Truncate": False},
                   out_dtypes=[want])
        return f"{n}:0"
    return b.input(x, want)


def _list_op(b, op: str, inputs: list, ta, **attrs) -> str:
    n = b.node(op, inputs, {"element_dtype": ta.dtype, **attrs}, out_dtypes=[_VARIANT])
    return f"{n}:0"


def _result(call):
    """The array a writing call returned (itself executing eagerly, else a new one)."""
    out = call.outputs
    return out if isinstance(out, TensorArray) else call.args["self"]


def _init(b, call):
    a = call.args
    ta = a["self"]
    shape = a.get("element_shape")
    declared = None
    if shape is not None:
        s = as_shape(shape)
        declared = s.as_list() if s.rank is not None else None
    size = a.get("size")
    count = _int_input(b, 0 if size is None else size)
    bind(b, ta, _list_op(b, "TensorListReserve", [_shape(b, declared), count], ta,
                         shape_type=_I32), declared)
    return []


def _write(b, call):
    a = call.args
    ta = a["self"]
    h, i = handle(b, ta), _int_input(b, a["index"])
    if ta.dynamic_size:
        n = b.node("TensorListLength", [h], {}, out_dtypes=[_I32])
        one = b.node("AddV2", [i, b.constant(1, _I32)], {"T": _I32}, out_dtypes=[_I32])
        m = b.node("Maximum", [f"{n}:0", f"{one}:0"], {"T": _I32}, out_dtypes=[_I32])
        h = f"{b.node('TensorListResize', [h, f'{m}:0'], {}, out_dtypes=[_VARIANT])}:0"
    value = a["value"]
    v = b.input(value, ta.dtype)
    d = dims(b, ta)
    rank = getattr(getattr(value, "shape", None), "rank", None)
    if d is None and ta._infer_shape and rank is not None:
        d = [None] * rank  # (the sizes may be the trace's stand-ins; the rank is not)
    bind(b, _result(call), _list_op(b, "TensorListSetItem", [h, i, v], ta), d)
    return []


def _element_op(b, call, op: str, index: str):
    """``op`` (GetItem, Gather) of the array at the call's ``index`` argument."""
    ta = call.args["self"]
    n = b.node(op, [handle(b, ta), _int_input(b, call.args[index]), _shape(b, dims(b, ta))],
               {"element_dtype": ta.dtype}, out_dtypes=[ta.dtype])
    return [f"{n}:0"]


def _read(b, call):
    return _element_op(b, call, "TensorListGetItem", "index")


def _stack(b, call):
    ta = call.args["self"]
    n = b.node("TensorListStack", [handle(b, ta), _shape(b, dims(b, ta))],
               {"element_dtype": ta.dtype, "num_elements": -1}, out_dtypes=[ta.dtype])
    return [f"{n}:0"]


def _gather(b, call):
    return _element_op(b, call, "TensorListGather", "indices")


def _concat(b, call):
    ta = call.args["self"]
    d = dims(b, ta)
    rest = None if not d else [None] + d[1:]
    n = b.node("TensorListConcatV2", [handle(b, ta), _shape(b, rest),
                                      b.constant([], _I64)],
               {"element_dtype": ta.dtype, "shape_type": _I32},
               out_dtypes=[ta.dtype, _I64])
    return [f"{n}:0"]


def _size(b, call):
    n = b.node("TensorListLength", [handle(b, call.args["self"])], {}, out_dtypes=[_I32])
    return [f"{n}:0"]


def _unstack(b, call):
    a = call.args
    ta = a["self"]
    v = b.input(a["value"], ta.dtype)
    bind(b, _result(call), _list_op(b, "TensorListFromTensor", [v, _shape(b, dims(b, ta))],
                                    ta, shape_type=_I32), dims(b, ta))
    return []


def _scatter(b, call):
    a = call.args
    ta = a["self"]
    if ta.dynamic_size:
        return None  # (the list would need resizing to the largest index)
    ins = [handle(b, ta), b.input(a["value"], ta.dtype), _int_input(b, a["indices"])]
    bind(b, _result(call), _list_op(b, "TensorListScatterIntoExistingList", ins, ta),
         dims(b, ta))
    return []


def _split(b, call):
    a = call.args
    ta = a["self"]
    d = dims(b, ta)
    rest = None if not d else [None] + d[1:]
    ins = [b.input(a["value"], ta.dtype), _shape(b, rest), _int_input(b, a["lengths"], _I64)]
    bind(b, _result(call), _list_op(b, "TensorListSplit", ins, ta, shape_type=_I32), d)
    return []


def _close(b, call):
    return []  # a TF 2 graph's TensorArray.close is a no-op


for _fn, _lower in ((TensorArray.__init__, _init), (TensorArray.write, _write),
                    (TensorArray.read, _read), (TensorArray.stack, _stack),
                    (TensorArray.gather, _gather), (TensorArray.concat, _concat),
                    (TensorArray.size, _size), (TensorArray.unstack, _unstack),
                    (TensorArray.scatter, _scatter), (TensorArray.split, _split),
                    (TensorArray.close, _close)):
    register(getattr(_fn, "__wrapped__", _fn), _lower)  # (the method, not its dispatch)
del _fn, _lower
