"""tf.Variable: creation, reads, writes (copy-on-write), creator scopes, threads."""

import threading

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf


def test_create_and_read_match_tf():
    rtf = real_tf()
    for value, kwargs in [([1.0, 2.0], {}), (3, {}), ([[1, 2]], {"dtype": "float64"}),
                          (lambda: np.ones([2, 2], np.float32), {})]:
        ours = tf.Variable(value, **kwargs)
        theirs = rtf.Variable(value, **kwargs)
        assert ours.dtype.name == theirs.dtype.name
        assert ours.shape.as_list() == theirs.shape.as_list()
        assert_close(ours.numpy(), theirs.numpy())
        assert ours.trainable == theirs.trainable
        assert ours.name == theirs.name == "Variable:0"


def test_names_and_name_scope():
    assert tf.Variable(1.0, name="w").name == "w:0"
    with tf.name_scope("outer"):
        with tf.name_scope("inner") as scope:
            assert scope == "outer/inner/"
            assert tf.Variable(1.0).name == "outer/inner/Variable:0"
        with tf.name_scope("abs/"):
            assert tf.Variable(1.0, name="x").name == "abs/x:0"
    assert tf.Variable(1.0, name="y").name == "y:0"


def test_repr_and_hash_like_tf():
    v = tf.Variable(1.0)
    assert repr(v).startswith("<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=")
    with pytest.raises(TypeError, match="unhashable"):
        hash(v)
    d = {v.ref(): 1}
    assert d[v.ref()] == 1 and v.ref().deref() is v


def test_assign_family_matches_tf():
    rtf = real_tf()
    ours, theirs = tf.Variable([1.0, 2.0, 3.0]), rtf.Variable([1.0, 2.0, 3.0])
    for name, arg in [("assign", [4.0, 5.0, 6.0]), ("assign_add", [1.0, 1.0, 1.0]),
                      ("assign_sub", [0.5, 0.5, 0.5])]:
        r = getattr(ours, name)(arg)
        getattr(theirs, name)(arg)
        assert r is ours
        assert_close(ours.numpy(), theirs.numpy())
    assert ours.assign([0.0, 0.0, 0.0], read_value=False) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="shapes must be equal"):
        ours.assign_add(2.0)
    with pytest.raises(rtf.errors.InvalidArgumentError):
        theirs.assign_add(2.0)


def test_assign_errors_match_tf():
    rtf = real_tf()
    for ours, theirs, value in [(tf.Variable(1.0), rtf.Variable(1.0), [1.0, 2.0]),
                                (tf.Variable(1.0), rtf.Variable(1.0), "a")]:
        with pytest.raises(Exception) as e_tf:
            theirs.assign(value)
        with pytest.raises(type(e_tf.value)):
            ours.assign(value)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32"):
        tf.Variable(1.0).assign(tf.constant(1))
    with pytest.raises(ValueError, match="must be specified"):
        tf.Variable(None)
    with pytest.raises(ValueError, match="not compatible"):
        tf.Variable([1.0, 2.0], shape=(3,))


def test_unknown_shape_allows_reshaping_assign():
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    v.assign([1.0, 2.0, 3.0])
    assert v.shape.rank is None
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    w = tf.Variable(np.zeros([2, 3], np.float32), shape=[None, 3])
    w.assign(np.ones([4, 3], np.float32))
    assert w.numpy().shape == (4, 3)
    with pytest.raises(ValueError):
        w.assign(np.ones([4, 2], np.float32))


def test_reads_are_snapshots_copy_on_write():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    view = tf.reshape(v, [2, 1]) if hasattr(tf, "reshape") else v.value()
    arr = v.numpy()
    v.assign([5.0, 6.0])
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(view).reshape(-1), [1.0, 2.0])
    np.testing.assert_array_equal(arr, [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [6.0, 7.0])


def test_in_place_when_unshared_keeps_leaf_identity():
    v = tf.Variable([1.0, 2.0])
    leaf = v._leaf
    v.assign([3.0, 4.0])
    ptr = leaf.data_ptr()
    v.assign_sub([1.0, 1.0])
    v.assign_add([0.5, 0.5])
    assert v._leaf is leaf and leaf.data_ptr() == ptr and leaf.requires_grad
    np.testing.assert_array_equal(v.numpy(), [2.5, 3.5])


def test_scatter_methods_match_tf():
    rtf = real_tf()
    ours, theirs = tf.Variable([1.0, 2.0, 3.0, 4.0]), rtf.Variable([1.0, 2.0, 3.0, 4.0])
    ours.scatter_nd_update([[0], [2]], [9.0, 8.0])
    theirs.scatter_nd_update([[0], [2]], [9.0, 8.0])
    ours.scatter_nd_add([[1]], [10.0])
    theirs.scatter_nd_add([[1]], [10.0])
    ours.scatter_nd_sub([[3]], [1.0])
    theirs.scatter_nd_sub([[3]], [1.0])
    assert_close(ours.numpy(), theirs.numpy())

    for name in ["scatter_update", "scatter_add", "scatter_sub", "scatter_max", "scatter_min",
                 "scatter_mul"]:
        getattr(ours, name)(tf.IndexedSlices(tf.constant([5.0, 2.0]), tf.constant([1, 3])))
        getattr(theirs, name)(rtf.IndexedSlices(rtf.constant([5.0, 2.0]), rtf.constant([1, 3])))
        assert_close(ours.numpy(), theirs.numpy())
    assert_close(ours.sparse_read([0, 2]), theirs.sparse_read([0, 2]).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        ours.scatter_nd_update([[7]], [1.0])


def test_operators_delegate_to_tensor():
    v = tf.Variable([1.0, 2.0])
    assert_close(v + 1.0, np.array([2.0, 3.0], np.float32))
    assert_close(2.0 * v, np.array([2.0, 4.0], np.float32))
    assert_close(-v, np.array([-1.0, -2.0], np.float32))
    assert_close(v[1], np.float32(2.0))
    assert_close(tf.add(v, v), np.array([2.0, 4.0], np.float32))
    assert float(tf.Variable(3.0)) == 3.0
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])


def test_trainable_and_sync_defaults():
    assert tf.Variable(1.0).trainable
    assert not tf.Variable(1.0, trainable=False).trainable
    v = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.SUM)
    assert not v.trainable
    assert v.aggregation is tf.VariableAggregation.SUM
    assert [m.value for m in tf.VariableAggregation] == [
        m.value for m in real_tf().VariableAggregation]
    assert [m.name for m in tf.VariableSynchronization] == [
        m.name for m in real_tf().VariableSynchronization]
    # Non-trainable and integer variables never start autograd graphs.
    assert not tf.Variable(1.0, trainable=False)._leaf.requires_grad
    assert not tf.Variable(1)._leaf.requires_grad


def test_variable_creator_scope_chain_order():
    calls = []

    def outer(next_creator, **kwargs):
        calls.append("outer")
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        calls.append("inner")
        kwargs["trainable"] = False
        kwargs["name"] = "renamed"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(outer):
        with tf.variable_creator_scope(inner):
            v = tf.Variable(1.0, name="orig")
    assert calls == ["inner", "outer"]
    assert not v.trainable and v.name == "renamed:0"
    assert tf.Variable(1.0).trainable  # scopes are gone


def test_creator_can_substitute_a_subclass():
    class Mirrored(tf.Variable):
        pass

    def creator(next_creator, **kwargs):
        return Mirrored(**kwargs)

    with tf.variable_creator_scope(creator):
        v = tf.Variable([1.0])
    assert isinstance(v, Mirrored) and isinstance(v, tf.Variable)
    assert_close(v + 1.0, np.array([2.0], np.float32))


def test_reads_never_build_graphs_in_any_thread():
    v = tf.Variable([1.0, 2.0])
    seen = {}

    def work():
        y = v * 2.0  # torch starts this thread with grad mode ON
        seen["requires_grad"] = y._t.requires_grad
        seen["grad_mode"] = torch.is_grad_enabled()
        with tf.GradientTape() as tape:
            z = tf.reduce_sum(v * v)
        seen["grad"] = tape.gradient(z, v).numpy()
        seen["grad_mode_after"] = torch.is_grad_enabled()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen["requires_grad"] is False and seen["grad_mode"] is False
    np.testing.assert_array_equal(seen["grad"], [2.0, 4.0])
    assert seen["grad_mode_after"] is False


def test_deepcopy_and_device():
    import copy

    v = tf.Variable([1.0, 2.0], name="w")
    c = copy.deepcopy(v)
    c.assign([0.0, 0.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.device.endswith(("CPU:0", "GPU:0"))


def test_assign_adopts_buffers_without_aliasing():
    a = tf.constant([1.0, 2.0])
    v = tf.Variable([0.0, 0.0])
    w = tf.Variable([0.0, 0.0])
    v.assign(a)  # may share a's buffer ...
    w.assign(v.value())  # ... and v's with w
    v.assign_add([1.0, 1.0])
    w.assign_sub([1.0, 1.0])
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])  # ... but nobody sees the writes
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(w.numpy(), [0.0, 1.0])
    leaf = v._leaf
    v.assign(v * 2.0)
    assert v._leaf is leaf and leaf.requires_grad
    np.testing.assert_array_equal(v.numpy(), [4.0, 6.0])


def test_python_number_updates_of_a_scalar_variable():
    rtf = real_tf()
    for dtype in ["float32", "float64", "float16", "int32"]:
        ours, theirs = tf.Variable(1, dtype=dtype), rtf.Variable(1, dtype=dtype)
        before = ours.read_value()
        for name, arg in [("assign_add", 2), ("assign_sub", 0.0 if "float" in dtype else 0),
                          ("assign_add", 3)]:
            assert getattr(ours, name)(arg) is ours
            getattr(theirs, name)(arg)
        assert ours.numpy() == theirs.numpy() and ours.dtype.name == dtype
        assert before.numpy() == 1  # a read taken before is not changed (copy-on-write)
    step = tf.Variable(0.0)
    with tf.GradientTape() as tape:  # updates inside a recording tape are not recorded
        step.assign_add(1.0)
        y = step * 2.0
    assert step.numpy() == 1.0
    assert float(tape.gradient(y, step)) == 2.0
    with pytest.raises(TypeError):
        tf.Variable(1).assign_add(1.5)
