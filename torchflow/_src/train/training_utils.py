"""More of ``tf.train``: ``ExponentialMovingAverage``, ``CheckpointOptions``,
``get_checkpoint_state`` (with TF's ``CheckpointState`` proto), the ``ClusterDef``,
``JobDef`` and ``ServerDef`` protos, and ``experimental.PythonState``."""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import cluster_pb2, config_pb2

from torchflow._src.core import dtypes
from torchflow._src.core.variables import Variable
from torchflow._src.train import checkpoint_management as cm
from torchflow._src.util.api import public


def _checkpoint_state_class():
    """TF's ``CheckpointState`` message (tensorflow/core/protobuf/checkpoint_state.proto:
    the same package, names, numbers and types), built from its descriptor."""
    f = descriptor_pb2.FileDescriptorProto(name="torchflow/checkpoint_state.proto",
                                           package="tensorflow", syntax="proto3")
    m = f.message_type.add(name="CheckpointState")
    string, double = descriptor_pb2.FieldDescriptorProto.TYPE_STRING, \
        descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE
    one, rep = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, \
        descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    for name, number, kind, label in [
            ("model_checkpoint_path", 1, string, one),
            ("all_model_checkpoint_paths", 2, string, rep),
            ("all_model_checkpoint_timestamps", 3, double, rep),
            ("last_preserved_timestamp", 4, double, one)]:
        m.field.add(name=name, number=number, type=kind, label=label)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "tensorflow.CheckpointState"))


CheckpointState = _checkpoint_state_class()

# tf.train.ClusterDef / JobDef: TF's cluster.proto as TensorBoard's copy compiles it.
ClusterDef = cluster_pb2.ClusterDef
JobDef = cluster_pb2.JobDef


def _server_def_class():
    """TF's ``ServerDef`` (tensorflow/core/protobuf/tensorflow_server.proto, fields 1-6;
    ``cluster_device_filters`` (7) is left out: no copy of its message type here)."""
    f = descriptor_pb2.FileDescriptorProto(
        name="torchflow/tensorflow_server.proto", package="torchflow.train", syntax="proto3",
        dependency=[cluster_pb2.DESCRIPTOR.name, config_pb2.DESCRIPTOR.name])
    m = f.message_type.add(name="ServerDef")
    t = descriptor_pb2.FieldDescriptorProto
    for name, number, kind, type_name in [
            ("cluster", 1, t.TYPE_MESSAGE, ".tensorboard.ClusterDef"),
            ("job_name", 2, t.TYPE_STRING, None), ("task_index", 3, t.TYPE_INT32, None),
            ("default_session_config", 4, t.TYPE_MESSAGE, ".tensorboard.ConfigProto"),
            ("protocol", 5, t.TYPE_STRING, None), ("port", 6, t.TYPE_INT32, None)]:
        field = m.field.add(name=name, number=number, type=kind, label=t.LABEL_OPTIONAL)
        if type_name:
            field.type_name = type_name
    pool = descriptor_pool.Default()
    try:
        desc = pool.FindMessageTypeByName("torchflow.train.ServerDef")
    except KeyError:
        pool.Add(f)
        desc = pool.FindMessageTypeByName("torchflow.train.ServerDef")
    return message_factory.GetMessageClass(desc)


ServerDef = _server_def_class()
ServerDef.__module__ = "torchflow.train"
ServerDef.__doc__ = """A ``ServerDef`` protocol message: the configuration of one server of a cluster.

Attributes:
  cluster: ``ClusterDef``, the jobs and task addresses of the whole cluster.
  job_name: str, the job this server belongs to (``"worker"``, ``"ps"``, ...).
  task_index: int, this server's task index in the job.
  default_session_config: ``ConfigProto``, the session options (kept, unused).
  protocol: str, the transport, ``"grpc"``.
  port: int, the port to listen on when it differs from the cluster's address.
"""


@public("torchflow.train")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The ``CheckpointState`` proto of ``checkpoint_dir``'s ``checkpoint`` file.

    Args:
      checkpoint_dir: The directory of checkpoints.
      latest_filename: The state file's name (default ``"checkpoint"``).

    Returns:
      A ``CheckpointState`` (``model_checkpoint_path``,
      ``all_model_checkpoint_paths``, ...), or None if there is no state file.
    """
    st = cm.read_state(str(checkpoint_dir), latest_filename)
    if st is None:
        return None
    out = CheckpointState()
    if st.latest is not None:
        out.model_checkpoint_path = st.latest
    out.all_model_checkpoint_paths.extend(st.paths)
    return out


@public("torchflow.train")
class CheckpointOptions:
    """Options for ``Checkpoint.save``/``restore``.

    Args:
      experimental_io_device: The device that reads and writes the files (TF 2.4
        runs the I/O ops there; here files are read and written by the host).
    """

    __slots__ = ("experimental_io_device",)

    def __init__(self, experimental_io_device=None):
        self.experimental_io_device = experimental_io_device


def _base_name(var) -> str:
    name = getattr(var, "name", "Variable")
    return name[:-2] if name.endswith(":0") else name


@public("torchflow.train")
class ExponentialMovingAverage:
    """Keeps moving averages of variables: ``shadow -= (1 - decay) * (shadow - var)``.

    >>> import torchflow as tf
    >>> v = tf.Variable(1.0)
    >>> ema = tf.train.ExponentialMovingAverage(decay=0.5)
    >>> ema.apply([v])
    >>> _ = v.assign(3.0)
    >>> ema.apply([v])
    >>> float(ema.average(v))
    2.0

    Args:
      decay: The decay, a float (typically close to 1).
      num_updates: Optional step counter; the decay used is then
        ``min(decay, (1 + num_updates) / (10 + num_updates))``.
      zero_debias: Whether to debias averages of zero-initialised variables
        (not supported: raises ``NotImplementedError``).
      name: Prefix of the average variables' names.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        if zero_debias:
            raise NotImplementedError("ExponentialMovingAverage(zero_debias=True) is not "
                                      "supported by torchflow.")
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}

    @property
    def name(self) -> str:
        return self._name

    def _decay_value(self) -> float:
        decay = float(self._decay)
        if self._num_updates is not None:
            n = float(self._num_updates.numpy() if hasattr(self._num_updates, "numpy")
                      else self._num_updates)
            decay = min(decay, (1.0 + n) / (10.0 + n))
        return decay

    def apply(self, var_list=None):
        """Creates averages for new variables (starting at their values) and updates
        all of ``var_list``'s.

        Raises:
          TypeError: If a variable is not float16/32/64 (TF's rule).
        """
        var_list = list(var_list or [])
        for v in var_list:
            if v.dtype.base_dtype not in (dtypes.bfloat16, dtypes.float16, dtypes.float32,
                                          dtypes.float64):
                raise TypeError("The variables must be half, float, or double: "
                                f"{_base_name(v)}")
        decay = self._decay_value()
        for v in var_list:
            key = id(v)
            if key not in self._averages:
                self._averages[key] = (v, Variable(v.read_value() if hasattr(v, "read_value")
                                                   else v, trainable=False,
                                                   name=f"{_base_name(v)}/{self._name}"))
                continue
            shadow = self._averages[key][1]
            shadow.assign_sub((shadow - v) * (1.0 - decay))

    def average(self, var):
        """The average variable of ``var`` (None if ``apply`` never saw it)."""
        entry = self._averages.get(id(var))
        return None if entry is None else entry[1]

    def average_name(self, var) -> str:
        """The name of ``var``'s average variable."""
        return f"{_base_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{average name: variable}``, to restore averages into the variables."""
        return {self.average_name(v): v for v, _ in self._averages.values()}


@public("torchflow.train.experimental")
class PythonState:
    """A base class for Python state saved in checkpoints as a string.

    Subclasses define ``serialize() -> str`` and ``deserialize(string)``; an
    instance attached to a ``tf.train.Checkpoint`` is saved and restored with it.
    """

    def serialize(self):
        raise NotImplementedError

    def deserialize(self, string_value):
        raise NotImplementedError

    def _serialize_state(self):
        v = self.serialize()
        return v.decode() if isinstance(v, bytes) else v

    def _deserialize_state(self, state) -> None:
        self.deserialize(state)
