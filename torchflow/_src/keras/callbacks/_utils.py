"""Helpers shared by the callbacks: reading/setting the learning rate, monitor modes."""

from __future__ import annotations

import logging

import numpy as np

_log = logging.getLogger("torchflow")


def to_float(value):
    """A Python/NumPy scalar from a tensor, variable, NumPy value or number."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value


def get_lr(optimizer):
    """The optimizer's current learning rate as a Python float.

    Raises:
      ValueError: If the optimizer has no ``lr``/``learning_rate``.
    """
    lr = _lr_attr(optimizer)
    if callable(lr) and not hasattr(lr, "numpy"):
        lr = lr(optimizer.iterations)
    return float(np.asarray(to_float(lr)))


def set_lr(optimizer, value) -> None:
    """Sets the optimizer's learning rate (assigning its variable when it has one)."""
    value = to_float(value)
    lr = _lr_attr(optimizer)
    if hasattr(lr, "assign"):
        lr.assign(value)
    elif hasattr(optimizer, "lr"):
        optimizer.lr = value
    else:
        optimizer.learning_rate = value


def _lr_attr(optimizer):
    if hasattr(optimizer, "lr"):
        return optimizer.lr
    if hasattr(optimizer, "learning_rate"):
        return optimizer.learning_rate
    raise ValueError('Optimizer must have a "lr" attribute.')


def has_lr(optimizer) -> bool:
    return hasattr(optimizer, "lr") or hasattr(optimizer, "learning_rate")


def monitor_op(mode: str, monitor: str, what: str):
    """``np.less`` or ``np.greater`` for ``mode`` (``'auto'``: max for accuracies)."""
    if mode not in ("auto", "min", "max"):
        _log.warning("%s mode %s is unknown, fallback to auto mode.", what, mode)
        mode = "auto"
    if mode == "min":
        return np.less
    if mode == "max":
        return np.greater
    if "acc" in monitor or monitor.startswith("fmeasure"):
        return np.greater
    return np.less
