"""The functions of a loaded SavedModel: its ``tf.function``s and concrete functions.

A SavedModel keeps each ``tf.function`` as the concrete functions it was traced
to (a ``FunctionDef`` each, with the structured input signature it was traced
for and its output structure) plus the ``FunctionSpec`` that binds call
arguments. ``RestoredFunction`` picks the concrete function whose signature
the call matches, as TF's loader does (first without converting Python and NumPy
values to tensors, then with), and runs its graph through
``graph_exec.FunctionLibrary``; the variables the function captured are
appended as its last inputs. A ``RaggedTensorSpec`` / ``SparseTensorSpec`` in a
signature is several graph inputs (its components, in TF's order), and such an
output is built back from its components.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core import errors, function_signature
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.core.variables import Variable
from torchflow._src.ops import numpy_ops
from torchflow._src.train.saved_model import structure
from torchflow._src.train.saved_model.revived import RevivedResource
from torchflow._src.util import nest


def _is_tensor(x) -> bool:
    return isinstance(x, _TENSOR_LIKE)


def _spec_of(x) -> TensorSpec:
    return TensorSpec(x.shape, x.dtype)


def _leaves(struct) -> list:
    return nest.flatten(struct)


def _input_specs(struct) -> list:
    """The TensorSpec of each graph input of a structured signature (a composite
    spec's components in its place)."""
    out = []
    for s in _leaves(struct):
        if isinstance(s, TensorSpec):
            out.append(s)
        else:
            out.extend(structure.component_specs(s))
    return out


def _flat_inputs(flat: list, expected: list) -> list:
    """The graph inputs of a call's leaves ``flat`` for the signature leaves
    ``expected``: tensors as they are, composites as their components."""
    out = []
    for a, e in zip(flat, expected):
        if isinstance(e, TensorSpec):
            out.append(a)
        elif structure.is_composite_spec(e):
            out.extend(nest.flatten(e._to_components(a)))
    return out


class RestoredConcreteFunction:
    """One traced function of a SavedModel, callable on its signature.

    ``structured_input_signature`` is the ``(args, kwargs)`` it was traced for,
    ``structured_outputs`` the structure of its result (``TensorSpec`` leaves);
    calling it with tensors runs its graph.
    """

    def __init__(self, library, name: str, saved, captures: list, bare=None):
        self._library = library
        self.name = name
        self._saved = saved
        self._captures = captures
        self.structured_input_signature = structure.decode(
            saved.canonicalized_input_signature) if saved.HasField(
            "canonicalized_input_signature") else ((), {})
        self.structured_outputs = structure.decode(saved.output_signature) if \
            saved.HasField("output_signature") else None
        self._input_specs = _input_specs(self.structured_input_signature)
        self._has_resources = any(isinstance(c, RevivedResource) for c in captures)
        out = self.structured_outputs
        self._output_keys = None
        if type(out) is dict and all(isinstance(v, TensorSpec) for v in out.values()) and \
                all(type(k) is str for k in out):
            order = {k: i for i, k in enumerate(sorted(out))}
            self._output_keys = [(k, order[k]) for k in out]
        self._argument_keywords = list(bare.argument_keywords) if bare is not None else None
        self._allowed_positional = int(bare.allowed_positional_arguments) if bare is not None \
            else None

    @property
    def captured_inputs(self) -> list:
        return list(self._captures)

    @property
    def variables(self) -> list:
        return [c for c in self._captures if isinstance(c, Variable)]

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    @property
    def function_def(self):
        """The ``FunctionDef`` proto this function runs."""
        return self._library.function_def(self.name)

    @property
    def saved_concrete_function(self):
        """Its ``SavedConcreteFunction`` proto (bound inputs, structured signatures)."""
        return self._saved

    def library_functions(self) -> list:
        """Its ``FunctionDef`` and those of the functions it calls (for re-saving)."""
        return self._library.closure(self.name)

    def _call_flat(self, tensors: list):
        """Runs the graph on the flat tensor inputs; the structured result."""
        if len(tensors) != len(self._input_specs):
            raise errors.InvalidArgumentError(
                None, None, f"Function {self.name} takes {len(self._input_specs)} tensor "
                f"inputs, got {len(tensors)} [Op:{self.name}]")
        args = []
        for i, (t, spec) in enumerate(zip(tensors, self._input_specs)):
            if not _is_tensor(t):
                t = convert_to_tensor(t, dtype=spec.dtype)
            if t.dtype != spec.dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {self.name} as input #{i}(zero-based) was "
                    f"expected to be a {_tf_name(spec.dtype)} tensor but is a "
                    f"{_tf_name(t.dtype)} tensor [Op:{self.name}]")
            args.append(t)
        captures = self._captures
        if self._has_resources:
            captures = [c.resource_handle if isinstance(c, RevivedResource) else c
                        for c in captures]
        outputs = self._library.call(self.name, args + captures)
        keys = self._output_keys
        if keys is not None:  # a dict of tensors: its values in nest's (sorted) order
            return {k: outputs[i] for k, i in keys}
        return self._pack_outputs(outputs)

    def _pack_outputs(self, outputs: list):
        struct = self.structured_outputs
        if struct is None:
            return None
        if isinstance(struct, TensorSpec):
            return outputs[0]
        flat = _leaves(struct)
        it = iter(outputs)
        values = []
        for s in flat:
            if isinstance(s, TensorSpec):
                values.append(next(it))
            elif structure.is_composite_spec(s):
                parts = [next(it) for _ in structure.component_specs(s)]
                values.append(s._from_components(nest.pack_sequence_as(s._component_specs,
                                                                       parts)))
            else:
                values.append(s)
        return nest.pack_sequence_as(struct, values)

    def _call_structured(self, args: tuple, kwargs: dict):
        """Runs on a call already in ``structured_input_signature``'s form."""
        flat = nest.flatten_up_to(self.structured_input_signature, (tuple(args), kwargs))
        expected = _leaves(self.structured_input_signature)
        return self._call_flat(_flat_inputs(flat, expected))

    def __call__(self, *args, **kwargs):
        if self._argument_keywords is not None:
            return self._call_keywords(args, kwargs)
        return self._call_structured(args, kwargs)

    def _call_keywords(self, args: tuple, kwargs: dict):
        """A bare concrete function (a signature): one argument per tensor input."""
        keywords = self._argument_keywords
        bound = function_signature.bind_keywords((self, args, kwargs), keywords, args, kwargs,
                                                 self._allowed_positional, _KEYWORD_ERRORS)
        tensors = [bound[k] for k in keywords]
        for t, spec in zip(tensors, self._input_specs):
            if _is_tensor(t) and t.dtype == spec.dtype and \
                    not spec.shape.is_compatible_with(t.shape):
                raise TypeError(
                    f"Binding inputs to tf.function failed due to `Can not cast "
                    f"{_spec_of(t)!r} to {spec!r}`. Received args: {args} and kwargs: "
                    f"{kwargs} for signature: {self._describe_signature()}.")
        return self._call_flat(tensors)

    def _describe_signature(self) -> str:
        keywords = self._argument_keywords or []
        parts = [f"{k}: {s!r}" for k, s in zip(keywords, self._input_specs)]
        return "(*, " + ", ".join(parts) + ")" if parts else "()"

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name} {self.structured_input_signature!r} -> " \
               f"{self.structured_outputs!r}>"


# The texts of a restored signature's binding errors (ctx: (function, args, kwargs)).
_KEYWORD_ERRORS = function_signature.BindingErrors(
    lambda c, n, m: f"{c[0].name} takes {n} positional arguments but {m} were given. Got "
                    f"args: {c[1]}, kwargs: {c[2]}.",
    lambda c, k: f"{c[0].name} got unexpected keyword arguments: {k}.",
    lambda c, k: f"{c[0].name} got two values for argument '{k}'.",
    lambda c, missing: f"Binding inputs to tf.function failed due to `missing a required "
                       f"argument: '{missing[0]}'`. Received args: {c[1]} and kwargs: {c[2]} "
                       f"for signature: {c[0]._describe_signature()}.",
)


def _tf_name(dtype) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name,
                                                                             dtype.name)


class _ArgSpec:
    """A FunctionSpec's ``FullArgSpec``: binds a call to ``(args, kwargs)``."""

    def __init__(self, fullargspec):
        spec = structure.decode(fullargspec) if fullargspec is not None else None
        get = (lambda k, d=None: getattr(spec, k, d)) if spec is not None else \
            (lambda k, d=None: d)
        self.args = list(get("args") or [])
        self.varargs = get("varargs")
        self.varkw = get("varkw")
        self.defaults = tuple(get("defaults") or ())
        self.kwonlyargs = list(get("kwonlyargs") or [])
        self.kwonlydefaults = dict(get("kwonlydefaults") or {})

    def bind(self, is_method: bool, args: tuple, kwargs: dict, fname: str):
        # TF 2.4 saves a method's spec with its ``self`` and is_method=True (TF 2.21
        # drops ``self`` when saving and says False): the bound argument is not passed.
        names = self.args[1:] if is_method else self.args
        if len(args) > len(names) and not self.varargs:
            raise TypeError(f"{fname}() takes {len(names)} positional arguments but "
                            f"{len(args)} were given")
        values = list(args[:len(names)])
        extra = list(args[len(names):])
        kwargs = dict(kwargs)
        first_default = len(names) - len(self.defaults)
        for i in range(len(values), len(names)):
            name = names[i]
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif i >= first_default:
                values.append(self.defaults[i - first_default])
            else:
                raise TypeError(f"{fname}() missing required argument: '{name}'")
        out_kwargs = {}
        for name in self.kwonlyargs:
            if name in kwargs:
                out_kwargs[name] = kwargs.pop(name)
            elif name in self.kwonlydefaults:
                out_kwargs[name] = self.kwonlydefaults[name]
            else:
                raise TypeError(f"{fname}() missing required keyword-only argument: '{name}'")
        if kwargs:
            if not self.varkw:
                raise TypeError(f"{fname}() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            out_kwargs.update(kwargs)
        return tuple(values + extra), out_kwargs


def _try_convert(x, dtype):
    if _is_tensor(x):
        return x
    if isinstance(x, (np.ndarray, np.generic, int, float, bool, complex, list)):
        try:
            return convert_to_tensor(x, dtype_hint=dtype)
        except (TypeError, ValueError, errors.OpError):
            return x
    return x


def _callable_with(fn: RestoredConcreteFunction, inputs, allow_conversion: bool):
    """The call's leaves if ``inputs`` match ``fn``'s signature (TF's rules), else None."""
    expected = fn.structured_input_signature
    try:
        flat = nest.flatten_up_to(expected, inputs)
    except (TypeError, ValueError):
        return None
    out = []
    for arg, spec in zip(flat, _leaves(expected)):
        if isinstance(spec, TensorSpec):
            if allow_conversion:
                arg = _try_convert(arg, spec.dtype)
            if not _is_tensor(arg) or arg.dtype != spec.dtype or \
                    not spec.shape.is_compatible_with(arg.shape):
                return None
        elif structure.is_composite_spec(spec):
            if not spec.is_compatible_with(arg):
                return None
        elif isinstance(spec, structure.OpaqueTypeSpec):
            return None
        elif _is_tensor(arg):
            if arg is not spec:
                return None
        else:
            try:
                if not bool(arg == spec):
                    return None
            except (TypeError, ValueError):
                return None
        out.append(arg)
    return out


def _pretty(value) -> str:
    args, kwargs = value if isinstance(value, tuple) and len(value) == 2 else (value, {})
    lines = [f"  Positional arguments ({len(args)} total):"]
    lines += [f"    * {a!r}" for a in args]
    lines.append(f"  Keyword arguments: {kwargs!r}")
    return "\n".join(lines)


class RestoredFunction:
    """A ``tf.function`` loaded from a SavedModel (TF's ``RestoredFunction``).

    Calls bind their arguments with the saved ``FunctionSpec`` and run the first
    concrete function whose input signature the call matches.

    Raises (on call):
      ValueError: No concrete function matches the call (TF's message lists the
        call and every saved signature).
    """

    def __init__(self, name: str, concrete: list, function_spec):
        self.__name__ = name
        self._concrete = concrete
        self._spec = _ArgSpec(function_spec.fullargspec if function_spec is not None and
                              function_spec.HasField("fullargspec") else None)
        self._is_method = bool(function_spec.is_method) if function_spec is not None else False
        # (dtype, shape) of each positional tensor of a call -> (concrete function, which
        # argument is each graph input): a call with only tensors matches by those alone
        self._by_key: dict = {}
        self.input_signature = None
        if function_spec is not None and function_spec.HasField("input_signature"):
            sig = structure.decode(function_spec.input_signature)
            self.input_signature = tuple(sig) if sig is not None else None

    @property
    def concrete_functions(self) -> list:
        return list(self._concrete)

    def _list_all_concrete_functions_for_serialization(self) -> list:
        return list(self._concrete)

    def _list_all_concrete_functions(self) -> list:
        return list(self._concrete)

    def _match(self, args: tuple, kwargs: dict):
        inputs = self._spec.bind(self._is_method, args, kwargs, self.__name__)
        for allow_conversion in (False, True):
            for fn in self._concrete:
                flat = _callable_with(fn, inputs, allow_conversion)
                if flat is not None:
                    return fn, flat
        options = "\n\n".join(f"Option {i + 1}:\n{_pretty(fn.structured_input_signature)}"
                              for i, fn in enumerate(self._concrete))
        raise ValueError(
            "Could not find matching concrete function to call loaded from the SavedModel. "
            f"Got:\n{_pretty(inputs)}\n\n Expected these arguments to match one of the "
            f"following {len(self._concrete)} option(s):\n\n{options}")

    def __call__(self, *args, **kwargs):
        key = None if kwargs else _tensor_key(args)
        if key is not None:
            hit = self._by_key.get(key)
            if hit is not None:
                fn, picks = hit
                return fn._call_flat([args[i] for i in picks])
        fn, flat = self._match(args, kwargs)
        expected = _leaves(fn.structured_input_signature)
        tensors = _flat_inputs(flat, expected)
        if key is not None and len(self._by_key) < _KEY_CACHE_SIZE:
            picks = _positions(tensors, args, expected)
            if picks is not None:
                self._by_key[key] = (fn, picks)
        return fn._call_flat(tensors)

    def get_concrete_function(self, *args, **kwargs) -> RestoredConcreteFunction:
        """The concrete function a call with ``args`` (tensors or TensorSpecs) would run.

        Raises:
          ValueError: None matches.
        """
        if not args and not kwargs and len(self._concrete) == 1:
            return self._concrete[0]
        specs = nest.map_structure(
            lambda a: _SpecArg(a) if isinstance(a, TensorSpec) else a, (args, kwargs))
        return self._match(*specs)[0]

    def __get__(self, instance, owner):
        return self

    def __repr__(self) -> str:
        return f"<RestoredFunction {self.__name__} ({len(self._concrete)} concrete)>"


_KEY_CACHE_SIZE = 64


def _tensor_key(args: tuple):
    """What decides the match of a call of positional tensors only (their dtypes and
    shapes; the Python defaults bound after them are the same for every such call)."""
    key = []
    for a in args:
        if type(a) is not Tensor:
            return None
        key.append((a.dtype, numpy_ops.shape_tuple(a)))
    return tuple(key)


def _positions(tensors: list, args: tuple, expected: list):
    """The index in ``args`` of each graph input, or None where the match needed more
    than the arguments' dtypes and shapes (a composite, a tensor compared by identity,
    an input that is no argument itself)."""
    for spec in expected:
        if not isinstance(spec, TensorSpec) and (
                _is_tensor(spec) or structure.is_composite_spec(spec) or
                isinstance(spec, structure.OpaqueTypeSpec)):
            return None
    picks = []
    for t in tensors:
        i = next((i for i, a in enumerate(args) if a is t), None)
        if i is None:
            return None
        picks.append(i)
    return picks


class _SpecArg:
    """A TensorSpec standing in for a tensor when matching (``get_concrete_function``)."""

    def __init__(self, spec: TensorSpec):
        self.shape = spec.shape
        self.dtype = spec.dtype

    def __repr__(self) -> str:
        return repr(TensorSpec(self.shape, self.dtype))


_TENSOR_LIKE = (Tensor, Variable, _SpecArg)
