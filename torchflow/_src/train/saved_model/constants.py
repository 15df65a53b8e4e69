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
      namespace_whitelist: Op namespaces allowed in the saved graph besides TF's
        own (a list of strings).
      save_debug_info: Also write ``debug/saved_model_debug_info.pb``.
      function_aliases: ``{alias: tf.function}`` recorded in the MetaGraph.
      experimental_io_device: Device to do file I/O on (accepted; torchflow's I/O
        runs on the host).
      experimental_variable_policy: A ``tf.saved_model.experimental.VariablePolicy``,
        its value as a string, or None (``VariablePolicy.NONE``).

    Raises:
      TypeError: ``namespace_whitelist`` is not a list of strings.
      ValueError: ``experimental_variable_policy`` names no policy.

    >>> import torchflow as tf
    >>> tf.saved_model.SaveOptions(save_debug_info=True).save_debug_info
    True
    """

    __slots__ = ("namespace_whitelist", "save_debug_info", "function_aliases",
                 "experimental_io_device", "experimental_variable_policy")

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_io_device=None, experimental_variable_policy=None):
        if namespace_whitelist is None:
            namespace_whitelist = []
        elif isinstance(namespace_whitelist, str):
            namespace_whitelist = [namespace_whitelist]
        elif not isinstance(namespace_whitelist, (list, tuple)) or not all(
                isinstance(n, str) for n in namespace_whitelist):
            raise TypeError(f"Namespace whitelist must be a list of strings. Got: "
                            f"{namespace_whitelist} with type {type(namespace_whitelist)}.")
        self.namespace_whitelist = list(namespace_whitelist)
        self.save_debug_info = bool(save_debug_info)
        self.function_aliases = dict(function_aliases) if function_aliases else {}
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = VariablePolicy.from_obj(experimental_variable_policy)


@public("torchflow.saved_model")
class LoadOptions:
    """Options for ``tf.saved_model.load`` (TF 2.4's ``LoadOptions``).

    Args:
      experimental_io_device: Device to do file I/O on (accepted; torchflow's I/O
        runs on the host).
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
