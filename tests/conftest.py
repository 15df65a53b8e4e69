import os

import pytest

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture(autouse=True)
def _reset_torchflow_state():
    """Every test starts from torchflow's default global state."""
    from torchflow._src.core import context

    context.reset()
    yield
    context.reset()
