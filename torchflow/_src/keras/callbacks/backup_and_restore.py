"""``tf.keras.callbacks.experimental.BackupAndRestore``: resume ``fit`` after a crash.

At the end of every epoch the model, its optimizer and the number of the
completed epoch are written with ``tf.train.Checkpoint`` (one kept by a
``CheckpointManager``; a checkpoint becomes visible only once complete, so a
process killed mid-write leaves the previous one). When ``fit`` starts again
with a callback on the same ``backup_dir``, ``on_train_begin`` restores them and
``fit`` continues from the epoch after the last completed one. The backup is
deleted when training completes.
"""

from __future__ import annotations

import os
import shutil

import numpy as np

from torchflow._src.core import dtypes
from torchflow._src.core.variables import Variable
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.train.checkpoint import Checkpoint
from torchflow._src.train.checkpoint_management import CheckpointManager
from torchflow._src.util.api import public

_UNUSED_EPOCH = -1


def _write_dir(model, backup_dir):
    """Where this process writes its backup: ``backup_dir`` on the chief (or alone),
    ``backup_dir/workertemp_<task id>`` on the other workers of a multi-worker
    strategy (TF's rule); every worker restores from ``backup_dir``."""
    strategy = getattr(model, "distribute_strategy", None)
    extended = getattr(strategy, "extended", None)
    in_multi_worker = getattr(extended, "_in_multi_worker_mode", None)
    if in_multi_worker is None or not in_multi_worker() or extended.should_checkpoint:
        return backup_dir
    return os.path.join(backup_dir, f"workertemp_{strategy.cluster_resolver.task_id}")


class TrainingState:
    """The checkpointed state of one ``fit``: model, optimizer and last completed epoch."""

    def __init__(self, model, backup_dir):
        self._backup_dir = backup_dir
        self._write_dir = _write_dir(model, backup_dir)
        self._epoch = Variable(np.int64(_UNUSED_EPOCH), trainable=False,
                               dtype=dtypes.int64, name="ckpt_saved_epoch")
        deps = {"model": model, "ckpt_saved_epoch": self._epoch}
        if getattr(model, "optimizer", None) is not None:
            deps["optimizer"] = model.optimizer
        self._checkpoint = Checkpoint(**deps)
        self._manager = CheckpointManager(self._checkpoint, directory=backup_dir,
                                          max_to_keep=1)
        self._write_manager = self._manager if self._write_dir == backup_dir else \
            CheckpointManager(self._checkpoint, directory=self._write_dir, max_to_keep=1)

    def restore(self) -> bool:
        """Restores the last backup, if any; returns whether there was one."""
        latest = self._manager.latest_checkpoint
        if latest is None:
            return False
        self._checkpoint.restore(latest).expect_partial()
        return True

    def back_up(self, epoch) -> None:
        self._epoch.assign(np.int64(epoch))
        if self._write_dir == self._backup_dir:
            self._write_manager.save()
            return
        # A non-chief worker's copy is scratch, removed once written (TF's rule). The
        # chief may finish the last epoch first and remove the backup directory while
        # this write is under way; the chief's copy is the backup, so that is no loss.
        try:
            self._write_manager.save()
        except FileNotFoundError:
            pass
        finally:
            shutil.rmtree(self._write_dir, ignore_errors=True)

    def delete_backup(self) -> None:
        shutil.rmtree(self._write_dir, ignore_errors=True)
        if self._write_dir != self._backup_dir:
            # A worker's temp dir lies inside the chief's backup dir; when the chief
            # removed that first, the worker's last write made it again: remove it
            # if nothing else is left in it.
            try:
                os.rmdir(self._backup_dir)
            except OSError:
                pass

    def maybe_load_initial_epoch_from_ckpt(self, initial_epoch) -> int:
        """The epoch ``fit`` should start at: one past the backed-up epoch, if any."""
        epoch = int(self._epoch.numpy())
        return epoch + 1 if epoch >= 0 else initial_epoch


@public("torchflow.keras.callbacks.experimental")
class BackupAndRestore(Callback):
    """Backs up the training state each epoch and resumes an interrupted ``fit``.

    Args:
      backup_dir: Directory for the backup (only this callback may use it).

    Raises:
      ValueError: If ``backup_dir`` is empty.

    >>> cb = BackupAndRestore(backup_dir="/tmp/backup")  # doctest: +SKIP
    >>> model.fit(x, y, epochs=10, callbacks=[cb])  # doctest: +SKIP
    """

    def __init__(self, backup_dir):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = os.fspath(backup_dir)
        self._supports_tf_logs = True
        self._training_state = None

    def on_train_begin(self, logs=None):
        self._training_state = TrainingState(self.model, self.backup_dir)
        self._training_state.restore()
        # fit reads this right after on_train_begin to pick its first epoch.
        self.model._training_state = self._training_state

    def on_train_end(self, logs=None):
        if self._training_state is not None:
            self._training_state.delete_backup()
        self._training_state = None
        if getattr(self.model, "_training_state", None) is not None:
            self.model._training_state = None

    def on_epoch_end(self, epoch, logs=None):
        self._training_state.back_up(epoch)
