"""Differential helpers for the array-op tests: run the same call in torchflow and real TF."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf


def _to_real(v, rtf):
    if isinstance(v, tf.DType):
        return rtf.as_dtype(v.name)
    if isinstance(v, tf.Tensor):
        return rtf.constant(v.numpy())
    if isinstance(v, list):
        return [_to_real(x, rtf) for x in v]
    return v


def _compare(ours, theirs, rtol):
    if isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _compare(o, t, rtol)
        return
    if theirs is None:
        assert ours is None
        return
    if hasattr(theirs, "as_list"):  # TensorShape
        assert list(ours) == theirs.as_list()
        return
    assert ours.dtype.name == theirs.dtype.name, (ours.dtype, theirs.dtype)
    t = theirs.numpy()
    if t.dtype == object:
        np.testing.assert_array_equal(ours.numpy(), t)
    else:
        assert_close(ours, t, rtol=rtol, atol=rtol)


def check(name, *args, rtol=1e-6, **kw):
    """Asserts ``tf.<name>(*args, **kw)`` equals real TF's in values, dtype and shape."""
    rtf = real_tf()
    theirs = _resolve(rtf, name)(*[_to_real(a, rtf) for a in args],
                                 **{k: _to_real(v, rtf) for k, v in kw.items()})
    ours = _resolve(tf, name)(*args, **kw)
    _compare(ours, theirs, rtol)
    return ours


def check_error(name, *args, **kw):
    """Asserts both raise, with the same exception type name; returns ours."""
    rtf = real_tf()
    with pytest.raises(Exception) as theirs:
        _resolve(rtf, name)(*[_to_real(a, rtf) for a in args],
                            **{k: _to_real(v, rtf) for k, v in kw.items()})
    with pytest.raises(Exception) as ours:
        _resolve(tf, name)(*args, **kw)
    assert type(ours.value).__name__ == type(theirs.value).__name__, (ours.value, theirs.value)
    return ours.value


def _resolve(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod
