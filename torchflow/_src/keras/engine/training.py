"""``Model.compile/fit/evaluate/predict`` and the step functions behind them.

The steps run as ``tf.function``s (traced once, replayed) unless ``run_eagerly``
(or ``tf.config.run_functions_eagerly``). ``steps_per_execution=N`` runs N
batches per execution, as one call of one traced function (``step_groups.py``):
callbacks' batch hooks and the progress bar see the batches in groups of N, as
in TF 2.4: ``on_*_batch_begin`` gets the index of the group's first batch,
``on_*_batch_end`` its last (a final partial group too).

What a step does not need is not done. With the default ``train_step``:

* metrics are read back (``result()``, to Python) only for a group's last batch,
  only when the progress bar redraws if it is the only batch-log reader, and
  once per epoch when nothing reads batch logs (``verbose=0``);
* the optimizer's host scalars (hyperparameter values, step count) are read
  once per group (once per epoch when no callback runs between batches) and the
  steps counted on the host.

``evaluate`` does the same with the default ``test_step``.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import warnings
from collections.abc import Mapping

import numpy as np

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tape import GradientTape
from torchflow._src.core.tensor import Tensor
from torchflow._src.keras import optimizers
from torchflow._src.keras.callbacks.callback import CallbackList
from torchflow._src.keras.engine import compile_utils, data_adapter, step_groups, training_ps
from torchflow._src.keras.engine import distributed_training as _dist  # tf.distribute
from torchflow._src.keras.mixed_precision import policy as policy_lib
from torchflow._src.keras.mixed_precision.loss_scale_optimizer import LossScaleOptimizer
from torchflow._src.ops.array_ops import concat
from torchflow._src.profiler.trace import Trace
from torchflow._src.util import nest

_log = logging.getLogger("torchflow")


def _to_py(v):
    if hasattr(v, "numpy"):
        a = v.numpy()
        return a.item() if getattr(a, "ndim", 1) == 0 else a
    return v


class TrainingMixin:
    """Training and inference methods of ``tf.keras.Model`` (see the module docstring)."""

    def _init_training(self):
        self.optimizer = None
        self.compiled_loss = None
        self.compiled_metrics = None
        self.loss = None
        self.stop_training = False
        self.history = None
        self._is_compiled = False
        self._steps_per_execution = 1
        self._run_eagerly = None
        self._jit_compile = None
        self.train_function = None
        self.test_function = None
        self.predict_function = None

    # --- compile ------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=None,
                jit_compile=None, **kwargs):
        """Configures the model for training: optimizer, loss, metrics.

        Args:
          optimizer: An optimizer instance, or the name of one (``"sgd"``,
            ``"adam"``, ``"rmsprop"``, ...) built with its default settings.
          loss: The objective: a loss name (``"mse"``,
            ``"sparse_categorical_crossentropy"``, ...), a ``tf.keras.losses.Loss``
            instance, or a function ``fn(y_true, y_pred)`` returning one loss per
            sample. For a model with several outputs, a list (one per output, in
            output order) or a dict keyed by output name; a single loss is then
            used for every output. The loss minimised is the sum of the outputs'
            losses (weighted by ``loss_weights``) plus the model's ``losses``.
          metrics: What to report during training and testing: metric names,
            ``tf.keras.metrics.Metric`` instances or functions. ``"accuracy"`` (or
            ``"acc"``) picks binary, categorical or sparse categorical accuracy from
            the loss and the output shape, as TF 2.4 does. For several outputs, a
            list of lists or a dict keyed by output name gives each output its own.
          loss_weights: Scalars weighting each output's loss in the total: a list
            (one per output) or a dict keyed by output name.
          weighted_metrics: Metrics computed with ``sample_weight`` (or
            ``class_weight``) applied, reported beside ``metrics``.
          run_eagerly: Whether ``fit`` and friends run the steps' Python on every
            batch (for debugging) instead of as ``tf.function``s, traced once and
            replayed (the default).
          steps_per_execution: How many batches one execution of the training
            (or test/predict) function runs, default 1: a group of them is one
            call of one traced function, which saves the per-call cost of the
            steps after the first. Callbacks' batch hooks and
            the progress bar see the batches in groups of this size:
            ``on_*_batch_begin`` gets the group's first batch index,
            ``on_*_batch_end`` its last.
          jit_compile: Accepted (a later TF argument); see DESIGN.md.
          **kwargs: ``experimental_steps_per_execution`` (the older spelling of
            ``steps_per_execution``, with TF's warning), and the TF 1 arguments
            ``sample_weight_mode``, ``target_tensors`` and ``distribute``,
            accepted and ignored.

        Raises:
          TypeError: For any other keyword argument.
          ValueError: For an unknown optimizer, loss or metric name.
        """
        if "experimental_steps_per_execution" in kwargs:
            warnings.warn("The argument `experimental_steps_per_execution` is no longer "
                          "experimental. Pass `steps_per_execution` instead.", stacklevel=2)
            steps_per_execution = kwargs.pop("experimental_steps_per_execution")
        for k in kwargs:
            if k not in ("sample_weight_mode", "target_tensors", "distribute"):
                raise TypeError(f"Invalid keyword argument(s) in `compile`: {set(kwargs)}")
        opt = optimizers.get(optimizer)
        if policy_lib.global_policy().name == "mixed_float16" or \
                self._dtype_policy.name == "mixed_float16":
            if not isinstance(opt, LossScaleOptimizer):
                opt = LossScaleOptimizer(opt)
        self.optimizer = opt
        self.loss = loss
        names = getattr(self, "output_names", None)
        self.compiled_loss = compile_utils.LossesContainer(loss, loss_weights, output_names=names)
        self.compiled_metrics = compile_utils.MetricsContainer(
            metrics, weighted_metrics, output_names=names, losses=loss)
        self._steps_per_execution = int(steps_per_execution or 1)
        self._run_eagerly = run_eagerly
        self._jit_compile = jit_compile
        self._is_compiled = True
        self.train_function = self.test_function = self.predict_function = None
        _dist.check_compile_scope(self)  # tf.distribute: variables made in the scope

    @property
    def run_eagerly(self):
        return bool(self._run_eagerly)

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = value

    @property
    def distribute_strategy(self):
        """The ``tf.distribute.Strategy`` the model's variables were created under."""
        return _dist.model_strategy(self)

    @property
    def metrics(self):
        """The loss tracker, compiled metrics and layers' metrics (after the first step)."""
        out = []
        if self._is_compiled:
            if self.compiled_loss is not None:
                out.extend(self.compiled_loss.metrics if self.compiled_loss._losses is not None
                           else [])
            if self.compiled_metrics is not None:
                out.extend(self.compiled_metrics.metrics)
        for layer in self._flatten_layers():
            out.extend(layer._metrics)
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        """Resets the state of every metric of the model."""
        for m in self.metrics:
            m.reset_states()

    def _assert_compile_was_called(self):
        if not self._is_compiled:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    # --- steps --------------------------------------------------------------
    def train_step(self, data):
        """One optimisation step on a batch; returns ``{metric name: value}``."""
        self._train_step_updates(data)
        return {m.name: m.result() for m in self.metrics}

    def _train_step_updates(self, data):
        # The default train_step without reading the metrics back: ``fit`` uses it
        # when no callback reads batch logs, and reads the results once per epoch.
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, sample_weight,
                                      regularization_losses=self.losses)
        self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
        self.compiled_metrics.update_state(y, y_pred, sample_weight)

    def test_step(self, data):
        """One evaluation step on a batch; returns ``{metric name: value}``."""
        self._test_step_updates(data)
        return {m.name: m.result() for m in self.metrics}

    def _test_step_updates(self, data):
        # The default test_step without reading the metrics back (see evaluate).
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)
        self.compiled_metrics.update_state(y, y_pred, sample_weight)

    def predict_step(self, data):
        """The model's outputs for one batch."""
        x, _, _ = data_adapter.unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def make_train_function(self):
        """The function ``fit`` calls on each group of ``steps_per_execution`` batches."""
        if self.train_function is not None:
            return self.train_function
        if _dist.is_distributed(self):  # tf.distribute: steps through strategy.run
            self.train_function = _dist.make_train_function(self, TrainingMixin.train_step)
            return self.train_function

        default = type(self).train_step is TrainingMixin.train_step
        traced = not self.run_eagerly
        # A group of steps_per_execution steps is one call of one traced function.
        grouped = step_groups.GroupedSteps(
            lambda updates, step: step_groups.logs_of_last(updates, step, default),
            (self._train_step_updates, self.train_step), traced)

        def train_function(batches):
            if default:
                with _steps_as_one(self.optimizer, len(batches)):
                    return grouped(batches)
            return grouped(batches)

        train_function._default_step = True
        train_function._step_updates = grouped.steps[0]
        # The default step's updates of a group, no metric read (fit's quiet and lazy
        # paths; the caller holds the optimizer's group scope).
        train_function._group_updates = step_groups.GroupedSteps(
            step_groups.each, (self._train_step_updates,), traced)
        self.train_function = train_function
        return train_function

    def make_test_function(self):
        if self.test_function is not None:
            return self.test_function
        if _dist.is_distributed(self):  # tf.distribute: steps through strategy.run
            self.test_function = _dist.make_test_function(self, TrainingMixin.test_step)
            return self.test_function

        default = type(self).test_step is TrainingMixin.test_step
        traced = not self.run_eagerly
        # As in train_function: a group is one traced call; only its last logs are read.
        test_function = step_groups.GroupedSteps(
            lambda updates, step: step_groups.logs_of_last(updates, step, default),
            (self._test_step_updates, self.test_step), traced)
        test_function._default_step = True
        test_function._step_updates = test_function.steps[0]
        test_function._group_updates = step_groups.GroupedSteps(
            step_groups.each, (self._test_step_updates,), traced)
        self.test_function = test_function
        return test_function

    def make_predict_function(self):
        if self.predict_function is not None:
            return self.predict_function
        if _dist.is_distributed(self):  # tf.distribute: steps through strategy.run
            self.predict_function = _dist.make_predict_function(self)
            return self.predict_function

        self.predict_function = step_groups.GroupedSteps(
            step_groups.outputs_of_each, (self.predict_step,), not self.run_eagerly,
            combine=step_groups.concatenated)
        return self.predict_function

    # --- fit ----------------------------------------------------------------
    @_dist.in_model_scope
    @training_ps.through_coordinator  # under ParameterServerStrategy
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, max_queue_size=10, workers=1,
            use_multiprocessing=False):
        """Trains the model for a fixed number of epochs (passes over the data).

        Args:
          x: The inputs: a NumPy array or tensor (or a list of them, or a dict
            keyed by input name, for several inputs); a ``tf.data.Dataset`` of
            ``(inputs, targets)`` or ``(inputs, targets, sample_weights)``
            elements; a Python generator (or iterator) yielding such tuples; or a
            ``tf.keras.utils.Sequence`` returning them. The batches a custom
            ``train_step`` receives are described below.
          y: The targets, like ``x`` for arrays (one per output). Must not be
            given when ``x`` is a Dataset, generator or Sequence (they carry
            their own targets).
          batch_size: Samples per gradient update, default 32. Only for array
            inputs: Datasets, generators and Sequences yield whole batches.
          epochs: Index of the epoch to stop at: the model trains from
            ``initial_epoch`` up to (not including) ``epochs``.
          verbose: 0 silent, 1 a progress bar, 2 one line per epoch.
          callbacks: A list of ``tf.keras.callbacks.Callback`` instances called
            during training (a ``History`` and, unless ``verbose=0``, a
            ``ProgbarLogger`` are added).
          validation_split: A fraction (0 to 1) of the array data to hold out
            for validation: the last samples of ``x`` and ``y``, taken before any
            shuffling. Only for array inputs; ignored when ``validation_data`` is
            given.
          validation_data: Data to evaluate the loss and metrics on at the end
            of each epoch (not trained on): a tuple ``(x_val, y_val)`` or
            ``(x_val, y_val, val_sample_weights)`` of arrays, a Dataset, a
            generator or a Sequence.
          shuffle: Shuffle array data before each epoch (a Sequence: the order
            of its batch indices, with Python's ``random``). Ignored for Datasets
            and generators, which are read in their own order.
          class_weight: ``{class index: weight}``, scaling each sample's loss by
            the weight of its class (the argmax of a one-hot target), e.g. to
            pay more attention to an under-represented class.
          sample_weight: Per-sample weights for the loss, a 1-D array as long as
            ``x`` (or 2-D ``(samples, timesteps)`` for per-timestep weights).
            Only for array inputs; a Dataset, generator or Sequence yields them
            as the third element of each batch.
          initial_epoch: The epoch to start at (to resume a previous run).
          steps_per_epoch: Batches per epoch. Default: one pass over the data
            (for arrays, ``ceil(samples / batch_size)``; for a Dataset, its
            cardinality). Required for an infinitely repeating Dataset; for a
            generator, training runs until it is exhausted when unset.
          validation_steps: Batches to validate on at the end of each epoch,
            when ``validation_data`` is a Dataset, generator or Sequence
            (default: all of it).
          validation_batch_size: Samples per validation batch for array
            ``validation_data`` (default: ``batch_size``).
          validation_freq: Validate every ``validation_freq`` epochs (an int), or
            after the epochs listed (a collection, 1-based: ``[1, 5, 10]``).
          max_queue_size: For a generator or Sequence read by workers: the most
            batches read ahead (default 10).
          workers: For a Sequence: how many threads read batches ahead (default
            1, meaning the batches are read in the training thread).
          use_multiprocessing: For a Sequence: read with processes in TF.
            Differences from TensorFlow 2.4: accepted, the workers are threads.

        Unpacking of each batch: the step receives what
        ``tf.keras.utils.pack_x_y_sample_weight`` makes, ``(x, y)`` when there are
        no sample weights, ``(x, y, sample_weight)`` when there are, and ``x``
        alone for unlabeled data, so a custom ``train_step`` can write
        ``x, y = data`` (or use ``tf.keras.utils.unpack_x_y_sample_weight``).

        Returns:
          A ``History`` whose ``history`` attribute maps each metric name (and
          ``val_`` names for validation) to its value after every epoch.

        Raises:
          RuntimeError: If the model was not compiled.
          ValueError: For inputs that do not fit the model or each other (e.g.
            ``validation_split`` with a Dataset, arrays of different lengths,
            ``y`` with a Dataset) and for empty input data.
        """
        self._assert_compile_was_called()
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = _split_validation(
                x, y, sample_weight, validation_split)
        handler = data_adapter.DataHandler(
            x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
            initial_epoch=initial_epoch, epochs=epochs, shuffle=shuffle,
            class_weight=class_weight, steps_per_execution=self._steps_per_execution,
            workers=workers, use_multiprocessing=use_multiprocessing,
            max_queue_size=max_queue_size)
        cbs = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self, verbose=verbose,
            epochs=epochs, steps=handler.inferred_steps)
        self.stop_training = False
        train_function = self.make_train_function()
        cbs.on_train_begin()
        training_state = getattr(self, "_training_state", None)  # BackupAndRestore
        if training_state is not None:
            handler._initial_epoch = training_state.maybe_load_initial_epoch_from_ckpt(
                initial_epoch)
        logs = {}
        epoch_logs = {}
        eval_handler = None
        # With no batch hooks to feed (e.g. verbose=0 and only History) and the
        # default train step, batch hooks are skipped (they are no-ops) and the
        # metrics are read once per epoch instead of after every batch.
        default_step = (getattr(train_function, "_default_step", False)
                        and type(self).train_step is TrainingMixin.train_step)
        quiet = default_step and not any(_reads_train_batches(c) for c in cbs)
        # When the only batch-log reader is the progress bar, the logs are read
        # from the metrics only when the bar redraws (at most every 50 ms).
        lazy = default_step and getattr(train_function, "_lazy_reads", True) and all(
            getattr(c, "_reads_lazy_logs", False) or not _reads_train_batches(c) for c in cbs)
        # A group's updates (one traced call); tf.distribute's run through strategy.run.
        group_updates = getattr(train_function, "_group_updates", None) or step_groups.each(
            getattr(train_function, "_step_updates", self._train_step_updates))
        for epoch, iterator in handler.enumerate_epochs():
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            logs = self._train_epoch(handler, iterator, epoch, cbs, train_function,
                                     group_updates, batch_size,
                                     "quiet" if quiet else "lazy" if lazy else "logs")
            if logs is None:
                raise ValueError("Expect x to be a non-empty array or dataset.")
            epoch_logs = copy.copy(logs)
            if validation_data is not None and _should_validate(epoch, validation_freq):
                if eval_handler is None:
                    # Made once per fit, as TF's (a Sequence's first batch is read once).
                    eval_handler = self._eval_data_handler(
                        validation_data, batch_size=validation_batch_size or batch_size,
                        steps_per_epoch=validation_steps, workers=workers,
                        use_multiprocessing=use_multiprocessing,
                        max_queue_size=max_queue_size)
                val_logs = self.evaluate(callbacks=cbs, return_dict=True,
                                         _use_cached_eval=True, _data_handler=eval_handler,
                                         verbose=0)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            cbs.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        cbs.on_train_end(logs=epoch_logs)
        return self.history

    def _train_epoch(self, handler, iterator, epoch, cbs, train_function, group_updates,
                     batch_size, mode):
        """One epoch of ``fit``'s steps; returns the last logs (None for no batch).

        ``mode``: "quiet" (no callback between steps: the metrics are read at the
        end), "lazy" (only the progress bar reads batch logs: it reads the metrics
        when it redraws) or "logs" (each group's logs read for the batch hooks).
        With "quiet" and "lazy" nothing but the steps can change the optimizer's
        host scalars within the epoch, so they are read once for the epoch."""
        def trace(step, group):
            # TF's step marker for the profiler (XProf groups ops by it). It holds
            # the step itself, not the batch hooks, so that a profile the TensorBoard
            # callback starts and stops in them still holds it whole.
            return Trace("train", epoch_num=epoch, step_num=step - len(group) + 1,
                         batch_size=batch_size, _r=1)

        logs = None
        scope = _steps_as_one(self.optimizer, 2) if mode != "logs" \
            else contextlib.nullcontext()
        with scope:
            if mode == "quiet":
                for step, group in handler.batches(iterator):
                    with trace(step, group):
                        group_updates(group)
                    logs = True
                    if self.stop_training:
                        break
                if logs is None:
                    return None
                with _dist.metrics_read_together(self):  # one collective (MWMS)
                    return {m.name: _to_py(m.result()) for m in self.metrics}
            for step, group in handler.batches(iterator):
                cbs.on_train_batch_begin(step - len(group) + 1)
                with trace(step, group):
                    if mode == "lazy":
                        group_updates(group)
                        logs = _MetricLogs(self)
                    else:
                        logs = {k: _to_py(v) for k, v in train_function(group).items()}
                cbs.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
        return dict(logs) if isinstance(logs, _MetricLogs) else logs

    def _eval_data_handler(self, validation_data, **kwargs):
        vx, vy, vsw = data_adapter.unpack_x_y_sample_weight(validation_data) \
            if isinstance(validation_data, (tuple, list)) else (validation_data, None, None)
        return data_adapter.DataHandler(vx, vy, vsw, epochs=1, shuffle=False,
                                        steps_per_execution=self._steps_per_execution,
                                        **kwargs)

    # --- evaluate -----------------------------------------------------------
    @_dist.in_model_scope
    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, max_queue_size=10, workers=1,
                 use_multiprocessing=False, return_dict=False, **kwargs):
        """Returns the loss and metric values of the model on the data, in batches.

        Args:
          x: The inputs, as for ``fit``: arrays or tensors (a list or dict of them
            for several inputs), a Dataset, a generator or a Sequence.
          y: The targets, as for ``fit``; not given with a Dataset, generator or
            Sequence.
          batch_size: Samples per batch for array inputs (default 32).
          verbose: 0 silent, 1 a progress bar.
          sample_weight: Per-sample weights for the loss and weighted metrics
            (array inputs only; other inputs yield them in their batches).
          steps: Batches to evaluate before stopping (default: all of the data;
            required for an infinitely repeating Dataset).
          callbacks: Callbacks called during evaluation (their ``on_test_*``
            hooks).
          max_queue_size: As for ``fit``: batches read ahead by workers.
          workers: As for ``fit``: threads reading a Sequence.
          use_multiprocessing: As for ``fit`` (threads in torchflow).
          return_dict: Return ``{metric name: value}`` instead of a list.
          **kwargs: Internal to ``fit``; anything else is a TypeError.

        Returns:
          The loss alone (a scalar) when the model has no metrics; otherwise a
          list ``[loss, metric...]`` in ``metrics_names`` order, or a dict with
          ``return_dict=True``.

        Raises:
          RuntimeError: If the model was not compiled.
          ValueError: For inputs that do not fit the model or each other.
        """
        self._assert_compile_was_called()
        in_fit = kwargs.pop("_use_cached_eval", False)
        handler = kwargs.pop("_data_handler", None)
        if kwargs:
            raise TypeError(f"Invalid keyword arguments: {sorted(kwargs)}")
        if handler is None:
            handler = data_adapter.DataHandler(x, y, sample_weight, batch_size=batch_size,
                                               steps_per_epoch=steps, epochs=1,
                                               shuffle=False,
                                               steps_per_execution=self._steps_per_execution,
                                               workers=workers,
                                               max_queue_size=max_queue_size,
                                               use_multiprocessing=use_multiprocessing)
        cbs = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
            steps=handler.inferred_steps)
        test_function = self.make_test_function()
        self.reset_metrics()
        cbs.on_test_begin()
        logs = {}
        # As in fit: with the default test step and no callback but the progress bar
        # reading batch logs, the metrics are read only when something looks.
        lazy = (getattr(test_function, "_default_step", False)
                and type(self).test_step is TrainingMixin.test_step
                and all(getattr(c, "_reads_lazy_logs", False) or not _reads_test_batches(c)
                        for c in cbs))
        group_updates = getattr(test_function, "_group_updates", None) or step_groups.each(
            getattr(test_function, "_step_updates", self._test_step_updates))
        for _, iterator in handler.enumerate_epochs():
            for step, group in handler.batches(iterator):
                cbs.on_test_batch_begin(step - len(group) + 1)
                with Trace("test", step_num=step - len(group) + 1, _r=1):
                    if lazy:
                        group_updates(group)
                        logs = _MetricLogs(self)
                    else:
                        logs = {k: _to_py(v) for k, v in test_function(group).items()}
                cbs.on_test_batch_end(step, logs)
        if isinstance(logs, _MetricLogs):
            logs = dict(logs)
        cbs.on_test_end(logs)
        if not in_fit:
            pass
        if return_dict:
            return logs
        values = [logs[n] for n in self.metrics_names if n in logs]
        return values[0] if len(values) == 1 else values

    # --- predict ------------------------------------------------------------
    @_dist.in_model_scope
    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None,
                max_queue_size=10, workers=1, use_multiprocessing=False):
        """The model's outputs for the inputs, computed batch by batch, as NumPy arrays.

        Made for large inputs: the batches run one after the other and the
        outputs are concatenated. For a small input that fits in one batch,
        calling the model (``model(x)``) is faster and returns tensors.

        Args:
          x: The inputs: arrays or tensors (a list or dict of them for several
            inputs), a Dataset, a generator or a Sequence. Targets in the
            batches of a Dataset or generator are ignored.
          batch_size: Samples per batch for array inputs (default 32).
          verbose: 0 silent, 1 a progress bar.
          steps: Batches to predict before stopping (default: all of the data;
            required for an infinitely repeating Dataset).
          callbacks: Callbacks called during prediction (their
            ``on_predict_*`` hooks; the batch end hook gets
            ``{"outputs": ...}``).
          max_queue_size: As for ``fit``: batches read ahead by workers.
          workers: As for ``fit``: threads reading a Sequence.
          use_multiprocessing: As for ``fit`` (threads in torchflow).

        Returns:
          A NumPy array, or a structure of them like the model's outputs.

        Raises:
          ValueError: For inputs that do not fit the model, or no input data.
        """
        handler = data_adapter.DataHandler(x, batch_size=batch_size, steps_per_epoch=steps,
                                           epochs=1, shuffle=False,
                                           steps_per_execution=self._steps_per_execution,
                                           workers=workers, max_queue_size=max_queue_size,
                                           use_multiprocessing=use_multiprocessing)
        cbs = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
            steps=handler.inferred_steps)
        predict_function = self.make_predict_function()
        outputs = []
        cbs.on_predict_begin()
        for _, iterator in handler.enumerate_epochs():
            for step, group in handler.batches(iterator):
                cbs.on_predict_batch_begin(step - len(group) + 1)
                with Trace("predict", step_num=step - len(group) + 1, _r=1):
                    batch_out = predict_function(group)
                outputs.extend(batch_out)
                # TF hands the group's outputs, concatenated, to the batch end.
                cbs.on_predict_batch_end(step, {"outputs": _concat_outputs(batch_out)})
        cbs.on_predict_end()
        if not outputs:
            raise ValueError("Expect x to be a non-empty array or dataset.")
        flat = [nest.flatten(o) for o in outputs]
        joined = [concat([f[i] for f in flat], axis=0).numpy() for i in range(len(flat[0]))]
        return nest.pack_sequence_as(outputs[0], joined)

    # --- single batches -------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True, return_dict=False):
        """Runs one gradient update on a single batch of data.

        Args:
          x: The batch's inputs: an array or tensor, a list of them or a dict
            keyed by input name.
          y: The batch's targets, like ``x``.
          sample_weight: Per-sample weights for this batch's loss (1-D, one per
            sample).
          class_weight: ``{class index: weight}`` scaling each sample's loss by
            its class's weight.
          reset_metrics: Reset the metrics first (True, the default), so the
            values returned are this batch's alone; False accumulates them
            across calls.
          return_dict: Return ``{metric name: value}`` instead of a list.

        Returns:
          The loss (a scalar) when the model has no metrics; otherwise a list
          ``[loss, metric...]`` in ``metrics_names`` order, or a dict with
          ``return_dict=True``.

        Raises:
          RuntimeError: If the model was not compiled.
          ValueError: For inputs that do not fit the model.
        """
        self._assert_compile_was_called()
        if reset_metrics:
            self.reset_metrics()
        # One batch of all the rows, as TF's single-batch iterator gives it.
        batch = data_adapter.apply_class_weight(
            data_adapter.standardize_batch((x, y, sample_weight)), class_weight)
        logs = {k: _to_py(v) for k, v in self.make_train_function()([batch]).items()}
        return logs if return_dict else _as_list(logs, self.metrics_names)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                      return_dict=False):
        """Computes the loss and metrics of the model on a single batch of data.

        Args:
          x: The batch's inputs: an array or tensor, a list of them or a dict
            keyed by input name.
          y: The batch's targets, like ``x``.
          sample_weight: Per-sample weights for this batch's loss and weighted
            metrics.
          reset_metrics: Reset the metrics first (True, the default), so the
            values returned are this batch's alone; False accumulates them.
          return_dict: Return ``{metric name: value}`` instead of a list.

        Returns:
          As ``train_on_batch``: a scalar, a list in ``metrics_names`` order, or
          a dict with ``return_dict=True``.

        Raises:
          RuntimeError: If the model was not compiled.
          ValueError: For inputs that do not fit the model.
        """
        self._assert_compile_was_called()
        if reset_metrics:
            self.reset_metrics()
        batch = data_adapter.standardize_batch((x, y, sample_weight))
        logs = {k: _to_py(v) for k, v in self.make_test_function()([batch]).items()}
        return logs if return_dict else _as_list(logs, self.metrics_names)

    def predict_on_batch(self, x):
        """The model's outputs for a single batch of inputs, as NumPy arrays.

        Args:
          x: The batch's inputs: an array or tensor, a list of them or a dict
            keyed by input name.

        Returns:
          A NumPy array, or a structure of them like the model's outputs.

        Raises:
          ValueError: For inputs that do not fit the model.
        """
        # TF passes the batch as ``(x,)`` here (its single-batch iterator).
        out = self.predict_step((data_adapter.list_to_tuple(_as_tensors(x)),))
        return nest.map_structure(lambda t: t.numpy(), out)


def _split_validation(x, y, sample_weight, validation_split):
    if not data_adapter._is_array(x):
        raise ValueError("`validation_split` is only supported for Tensors or NumPy "
                         "arrays, found following types in the input: "
                         f"{[type(v) for v in nest.flatten(x)]}")
    return data_adapter.train_validation_split((x, y, sample_weight), validation_split)


def _concat_outputs(outputs):
    if len(outputs) == 1:
        return outputs[0]
    flat = [nest.flatten(o) for o in outputs]
    return nest.pack_sequence_as(outputs[0], [concat([f[i] for f in flat], axis=0)
                                              for i in range(len(flat[0]))])


def _as_tensors(x):
    return nest.map_structure(
        lambda v: convert_to_tensor(v.astype(np.float32) if isinstance(v, np.ndarray) and
                                    v.dtype == np.float64 else v)
        if not isinstance(v, Tensor) else v, x)


def _as_list(logs, names):
    values = [logs[n] for n in names if n in logs]
    return values[0] if len(values) == 1 else values


class _MetricLogs(Mapping):
    """A batch's logs, read from the model's metrics when first looked at (the
    values right after the batch: nothing runs in between that updates them)."""

    __slots__ = ("_model", "_logs")

    def __init__(self, model):
        self._model = model
        self._logs = None

    def _read(self) -> dict:
        if self._logs is None:
            self._logs = {m.name: _to_py(m.result()) for m in self._model.metrics}
        return self._logs

    def __getitem__(self, key):
        return self._read()[key]

    def __iter__(self):
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def copy(self) -> dict:
        return dict(self._read())

    def __repr__(self) -> str:
        return repr(self._read())


def _steps_as_one(optimizer, n):
    """The optimizer's group scope for a default train step over ``n`` > 1 batches."""
    scope = getattr(optimizer, "_steps_as_one", None) if n > 1 else None
    return scope() if scope is not None else contextlib.nullcontext()


def _reads_train_batches(callback) -> bool:
    implements = getattr(callback, "_implements_train_batch_hooks", None)
    return True if implements is None else bool(implements())


def _reads_test_batches(callback) -> bool:
    implements = getattr(callback, "_implements_test_batch_hooks", None)
    return True if implements is None else bool(implements())


def _should_validate(epoch, freq) -> bool:
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    return (epoch + 1) in freq
