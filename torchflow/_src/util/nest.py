"""``tf.nest``: functions that work on nested structures of Python values.

A *structure* is a leaf or a (nested) list, tuple, namedtuple, dict (any
``Mapping``; items are visited in sorted key order), mapping view, ``attrs``
class instance, or other ``collections.abc.Sequence`` that is not a string.
Everything else is a leaf: tensors, NumPy arrays, strings, sets, ``None``.

Composite values (objects with a ``_type_spec`` whose spec has
``_to_components(value)`` and ``_from_components(components)``, as TF's
``CompositeTensor``) are leaves unless ``expand_composites=True``.

This module is pure Python (no torch): tf.data and Keras use it on every step, so
the flatten/pack paths dispatch on a per-type cache.
"""

from __future__ import annotations

import collections
import collections.abc as _abc
from typing import Callable

from torchflow._src.util.api import public

# Kinds of values, cached per type.
_LEAF, _SEQ, _MAP, _NAMEDTUPLE, _ATTRS, _VIEW, _COMPOSITE = range(7)

_KIND: dict[type, int] = {
    list: _SEQ,
    tuple: _SEQ,
    dict: _MAP,
    collections.OrderedDict: _MAP,
    int: _LEAF,
    float: _LEAF,
    bool: _LEAF,
    complex: _LEAF,
    str: _LEAF,
    bytes: _LEAF,
    type(None): _LEAF,
}


def _is_namedtuple_type(tp) -> bool:
    if not issubclass(tp, tuple):
        return False
    fields = getattr(tp, "_fields", None)
    return isinstance(fields, _abc.Sequence) and all(isinstance(f, str) for f in fields)


def _compute_kind(tp) -> int:
    if issubclass(tp, _abc.Mapping):
        return _MAP
    if issubclass(tp, _abc.MappingView):
        return _VIEW
    if hasattr(tp, "__attrs_attrs__"):
        return _ATTRS
    if issubclass(tp, (str, bytes)):
        return _LEAF
    if issubclass(tp, tuple) and _is_namedtuple_type(tp):
        return _NAMEDTUPLE
    if issubclass(tp, _abc.Sequence):
        return _SEQ
    spec = getattr(tp, "_type_spec", None)
    if spec is not None and (isinstance(spec, property) or hasattr(spec, "_to_components")):
        return _COMPOSITE
    return _LEAF


def _kind(x) -> int:
    tp = type(x)
    k = _KIND.get(tp)
    if k is None:
        k = _compute_kind(tp)
        _KIND[tp] = k
    return k


def _sorted(d):
    try:
        return sorted(d.keys())
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(x, k):
    """The direct children of a nested value of kind ``k``, in flattening order."""
    if k == _SEQ or k == _NAMEDTUPLE:
        return x
    if k == _MAP:
        return [x[key] for key in _sorted(x)]
    if k == _VIEW:
        return list(x)
    if k == _ATTRS:
        return [getattr(x, a.name) for a in type(x).__attrs_attrs__]
    if k == _COMPOSITE:
        return [x._type_spec._to_components(x)]
    raise AssertionError(k)


def _is_nested_kind(k: int, expand_composites: bool) -> bool:
    return k != _LEAF and (k != _COMPOSITE or expand_composites)


@public("torchflow.nest")
def is_nested(seq) -> bool:
    """Returns True if ``seq`` is a nested structure (not a leaf).

    Lists, tuples (namedtuples too), dicts and other mappings, mapping views and
    ``attrs`` classes are nested; strings, tensors and composite values such as
    ``tf.SparseTensor`` are leaves.

    >>> import torchflow as tf
    >>> tf.nest.is_nested([1, 2]), tf.nest.is_nested("ab")
    (True, False)

    Args:
      seq: Any value.

    Returns:
      A Python bool.
    """
    k = _kind(seq)
    return k != _LEAF and k != _COMPOSITE


is_sequence = is_nested


def is_nested_or_composite(seq) -> bool:
    """True for nested structures and composite values."""
    return _kind(seq) != _LEAF


def _flatten_into(x, out: list, expand: bool) -> None:
    k = _KIND.get(type(x))
    if k is None:
        k = _kind(x)
    if k == _LEAF:
        out.append(x)
    elif k == _SEQ or k == _NAMEDTUPLE:
        for v in x:
            _flatten_into(v, out, expand)
    elif k == _MAP:
        for key in _sorted(x):
            _flatten_into(x[key], out, expand)
    elif k == _COMPOSITE and not expand:
        out.append(x)
    else:
        for v in _children(x, k):
            _flatten_into(v, out, expand)


@public("torchflow.nest")
def flatten(structure, expand_composites: bool = False) -> list:
    """Returns a flat list of the leaves of ``structure``.

    Dicts are flattened in sorted key order; a leaf ``x`` flattens to ``[x]``.

    Args:
      structure: An arbitrarily nested structure.
      expand_composites: If True, composite values are flattened into their
        components.

    Returns:
      A Python list.

    Raises:
      TypeError: If a dict in ``structure`` has keys that cannot be sorted.

    >>> import torchflow as tf
    >>> tf.nest.flatten({"b": 1, "a": [2, (3,)]})
    [2, 3, 1]
    """
    out: list = []
    _flatten_into(structure, out, expand_composites)
    return out


def _sequence_like(instance, args: list):
    """A structure of ``instance``'s type holding ``args`` as its children."""
    k = _kind(instance)
    tp = type(instance)
    if k == _SEQ:
        if tp is list:
            return args
        if tp is tuple:
            return tuple(args)
        if isinstance(instance, range):
            return list(args)
        return tp(args)
    if k == _MAP:
        result = dict(zip(_sorted(instance), args))
        if isinstance(instance, _abc.MutableMapping):
            if tp is dict:
                return {key: result[key] for key in instance}
            d = tp(instance.default_factory) if tp is collections.defaultdict else tp()
            for key in instance:
                d[key] = result[key]
            return d
        try:
            return tp((key, result[key]) for key in instance)
        except TypeError as err:
            raise TypeError(
                f"Error creating an object of type {tp} like {instance}. Note that it must "
                f"accept a single positional argument representing an iterable of key-value "
                f"pairs, in addition to self. Cause: {err}"
            ) from None
    if k == _NAMEDTUPLE or k == _ATTRS:
        return tp(*args)
    if k == _VIEW:
        return list(args)
    if k == _COMPOSITE:
        return instance._type_spec._from_components(args[0])
    raise AssertionError(k)


def _pack(structure, flat: list, index: int, expand: bool):
    """Packs ``flat[index:]`` into ``structure``; returns (next_index, packed).

    Raises IndexError when ``flat`` runs out.
    """
    tp = type(structure)
    k = _KIND.get(tp)
    if k is None:
        k = _kind(structure)
    if k == _LEAF or (k == _COMPOSITE and not expand):
        return index + 1, flat[index]
    packed = []
    append = packed.append
    if k == _MAP and (tp is dict or tp is collections.OrderedDict):
        keys = _sorted(structure)
        for key in keys:
            index, v = _pack(structure[key], flat, index, expand)
            append(v)
        result = dict(zip(keys, packed))
        if tp is dict:
            return index, {key: result[key] for key in structure}
        return index, tp((key, result[key]) for key in structure)
    for child in (structure if k == _SEQ else _children(structure, k)):
        index, v = _pack(child, flat, index, expand)
        append(v)
    if tp is list:
        return index, packed
    if tp is tuple:
        return index, tuple(packed)
    return index, _sequence_like(structure, packed)


@public("torchflow.nest")
def pack_sequence_as(structure, flat_sequence, expand_composites: bool = False):
    """Returns ``flat_sequence`` packed into the nested form of ``structure``.

    Args:
      structure: A nested structure whose leaves are replaced.
      flat_sequence: A flat list or tuple with as many items as ``structure``
        has leaves.
      expand_composites: If True, composite values are built from components.

    Returns:
      The packed structure (of ``structure``'s types).

    Raises:
      TypeError: If ``flat_sequence`` is not a sequence.
      ValueError: If the number of leaves does not match.

    >>> import torchflow as tf
    >>> tf.nest.pack_sequence_as({"a": 0, "b": (0, 0)}, [1, 2, 3])
    {'a': 1, 'b': (2, 3)}
    """
    if not is_nested(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but found "
            f"incompatible type `{type(flat_sequence)}` instead."
        )
    k = _kind(structure)
    if k == _LEAF or (k == _COMPOSITE and not expand_composites):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever "
                f"the input is a sequence ({type(flat_sequence)}) of length "
                f"{len(flat_sequence)}.\n  {flat_sequence}\nnest cannot guarantee that it is "
                f"safe to map one to the other."
            )
        return flat_sequence[0]
    flat = flat_sequence if isinstance(flat_sequence, (list, tuple)) else list(flat_sequence)
    try:
        used, packed = _pack(structure, flat, 0, expand_composites)
    except IndexError:
        used = -1
    if used != len(flat):
        n_leaves = len(flatten(structure, expand_composites))
        raise ValueError(
            f"Could not pack sequence. Structure had {n_leaves} atoms, but flat_sequence had "
            f"{len(flat)} items.  Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    return packed


def _describe(x) -> str:
    return f"type={type(x).__name__} str={x}"


class _Mismatch(Exception):
    def __init__(self, message: str, is_type_error: bool):
        super().__init__(message)
        self.is_type_error = is_type_error


def _same_namedtuples(a, b) -> bool:
    return type(a).__name__ == type(b).__name__ and tuple(a._fields) == tuple(b._fields)


def _assert_same(a, b, check_types: bool, expand: bool) -> None:
    ta = type(a)
    if ta is type(b):
        if (ta is list or ta is tuple) and len(a) == len(b):
            for x, y in zip(a, b):
                _assert_same(x, y, check_types, expand)
            return
        if ta is dict and len(a) == len(b) and a.keys() == b.keys():
            for key in _sorted(a):
                _assert_same(a[key], b[key], check_types, expand)
            return
        if _KIND.get(ta) == _LEAF:
            return
    ka, kb = _kind(a), _kind(b)
    na, nb = _is_nested_kind(ka, expand), _is_nested_kind(kb, expand)
    if na != nb:
        seq, non = (a, b) if na else (b, a)
        raise _Mismatch(
            f'Substructure "{_describe(seq)}" is a sequence, while substructure '
            f'"{_describe(non)}" is not',
            False,
        )
    if not na:
        return
    if check_types:
        ta, tb = type(a), type(b)
        if ka == _NAMEDTUPLE and kb == _NAMEDTUPLE:
            type_ok = ta is tb or _same_namedtuples(a, b)
        else:
            type_ok = (
                ta is tb
                or (isinstance(a, list) and isinstance(b, list))
                or (ka == _MAP and kb == _MAP)
            )
        if not type_ok:
            raise _Mismatch(
                f"The two namedtuples don't have the same sequence type. First structure "
                f"{_describe(a)} has type {ta.__name__}, while second structure "
                f"{_describe(b)} has type {tb.__name__}",
                True,
            )
        if ka == _MAP and kb == _MAP and set(a.keys()) != set(b.keys()):
            raise _Mismatch(
                f"The two dictionaries don't have the same set of keys. First structure has "
                f"keys {_describe(_sorted(a))}, while second structure has keys "
                f"{_describe(_sorted(b))}",
                False,
            )
    ca, cb = _children(a, ka), _children(b, kb)
    if len(ca) != len(cb):
        raise _Mismatch(
            f"The two structures don't have the same number of elements. First structure: "
            f"{_describe(a)}. Second structure: {_describe(b)}",
            False,
        )
    for x, y in zip(ca, cb):
        _assert_same(x, y, check_types, expand)


class _Dot:
    def __repr__(self):
        return "."


_DOT = _Dot()


@public("torchflow.nest")
def assert_same_structure(nest1, nest2, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """Asserts that two structures are nested in the same way.

    Args:
      nest1: A nested structure.
      nest2: A nested structure.
      check_types: If True, the sequence types must match too (namedtuples
        with equal names and fields count as one type; any two mappings match).
      expand_composites: If True, composite values are compared by components.

    Raises:
      ValueError: If the nesting, lengths or dict keys differ.
      TypeError: If ``check_types`` and the sequence types differ.
    """
    try:
        _assert_same(nest1, nest2, check_types, expand_composites)
    except _Mismatch as e:
        s1 = map_structure(lambda _: _DOT, nest1, expand_composites=expand_composites)
        s2 = map_structure(lambda _: _DOT, nest2, expand_composites=expand_composites)
        cls = TypeError if e.is_type_error else ValueError
        raise cls(
            f"The two structures don't have the same nested structure.\n\nFirst structure: "
            f"{_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\nMore specifically: "
            f"{e}\nEntire first structure:\n{s1}\nEntire second structure:\n{s2}"
        ) from None


@public("torchflow.nest")
def map_structure(func: Callable, *structure, **kwargs):
    """Applies ``func`` to each leaf (or tuple of corresponding leaves).

    Args:
      func: A callable taking as many arguments as there are structures.
      *structure: Structures with the same nesting.
      **kwargs: ``check_types`` (default True) and ``expand_composites``
        (default False), as in ``assert_same_structure``.

    Returns:
      A structure like ``structure[0]`` holding the results.

    Raises:
      TypeError: If ``func`` is not callable, or sequence types differ.
      ValueError: If no structure is given, the structures differ, or an
        unknown keyword argument is passed.

    >>> import torchflow as tf
    >>> tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)])
    [11, (22,)]
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: `"
            + "`, `".join(kwargs.keys()) + "`"
        )
    first = structure[0]
    if len(structure) == 1:
        flat = flatten(first, expand_composites)
        return _pack_checked(first, [func(x) for x in flat], expand_composites)
    for other in structure[1:]:
        assert_same_structure(first, other, check_types=check_types,
                              expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structure]
    return _pack_checked(first, [func(*xs) for xs in zip(*flats)], expand_composites)


def _pack_checked(structure, flat: list, expand: bool):
    k = _kind(structure)
    if k == _LEAF or (k == _COMPOSITE and not expand):
        return flat[0]
    return _pack(structure, flat, 0, expand)[1]


# --- paths ---------------------------------------------------------------------


def _yield_paths(x, path: tuple, expand: bool):
    k = _kind(x)
    if not _is_nested_kind(k, expand):
        yield path, x
        return
    if k == _MAP:
        for key in _sorted(x):
            yield from _yield_paths(x[key], path + (key,), expand)
    elif k == _ATTRS:
        for a in type(x).__attrs_attrs__:
            yield from _yield_paths(getattr(x, a.name), path + (a.name,), expand)
    elif k == _NAMEDTUPLE:
        for name, v in zip(x._fields, x):
            yield from _yield_paths(v, path + (name,), expand)
    else:
        for i, v in enumerate(_children(x, k)):
            yield from _yield_paths(v, path + (i,), expand)


def flatten_with_tuple_paths(structure, expand_composites: bool = False) -> list:
    """``[(path, leaf), ...]`` where ``path`` is a tuple of keys/indices/field names."""
    return list(_yield_paths(structure, (), expand_composites))


def yield_flat_paths(nest, expand_composites: bool = False):
    """Yields the tuple path of each leaf, in flattening order."""
    for path, _ in _yield_paths(nest, (), expand_composites):
        yield path


def flatten_with_joined_string_paths(structure, separator: str = "/",
                                     expand_composites: bool = False) -> list:
    """``[(path_string, leaf), ...]`` with path components joined by ``separator``."""
    return [
        (separator.join(str(p) for p in path), v)
        for path, v in _yield_paths(structure, (), expand_composites)
    ]


def map_structure_with_paths(func: Callable, *structure, **kwargs):
    """Like ``map_structure`` but ``func(path_string, *leaves)``."""
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(kwargs)}`")
    return map_structure_with_tuple_paths(
        lambda path, *v: func("/".join(str(p) for p in path), *v),
        *structure, check_types=check_types, expand_composites=expand_composites)


def map_structure_with_tuple_paths(func: Callable, *structure, **kwargs):
    """Like ``map_structure`` but ``func(path_tuple, *leaves)``."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types,
                              expand_composites=expand_composites)
    paths = list(yield_flat_paths(structure[0], expand_composites))
    flats = [flatten(s, expand_composites) for s in structure]
    results = [func(p, *xs) for p, *xs in zip(paths, *flats)]
    return pack_sequence_as(structure[0], results, expand_composites)


# --- shallow structures ----------------------------------------------------------


def assert_shallow_structure(shallow_tree, input_tree, check_types: bool = True,
                             expand_composites: bool = False) -> None:
    """Asserts ``input_tree`` has at least the nesting of ``shallow_tree``.

    Raises:
      TypeError: If a sequence of ``shallow_tree`` is a leaf or another type
        in ``input_tree``.
      ValueError: If lengths or dict keys differ.
    """
    ks = _kind(shallow_tree)
    if not _is_nested_kind(ks, expand_composites):
        return
    ki = _kind(input_tree)
    if not _is_nested_kind(ki, expand_composites):
        raise TypeError(
            f"If shallow structure is a sequence, input must also be a sequence. Input has "
            f"type: {type(input_tree)}."
        )
    if check_types and type(shallow_tree) is not type(input_tree):
        same = (
            (ks == _MAP and ki == _MAP)
            or (isinstance(shallow_tree, list) and isinstance(input_tree, list))
            or (ks == _NAMEDTUPLE and ki == _NAMEDTUPLE
                and _same_namedtuples(shallow_tree, input_tree))
        )
        if not same:
            raise TypeError(
                f"The two structures don't have the same sequence type. Input structure has "
                f"type {type(input_tree)}, while shallow structure has type "
                f"{type(shallow_tree)}."
            )
    if ks == _MAP:
        if ki != _MAP:
            raise ValueError("If shallow structure is a dict, input must also be a dict.")
        missing = set(shallow_tree) - set(input_tree)
        if missing:
            raise ValueError(
                f"The input_tree has fewer items than the shallow_tree: missing keys "
                f"{sorted(missing, key=str)}."
            )
        for key in shallow_tree:
            assert_shallow_structure(shallow_tree[key], input_tree[key], check_types,
                                     expand_composites)
        return
    cs, ci = _children(shallow_tree, ks), _children(input_tree, ki)
    if len(cs) != len(ci):
        raise ValueError(
            f"The two structures don't have the same sequence length. Input structure has "
            f"length {len(ci)}, while shallow structure has length {len(cs)}."
        )
    for s, i in zip(cs, ci):
        assert_shallow_structure(s, i, check_types, expand_composites)


def _flatten_up_to_into(shallow, tree, out: list, expand: bool) -> None:
    ks = _kind(shallow)
    if not _is_nested_kind(ks, expand):
        out.append(tree)
        return
    if ks == _MAP:
        for key in _sorted(shallow):
            _flatten_up_to_into(shallow[key], tree[key], out, expand)
        return
    for s, t in zip(_children(shallow, ks), _children(tree, _kind(tree))):
        _flatten_up_to_into(s, t, out, expand)


def flatten_up_to(shallow_tree, input_tree, check_types: bool = True,
                  expand_composites: bool = False) -> list:
    """Flattens ``input_tree`` only as deep as ``shallow_tree`` is nested."""
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand_composites)
    out: list = []
    _flatten_up_to_into(shallow_tree, input_tree, out, expand_composites)
    return out


def map_structure_up_to(shallow_tree, func: Callable, *inputs, **kwargs):
    """Applies ``func`` to the sub-trees of ``inputs`` at the leaves of ``shallow_tree``."""
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    flats = [flatten_up_to(shallow_tree, x, check_types, expand_composites) for x in inputs]
    results = [func(*xs) for xs in zip(*flats)]
    return pack_sequence_as(shallow_tree, results, expand_composites)


def list_to_tuple(structure):
    """Replaces every list in ``structure`` by a tuple (tf.data uses this)."""

    def rec(x):
        k = _kind(x)
        if k == _LEAF or k == _COMPOSITE:
            return x
        packed = [rec(c) for c in _children(x, k)]
        return tuple(packed) if isinstance(x, list) else _sequence_like(x, packed)

    return rec(structure)


__all__ = [
    "is_nested", "flatten", "pack_sequence_as", "map_structure", "assert_same_structure",
    "flatten_with_tuple_paths", "flatten_with_joined_string_paths", "yield_flat_paths",
    "map_structure_with_paths", "map_structure_with_tuple_paths", "flatten_up_to",
    "map_structure_up_to", "assert_shallow_structure", "list_to_tuple", "is_sequence",
    "is_nested_or_composite",
]
