"""tnp creation, manipulation, sorting/searching and indexing helpers against NumPy."""

import numpy as np
import pytest

import torchflow.experimental.numpy as tnp
from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.testing import assert_close, rand

A = rand((2, 3, 4), "float32")
I = rand((3, 4), "int32", seed=1)

# (tnp name, args, kwargs); NumPy gets the same call.
CASES = [
    ("zeros", ((2, 3),), {}), ("ones", (4,), {"dtype": np.int32}), ("empty", ((2,),), {}),
    ("full", ((2, 2), 7), {}), ("full", ((2,), 1.5), {"dtype": np.float32}),
    ("zeros_like", (A,), {}), ("ones_like", (I,), {}), ("full_like", (I, 3), {}),
    ("empty_like", (A,), {"dtype": np.float64}),
    ("arange", (5,), {}), ("arange", (1, 7, 2), {}), ("arange", (0.5, 3.0, 0.5), {}),
    ("arange", (5,), {"dtype": np.float32}),
    ("linspace", (0.0, 1.0, 5), {}), ("linspace", (0, 10, 4), {"endpoint": False}),
    ("linspace", (2.0, 3.0, 5), {"dtype": np.float32}),
    ("logspace", (0.0, 2.0, 3), {}), ("logspace", (0.0, 3.0, 4), {"base": 2.0}),
    ("geomspace", (1.0, 1000.0, 4), {}), ("geomspace", (-1.0, -8.0, 4), {}),
    ("eye", (3,), {}), ("eye", (3, 4, 1), {}), ("eye", (4, 3), {"k": -1, "dtype": np.int32}),
    ("identity", (3,), {}), ("tri", (3, 4, 1), {}), ("tri", (3,), {"dtype": np.int64}),
    ("tril", (A,), {}), ("triu", (I, 1), {}), ("tril", (I, -1), {}),
    ("diag", (np.arange(3.0),), {}), ("diag", (I,), {}), ("diag", (I, 1), {}),
    ("diagflat", (I[:2, :2],), {}), ("diagonal", (A, 1, 1, 2), {}),
    ("vander", (np.arange(1.0, 4.0),), {}), ("vander", (np.arange(3), 4, True), {}),
    ("copy", (A,), {}),
    ("reshape", (A, (4, 6)), {}), ("reshape", (A, (-1, 2)), {}), ("ravel", (A,), {}),
    ("transpose", (A,), {}), ("transpose", (A, (1, 0, 2)), {}), ("swapaxes", (A, 0, 2), {}),
    ("moveaxis", (A, 0, -1), {}), ("moveaxis", (A, [0, 1], [2, 0]), {}),
    ("expand_dims", (A, 1), {}), ("expand_dims", (A, (0, -1)), {}),
    ("squeeze", (A[:, :1],), {}), ("squeeze", (A[:1, :, :1], 2), {}),
    ("broadcast_to", (I[0], (2, 4)), {}), ("atleast_1d", (3.0,), {}),
    ("atleast_2d", (np.arange(3),), {}), ("atleast_3d", (I,), {}),
    ("atleast_3d", (np.arange(3),), {}),
    ("concatenate", ([A, A],), {"axis": 1}), ("concatenate", ([I, I],), {"axis": None}),
    ("stack", ([I, I],), {}), ("stack", ([I, I],), {"axis": -1}),
    ("hstack", ([I, I],), {}), ("vstack", ([I[0], I[1]],), {}), ("dstack", ([I, I],), {}),
    ("column_stack", ([np.arange(3), np.arange(3)],), {}),
    ("append", (I, I), {}), ("append", (I, I), {"axis": 0}),
    ("tile", (I, (2, 1)), {}), ("tile", (np.arange(3), 2), {}),
    ("repeat", (I, 2), {}), ("repeat", (I, 2, 1), {}), ("repeat", (I, [1, 0, 2], 0), {}),
    ("pad", (I, 1), {}), ("pad", (I, ((1, 2), (0, 1))), {"constant_values": 5}),
    ("pad", (I, 2), {"mode": "reflect"}), ("pad", (I, 2), {"mode": "symmetric"}),
    ("pad", (I, 2), {"mode": "edge"}), ("pad", (I, 5), {"mode": "wrap"}),
    ("roll", (I, 2), {}), ("roll", (I, -1, 1), {}), ("roll", (I, (1, 2), (0, 1)), {}),
    ("rot90", (I,), {}), ("rot90", (A, 3, (1, 2)), {}),
    ("flip", (A,), {}), ("flip", (A, 1), {}), ("fliplr", (I,), {}), ("flipud", (I,), {}),
    ("sort", (I,), {}), ("sort", (I, 0), {}), ("sort", (I, None), {}),
    ("argsort", (np.array([3, 1, 2, 1]),), {"kind": "stable"}),
    ("searchsorted", (np.arange(10), np.array([2.5, 0, 9, 11])), {}),
    ("searchsorted", (np.arange(10), np.array([2, 3])), {"side": "right"}),
    ("where", (I > 0, I, -I), {}), ("where", (A > 0, A, 0.0), {}),
    ("argwhere", (I > 0,), {}), ("flatnonzero", (I,), {}),
    ("take", (I, [0, 2]), {}), ("take", (I, [[0, 1], [2, 3]], 1), {}),
    ("take_along_axis", (I, np.argsort(I, 1), 1), {}),
    ("take_along_axis", (I, np.argsort(I, 0), 0), {}),
    ("compress", ([True, False, True], I), {"axis": 0}), ("extract", (I > 0, I), {}),
    ("select", ([I < 0, I > 1], [I, I * 10]), {"default": -1}),
    ("diag_indices", (3,), {}), ("tril_indices", (3,), {}), ("triu_indices", (3, 1, 4), {}),
    ("meshgrid", (np.arange(2), np.arange(3)), {}),
    ("meshgrid", (np.arange(2), np.arange(3), np.arange(4)), {"indexing": "ij"}),
    ("indices", ((2, 3),), {}), ("ix_", (np.arange(2), np.arange(3)), {}),
    ("split", (np.arange(6), 3), {}), ("split", (I, [1, 3], 1), {}),
    ("array_split", (np.arange(7), 3), {}), ("hsplit", (I, 2), {}),
    ("vsplit", (I, [1]), {}), ("dsplit", (A, 2), {}),
    ("broadcast_arrays", (I, I[0]), {}),
]


def _ids():
    return [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=_ids())
def test_against_numpy(name, args, kwargs):
    got = getattr(tnp, name)(*args, **kwargs)
    ref = getattr(np, name)(*args, **kwargs)
    if isinstance(ref, (list, tuple)):
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            assert_close(g, np.asarray(r), rtol=1e-6)
    else:
        assert_close(got, np.asarray(ref), rtol=1e-6)


def test_take_clips_out_of_range_like_tf():
    assert_close(tnp.take(np.arange(4), [5, -9]), np.take(np.arange(4), [5, -9], mode="clip"))
    assert_close(tnp.take(np.arange(4), [5, -1], mode="wrap"),
                 np.take(np.arange(4), [5, -1], mode="wrap"))


def test_nonzero_and_where_single_argument():
    for g, r in zip(tnp.nonzero(I), np.nonzero(I)):
        assert_close(g, r)
    for g, r in zip(tnp.where(I > 0), np.where(I > 0)):
        assert_close(g, r)


def test_inspection():
    assert tnp.ndim(A) == 3 and tnp.shape(A) == (2, 3, 4) and tnp.size(A) == 24
    assert tnp.size(A, 1) == 3
    assert tnp.isscalar(3.0) and tnp.isscalar(tnp.asarray(3.0)) and not tnp.isscalar(A)


@pytest.mark.parametrize("call,exc", [
    (lambda: tnp.split(np.arange(7), 3), ValueError),
    (lambda: tnp.diag(np.ones((2, 2, 2))), ValueError),
    # TF's Squeeze kernel raises InvalidArgumentError (not NumPy's ValueError); checked
    # against real TF in tests/ops/test_bad_inputs_more.py.
    (lambda: tnp.squeeze(np.ones((2, 3)), 0), InvalidArgumentError),
    (lambda: tnp.where(True, 1), ValueError),
    (lambda: tnp.pad(np.ones(3), 1, mode="median"), ValueError),
    (lambda: tnp.concatenate([]), ValueError),
])
def test_errors(call, exc):
    with pytest.raises(exc):
        call()
