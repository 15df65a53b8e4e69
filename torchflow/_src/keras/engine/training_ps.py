"""``Model.fit`` under ``ParameterServerStrategy`` (as TF 2.5 added it; TF 2.4 raised).

``x`` is a ``tf.keras.utils.experimental.DatasetCreator`` and ``steps_per_epoch`` is
required. A ``ClusterCoordinator`` for the strategy (the one it has, else a new one)
makes the per-worker datasets and schedules ``train_step`` (through
``strategy.run``, so the optimizer updates run on the ps tasks) once per step;
callbacks run on the coordinator. Batch callbacks get no logs (the steps run
asynchronously, as in TF); each epoch ends with ``join`` and one scheduled read of
the model's metrics, whose variables live on the ps tasks and are shared by all
workers, and those are the epoch's logs.
"""

from __future__ import annotations

import functools

from torchflow._src.distribute.coordinator import ClusterCoordinator
from torchflow._src.keras.callbacks.callback import CallbackList
from torchflow._src.keras.engine.distributed_training import model_strategy
from torchflow._src.keras.utils.dataset_creator import DatasetCreator


def uses_coordinator(model) -> bool:
    """Whether ``model`` was built under a ``ParameterServerStrategy``."""
    return getattr(model_strategy(model), "_is_parameter_server_strategy_v2", False)


def through_coordinator(fit_method):
    """Decorates ``Model.fit``: under a ``ParameterServerStrategy`` it runs ``fit`` here."""
    @functools.wraps(fit_method)
    def fit_(model, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
             validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
             sample_weight=None, initial_epoch=0, steps_per_epoch=None, **kwargs):
        if uses_coordinator(model):
            return fit(model, x, epochs=epochs, verbose=verbose, callbacks=callbacks,
                       initial_epoch=initial_epoch, steps_per_epoch=steps_per_epoch,
                       validation_data=validation_data)
        return fit_method(model, x, y, batch_size, epochs, verbose, callbacks, validation_split,
                          validation_data, shuffle, class_weight, sample_weight, initial_epoch,
                          steps_per_epoch, **kwargs)

    return fit_


def _to_py(x):
    return x.item() if hasattr(x, "item") and getattr(x, "ndim", 1) == 0 else x


def fit(model, x, epochs=1, verbose=1, callbacks=None, initial_epoch=0, steps_per_epoch=None,
        validation_data=None):
    """The ``ParameterServerStrategy`` branch of ``Model.fit`` (see the module doc)."""
    if not isinstance(x, DatasetCreator):
        raise NotImplementedError("Only `DatasetCreator` input is supported in "
                                  "`ParameterServerStrategy` at this time.")
    if steps_per_epoch is None:
        raise ValueError("When using a `tf.keras.utils.experimental.DatasetCreator`, "
                         "`steps_per_epoch` argument must be provided in `Model.fit`.")
    if validation_data is not None:
        raise NotImplementedError("Evaluation in `model.fit` with `ParameterServerStrategy` "
                                  "is not yet supported.")
    strategy = model_strategy(model)
    coordinator = ClusterCoordinator(strategy)
    creator = x

    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(creator)

    iterator = iter(coordinator.create_per_worker_dataset(per_worker_dataset_fn))

    # One function for the three jobs: a worker unpickles one copy of the model per
    # function, and the metrics a train step builds must be the ones read and reset.
    def fit_function(job, it):
        if job == "train":
            return strategy.run(model.train_step, args=(next(it),))
        if job == "reset":
            model.reset_metrics()
            return None
        return {m.name: m.result() for m in model.metrics}

    cbs = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
        callbacks, add_history=True, add_progbar=verbose != 0, model=model, verbose=verbose,
        epochs=epochs, steps=steps_per_epoch)
    model.stop_training = False
    cbs.on_train_begin()
    epoch_logs: dict = {}
    for epoch in range(initial_epoch, epochs):
        coordinator.schedule(fit_function, args=("reset", iterator))  # shared, on the ps
        coordinator.join()
        cbs.on_epoch_begin(epoch)
        for step in range(steps_per_epoch):
            cbs.on_train_batch_begin(step)
            coordinator.schedule(fit_function, args=("train", iterator))
            cbs.on_train_batch_end(step, {})
            if model.stop_training:
                break
        coordinator.join()
        logs = coordinator.schedule(fit_function, args=("read", iterator)).fetch()
        epoch_logs = {k: _to_py(v) for k, v in logs.items()}
        cbs.on_epoch_end(epoch, epoch_logs)
        if model.stop_training:
            break
    cbs.on_train_end(logs=epoch_logs)
    return model.history
