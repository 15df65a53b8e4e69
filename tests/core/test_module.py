"""tf.Module: variables / submodules discovery and name scopes, compared with TF."""

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _build(lib):
    class Dense(lib.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.w = lib.Variable([[1.0]], name="w")
            self.b = lib.Variable([0.0], name="b", trainable=False)

    class MLP(lib.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(), Dense(name="second")]
            self.extra = {"z": lib.Variable(1.0, name="z"), "a": (Dense(name="third"),)}
            self.shared = self.layers[0]

    return MLP()


def test_discovery_matches_tf():
    rtf = real_tf()
    ours, theirs = _build(tf), _build(rtf)
    assert [v.name for v in ours.variables] == [v.name for v in theirs.variables]
    assert [v.name for v in ours.trainable_variables] == [
        v.name for v in theirs.trainable_variables]
    assert [m.name for m in ours.submodules] == [m.name for m in theirs.submodules]
    assert ours.name == theirs.name == "mlp"


def test_name_scope_and_with_name_scope():
    class M(tf.Module):
        @tf.Module.with_name_scope
        def make(self):
            return tf.Variable(1.0, name="v")

    m = M(name="outer")
    assert m.make().name == "outer/v:0"
    with m.name_scope as scope:
        assert scope == "outer/"
    with pytest.raises(ValueError, match="valid module name"):
        tf.Module(name="not valid")
