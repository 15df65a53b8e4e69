"""TFOpLambda: TF ops (and tnp functions) applied to KerasTensors become layers.

Dispatch costs nothing until the first ``tf.keras.Input`` is made: then every
public op function gets a trampoline (its ``__code__`` is swapped, so every
reference to it, ``tf.add`` and ``tf.math.add`` alike, is covered) that calls
the original and, only when a KerasTensor made the conversion fail, wraps the
call into a ``TFOpLambda`` layer node instead. Only the outermost op call in a
stack dispatches (ops calling ops inside stay plain).
"""

from __future__ import annotations

import inspect
import operator
import sys
import types

from torchflow._src.keras import backend
from torchflow._src.keras.engine.base_layer import Layer, _CallSpec
from torchflow._src.keras.engine.keras_tensor import SymbolicValueError
from torchflow._src.util import api
from torchflow._src.util.api import public

_installed = False
_TRAMPOLINE_CODES: set = set()


class _NoKwargsSpec(_CallSpec):
    def __init__(self):
        self.arg_names = ["self", "inputs"]
        self.accepts_kwargs = False
        self.accepts_training = False
        self.accepts_mask = False
        self.training_index = None
        self.mask_index = None


_SPEC = _NoKwargsSpec()


def _public_path(fn) -> str:
    mod = getattr(fn, "__module__", "") or ""
    if fn.__module__ == "_operator" or mod == "operator" or getattr(fn, "_tf_operator", False):
        return f"__operators__.{fn.__name__}"
    prefix = "torchflow."
    sub = mod[len(prefix):] if mod.startswith(prefix) else mod
    if mod == "torchflow":
        return fn.__name__
    return f"{sub}.{fn.__name__}"


# The op tf.keras names an operator's layer after (``x * 2`` makes
# "tf.math.multiply", ``2 - x`` "tf.math.subtract"); the config keeps the operator.
_OPERATOR_DISPLAY = {
    "sub": "math.subtract", "mul": "math.multiply", "truediv": "math.truediv",
    "floordiv": "compat.v1.floor_div", "mod": "math.floormod", "pow": "math.pow",
    "neg": "math.negative", "abs": "math.abs", "lt": "math.less", "le": "math.less_equal",
    "gt": "math.greater", "ge": "math.greater_equal", "matmul": "linalg.matmul",
}


def _display_symbol(symbol: str) -> str:
    if not symbol.startswith("__operators__."):
        return symbol
    name = symbol.split(".", 1)[1]
    if name.startswith("r") and name[1:] in _OPERATOR_FUNCS:
        name = name[1:]  # 2 - x is named as x - 2 is
    return _OPERATOR_DISPLAY.get(name, "__operators__." + name)


def _resolve(path: str):
    if path.startswith("__operators__."):
        name = path.split(".", 1)[1]
        return _OPERATOR_FUNCS.get(name) or getattr(operator, name)
    module, _, name = path.rpartition(".")
    public_module = "torchflow." + module if module else "torchflow"
    for fn in api.op_functions():
        if fn.__name__ == name and fn.__module__ == public_module:
            return fn
    raise ValueError(f"TFOpLambda: unknown op {path!r}")


@public("torchflow.keras.layers")
class TFOpLambda(Layer):
    """Wraps one TF op call on symbolic inputs (made automatically, as in TF 2.4).

    Args:
      function: The op (a public torchflow function or an operator).
    """

    def __init__(self, function, **kwargs):
        if isinstance(function, str):
            function = _resolve(function)
        self.function = getattr(function, "__tf_original__", function)
        self.symbol = _public_path(function)
        if kwargs.get("name") is None:
            kwargs["name"] = backend.unique_object_name("tf." + _display_symbol(self.symbol),
                                                        zero_based=True)
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        self._call_spec = _SPEC
        self.built = True

    def call(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    def get_config(self):
        cfg = super().get_config()
        cfg["function"] = self.symbol
        return cfg


def symbolic_dispatch(original, args, kwargs):
    layer = TFOpLambda(original)
    return layer(*args, **kwargs)


def call_symbolic(fn, args, kwargs, name):
    """An operator (``x + y`` ...) on KerasTensors, as a TFOpLambda layer."""
    f = _OPERATOR_FUNCS.get(name) or fn
    return symbolic_dispatch(f, args, kwargs)


def _op(name, fn):
    def f(*args):
        return fn(*args)

    f.__name__ = name
    f.__module__ = "operator"
    f._tf_operator = True
    return f


_OPERATOR_FUNCS = {n: getattr(operator, n) for n in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "neg", "abs", "pos",
    "invert", "and_", "or_", "xor", "lt", "le", "gt", "ge", "getitem")}
_OPERATOR_FUNCS.update({f"r{n}": (lambda g: lambda x, y: g(y, x))(getattr(operator, n))
                        for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                  "matmul")})
for _k, _v in list(_OPERATOR_FUNCS.items()):
    if _k.startswith("r"):
        _v.__name__ = _k
        _v.__module__ = "operator"
        _v._tf_operator = True


def _outer_trampoline_active() -> bool:
    f = sys._getframe(2)
    seen_self = False
    while f is not None:
        if f.f_code in _TRAMPOLINE_CODES:
            if seen_self:
                return True
            seen_self = True
        f = f.f_back
    return False


def _handler(original, args, kwargs):
    if _outer_trampoline_active():
        raise
    return symbolic_dispatch(original, args, kwargs)


def _wrap(fn) -> None:
    if getattr(fn, "__tf_original__", None) is not None:
        return
    original = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
    original.__kwdefaults__ = fn.__kwdefaults__
    original.__module__ = fn.__module__
    original.__qualname__ = fn.__qualname__
    key = f"__tf_dispatch_{fn.__name__}_{id(fn)}"
    g = fn.__globals__
    g[key] = original
    g["__tf_symbolic_error__"] = SymbolicValueError
    g["__tf_symbolic_handler__"] = _handler
    free = fn.__code__.co_freevars
    body = (f"    def {fn.__name__}(*args, **kwargs):\n"
            + (f"        if False: ({', '.join(free)},)\n" if free else "")
            + f"        try:\n            return {key}(*args, **kwargs)\n"
            f"        except __tf_symbolic_error__:\n"
            f"            return __tf_symbolic_handler__({key}, args, kwargs)\n"
            f"    return {fn.__name__}\n")
    src = "def __tf_make__():\n" + "".join(f"    {v} = None\n" for v in free) + body
    ns: dict = {}
    exec(compile(src, f"<dispatch {fn.__qualname__}>", "exec"), g, ns)
    tramp = ns["__tf_make__"]()
    try:
        sig = inspect.signature(original)
    except (TypeError, ValueError):
        sig = None
    fn.__code__ = tramp.__code__
    fn.__defaults__ = None
    fn.__kwdefaults__ = None
    fn.__tf_original__ = original
    fn.__wrapped__ = original
    if sig is not None:
        fn.__signature__ = sig
    _TRAMPOLINE_CODES.add(tramp.__code__)


def install() -> None:
    """Turns on symbolic dispatch for every public op (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    for fn in api.op_functions():
        _wrap(fn)
    api.on_op_registered(_wrap)
