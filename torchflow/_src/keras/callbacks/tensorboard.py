"""``tf.keras.callbacks.TensorBoard``: scalars, histograms and the model config for TensorBoard.

Writes event files under ``log_dir/train`` and ``log_dir/validation`` with the
tags tf.keras uses: ``epoch_<metric>`` (step = epoch), ``batch_<metric>``
(step = the number of training batches run so far, when ``update_freq`` is
``'batch'`` or an integer), ``evaluation_<metric>_vs_iterations`` (validation,
step = training batches so far), weight histograms ``<layer>/<weight>_0``
(``histogram_freq``; with ``write_images`` also ``<layer>/<weight>_0/image``), and the model's JSON config under the ``keras`` tag
(``write_graph``), and a profile of the batches ``profile_batch`` names (counted from 1
over the whole ``fit``) under ``log_dir/train/plugins/profile/<run>/`` (XProf's layout).
"""

from __future__ import annotations

import logging
import os

import numpy as np
from tensorboard.compat.proto import summary_pb2

from torchflow._src.keras.callbacks import _utils
from torchflow._src.keras.callbacks.callback import Callback
from torchflow._src.profiler import session as profiler_session
from torchflow._src.summary import summary_ops
from torchflow._src.summary.writer import create_file_writer
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")


@public("torchflow.keras.callbacks")
class TensorBoard(Callback):
    """Logs training and validation metrics and weight histograms for TensorBoard.

    Args:
      log_dir: Root directory of the logs (``train/`` and ``validation/`` below it).
      histogram_freq: Epochs between weight histograms (0: none).
      write_graph: Write the model's config (shown by TensorBoard's graph plugin).
      write_images: Also write 2-D/4-D weights as images.
      update_freq: ``'epoch'``, ``'batch'`` or an integer number of batches
        between batch-level scalars.
      profile_batch: Profile the batch(es) to sample compute characteristics.
        A non-negative integer (the batch to profile, 0: no profiling) or a pair
        ``(start, stop)`` of positive integers (a range of batches, both included), or
        the string ``"start,stop"``. Default 2: the second batch. The profile goes to
        ``log_dir/train``, as ``tf.profiler.experimental.start`` writes it.
      embeddings_freq, embeddings_metadata: Accepted; embeddings are not written.

    Raises:
      ValueError: For an invalid ``profile_batch``.

    Differences from TensorFlow 2.4: in a profile this callback takes, every profiled
    batch carries its ``train`` step marker; TF 2.4's marker also wrapped the batch
    hooks that start and stop the profiler, so its first and last profiled batches had
    none (and ``profile_batch=N`` gave XProf no step at all).

    >>> import torchflow as tf
    >>> cb = tf.keras.callbacks.TensorBoard(log_dir="./logs", histogram_freq=1)
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 update_freq="epoch", profile_batch=2, embeddings_freq=0,
                 embeddings_metadata=None, **kwargs):
        super().__init__()
        self._supports_tf_logs = True
        for k in kwargs:
            if k not in ("batch_size", "write_grads", "embeddings_layer_names",
                         "embeddings_data"):
                raise TypeError(f"Unrecognized arguments in `TensorBoard` Callback: {kwargs}")
            _log.warning("`%s` is deprecated in `TensorBoard` Callback.", k)
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._init_profile_batch(profile_batch)
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        self._train_step = 0
        self._epoch_base = 0
        self._last_batch_seen = -1
        self._in_fit = False

    def _init_profile_batch(self, profile_batch):
        msg = ("profile_batch must be a non-negative integer or 2-tuple of positive integers. "
               "A pair of positive integers signifies a range of batches to profile. "
               f"Found: {profile_batch}")
        if isinstance(profile_batch, str):
            profile_batch = tuple(int(p) for p in profile_batch.split(","))
        if isinstance(profile_batch, int):
            if profile_batch < 0:
                raise ValueError(msg)
            self._start_batch = self._stop_batch = profile_batch
        elif isinstance(profile_batch, (tuple, list)) and len(profile_batch) == 2:
            self._start_batch, self._stop_batch = profile_batch
            if self._start_batch < 0 or self._stop_batch < self._start_batch:
                raise ValueError(msg)
        else:
            raise ValueError(msg)
        self._should_trace = not (self._start_batch == 0 and self._stop_batch == 0)
        self._global_train_batch = 0
        self._is_tracing = False

    def _writer(self, which):
        if which not in self._writers:
            self._writers[which] = create_file_writer(
                self._train_dir if which == "train" else self._val_dir)
        return self._writers[which]

    def _close_writers(self):
        for w in self._writers.values():
            w.close()
        self._writers = {}

    # --- hooks ----------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._in_fit = True
        self._global_train_batch = 0
        self._train_step = 0
        self._last_batch_seen = -1
        if self.write_graph:
            self._write_keras_model_summary()

    def on_train_end(self, logs=None):
        self._in_fit = False
        if self._is_tracing:
            self._stop_trace()
        self._close_writers()

    def _implements_train_batch_hooks(self):
        # Batch scalars and profiling need every batch; otherwise fit may skip the batch
        # hooks and the number of training batches is counted per epoch (params["steps"]).
        return self.update_freq != "epoch" or self._should_trace

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self._should_trace and self._global_train_batch == self._start_batch:
            profiler_session.start(self._train_dir)
            self._is_tracing = True

    def _stop_trace(self):
        profiler_session.stop()
        self._is_tracing = False

    def _steps_now(self):
        if self._last_batch_seen >= 0:
            return self._train_step
        return self._epoch_base + (self.params.get("steps") or 0)

    def on_epoch_begin(self, epoch, logs=None):
        self._last_batch_seen = -1
        self._epoch_base = self._train_step

    def on_train_batch_end(self, batch, logs=None):
        if self._is_tracing and self._global_train_batch >= self._stop_batch:
            self._stop_trace()
        # With steps_per_execution=N the hook sees every N-th batch: count them all.
        self._train_step += batch - self._last_batch_seen
        self._last_batch_seen = batch
        if self.update_freq == "epoch" or not logs:
            return
        if self._train_step % int(self.update_freq) == 0:
            with self._writer("train").as_default():
                for name, value in logs.items():
                    self._scalar("batch_" + name, value, self._train_step)

    def on_test_end(self, logs=None):
        if not self._in_fit or not logs:
            return
        with self._writer("validation").as_default():
            for name, value in logs.items():
                self._scalar(f"evaluation_{name}_vs_iterations", value, self._steps_now())

    def on_epoch_end(self, epoch, logs=None):
        self._train_step = self._steps_now()
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    # --- writing --------------------------------------------------------------
    @staticmethod
    def _scalar(name, value, step):
        value = _utils.to_float(value)
        if np.ndim(value) == 0 and np.asarray(value).dtype.kind in "biuf":
            summary_ops.scalar(name, value, step=step)

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if train:
            with self._writer("train").as_default():
                for name, value in train.items():
                    self._scalar("epoch_" + name, value, epoch)
        if val:
            with self._writer("validation").as_default():
                for name, value in val.items():
                    self._scalar("epoch_" + name, value, epoch)

    def _log_weights(self, epoch):
        with self._writer("train").as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    name = weight.name.replace(":", "_")
                    summary_ops.histogram(name, weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, name, epoch)
            self._writer("train").flush()

    @staticmethod
    def _log_weight_as_image(weight, name, epoch):
        w = np.asarray(weight.numpy(), np.float32)
        if w.ndim == 1:
            w = w[np.newaxis, :]
        if w.ndim == 2:
            if w.shape[0] > w.shape[1]:
                w = w.T
            img = w[np.newaxis, :, :, np.newaxis]
        elif w.ndim == 3:
            img = np.transpose(w, (2, 0, 1))[..., np.newaxis]
        elif w.ndim == 4:  # a conv kernel: one grey image per (in, out) channel pair
            img = np.transpose(w.reshape(w.shape[0], w.shape[1], -1), (2, 0, 1))[..., None]
        else:
            return
        lo, hi = float(img.min()), float(img.max())
        img = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
        # "/image": TF 2.4 reused the histogram's tag, which TensorBoard cannot tell apart.
        summary_ops.image(name + "/image", img, step=epoch, max_outputs=img.shape[0])

    def _write_keras_model_summary(self):
        try:
            config = self.model.to_json()
        except Exception as e:  # noqa: BLE001  (subclassed models have no config, as in TF)
            _log.warning("Model failed to serialize as JSON. Ignoring... %s", e)
            return
        md = summary_pb2.SummaryMetadata()
        md.plugin_data.plugin_name = "graph_keras_model"
        md.plugin_data.content = b"1"
        with self._writer("train").as_default():
            summary_ops.write("keras", np.array(config, dtype=object), step=0, metadata=md)
