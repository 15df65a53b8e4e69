"""``tf.train.CheckpointManager``, ``latest_checkpoint`` and ``checkpoints_iterator``.

Each checkpoint directory has a ``checkpoint`` state file in TF's text format::

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    ...
    last_preserved_timestamp: 1700000000.0

It is replaced atomically (written to a temporary file, then renamed), and only
after the checkpoint it names is complete.
"""

from __future__ import annotations

import os
import time

import numpy as np
from google.protobuf import text_format

from torchflow._src.core import errors
from torchflow._src.core.proto import tf_checkpoint_state_pb2 as state_pb2
from torchflow._src.core.proto import tf_trackable_object_graph_pb2 as graph_pb2
from torchflow._src.train import checkpoint_legacy, tensor_bundle
from torchflow._src.util.api import public

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"

STATE_FILE = "checkpoint"


class _State:
    def __init__(self, latest=None, paths=(), timestamps=(), last_preserved=None):
        self.latest = latest
        self.paths = list(paths)
        self.timestamps = list(timestamps)
        self.last_preserved = last_preserved


def _rel(directory: str, path: str) -> str:
    return os.path.relpath(path, directory) if os.path.dirname(path) == directory.rstrip("/") \
        or os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory) else path


def _abs(directory: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(directory, path)


def read_state(directory: str, latest_filename: str | None = None) -> _State | None:
    path = os.path.join(directory, latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    proto = state_pb2.CheckpointState()
    try:
        text_format.Parse(text, proto)
    except text_format.ParseError:
        return None
    return _from_proto(directory, proto)


def _from_proto(directory: str, proto) -> _State:
    return _State(_abs(directory, proto.model_checkpoint_path) if proto.model_checkpoint_path
                  else None,
                  [_abs(directory, p) for p in proto.all_model_checkpoint_paths],
                  list(proto.all_model_checkpoint_timestamps),
                  proto.last_preserved_timestamp or None)


def write_state(directory: str, st: _State, latest_filename: str | None = None) -> None:
    """Writes the ``checkpoint`` file (a text-format ``CheckpointState``) atomically."""
    proto = state_pb2.CheckpointState()
    if st.latest is not None:
        proto.model_checkpoint_path = _rel(directory, st.latest)
    proto.all_model_checkpoint_paths.extend(_rel(directory, p) for p in st.paths)
    proto.all_model_checkpoint_timestamps.extend(st.timestamps)
    if st.last_preserved is not None:
        proto.last_preserved_timestamp = st.last_preserved
    path = os.path.join(directory, latest_filename or STATE_FILE)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text_format.MessageToString(proto))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def record_saved(path: str) -> None:
    """Points its directory's state file at a just-written checkpoint (Checkpoint.save).

    As TF's ``Checkpoint.save``, the state names only this checkpoint (a
    ``CheckpointManager`` keeps the list of the ones it retains).
    """
    directory = os.path.dirname(os.path.abspath(path))
    path = os.path.abspath(path)
    write_state(directory, _State(latest=path, paths=[path]))


@public("torchflow.train")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """Finds the newest complete checkpoint in ``checkpoint_dir``.

    Args:
      checkpoint_dir: Directory of a ``CheckpointManager`` or ``Checkpoint.save``.
      latest_filename: Name of the state file (default ``"checkpoint"``).

    Returns:
      The checkpoint's path prefix, or None if there is none.
    """
    st = read_state(os.fspath(checkpoint_dir), latest_filename)
    if st is None or st.latest is None:
        return None
    if tensor_bundle.exists(st.latest):
        return st.latest
    return None


@public("torchflow.train")
def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields new checkpoint paths as they appear in ``checkpoint_dir``.

    Args:
      checkpoint_dir: The directory to watch.
      min_interval_secs: Minimum seconds between yields.
      timeout: Seconds to wait for a new checkpoint before calling ``timeout_fn``
        (or stopping, if there is none). None waits forever.
      timeout_fn: Called on timeout; the iterator stops if it returns True.

    Yields:
      Checkpoint path prefixes, each once, oldest first.
    """
    last = None
    while True:
        deadline = None if timeout is None else time.time() + timeout
        path = None
        while True:
            path = latest_checkpoint(checkpoint_dir)
            if path is not None and path != last:
                break
            if deadline is not None and time.time() > deadline:
                path = None
                break
            time.sleep(min(1.0, max(0.05, min_interval_secs or 0.05)))
        if path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        last = path
        yield path
        wait = min_interval_secs - (time.time() - start)
        if wait > 0:
            time.sleep(wait)


@public("torchflow.train")
class CheckpointManager:
    """Keeps the last ``max_to_keep`` checkpoints of a ``tf.train.Checkpoint``.

    Args:
      checkpoint: The ``tf.train.Checkpoint`` to save and restore.
      directory: Where checkpoints and the ``checkpoint`` state file go.
      max_to_keep: How many recent checkpoints to keep; None keeps all.
      keep_checkpoint_every_n_hours: Also keep one checkpoint per this many hours.
      checkpoint_name: File name prefix (default ``"ckpt"``).
      step_counter: A variable whose value numbers the checkpoints
        (with ``checkpoint_interval``).
      checkpoint_interval: Minimum steps between saves (needs ``step_counter``).
      init_fn: Called by ``restore_or_initialize`` when there is no checkpoint.

    Raises:
      ValueError: If ``checkpoint_interval`` is given without ``step_counter``.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is "
                             "not None.")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None
        st = read_state(self._directory)
        if st is not None and st.latest is not None:
            pairs = [(p, t) for p, t in zip(st.paths, st.timestamps or [time.time()] * len(st.paths))
                     if tensor_bundle.exists(p)]
            self._paths = [p for p, _ in pairs]
            self._times = [t for _, t in pairs]
            self._last_preserved = st.last_preserved if st.last_preserved is not None \
                else time.time()
            self._latest = st.latest if tensor_bundle.exists(st.latest) else (
                self._paths[-1] if self._paths else None)
        else:
            self._paths, self._times = [], []
            self._last_preserved = time.time()
            self._latest = None

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint this manager knows, or None."""
        return self._latest

    @property
    def checkpoints(self) -> list:
        """Paths of the kept checkpoints, oldest first."""
        return list(self._paths)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves a checkpoint and deletes the ones beyond ``max_to_keep``.

        Args:
          checkpoint_number: Number for the file name; default: the
            checkpoint's ``save_counter`` after incrementing it (or
            ``step_counter`` with ``checkpoint_interval``).
          check_interval: With ``checkpoint_interval``, skip if too few steps passed.

        Returns:
          The saved path, or None when skipped by the interval.
        """
        if self._interval is not None:
            step = int(self._step_counter.numpy())
            if check_interval and self._last_step is not None and \
                    step < self._last_step + self._interval:
                return None
            if checkpoint_number is None:
                checkpoint_number = step
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = int(counter.numpy())
        elif hasattr(checkpoint_number, "numpy"):
            checkpoint_number = int(checkpoint_number.numpy())
        path = f"{self._prefix}-{int(checkpoint_number)}"
        self._checkpoint.write(path)
        now = time.time()
        if path in self._paths:
            i = self._paths.index(path)
            del self._paths[i]
            del self._times[i]
        self._paths.append(path)
        self._times.append(now)
        self._latest = path
        self._sweep()
        write_state(self._directory, _State(self._latest, self._paths, self._times,
                                            self._last_preserved))
        return path

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._paths) > self._max_to_keep:
            path, ts = self._paths.pop(0), self._times.pop(0)
            if self._keep_hours is not None and ts - self._last_preserved >= \
                    self._keep_hours * 3600.0:
                self._last_preserved = ts
                continue
            tensor_bundle.delete(path)

    def restore_or_initialize(self):
        """Restores the latest checkpoint, or runs ``init_fn`` if there is none.

        Returns:
          The restored path, or None if initialised instead.
        """
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            if self._interval is not None:
                self._last_step = int(self._step_counter.numpy())
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None


def open_reader(prefix: str):
    """A ``BundleReader`` for the checkpoint at ``prefix`` (a ``LegacyReader`` for
    torchflow's older format, read for one release).

    Raises:
      NotFoundError: There is no checkpoint at ``prefix``.
      DataLossError: Its index is damaged.
    """
    prefix = os.fspath(prefix)
    if not tensor_bundle.exists(prefix):
        raise errors.NotFoundError(
            None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
            f"matching files for {prefix}")
    if checkpoint_legacy.is_legacy(prefix):
        return checkpoint_legacy.LegacyReader(prefix)
    return tensor_bundle.BundleReader(prefix)


def translate_error(e: errors.OpError) -> Exception:
    """The exception TF's Python checkpoint reader raises for a failed read.

    Its C++ status reaches Python through pybind11's status mapping
    (InvalidArgument -> ``ValueError``, OutOfRange -> ``IndexError``,
    Unimplemented -> ``NotImplementedError``, the rest ``RuntimeError``), and
    ``error_translator`` turns a ``RuntimeError`` back into ``NotFoundError``
    (missing files or keys), ``DataLossError`` ("Unable to open table file") or
    else an ``OpError`` with code UNKNOWN; the message is the status's.
    """
    msg = e.message
    if isinstance(e, errors.InvalidArgumentError):
        return ValueError(msg)
    if isinstance(e, errors.OutOfRangeError):
        return IndexError(msg)
    if isinstance(e, errors.UnimplementedError):
        return NotImplementedError(msg)
    if "not found in checkpoint" in msg or "Failed to find any matching files for" in msg:
        return errors.NotFoundError(None, None, msg)
    if "Unable to open table file" in msg:
        return errors.DataLossError(None, None, msg)
    return errors.OpError(None, None, msg, errors.UNKNOWN)


def object_graph(reader):
    """The ``TrackableObjectGraph`` a checkpoint holds.

    Raises:
      NotFoundError: The checkpoint has no object graph (a name-based TF1 checkpoint).
      DataLossError: The object graph does not parse.
    """
    graph = getattr(reader, "graph", None)
    if graph is not None:
        return graph
    if not reader.contains(OBJECT_GRAPH_KEY):
        raise errors.NotFoundError(
            None, None, f"The checkpoint at {reader.prefix} has no object graph "
            f"({OBJECT_GRAPH_KEY}); name-based (tf.compat.v1.train.Saver) checkpoints cannot "
            f"be restored by tf.train.Checkpoint.")
    raw = reader.lookup(OBJECT_GRAPH_KEY)
    graph = graph_pb2.TrackableObjectGraph()
    try:
        graph.ParseFromString(raw.item() if isinstance(raw, np.ndarray) else raw)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError
        raise errors.DataLossError(
            None, None, f"Unable to parse the object graph of {reader.prefix}") from None
    return graph


@public("torchflow.train")
class CheckpointReader:
    """Reads the tensors of a checkpoint by key (``tf.train.load_checkpoint``).

    Args:
      ckpt_path: A checkpoint's path prefix.

    Raises:
      NotFoundError: There is no checkpoint at ``ckpt_path``.
      OpError: The checkpoint is damaged (TF's reader reports this with code
        UNKNOWN and the cause in the message).
      ValueError: The checkpoint is of a newer format version.
    """

    def __init__(self, ckpt_path: str):
        try:
            self._reader = open_reader(ckpt_path)
        except errors.OpError as e:
            raise translate_error(e) from None

    def get_variable_to_shape_map(self) -> dict:
        """``{key: shape as a list}`` for every tensor in the checkpoint."""
        return {k: self._reader.shape(k) for k in self._reader.entries}

    def get_variable_to_dtype_map(self) -> dict:
        """``{key: tf.DType}`` for every tensor in the checkpoint."""
        return {k: self._reader.dtype(k) for k in self._reader.entries}

    def has_tensor(self, key: str) -> bool:
        """Whether the checkpoint holds a tensor under ``key``."""
        return self._reader.contains(key)

    def get_tensor(self, key: str):
        """The NumPy value under ``key`` (``bytes`` for a scalar string).

        Raises:
          NotFoundError: No tensor under ``key``.
          OpError: Its bytes are damaged (a checksum mismatch).
          IndexError: The data file is truncated.
        """
        if self._reader.contains(key) and self._reader.dtype(key).as_numpy_dtype is None \
                and self._reader.dtype(key).name != "string":
            raise errors.InternalError(
                None, None, f"Tensorflow type {self._reader.dtype(key).as_datatype_enum} not "
                f"convertible to numpy dtype.")
        try:
            value = self._reader.lookup(key)
        except errors.OpError as e:
            raise translate_error(e) from None
        if value.dtype.kind == "O" and value.ndim == 0:
            return value.item()
        return value

    def debug_string(self) -> bytes:
        """One ``key (dtype) [shape]`` line per tensor, as TF prints them."""
        lines = [f"{k} ({self._reader.dtype(k).name}) {self._reader.shape(k)}"
                 for k in sorted(self._reader.entries)]
        return ("\n".join(lines) + "\n").encode()


def _resolve(ckpt_dir_or_file) -> str:
    p = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(p):
        latest = latest_checkpoint(p)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {p}")
        return latest
    return p


@public("torchflow.train")
def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A ``CheckpointReader`` for a checkpoint path or the latest in a directory.

    Args:
      ckpt_dir_or_file: A checkpoint prefix or a directory (its latest checkpoint is used).

    Raises:
      NotFoundError: If no checkpoint is found.
    """
    return CheckpointReader(_resolve(ckpt_dir_or_file))


@public("torchflow.train")
def list_variables(ckpt_dir_or_file) -> list:
    """``[(key, shape)]`` for every variable in a checkpoint, sorted by key.

    Args:
      ckpt_dir_or_file: A checkpoint prefix or a directory (its latest checkpoint is used).

    Returns:
      A list of ``(name, shape)`` pairs.

    Raises:
      NotFoundError: If no checkpoint is found.
    """
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


@public("torchflow.train")
def load_variable(ckpt_dir_or_file, name: str):
    """The NumPy value of variable ``name`` in a checkpoint.

    Args:
      ckpt_dir_or_file: A checkpoint prefix or a directory (its latest checkpoint is used).
      name: str: the variable's key in the checkpoint.

    Returns:
      A NumPy array.
    """
    if not name.endswith(".ATTRIBUTES/VARIABLE_VALUE") and "/" not in name:
        name = f"{name}/.ATTRIBUTES/VARIABLE_VALUE"
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
