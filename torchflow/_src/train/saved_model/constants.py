"""``tf.saved_model``'s constants, ``SaveOptions``, ``LoadOptions`` and ``Asset``.

The constants are TF's file and directory names, tags and signature keys, so
that paths built from them match what TensorFlow writes and reads.
"""

from __future__ import annotations

import enum
import os

from torchflow._src.core.convert import constant
from torchflow._src.util.api import public

# File and directory names of a SavedModel.
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"

# MetaGraph tags.
SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"

# Signature keys and method names (TF Serving's predict/classify/regress APIs).
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_INPUTS = "inputs"
REGRESS_OUTPUTS = "outputs"


@public("torchflow.saved_model.experimental")
class VariablePolicy(enum.Enum):
    """How ``tf.saved_model.save`` handles variables (``SaveOptions.experimental_variable_policy``).

    ``NONE``: distributed variables are saved as one variable, with no device.
    ``SAVE_VARIABLE_DEVICES``: also save each variable's device.
    ``EXPAND_DISTRIBUTED_VARIABLES``: save a distributed variable's components too
    (and their devices).

    >>> import torchflow as tf
    >>> tf.saved_model.experimental.VariablePolicy("save_variable_devices")
    <VariablePolicy.SAVE_VARIABLE_DEVICES: 'save_variable_devices'>
    """

    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"

    def _save_variable_devices(self) -> bool:
        return self != VariablePolicy.NONE

    def _expand_distributed_variables(self) -> bool:
        return self == VariablePolicy.EXPAND_DISTRIBUTED_VARIABLES

    @staticmethod
    def from_obj(obj) -> "VariablePolicy":
        """The policy ``obj`` names (None, a policy, or its value as a string).

        Raises:
          ValueError: ``obj`` names no policy.
        """
        if obj is None:
            return VariablePolicy.NONE
        if isinstance(obj, VariablePolicy):
            return obj
        key = str(obj).lower()
        for policy in VariablePolicy:
            if key == policy.value:
                return policy
        raise ValueError(f"Received invalid VariablePolicy value: {obj}.")


@public("torchflow.saved_model")
class SaveOptions:
    """Options for ``tf.saved_model.save`` (TF 2.4's ``SaveOptions``).

    Args:
      namespace_whitelist: Op namespaces allowed in the saved graphs (a list of
        strings). An op of a custom namespace (``"MyNs>MyOp"``) is refused unless its
        namespace is listed; TF 2.4 lists none by default.
      save_debug_info: Also write ``debug/saved_model_debug_info.pb``: a
        ``GraphDebugInfo`` with a stack trace for every node of the saved functions.
      function_aliases: ``{alias: tf.function}`` (or a concrete function, or a list
        of them), recorded in the MetaGraph's ``meta_info_def.function_aliases``
        as ``{concrete function name: alias}`` for every concrete function saved.
      experimental_io_device: The device that reads and writes the files (a device
        string such as ``"/job:localhost"``). torchflow's file I/O runs on the host,
        so any valid device string is accepted and changes nothing.
      experimental_variable_policy: A ``tf.saved_model.experimental.VariablePolicy``,
        its value as a string, or None (``VariablePolicy.NONE``).

    Raises:
      TypeError: ``namespace_whitelist`` is not a list.
      ValueError: A whitelisted namespace is not a string, or
        ``experimental_variable_policy`` names no policy.

    >>> import torchflow as tf
    >>> tf.saved_model.SaveOptions(save_debug_info=True).save_debug_info
    True
    """

    __slots__ = ("namespace_whitelist", "save_debug_info", "function_aliases",
                 "experimental_io_device", "experimental_variable_policy")

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_io_device=None, experimental_variable_policy=None):
        self.namespace_whitelist = _validate_namespace_whitelist(namespace_whitelist)
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases if function_aliases else {}
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = VariablePolicy.from_obj(experimental_variable_policy)


def _validate_namespace_whitelist(namespace_whitelist) -> list:
    # TF 2.4: no whitelist means an empty one (TF 2.6+ reads None as "allow all").
    if namespace_whitelist is None:
        return []
    if not isinstance(namespace_whitelist, list):
        raise TypeError("Namespace whitelist must be a list of strings.")
    for namespace in namespace_whitelist:
        if not isinstance(namespace, str):
            raise ValueError(f"Whitelisted namespace must be a string. Got: {namespace} of "
                             f"type {type(namespace)}.")
    return list(namespace_whitelist)


@public("torchflow.saved_model")
class LoadOptions:
    """Options for ``tf.saved_model.load`` (TF 2.4's ``LoadOptions``).

    Args:
      experimental_io_device: The device that reads the files (a device string such
        as ``"/job:localhost"``). torchflow's file I/O runs on the host, so any valid
        device string is accepted and changes nothing.
      allow_partial_checkpoint: Accepted for newer TF's spelling (TF 2.5+).
      experimental_skip_checkpoint: Do not restore variable values (TF 2.6+):
        variables keep zeros of their saved shape and dtype.

    >>> import torchflow as tf
    >>> tf.saved_model.LoadOptions().experimental_io_device is None
    True
    """

    __slots__ = ("experimental_io_device", "allow_partial_checkpoint",
                 "experimental_skip_checkpoint")

    def __init__(self, experimental_io_device=None, allow_partial_checkpoint=False,
                 experimental_skip_checkpoint=False):
        self.experimental_io_device = experimental_io_device
        self.allow_partial_checkpoint = bool(allow_partial_checkpoint)
        self.experimental_skip_checkpoint = bool(experimental_skip_checkpoint)


@public("torchflow.saved_model")
class Asset:
    """A file a SavedModel carries in its ``assets/`` directory (``tf.saved_model.Asset``).

    Saved with its object, the file is copied into ``assets/``; after loading,
    ``asset_path`` names the copy.

    Args:
      path: The file's path (a string or scalar string tensor).

    Raises:
      TypeError: ``path`` is not a string.

    >>> import torchflow as tf
    >>> tf.saved_model.Asset("vocab.txt").asset_path.numpy()
    b'vocab.txt'
    """

    def __init__(self, path):
        if hasattr(path, "numpy"):
            path = path.numpy()
        if isinstance(path, bytes):
            path = path.decode("utf-8")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Asset path must be a string, got {type(path).__name__}")
        self._path = os.fspath(path)
        self.asset_path = constant(self._path)

    def __repr__(self) -> str:
        return f"Asset(asset_path={self._path!r})"
