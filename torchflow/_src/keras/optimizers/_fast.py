"""Helpers shared by the built-in optimizers' fused update paths."""

from __future__ import annotations


def slots(opt, variables, name):
    return [opt.get_slot(v, name) for v in variables]


class FusedMixin:
    """``_resource_apply_dense`` in terms of the class's batched ``_apply_batch``."""

    def _resource_apply_dense(self, grad, handle, apply_state=None):
        self._apply_batch([grad], [handle], int(self.iterations.numpy()))
