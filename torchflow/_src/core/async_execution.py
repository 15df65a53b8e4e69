"""``tf.experimental`` execution switches: async scopes, the function executor type,
and filesystem plugins.

torchflow's eager ops run when called (on GPUs, in PyTorch's stream order, with
errors raised by the op that fails), so an async scope only marks where TF would
have synchronised: leaving it waits for the device. Function executors and TF's
C filesystem plugins do not exist here; see each function.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading

import torch

from torchflow._src.core.errors import UnimplementedError
from torchflow._src.util.api import public

_local = threading.local()


def _synchronize() -> None:
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


@public("torchflow.experimental")
@contextlib.contextmanager
def async_scope():
    """A scope whose ops may run asynchronously; leaving it waits for them.

    In TF an error of an op in the scope may surface later (at the scope's end,
    or at a later op); in torchflow it is raised by the op itself, and leaving
    the scope waits for queued device work.

    Yields:
      Nothing.

    >>> import torchflow as tf
    >>> with tf.experimental.async_scope():
    ...     x = tf.constant(1) + 1
    >>> int(x)
    2
    """
    try:
        yield
    finally:
        _synchronize()


@public("torchflow.experimental")
def async_clear_error():
    """Clears the error an asynchronous op left pending, so execution can go on.

    torchflow raises op errors where they happen, so nothing is ever pending and
    this does nothing (as TF's call does when no error is pending).

    >>> import torchflow as tf
    >>> tf.experimental.async_clear_error()
    """
    return None


@public("torchflow.experimental")
@contextlib.contextmanager
def function_executor_type(executor_type):
    """Sets the executor type of functions called in the scope (TF's
    ``"SINGLE_THREADED_EXECUTOR"`` and others).

    torchflow runs traced functions through one executor, so the type is
    recorded for the scope (``current_function_executor_type``) and has no
    other effect; the functions' results are the same.

    Args:
      executor_type: A string naming the executor, or None for the default.

    Yields:
      Nothing.

    >>> import torchflow as tf
    >>> with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
    ...     int(tf.function(lambda: tf.constant(2))())
    2
    """
    previous = getattr(_local, "executor_type", None)
    _local.executor_type = executor_type
    try:
        yield
    finally:
        _local.executor_type = previous


def current_function_executor_type():
    """The executor type the innermost ``function_executor_type`` scope set, or None."""
    return getattr(_local, "executor_type", None)


@public("torchflow.experimental")
def register_filesystem_plugin(plugin_location):
    """Loads a TensorFlow filesystem plugin (a shared library of TF's C API).

    Args:
      plugin_location: The path of the shared library.

    Raises:
      FileNotFoundError: If ``plugin_location`` does not exist (as TF).
      UnimplementedError: If it exists: torchflow has no TF C runtime to load
        it into.

    Differences from TensorFlow 2.4: plugins cannot be loaded; ``tf.io.gfile``
    handles local paths and the schemes torchflow implements.
    """
    if not os.path.exists(str(plugin_location)):
        raise FileNotFoundError(errno.ENOENT,
                                "The file to load file system plugin from does not exist.",
                                plugin_location)
    raise UnimplementedError(
        None, None, f"Cannot load the filesystem plugin {plugin_location}: torchflow has no "
                    f"TensorFlow C runtime to register TF filesystem plugins with.")
