"""tf.device scopes and tf.DeviceSpec (CPU here; GPU cases carry the gpu marker)."""

import threading

import pytest
import torch

import torchflow as tf
from torchflow._src.core import context
from torchflow._src.testing import real_tf

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
HAS_GPU = torch.cuda.is_available()


def test_cpu_scope_places_tensors_and_names_them_like_tf():
    rtf = real_tf()
    with tf.device("/CPU:0"):
        t = tf.constant([1.0])
    with rtf.device("/CPU:0"):
        r = rtf.constant([1.0])
    assert t.device == r.device == CPU


@pytest.mark.parametrize("spec", ["/CPU:0", "cpu:0", "/device:CPU:0", "/job:localhost/device:CPU:0",
                                  "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", "/cpu:*"])
def test_cpu_spellings(spec):
    with tf.device(spec):
        assert tf.constant(1).device == CPU


def test_scopes_nest_and_restore():
    stack = context.thread_state().device_stack
    with tf.device("/CPU:0"):
        assert len(stack) == 1
        with tf.device("/job:localhost"):  # names no device: the outer one stays
            assert stack[-1] == torch.device("cpu")
            assert tf.constant(1).device == CPU
        with tf.device(None):
            assert tf.constant(1).device == tf.constant(2).device
            assert stack[-1] is None
        assert len(stack) == 1
    assert stack == []


def test_scope_is_reentrant_and_thread_local():
    scope = tf.device("/CPU:0")
    with scope:
        with scope:
            assert len(context.thread_state().device_stack) == 2
        seen = []
        th = threading.Thread(target=lambda: seen.append(len(context.thread_state().device_stack)))
        th.start()
        th.join()
        assert seen == [0]
    assert context.thread_state().device_stack == []


def test_soft_placement_sends_missing_gpu_to_cpu():
    if HAS_GPU:
        pytest.skip("a GPU is present")
    rtf = real_tf()
    with tf.device("/GPU:0"):
        assert tf.constant(1.0).device == CPU
    with rtf.device("/GPU:0"):
        assert rtf.constant(1.0).device == CPU
    with tf.device("/TPU:0"):
        assert tf.constant(1.0).device == CPU


def test_hard_placement_raises_invalid_argument():
    tf.config.set_soft_device_placement(False)
    n = torch.cuda.device_count() if HAS_GPU else 0
    with pytest.raises(tf.errors.InvalidArgumentError):
        with tf.device(f"/GPU:{n}"):
            pass


@pytest.mark.parametrize("bad", ["/XPU:0", "garbage", "/CPU:0/GPU:0"])
def test_bad_specs_raise_value_error_like_tf(bad):
    rtf = real_tf()
    with pytest.raises(ValueError):
        rtf.device(bad).__enter__()
    with pytest.raises(ValueError):
        tf.device(bad).__enter__()
    assert context.thread_state().device_stack == []


def test_non_string_names_and_functions():
    rtf = real_tf()
    with pytest.raises(RuntimeError):
        rtf.device(lambda op: "/CPU:0")
    with pytest.raises(RuntimeError):
        tf.device(lambda op: "/CPU:0")
    with pytest.raises(ValueError):
        tf.device(1).__enter__()
    with tf.device(tf.config.list_logical_devices("CPU")[0]):
        assert tf.constant(1).device == CPU
    with tf.device(tf.DeviceSpec(device_type="CPU", device_index=0)):
        assert tf.constant(1).device == CPU


SPECS = ["/job:w/replica:1/task:2/device:GPU:3", "/CPU:0", "/job:ps", "/task:1/cpu:*",
         "/device:CPU:1", "gpu:1", ""]


@pytest.mark.parametrize("s", SPECS)
def test_device_spec_matches_tf(s):
    rtf = real_tf()
    ours, theirs = tf.DeviceSpec.from_string(s), rtf.DeviceSpec.from_string(s)
    assert ours.to_string() == theirs.to_string()
    for f in ("job", "replica", "task", "device_type", "device_index"):
        assert getattr(ours, f) == getattr(theirs, f)
    other = "/job:x/device:CPU:0"
    assert ours.make_merged_spec(tf.DeviceSpec.from_string(other)).to_string() == \
        theirs.make_merged_spec(rtf.DeviceSpec.from_string(other)).to_string()
    assert ours.replace(task=7).to_string() == theirs.replace(task=7).to_string()


def test_device_spec_equality_and_hash():
    a = tf.DeviceSpec(job="w", device_type="gpu", device_index=0)
    b = tf.DeviceSpec.from_string("/job:w/device:GPU:0")
    assert a == b and hash(a) == hash(b) and a.device_type == "GPU"


@pytest.mark.gpu
def test_gpu_scope_places_on_cuda():
    if not HAS_GPU:
        pytest.skip("needs CUDA")
    with tf.device("/GPU:0"):
        t = tf.constant([1.0, 2.0])
    assert t._t.is_cuda and t.device.endswith("device:GPU:0")
    with tf.device("/CPU:0"):
        assert tf.constant(1.0).device == CPU
    assert tf.constant(1.0).device.endswith("GPU:0")  # default: first visible GPU
