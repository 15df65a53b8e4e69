"""Helpers shared by the tf.distribute tests (imported by name: unique in the suite)."""

import torchflow as tf


def logical_cpus(n: int) -> list:
    """Splits the CPU into ``n`` logical devices (TF's way of testing several replicas)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * n)
    return [f"/cpu:{i}" for i in range(n)]
