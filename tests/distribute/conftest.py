"""Fixtures for tf.distribute tests: a strategy over logical CPU devices."""

import pytest
from distribute_testing import logical_cpus

import torchflow as tf


@pytest.fixture
def strategy2():
    """MirroredStrategy over two logical CPUs (TF's way of testing several replicas)."""
    return tf.distribute.MirroredStrategy(logical_cpus(2))
