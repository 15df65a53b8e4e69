"""Helpers shared by the built-in optimizers' fused update paths."""

from __future__ import annotations

import operator


def slots(opt, variables, name):
    """``[opt.get_slot(v, name) for v in variables]``, remembered per slot name while
    the variables are the same (``add_slot`` forgets it)."""
    cache = opt.__dict__.get("_slot_lists")
    if cache is None:
        cache = {}
        object.__setattr__(opt, "_slot_lists", cache)
    hit = cache.get(name)
    if hit is not None and len(hit[0]) == len(variables) and \
            all(map(operator.is_, hit[0], variables)):
        return hit[1]
    out = [opt.get_slot(v, name) for v in variables]
    cache[name] = (list(variables), out)
    return out


class FusedMixin:
    """``_resource_apply_dense`` in terms of the class's batched ``_apply_batch``."""

    def _resource_apply_dense(self, grad, handle, apply_state=None):
        self._apply_batch([grad], [handle], int(self.iterations.numpy()))
