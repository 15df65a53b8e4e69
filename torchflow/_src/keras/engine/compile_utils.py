"""What ``compile`` builds: the loss container and the metrics container.

``'accuracy'`` and ``'crossentropy'`` resolve as in TF 2.4: binary when the
prediction's last axis is 1 (or the loss is binary cross-entropy), sparse
categorical when the labels have a lower rank than the predictions (or a
last axis of 1 against several classes), categorical otherwise.
"""

from __future__ import annotations

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.distribute import ds_context
from torchflow._src.keras import losses, metrics
from torchflow._src.ops.array_ops import expand_dims
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.math_ops import add, add_n, multiply
from torchflow._src.util import nest


def _scale_loss_for_distribution(loss):
    """tf.distribute: in a replica of a strategy the returned loss is divided by the
    number of replicas, so the all-reduced (summed) gradients are those of the
    global batch's mean loss (TF's ``scale_loss_for_distribution``)."""
    ctx = ds_context.current_replica()
    if ctx is None:
        return loss
    n = ctx.num_replicas_in_sync
    return loss if n == 1 else multiply(loss, cast(convert_to_tensor(1.0 / n), loss.dtype))


def _losses():
    return losses


def _metrics():
    return metrics


def _map_to_outputs(value, output_names, nested_outputs):
    """Spreads a per-output setting (single, list or dict) over the flat outputs."""
    n = len(output_names)
    if isinstance(value, dict):
        return [value.get(name) for name in output_names]
    if isinstance(value, (list, tuple)) and n > 1:
        if len(value) != n:
            raise ValueError(f"When passing a list as loss, it should have one entry per model "
                             f"outputs. The model has {n} outputs, but you passed "
                             f"loss={value}")
        return list(value)
    return [value] * n if n > 1 and not isinstance(value, (list, tuple)) else (
        list(value) if isinstance(value, (list, tuple)) and n == 1 and len(value) == 1 and
        not callable(value) else [value] * n)


def _as_loss(L, fn):
    """Loss functions are wrapped as TF's compile does (reduction, sample weights)."""
    if isinstance(fn, L.Loss):
        return fn
    return L.LossFunctionWrapper(fn, name=getattr(fn, "__name__", None))


def _flatten_targets(y, output_names):
    if isinstance(y, dict):
        return [y.get(n) for n in output_names]
    return nest.flatten(y) if y is not None else [None] * len(output_names)


class LossesContainer:
    """The compiled loss: per-output losses, weights and regularization."""

    def __init__(self, losses, loss_weights=None, output_names=None):
        self._user_losses = losses
        self._user_weights = loss_weights
        self._output_names = output_names
        self._losses = None
        self._weights = None
        metrics = _metrics()
        self._loss_metric = metrics.Mean(name="loss")
        self._per_output_metrics = None

    @property
    def metrics(self):
        out = [self._loss_metric]
        if self._per_output_metrics:
            out.extend(m for m in self._per_output_metrics if m is not None)
        return out

    def _build(self, y_pred):
        names = self._output_names or [f"output_{i + 1}" for i in range(len(nest.flatten(
            y_pred)))]
        self._output_names = names
        L = _losses()
        specs = _map_to_outputs(self._user_losses, names, y_pred)
        self._losses = [None if s is None else _as_loss(L, L.get(s)) for s in specs]
        if self._user_weights is None:
            self._weights = [1.0] * len(names)
        else:
            self._weights = [1.0 if w is None else w for w in
                             _map_to_outputs(self._user_weights, names, y_pred)]
        if len(names) > 1:
            self._per_output_metrics = [
                _metrics().Mean(name=f"{n}_loss") if l is not None else None
                for n, l in zip(names, self._losses)]

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        """The total loss; updates the ``loss`` (and per-output loss) metrics."""
        if self._losses is None:
            self._build(y_pred)
        if type(y_pred) is Tensor and len(self._losses) == 1 and \
                not isinstance(sample_weight, (list, tuple, dict)):
            return self._single_output_loss(y_true, y_pred, sample_weight,
                                            regularization_losses)
        flat_pred = nest.flatten(y_pred)
        flat_true = _flatten_targets(y_true, self._output_names) if len(flat_pred) > 1 \
            else [y_true]
        flat_sw = nest.flatten(sample_weight) if isinstance(sample_weight, (list, tuple, dict)) \
            else [sample_weight] * len(flat_pred)
        total = []
        batch = None
        for i, (yt, yp, sw, fn, w) in enumerate(zip(flat_true, flat_pred, flat_sw,
                                                    self._losses, self._weights)):
            if fn is None or yt is None:
                continue
            if batch is None:
                batch = yp.shape[0] if yp.shape.rank else 1
            yt, sw = _match_rank(yt, yp, sw)
            value = fn(yt, yp, sample_weight=sw)
            if self._per_output_metrics:
                self._per_output_metrics[i].update_state(value, sample_weight=batch)
            if w != 1.0:
                value = multiply(value, cast(convert_to_tensor(w), value.dtype))
            total.append(value)
        if regularization_losses:
            reg = add_n([cast(r, total[0].dtype if total else r.dtype)
                         for r in regularization_losses])
            total.append(reg)
        if not total:
            raise ValueError("The model cannot be compiled because it has no loss to optimize.")
        loss = total[0] if len(total) == 1 else add_n(total)
        # tf.keras averages the loss over samples, not batches (a short last batch
        # counts less).
        self._loss_metric.update_state(loss, sample_weight=batch if batch is not None else 1)
        return _scale_loss_for_distribution(loss)

    def _single_output_loss(self, y_true, y_pred, sample_weight, regularization_losses):
        # ``__call__`` for one output, without the per-output structure plumbing.
        fn, w = self._losses[0], self._weights[0]
        n = 1  # tf.keras averages the loss over samples (a short last batch counts less)
        if fn is None or y_true is None:
            value = None
        else:
            n = y_pred.shape[0] if len(y_pred.shape) else 1
            y_true, sample_weight = _match_rank(y_true, y_pred, sample_weight)
            value = fn(y_true, y_pred, sample_weight=sample_weight)
            if w != 1.0:
                value = multiply(value, cast(convert_to_tensor(w), value.dtype))
        if regularization_losses:
            reg = add_n([cast(r, value.dtype if value is not None else r.dtype)
                         for r in regularization_losses])
            value = reg if value is None else add_n([value, reg])
        if value is None:
            raise ValueError("The model cannot be compiled because it has no loss to optimize.")
        self._loss_metric._update_weighted_scalar(value, n)
        return _scale_loss_for_distribution(value)

    def reset_states(self):
        for m in self.metrics:
            m.reset_states()


class MetricsContainer:
    """The compiled metrics (and weighted metrics), resolved per output."""

    def __init__(self, metrics=None, weighted_metrics=None, output_names=None, losses=None):
        self._user_metrics = metrics
        self._user_weighted = weighted_metrics
        self._output_names = output_names
        self._user_losses = losses
        self._built = False
        self._metrics: list = []
        self._weighted: list = []

    @property
    def metrics(self):
        return [m for per in self._metrics for m in per] + \
            [m for per in self._weighted for m in per]

    def _resolve(self, spec, y_true, y_pred, loss, name_prefix, weighted):
        M = _metrics()
        if spec in ("accuracy", "acc", "crossentropy", "ce"):
            is_acc = spec in ("accuracy", "acc")
            t_rank = y_true.shape.rank if y_true is not None else None
            p_rank = y_pred.shape.rank
            p_last = y_pred.shape[-1] if p_rank else None
            t_last = y_true.shape[-1] if t_rank else None
            loss_name = getattr(loss, "__name__", None) or type(loss).__name__
            if p_last == 1 or "binary" in str(loss_name).lower():
                fn = M.binary_accuracy if is_acc else M.binary_crossentropy
                base = "binary_accuracy" if is_acc else "binary_crossentropy"
            elif (t_rank is not None and p_rank is not None and t_rank < p_rank) or \
                    (t_last == 1 and (p_last or 0) > 1):
                fn = M.sparse_categorical_accuracy if is_acc else \
                    M.sparse_categorical_crossentropy
                base = "sparse_categorical_accuracy" if is_acc else \
                    "sparse_categorical_crossentropy"
            else:
                fn = M.categorical_accuracy if is_acc else M.categorical_crossentropy
                base = "categorical_accuracy" if is_acc else "categorical_crossentropy"
            name = spec if spec in ("accuracy", "acc", "crossentropy", "ce") else base
            name = {"ce": "crossentropy"}.get(name, name)
            m = M.MeanMetricWrapper(fn, name=name_prefix + name)
        else:
            m = M.get(spec)
            if not isinstance(m, M.Metric):
                # TF names a metric given as a string by that string ('mae').
                fname = spec if isinstance(spec, str) else getattr(m, "__name__", str(spec))
                m = M.MeanMetricWrapper(m, name=name_prefix + fname)
            elif name_prefix and not m.name.startswith(name_prefix):
                m._name = name_prefix + m.name
        return m

    def _build(self, y_true, y_pred):
        names = self._output_names or [f"output_{i + 1}" for i in
                                       range(len(nest.flatten(y_pred)))]
        flat_pred = nest.flatten(y_pred)
        flat_true = _flatten_targets(y_true, names) if len(flat_pred) > 1 else [y_true]
        multi = len(flat_pred) > 1
        losses = _map_to_outputs(self._user_losses, names, y_pred) if self._user_losses \
            is not None else [None] * len(names)

        def per_output(user):
            if user is None:
                return [[] for _ in names]
            if isinstance(user, dict):
                return [nest.flatten(user.get(n, [])) for n in names]
            if multi and isinstance(user, (list, tuple)) and user and \
                    all(isinstance(u, (list, tuple)) for u in user):
                return [list(u) for u in user]
            return [list(user) if isinstance(user, (list, tuple)) else [user]
                    for _ in names]

        def build(user, weighted):
            out = []
            for i, specs in enumerate(per_output(user)):
                prefix = f"{names[i]}_" if multi else ""
                out.append([self._resolve(s, flat_true[i] if flat_true[i] is not None else None,
                                          flat_pred[i], losses[i], prefix, weighted)
                            for s in specs])
            return out

        self._metrics = build(self._user_metrics, False)
        self._weighted = build(self._user_weighted, True)
        self._set_names(names, multi)
        self._built = True

    def _set_names(self, names, multi):
        """TF 2.4's naming: ``weighted_`` only where a name would repeat.

        Raises:
          ValueError: For two metrics with the same name.
        """
        seen = set()
        for out_name, ms, wms in zip(names, self._metrics, self._weighted):
            for m in ms:
                if m.name in seen:
                    raise ValueError(f"Found two metrics with the same name: {m.name}")
                seen.add(m.name)
            for wm in wms:
                base = wm.name[len(out_name) + 1:] if multi else wm.name
                if multi:
                    wm._name = (f"{out_name}_weighted_{base}" if f"{out_name}_{base}" in seen
                                else f"{out_name}_{base}")
                elif wm.name in seen:
                    wm._name = "weighted_" + wm.name
                if wm.name in seen:
                    raise ValueError(f"Found two metrics with the same name: {wm.name}")
                seen.add(wm.name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self._built and type(y_pred) is Tensor and len(self._metrics) == 1 and \
                not isinstance(sample_weight, (list, tuple, dict)):
            # one output: no structure to spread over the metrics
            if y_true is not None:
                y_true, sample_weight = _match_rank(y_true, y_pred, sample_weight)
                for m in self._metrics[0]:
                    m.update_state(y_true, y_pred)
                for m in self._weighted[0]:
                    m.update_state(y_true, y_pred, sample_weight=sample_weight)
            return
        flat_pred = nest.flatten(y_pred)
        if not self._built:
            yt = y_true
            if yt is not None and not hasattr(yt, "shape"):
                yt = nest.map_structure(convert_to_tensor, yt)
            self._build(yt, y_pred)
        names = self._output_names or [f"output_{i + 1}" for i in range(len(flat_pred))]
        flat_true = _flatten_targets(y_true, names) if len(flat_pred) > 1 else [y_true]
        flat_sw = nest.flatten(sample_weight) if isinstance(sample_weight, (list, tuple, dict)) \
            else [sample_weight] * len(flat_pred)
        for i, (yt, yp) in enumerate(zip(flat_true, flat_pred)):
            if yt is None:
                continue
            yt, sw = _match_rank(yt, yp, flat_sw[i])
            for m in self._metrics[i]:
                m.update_state(yt, yp)
            for m in self._weighted[i]:
                m.update_state(yt, yp, sample_weight=sw)

    def reset_states(self):
        for m in self.metrics:
            m.reset_states()


def _rank(x):
    shape = getattr(x, "shape", None)
    return getattr(shape, "rank", None) if shape is not None else None


def _match_rank(y_true, y_pred, sample_weight):
    """TF's ``match_dtype_and_rank`` (losses and metrics): rank-1 targets and sample
    weights of rank-2 predictions get a last axis, so a ``[batch]`` label against
    ``[batch, 1]`` logits counts each sample (not one mean per batch) and a
    ``[batch]`` sample weight weighs each sample's loss (not a broadcast product)."""
    if _rank(y_pred) == 2:
        if _rank(y_true) == 1:
            y_true = expand_dims(y_true, -1)
        if sample_weight is not None and _rank(sample_weight) == 1:
            sample_weight = expand_dims(sample_weight, -1)
    return y_true, sample_weight


def total(values):
    out = values[0]
    for v in values[1:]:
        out = add(out, v)
    return out
