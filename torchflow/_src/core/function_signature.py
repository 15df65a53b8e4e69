"""What a traced ``tf.function`` shows of itself: signatures printed as TF 2.4
prints them, the symbolic tensors of ``structured_outputs``, and how a
``ConcreteFunction`` binds its call arguments, and TF's check that a trace leaves
the lists and dicts it was given as they were."""

from __future__ import annotations

# Imported for its effect: Tensor's value reads follow TF's rules inside traces.
from torchflow._src.core import graph_reads  # noqa: F401 - installs the checks on Tensor
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variables import Variable
from torchflow._src.util import nest


class SymbolicTensor:
    """An output of a traced function as its graph names it (``Identity:0``): the
    values of ``ConcreteFunction.structured_outputs``."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape: TensorShape, dtype, name: str):
        self.shape = shape
        self.dtype = dtype
        self.name = name

    def get_shape(self) -> TensorShape:
        return self.shape

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'


def symbolic_outputs(out, shapes: dict | None = None):
    """``structured_outputs`` of a trace whose (eager) result was ``out``; ``shapes``
    maps ``id`` of its tensors to their static shapes where those differ from the
    sizes the trace saw (``graph_out_shapes.static_shapes``)."""
    count = [0]
    shapes = shapes or {}

    def one(x):
        if isinstance(x, (Tensor, Variable)):
            k = count[0]
            count[0] += 1
            name = "Identity:0" if k == 0 else f"Identity_{k}:0"
            return SymbolicTensor(shapes.get(id(x), x.shape), x.dtype, name)
        return x

    return nest.map_structure(one, out)


def _has_spec(x) -> bool:
    return any(isinstance(s, (TypeSpec, SymbolicTensor)) for s in nest.flatten(x))


def _spec_text(spec) -> str:
    if isinstance(spec, (TensorSpec, SymbolicTensor)):
        return f"{spec.dtype.name} Tensor, shape={spec.shape}"
    if isinstance(spec, TypeSpec):
        return repr(spec)
    if nest.is_nested(spec):
        leaves = nest.flatten(spec)
        marks = [_Mark(f"<{i + 1}>") for i in range(len(leaves))]
        text = str(nest.pack_sequence_as(spec, marks))
        for m, leaf in zip(marks, leaves):
            text += f"\n      {m}: {_spec_text(leaf)}"
        return text
    return repr(spec)


class _Mark:
    __slots__ = ("_s",)

    def __init__(self, s: str):
        self._s = s

    def __repr__(self) -> str:
        return self._s

    __str__ = __repr__


def pretty_signature(fn_name: str, names: list, signature, outputs) -> str:
    """TF 2.4's ``pretty_printed_signature``: ``name(a, b=2)``, then the tensor
    arguments (``Args:``) and the outputs (``Returns:``)."""
    args, kwargs = signature
    items = list(zip(names, args)) + sorted(kwargs.items())
    summary, details = [], []
    for name, spec in items:
        if _has_spec(spec):
            summary.append(name)
            details.append(f"    {name}: {_spec_text(spec)}")
        else:
            summary.append(f"{name}={spec!r}")
    lines = [f"{fn_name}({', '.join(summary)})"]
    if details:
        lines.append("  Args:")
        lines.extend(details)
    lines.append("  Returns:")
    lines.append(f"    {_spec_text(outputs)}")
    return "\n".join(lines)


def _equal(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - values that do not compare
        return a is b


class BindingErrors:
    """The ``TypeError`` texts of one kind of callable for ``bind_keywords``: each is
    a function of the caller's context (what the message names) and the details."""

    __slots__ = ("too_many", "unexpected", "duplicate", "missing")

    def __init__(self, too_many, unexpected, duplicate, missing):
        self.too_many = too_many  # (ctx, allowed: int, given: int)
        self.unexpected = unexpected  # (ctx, keyword)
        self.duplicate = duplicate  # (ctx, keyword)
        self.missing = missing  # (ctx, [keywords] in signature order)


def bind_keywords(ctx, keywords: list, args: tuple, kwargs: dict, max_positional: int,
                  errors: BindingErrors) -> dict:
    """Binds a call to named arguments: ``args`` fill ``keywords`` in order (at most
    ``max_positional`` of them), ``kwargs`` the others by name. The binder of
    ``ConcreteFunction`` calls, traced here or restored from a SavedModel.

    Returns:
      A dict from each keyword to its value.

    Raises:
      TypeError: With ``errors``' texts, checked in TF's order: too many positional
        arguments, an unknown keyword, a keyword given positionally too, missing
        arguments.
    """
    if len(args) > max_positional:
        raise TypeError(errors.too_many(ctx, max_positional, len(args)))
    bound = dict(zip(keywords, args))
    for k, v in kwargs.items():
        if k not in keywords:
            raise TypeError(errors.unexpected(ctx, k))
        if k in bound:
            raise TypeError(errors.duplicate(ctx, k))
        bound[k] = v
    if len(bound) != len(keywords):
        raise TypeError(errors.missing(ctx, [k for k in keywords if k not in bound]))
    return bound


# TF 2.4's texts for a concrete function of a trace (ctx: the function's name).
_CONCRETE_ERRORS = BindingErrors(
    lambda name, n, m: f"{name}(...) takes {n} positional arguments but {m} were given.",
    lambda name, k: f"{name}(...) got unexpected keyword argument '{k}'.",
    lambda name, k: f"{name}(...) got multiple values for argument '{k}'.",
    lambda name, missing: f"{name}(...) missing required arguments: {', '.join(missing)}.",
)


def bind_concrete_call(fn_name: str, names: list, signature, args, kwargs):
    """The full (args, kwargs) of the Python function for a call of a concrete
    function: its tensor arguments positionally in signature order or by name,
    Python values fixed by the trace.

    Raises:
      TypeError: As TF, for too many arguments, unknown or fixed keywords and
        missing tensor arguments.
    """
    args_spec, kwargs_spec = signature
    params = list(zip(names, args_spec)) + list(kwargs_spec.items())
    tensor_names = [n for n, s in params if _has_spec(s)]
    if len(args) > len(tensor_names) and len(args) <= len(args_spec):
        # The original call's arguments, Python values included: those must be the
        # values the function was traced with.
        for name, spec, a in zip(names, args_spec, args):
            if not _has_spec(spec) and not _equal(a, spec):
                raise TypeError(f"ConcreteFunction {fn_name}(...) was constructed with "
                                f"{type(spec).__name__} value {spec!r} in {name}, but was "
                                f"called with {type(a).__name__} value {a!r}.")
        args = tuple(a for (name, spec), a in zip(zip(names, args_spec), args)
                     if _has_spec(spec))
    bound = bind_keywords(fn_name, tensor_names, args, kwargs, len(tensor_names),
                          _CONCRETE_ERRORS)
    full_args = tuple(bound[n] if _has_spec(s) else s for n, s in zip(names, args_spec))
    full_kwargs = {n: bound[n] if _has_spec(s) else s for n, s in kwargs_spec.items()}
    return full_args, full_kwargs


def containers_of(value):
    """A copy of ``value``'s lists and dicts (the same leaves), or None if it has none."""
    def walk(x):
        if type(x) is list:
            return [walk(e) for e in x]
        if type(x) is dict:
            return {k: walk(v) for k, v in x.items()}
        if type(x) is tuple:
            return tuple(walk(e) for e in x)
        return x

    def has(x):
        if type(x) in (list, dict):
            return True
        return type(x) is tuple and any(has(e) for e in x)

    return walk(value) if has(value) else None


def check_unchanged(fn, before, after) -> None:
    """TF's ValueError when the traced body changed a list or dict it was given."""
    def same(a, b) -> bool:
        if type(a) is not type(b):
            return False
        if type(a) in (list, tuple):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if type(a) is dict:
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return a is b

    if not same(before, after):
        name = getattr(fn, "__name__", fn)
        raise ValueError(f"{name}() should not modify its Python input arguments. Check if it "
                         f"modifies any lists or dicts passed as arguments. Modifying a copy is "
                         f"allowed.")
