import pytest


@pytest.fixture(autouse=True)
def _numpy_behavior_off():
    """No test leaks the numpy-behavior switch or the float32 preference."""
    from torchflow._src.numpy.np_behavior import _disable_numpy_behavior

    _disable_numpy_behavior()
    yield
    _disable_numpy_behavior()
