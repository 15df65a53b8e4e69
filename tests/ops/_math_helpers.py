"""Shared helpers of the tf.math tests: run one call in torchflow and in real TF."""

from __future__ import annotations

import numpy as np

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf


def lookup(mod, dotted: str):
    obj = mod
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def to_np(x):
    a = x.numpy()
    if getattr(x, "dtype", None) is not None and x.dtype.name == "bfloat16":
        return np.asarray(a, dtype=np.float32)
    return a


def make(lib, value, dtype):
    """A tensor of ``dtype`` (a name) from a NumPy value in ``lib`` (torchflow or TF)."""
    if isinstance(value, np.ndarray):
        if dtype == "bfloat16":
            return lib.cast(lib.constant(value.astype(np.float32)), lib.bfloat16)
        return lib.constant(value.astype(dtype))
    return value


def outcome(fn, *args, **kwargs):
    """('ok', result) or ('err', exception type name)."""
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return "err", type(e).__name__


def run_both(name, args, dtype=None, kwargs=None, rtol=1e-5, atol=1e-6):
    """Calls ``name`` (e.g. ``"math.add"``) in both libraries on the same inputs and
    compares values and dtypes, or error types."""
    rtf = real_tf()
    kwargs = kwargs or {}
    ours = outcome(lookup(tf, name), *[make(tf, a, dtype) for a in args], **kwargs)
    theirs = outcome(lookup(rtf, name), *[make(rtf, a, dtype) for a in args], **kwargs)
    if ours[0] == "ok" and theirs == ("err", "NotFoundError"):
        return  # TF's CPU build lacks a kernel for this dtype; torchflow has one (superset)
    assert ours[0] == theirs[0], f"{name}: torchflow {ours} vs TF {theirs}"
    if ours[0] == "err":
        assert ours[1] == theirs[1], f"{name}: torchflow raised {ours[1]}, TF {theirs[1]}"
        return
    compare(ours[1], theirs[1], rtol, atol)


def compare(ours, theirs, rtol=1e-5, atol=1e-6):
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            compare(o, t, rtol, atol)
        return
    if isinstance(theirs, bool):
        assert ours is theirs or bool(ours) == theirs
        return
    assert ours.dtype.name == theirs.dtype.name, f"dtype {ours.dtype.name} != {theirs.dtype.name}"
    assert_close(to_np(ours), to_np(theirs), rtol=rtol, atol=atol)


def rand(shape, dtype="float32", seed=0, low=-3, high=3):
    """``testing.rand`` that also takes ``"bfloat16"`` (drawn as float32)."""
    from torchflow._src.testing import rand as _rand

    return _rand(shape, "float32" if dtype == "bfloat16" else dtype, seed=seed, low=low, high=high)
