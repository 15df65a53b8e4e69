"""``tf.data.experimental.rejection_resample``: rejection sampling towards a target
class distribution."""

from __future__ import annotations

import random

import numpy as np

from torchflow._src.core.errors import InvalidArgumentError
from torchflow._src.data import _fn_spec, _structure, traced_fn
from torchflow._src.data._runtime import close_iter, op_seeds
from torchflow._src.data.dataset_ops import INFINITE, UNKNOWN
from torchflow._src.data.transforms import (
    _EMPTY,
    UnaryDataset,
    call_fn,
    normalize_output,
    prime,
    spec_from_element,
    take_primed,
)
from torchflow._src.util.api import public


def _probabilities(x, what) -> np.ndarray:
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x, np.float64).reshape(-1)
    if a.size == 0 or np.any(a < 0) or not np.isclose(a.sum(), 1.0, atol=1e-4):
        raise ValueError(f"`{what}` must be a probability distribution (non-negative, "
                         f"summing to 1), got {a.tolist()}.")
    return a


class _RejectionResampleDataset(UnaryDataset):
    def __init__(self, input_dataset, class_func, target, initial, seed):
        super().__init__(input_dataset)
        self._class_func = class_func
        self._target = target
        self._initial = initial
        self._seeds = op_seeds(seed)

    def _spec_inferred(self) -> bool:
        return spec_from_element(self)

    def _cardinality(self):
        return INFINITE if self._input._cardinality() == INFINITE else UNKNOWN

    def _compute_spec(self):
        # TF's: the class function's traced output spec, and the input's spec.
        spec = self._input.element_spec
        cls = _fn_spec.output_spec(self._class_func, _fn_spec.args_of(spec),
                                   lambda out: normalize_output(out, "rejection_resample()"))
        self._spec_from_element = cls is None
        if cls is not None:
            return (cls, spec)
        first = prime(self, self._fresh_iter)
        if first is _EMPTY:
            raise ValueError("rejection_resample over an empty dataset: element_spec unknown.")
        return _structure.spec_of(first)

    def _make_iter(self, ctx):
        return take_primed(self, ctx) or self._fresh_iter(ctx)

    def _fresh_iter(self, ctx):
        seed = ctx.draw_seed(None if self._seeds is None else
                             hash(self._seeds) & (2**63 - 1))
        return _resample(self._input._make_iter(ctx), self._class_func, self._target,
                         self._initial, random.Random(seed))


def _resample(it, class_func, target, initial, rng):
    k = target.size
    counts = np.zeros(k, np.float64)
    try:
        for element in it:
            c = call_fn(class_func, element)
            ci = int(c.numpy() if hasattr(c, "numpy") else c)
            if not 0 <= ci < k:
                raise InvalidArgumentError(None, None, f"Class value {ci} is out of range "
                                           f"[0, {k}) of `target_dist`.")
            if initial is None:
                counts[ci] += 1
                p = counts / counts.sum()
            else:
                p = initial
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(p > 0, target / p, 0.0)
            top = ratio.max()
            accept = ratio[ci] / top if top > 0 else 0.0
            if rng.random() < accept:
                yield (c, element)
    finally:
        close_iter(it)


@public("torchflow.data.experimental")
def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation resampling a dataset towards ``target_dist`` over classes.

    Each element is kept with probability ``(t_c / p_c) / max_j (t_j / p_j)`` for its
    class ``c = class_func(element)``, where ``p`` is ``initial_dist`` or, if None,
    the class frequencies seen so far. Output elements are ``(class, element)``.

    Args:
      class_func: element -> scalar integer class in ``[0, len(target_dist))``
        (called once per element).
      target_dist: The wanted class probabilities.
      initial_dist: The input's class probabilities (estimated online if None).
      seed: Random seed.

    Returns:
      A function ``Dataset -> Dataset``.

    Differences from TensorFlow 2.4: without ``initial_dist``, TF also mixes some
    unfiltered elements in while its estimate is poor; here only the rejection
    step runs, with the running estimate.
    """
    target = _probabilities(target_dist, "target_dist")
    initial = None if initial_dist is None else _probabilities(initial_dist, "initial_dist")
    if initial is not None and initial.size != target.size:
        raise ValueError("`initial_dist` and `target_dist` must have the same length.")
    return lambda ds: _RejectionResampleDataset(ds, traced_fn.traced(class_func), target,
                                                initial, seed)
