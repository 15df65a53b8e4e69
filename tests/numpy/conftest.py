import pytest


@pytest.fixture(autouse=True)
def _numpy_behavior_off():
    """No test leaks the numpy-behavior switch or the float32 preference."""
    from torchflow._src.numpy.np_behavior import _disable_numpy_behavior

    _disable_numpy_behavior()
    yield
    _disable_numpy_behavior()


@pytest.fixture
def real_tnp_behavior():
    """Real TF's ``enable_numpy_behavior`` for one test, undone afterwards.

    TF has no public "disable", and other test files compare against real TF's
    default operator rules in the same process, so the switches are restored here
    (TF internals, test-only): conversion mode, NumPy slicing, the float32
    preference and the methods added to ``tf.Tensor``.
    """
    from torchflow._src.testing import real_tf

    rtf = real_tf()
    from tensorflow.python.framework import ops, tensor
    from tensorflow.python.ops.numpy_ops import np_dtypes

    saved = (ops._dtype_conversion_mode, ops._numpy_style_slicing, np_dtypes._prefer_float32,
             dict(tensor.Tensor.__dict__))

    def enable(prefer_float32=False):
        rtf.experimental.numpy.experimental_enable_numpy_behavior(prefer_float32=prefer_float32)
        return rtf.experimental.numpy

    yield enable
    ops._dtype_conversion_mode, ops._numpy_style_slicing, np_dtypes._prefer_float32, before = saved
    for name in list(tensor.Tensor.__dict__):
        if name not in before:
            delattr(tensor.Tensor, name)
    for name, value in before.items():
        if tensor.Tensor.__dict__.get(name, None) is not value:
            setattr(tensor.Tensor, name, value)
