"""tf.TensorShape algebra against real TensorFlow's TensorShape."""

import pickle

import pytest

import torchflow as tf
from torchflow._src.core.tensor_shape import TensorShape, as_shape, unknown_shape
from torchflow._src.testing import real_tf

SHAPES = [None, [], [3], [None], [2, 3], [2, None], [None, None], [1, 2, 3], [0], [2, 0, None]]
ids = [repr(s) for s in SHAPES]


def _both(dims):
    return TensorShape(dims), real_tf().TensorShape(dims)


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the exception type is compared
        return ("raises", type(e).__name__)
    if hasattr(r, "as_list") and hasattr(r, "rank"):
        return ("shape", None if r.rank is None else r.as_list())
    if isinstance(r, (list, tuple)) and r and hasattr(r[0], "value"):
        return [d.value for d in r]
    return r


UNARY = {
    "rank": lambda s: s.rank,
    "ndims": lambda s: s.ndims,
    "dims": lambda s: None if s.dims is None else [getattr(d, "value", d) for d in s.dims],
    "as_list": lambda s: s.as_list(),
    "num_elements": lambda s: s.num_elements(),
    "is_fully_defined": lambda s: s.is_fully_defined(),
    "assert_is_fully_defined": lambda s: s.assert_is_fully_defined(),
    "len": lambda s: len(s),
    "bool": lambda s: bool(s),
    "iter": lambda s: [getattr(d, "value", d) for d in s],
    "getitem0": lambda s: getattr(s[0], "value", s[0]),
    "getitem-1": lambda s: getattr(s[-1], "value", s[-1]),
    "slice": lambda s: s[1:],
    "str": lambda s: str(s),
    "repr": lambda s: repr(s),
    "with_rank2": lambda s: s.with_rank(2),
    "with_rank_at_least2": lambda s: s.with_rank_at_least(2),
    "with_rank_at_most1": lambda s: s.with_rank_at_most(1),
    "assert_has_rank1": lambda s: s.assert_has_rank(1),
    "hash_eq_self": lambda s: s == s.__class__(s.dims if s.dims is None else s.as_list()),
}


@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("dims", SHAPES, ids=ids)
def test_unary_matches_tf(dims, op):
    ours, theirs = _both(dims)
    assert _outcome(lambda: UNARY[op](ours)) == _outcome(lambda: UNARY[op](theirs))


BINARY = {
    "is_compatible_with": lambda a, b: a.is_compatible_with(b),
    "merge_with": lambda a, b: a.merge_with(b),
    "concatenate": lambda a, b: a.concatenate(b),
    "most_specific_compatible_shape": lambda a, b: a.most_specific_compatible_shape(b),
    "assert_is_compatible_with": lambda a, b: a.assert_is_compatible_with(b),
    "assert_same_rank": lambda a, b: a.assert_same_rank(b),
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "add": lambda a, b: a + b,
}
PAIRS = [(a, b) for a in SHAPES for b in [None, [2, 3], [None, 3], [2], [], [2, None]]]


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_binary_matches_tf(a, b, op):
    rtf = real_tf()
    ours = _outcome(lambda: BINARY[op](TensorShape(a), TensorShape(b)))
    theirs = _outcome(lambda: BINARY[op](rtf.TensorShape(a), rtf.TensorShape(b)))
    assert ours == theirs


@pytest.mark.parametrize("value", [[2, -1], ["a"], "ab", 3, 2.5, (2, 3)], ids=repr)
def test_constructor_errors_match_tf(value):
    rtf = real_tf()
    assert _outcome(lambda: TensorShape(value)) == _outcome(lambda: rtf.TensorShape(value))


def test_equality_with_lists_and_hash():
    s = TensorShape([2, 3])
    assert s == [2, 3] and s == (2, 3) and s != [2, 4]
    assert hash(s) == hash(TensorShape((2, 3)))
    assert pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(TensorShape(None))).rank is None


def test_helpers_and_public_name():
    assert as_shape([1, 2]) == TensorShape([1, 2])
    assert unknown_shape().rank is None and unknown_shape(2).as_list() == [None, None]
    assert tf.TensorShape is TensorShape
    assert tf.constant([[1, 2]]).shape == TensorShape([1, 2])
