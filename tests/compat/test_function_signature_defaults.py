"""A tf.function with an input_signature shorter than its parameters (issue 13/15):
the parameters after the signature keep their defaults, and TF's signature holds them,
``((x_spec, y_spec, None), {})``. Saved by torchflow, real TF loads and calls it (it
refused before: the saved canonical signature had no default)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _body(lib):
    def scaled(x, scale=3, name=None):
        return x * scale

    return scaled


def _sig(lib, fn):
    return fn.get_concrete_function().structured_input_signature


def test_structured_input_signature_keeps_the_defaults():
    rtf = real_tf()
    ours = tf.function(_body(tf), input_signature=[tf.TensorSpec([None], tf.int32)])
    theirs = rtf.function(_body(rtf), input_signature=[rtf.TensorSpec([None], rtf.int32)])
    (a_ours, k_ours), (a_tf, k_tf) = _sig(tf, ours), _sig(rtf, theirs)
    assert len(a_ours) == len(a_tf) == 3
    assert a_ours[1:] == a_tf[1:] == (3, None)
    assert k_ours == k_tf == {}
    assert "name=None" in ours.get_concrete_function().pretty_printed_signature()


def test_saved_function_with_defaults_loads_in_tf(tmp_path):
    m = tf.Module()
    m.f = tf.function(_body(tf), input_signature=[tf.TensorSpec([None], tf.int32)])
    path = str(tmp_path / "m")
    tf.saved_model.save(m, path)
    x = np.array([1, -2, 5], np.int32)
    rtf = real_tf()
    np.testing.assert_array_equal(rtf.saved_model.load(path).f(rtf.constant(x)).numpy(), x * 3)
    np.testing.assert_array_equal(tf.saved_model.load(path).f(tf.constant(x)).numpy(), x * 3)
