"""Keras ``compile/fit/evaluate/predict`` under a ``tf.distribute`` strategy.

As in TF 2.4: the model belongs to the strategy its variables were created
under (``model.distribute_strategy``); ``compile`` refuses variables created
outside that scope; ``fit``/``evaluate``/``predict`` run inside the strategy's
scope, split each global batch between the replicas, run ``train_step`` /
``test_step`` / ``predict_step`` through ``strategy.run`` (so the optimizer
all-reduces the gradients and metrics aggregate their replicas' states on
read), and take the logs from the first replica (metric results are already
cross-replica values) or concatenate the replicas' predictions.
"""

from __future__ import annotations

import contextlib
import functools

from torchflow._src.core import autograph_convert
from torchflow._src.core.function import function
from torchflow._src.core.variables import Variable, VariableAggregation
from torchflow._src.distribute import ds_context, values
from torchflow._src.distribute.input_lib import DistributedDataset, split_global_batch
from torchflow._src.distribute.reduce_util import ReduceOp
from torchflow._src.ops.array_ops import concat
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.math_ops import truediv
from torchflow._src.util import nest


def model_strategy(model):
    """The strategy ``model``'s variables were created under, else the current one."""
    for v in _first_variables(model):
        s = getattr(v, "_distribute_strategy", None)
        if s is not None:
            return s
    return ds_context.get_strategy()


def _first_variables(model):
    try:
        variables = model.weights
    except (AttributeError, RuntimeError, ValueError):
        return []
    return variables[:1]


def is_distributed(model) -> bool:
    return model_strategy(model) is not ds_context.default_mode().strategy


def check_compile_scope(model) -> None:
    """TF's error when the model's variables were made outside the strategy's scope."""
    if not ds_context.has_strategy():
        return
    strategy = ds_context.get_strategy()
    for v in model.variables:
        if not strategy.extended.variable_created_in_scope(v):
            raise ValueError(
                f"Variable ({v}) was not created in the distribution strategy scope of "
                f"({strategy}). It is most likely due to not all layers or the model or "
                f"optimizer being created outside the distribution strategy scope. Try to "
                f"make sure your code looks similar to the following.\n"
                f"with strategy.scope():\n  model=_create_model()\n  model.compile(...)")


def in_model_scope(method):
    """Runs a ``fit``/``evaluate``/``predict`` method inside the model's strategy scope."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        strategy = model_strategy(self)
        if strategy is ds_context.default_mode().strategy:
            return method(self, *args, **kwargs)
        # A dataset already distributed by this strategy: fit on its global batches,
        # which the steps split between the replicas the same way.
        if args and isinstance(args[0], DistributedDataset):
            args = (_global_batches(args[0]),) + args[1:]
        elif isinstance(kwargs.get("x"), DistributedDataset):
            kwargs["x"] = _global_batches(kwargs["x"])
        with strategy.scope():
            return method(self, *args, **kwargs)

    return wrapper


def _global_batches(dist):
    if dist._mode != "split":
        raise ValueError("Keras fit/evaluate/predict take a dataset of global batches or one "
                         "from experimental_distribute_dataset; a dataset from "
                         "distribute_datasets_from_function is not supported here.")
    return dist._dataset


def _first(value):
    return nest.map_structure(values.first_local_value, value)


def _traced(model, body, name: str):
    """``body`` (a function of a group of batches) as TF's Keras runs its step
    functions: a ``tf.function``, traced once per signature and replayed (so the
    steps' Python runs at traces only), unless the model runs eagerly."""
    if model.run_eagerly:
        return body
    body.__name__ = name
    traced = function(body, autograph=False)
    traced._checks_arguments = False  # (TF calls it with an iterator)
    return traced


def _user_step(model, step):
    """``step`` (e.g. ``model.train_step``) AutoGraph-converted where its function
    will be traced, as TF's ``tf.function`` converts the functions it calls."""
    return step if model.run_eagerly else autograph_convert.convert(step)


def _run_step(strategy, step, batch, state):
    dist = split_global_batch(strategy.extended, batch, state)
    return strategy.run(step, args=(dist,))


@contextlib.contextmanager
def _metrics_read_together(strategy, model):
    """Within it, the metrics' sync-on-read variables read their cross-replica values
    from one ``batch_reduce_to`` (one collective between workers, not one per
    variable). SUM and MEAN variables travel together: a MEAN is the SUM divided by
    ``num_replicas_in_sync``, as ``CrossDeviceOps`` computes it."""
    batch: dict = {}
    for m in model.metrics:
        for v in m.variables:
            if isinstance(v, values.SyncOnReadVariable) and v._aggregation in (
                    VariableAggregation.SUM, VariableAggregation.MEAN):
                batch[id(v)] = v
    try:
        if batch:
            vs = list(batch.values())
            pairs = [(values.PerReplica([Variable._read(v)] + [c._read() for c in v._values[1:]]),
                      v) for v in vs]
            n = strategy.num_replicas_in_sync
            for v, out in zip(vs, strategy.extended.batch_reduce_to(ReduceOp.SUM, pairs)):
                total = values.first_local_value(out)
                if v._aggregation is VariableAggregation.MEAN:
                    total = truediv(total, cast(n, total.dtype)) \
                        if total.dtype.is_floating or total.dtype.is_complex \
                        else truediv(total, n)
                values._read_ahead[id(v)] = total
        yield
    finally:
        for key in batch:
            values._read_ahead.pop(key, None)


def metrics_read_together(model):
    """A context in which ``model``'s metrics read their cross-worker state with one
    collective call (under a multi-worker strategy; elsewhere it does nothing): ``fit``
    reads an epoch's metrics in it."""
    strategy = model_strategy(model)
    if strategy is None or not getattr(strategy.extended, "_in_multi_worker_mode",
                                       lambda: False)():
        return contextlib.nullcontext()
    return _metrics_read_together(strategy, model)


def make_train_function(model, default_train_step):
    """The train function of ``model`` under its strategy; ``default_train_step`` is
    Keras' own ``train_step`` (a model that keeps it has its metrics read at once)."""
    strategy = model_strategy(model)
    state: dict = {}
    multi_worker = getattr(strategy.extended, "_in_multi_worker_mode", lambda: False)()
    default = type(model).train_step is default_train_step
    train_step = _user_step(model, model.train_step)

    def train_function(batches):
        logs = None
        if multi_worker and default:
            # The default train_step, its metrics read after the steps all at once.
            for b in batches:
                _run_step(strategy, model._train_step_updates, b, state)
            if batches:
                with _metrics_read_together(strategy, model):
                    logs = {m.name: m.result() for m in model.metrics}
            return logs
        for b in batches:
            logs = _first(_run_step(strategy, train_step, b, state))
        return logs

    def group_updates(batches):
        for b in batches:
            _run_step(strategy, model._train_step_updates, b, state)

    traced = _traced(model, train_function, "train_function")
    traced._default_step = True
    # The default train_step's updates alone (no metric read, so no collective for
    # the metrics): ``fit`` uses them when nothing reads batch logs and reads the
    # metrics once per epoch, on every worker alike.
    traced._group_updates = _traced(model, group_updates, "train_function")
    # Reading the metrics only when the progress bar redraws (a matter of time) would
    # make the workers' metric collectives differ: each step reads them instead.
    traced._lazy_reads = not multi_worker
    return traced


def make_test_function(model, default_test_step=None):
    """The test function of ``model`` under its strategy; under a multi-worker strategy
    a model that keeps Keras' own ``test_step`` (``default_test_step``) reads a step's
    metrics with one collective."""
    strategy = model_strategy(model)
    state: dict = {}
    multi_worker = getattr(strategy.extended, "_in_multi_worker_mode", lambda: False)()
    default = default_test_step is not None and type(model).test_step is default_test_step
    test_step = _user_step(model, model.test_step)

    def test_function(batches):
        logs = None
        if multi_worker and default:
            for b in batches:
                _run_step(strategy, model._test_step_updates, b, state)
            if batches:
                with _metrics_read_together(strategy, model):
                    logs = {m.name: m.result() for m in model.metrics}
            return logs
        for b in batches:
            logs = _first(_run_step(strategy, test_step, b, state))
        return logs

    return _traced(model, test_function, "test_function")


def make_predict_function(model):
    strategy = model_strategy(model)
    state: dict = {}
    predict_step = _user_step(model, model.predict_step)

    def join(v):
        if isinstance(v, values.DistributedValues):
            return concat(list(v.values), axis=0)
        return v

    def predict_function(batches):
        return [nest.map_structure(join, _run_step(strategy, predict_step, b, state))
                for b in batches]

    return _traced(model, predict_function, "predict_function")
