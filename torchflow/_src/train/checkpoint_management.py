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
import re
import time

from torchflow._src.core import errors
from torchflow._src.core.dtypes import as_dtype
from torchflow._src.train import checkpoint_format as fmt
from torchflow._src.util.api import public

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
    st = _State()
    for line in text.splitlines():
        m = re.match(r'\s*(\w+)\s*:\s*(.*)\s*$', line)
        if not m:
            continue
        key, value = m.groups()
        if value.startswith('"') and value.endswith('"'):
            value = value[1:-1].encode("latin-1").decode("unicode_escape")
        if key == "model_checkpoint_path":
            st.latest = _abs(directory, value)
        elif key == "all_model_checkpoint_paths":
            st.paths.append(_abs(directory, value))
        elif key == "all_model_checkpoint_timestamps":
            st.timestamps.append(float(value))
        elif key == "last_preserved_timestamp":
            st.last_preserved = float(value)
    return st


def write_state(directory: str, st: _State, latest_filename: str | None = None) -> None:
    lines = []
    if st.latest is not None:
        lines.append(f'model_checkpoint_path: "{_rel(directory, st.latest)}"')
    lines += [f'all_model_checkpoint_paths: "{_rel(directory, p)}"' for p in st.paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in st.timestamps]
    if st.last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {st.last_preserved!r}")
    path = os.path.join(directory, latest_filename or STATE_FILE)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
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
    if fmt.exists(st.latest):
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
                     if fmt.exists(p)]
            self._paths = [p for p, _ in pairs]
            self._times = [t for _, t in pairs]
            self._last_preserved = st.last_preserved if st.last_preserved is not None \
                else time.time()
            self._latest = st.latest if fmt.exists(st.latest) else (
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
            fmt.delete(path)

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


def _check_ckpt(ckpt_path: str) -> None:
    if not fmt.exists(ckpt_path):
        raise errors.NotFoundError(None, None,
                                   f"Unsuccessful TensorSliceReader constructor: Failed to find "
                                   f"any matching files for {ckpt_path}")


@public("torchflow.train")
class CheckpointReader:
    """Reads the variables of a checkpoint by key (``tf.train.load_checkpoint``)."""

    def __init__(self, ckpt_path: str):
        _check_ckpt(ckpt_path)
        nodes, reader, _ = fmt.read(ckpt_path)
        self._reader = reader
        self._entries = {}
        for node in nodes:
            if node["kind"] == "variable":
                self._entries[node["value"]["key"]] = node["value"]
            for rec in node.get("slots", ()):
                self._entries[rec["value"]["key"]] = rec["value"]

    def get_variable_to_shape_map(self) -> dict:
        return {k: list(v["shape"]) for k, v in self._entries.items()}

    def get_variable_to_dtype_map(self) -> dict:
        return {k: as_dtype(v["dtype"]) for k, v in self._entries.items()}

    def has_tensor(self, key: str) -> bool:
        return key in self._entries

    def get_tensor(self, key: str):
        if key not in self._entries:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        return self._reader.array(self._entries[key])


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
    """A ``CheckpointReader`` for a checkpoint path or the latest in a directory."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


@public("torchflow.train")
def list_variables(ckpt_dir_or_file) -> list:
    """``[(key, shape)]`` for every variable in a checkpoint, sorted by key."""
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


@public("torchflow.train")
def load_variable(ckpt_dir_or_file, name: str):
    """The NumPy value of variable ``name`` in a checkpoint."""
    if not name.endswith(".ATTRIBUTES/VARIABLE_VALUE") and "/" not in name:
        name = f"{name}/.ATTRIBUTES/VARIABLE_VALUE"
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
