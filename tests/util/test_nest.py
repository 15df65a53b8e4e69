"""tf.nest against real TensorFlow's tf.nest on a table of structures."""

import collections

import numpy as np
import pytest

from torchflow._src.testing import real_tf
from torchflow._src.util import nest

Point = collections.namedtuple("Point", "x y")
SameName = collections.namedtuple("Point", "x y")
Other = collections.namedtuple("Other", "x y")


class MyList(list):
    pass


STRUCTURES = [
    1,
    None,
    "abc",
    b"bytes",
    [],
    (),
    {},
    [1, 2, 3],
    (1, (2, 3), [4, [5]]),
    {"b": 1, "a": [2, (3,)], "c": {"z": 4, "y": 5}},
    collections.OrderedDict([("b", 1), ("a", 2)]),
    collections.defaultdict(list, {"q": 1, "p": [2]}),
    Point(1, [2, 3]),
    [Point(x={"k": 1}, y=()), (None, "s")],
    {1: "a", 2: ["b", {3: "c"}]},
    [[], {}, (), [[]]],
    {"a": np.zeros(3), "b": [np.ones(2)]},
    {1, 2},
    range(4),
    {"x": 1, "y": 2}.values(),
    MyList([1, [2]]),
]


@pytest.mark.parametrize("s", STRUCTURES, ids=lambda s: type(s).__name__)
def test_flatten_and_is_nested_match_tf(s):
    tf = real_tf()
    ours = nest.flatten(s)
    theirs = tf.nest.flatten(s)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a is b
    assert nest.is_nested(s) == tf.nest.is_nested(s)


@pytest.mark.parametrize("s", STRUCTURES, ids=lambda s: type(s).__name__)
def test_pack_sequence_as_matches_tf(s):
    tf = real_tf()
    n = len(tf.nest.flatten(s))
    flat = [f"leaf{i}" for i in range(n)]
    ours = nest.pack_sequence_as(s, flat)
    theirs = tf.nest.pack_sequence_as(s, flat)
    assert type(ours) is type(theirs)
    assert ours == theirs
    if isinstance(s, dict):
        assert list(ours) == list(theirs)  # insertion order follows the structure


@pytest.mark.parametrize("s", STRUCTURES, ids=lambda s: type(s).__name__)
def test_map_structure_matches_tf(s):
    tf = real_tf()
    fn = lambda v: ("m", v if not isinstance(v, np.ndarray) else id(v))  # noqa: E731
    assert nest.map_structure(fn, s) == tf.nest.map_structure(fn, s)


def test_map_structure_multiple_structures():
    tf = real_tf()
    a, b = [1, (2, {"k": 3})], [10, (20, {"k": 30})]
    add = lambda x, y: x + y  # noqa: E731
    assert nest.map_structure(add, a, b) == tf.nest.map_structure(add, a, b) == [11, (22, {"k": 33})]
    c = [1, [2, {"k": 3}]]
    assert nest.map_structure(add, a, c, check_types=False) == \
        tf.nest.map_structure(add, a, c, check_types=False)


PAIRS = [
    ([1, [2]], [1, 2]),
    ([1, 2], [1, 2, 3]),
    ([1, 2], (1, 2)),
    ({"a": 1}, {"b": 1}),
    ({"a": 1}, collections.OrderedDict(a=1)),
    (Point(1, 2), SameName(1, 2)),
    (Point(1, 2), Other(1, 2)),
    (Point(1, 2), (1, 2)),
    (1, 2),
    ("ab", 2),
    ([[1]], [[1, 2]]),
    ({"a": 1, "b": 2}, {"a": 1}),
    ({"a": 1}, [1]),
    (MyList([1]), [2]),
    ([1, (2,)], [3, [4]]),
    (np.zeros(3), 1.0),
    ([np.zeros(3)], [[1, 2, 3]]),
]


def _outcome(fn):
    try:
        fn()
    except (ValueError, TypeError) as e:
        return type(e), str(e)
    return None, None


@pytest.mark.parametrize("check_types", [True, False])
@pytest.mark.parametrize("a,b", PAIRS)
def test_assert_same_structure_matches_tf(a, b, check_types):
    tf = real_tf()
    ours = _outcome(lambda: nest.assert_same_structure(a, b, check_types=check_types))
    theirs = _outcome(lambda: tf.nest.assert_same_structure(a, b, check_types=check_types))
    assert ours == theirs


BAD_CALLS = [
    ("pack_short", lambda n: n.pack_sequence_as([1, 2], [1])),
    ("pack_long", lambda n: n.pack_sequence_as([1, 2], [1, 2, 3])),
    ("pack_leaf_many", lambda n: n.pack_sequence_as(1, [1, 2, 3])),
    ("pack_not_seq", lambda n: n.pack_sequence_as(1, 5)),
    ("pack_not_seq2", lambda n: n.pack_sequence_as([1], 5)),
    ("map_not_callable", lambda n: n.map_structure(1, [1])),
    ("map_nothing", lambda n: n.map_structure(lambda x: x)),
    ("map_bad_kwarg", lambda n: n.map_structure(lambda x: x, [1], foo=1)),
    ("map_mismatch", lambda n: n.map_structure(lambda x, y: x, [1], [1, 2])),
]


@pytest.mark.parametrize("name,call", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_errors_match_tf(name, call):
    tf = real_tf()
    assert _outcome(lambda: call(nest)) == _outcome(lambda: call(tf.nest))


def test_unsortable_keys_raise_type_error():
    with pytest.raises(TypeError, match="sortable keys"):
        nest.flatten({1: 1, "a": 2})


def test_pack_leaf_structure_returns_the_item():
    assert nest.pack_sequence_as(1, [5]) == 5
    assert nest.pack_sequence_as(None, (7,)) == 7


def test_tensors_are_leaves():
    import torchflow as tf

    t = tf.constant([1, 2, 3])
    flat = nest.flatten([t, {"a": t}])
    assert len(flat) == 2 and all(x is t for x in flat)
    assert not nest.is_nested(t)


def test_attrs_classes_are_structures():
    attr = pytest.importorskip("attr")

    @attr.s
    class A:
        b = attr.ib()
        a = attr.ib()

    tf = real_tf()
    s = A(b=1, a=[2, 3])
    assert nest.flatten(s) == tf.nest.flatten(s) == [1, 2, 3]
    packed = nest.pack_sequence_as(s, [4, 5, 6])
    assert isinstance(packed, A) and packed.b == 4 and packed.a == [5, 6]


class _Spec:
    def _to_components(self, value):
        return [value.lo, value.hi]

    def _from_components(self, comps):
        return _Composite(*comps)


class _Composite:
    _type_spec = _Spec()

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


def test_composites_expand_only_when_asked():
    c = _Composite(1, 2)
    assert nest.flatten([c]) == [c]
    assert nest.flatten([c], expand_composites=True) == [1, 2]
    back = nest.pack_sequence_as([c], [3, 4], expand_composites=True)
    assert isinstance(back[0], _Composite) and (back[0].lo, back[0].hi) == (3, 4)


def test_paths_and_up_to_helpers():
    s = {"b": [1, 2], "a": Point(x=3, y={"k": 4})}
    assert nest.flatten_with_joined_string_paths(s) == [
        ("a/x", 3), ("a/y/k", 4), ("b/0", 1), ("b/1", 2)]
    assert nest.flatten_with_tuple_paths([1, (2,)]) == [((0,), 1), ((1, 0), 2)]
    assert nest.flatten_up_to([0, 0], [[1, 2], {"a": 3}]) == [[1, 2], {"a": 3}]
    assert nest.map_structure_up_to((0, 0), lambda v: len(v), ([1, 2], [3])) == (2, 1)
    with pytest.raises(ValueError):
        nest.flatten_up_to([0, 0], [1, 2, 3])
    with pytest.raises(TypeError):
        nest.flatten_up_to([0, 0], 1)
    assert nest.list_to_tuple({"a": [1, [2]]}) == {"a": (1, (2,))}
    assert nest.map_structure_with_paths(lambda p, v: p, {"a": [1]}) == {"a": ["a/0"]}


def test_public_namespace():
    import torchflow as tf

    assert tf.nest.flatten is nest.flatten
    assert tf.nest.flatten.__module__ == "torchflow.nest"
