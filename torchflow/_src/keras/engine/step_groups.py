"""A group of ``steps_per_execution`` steps as one call of one traced function.

TF 2.4 runs a group of N steps as one execution of its train (test, predict)
function: a loop over N steps inside one graph. Here the steps are
``tf.function``\\ s (traced once, replayed), and a group of N > 1 batches is one
call of a traced function over the N batches (``GroupedSteps``): its recording is
the N step recordings one after the other, so a group costs one call's dispatch
(signature, inputs, output wrapping), not N.

The steps' Python runs only when they trace, as in TF. For that, the first group
runs its batches one call each: each step traces (its Python runs) and keeps its
own recording; later groups' trace replays those recordings inside the group's
trace (a step called while another function traces and that has no recording
of its own would run its Python there instead). A step with a new signature
(the short last batch) first seen inside a group's trace runs its Python there,
once, as its own retrace would.
"""

from __future__ import annotations

from torchflow._src.core.function import function


class GroupedSteps:
    """Runs ``body(batches)`` for a group of batches, as one traced call where that pays.

    Args:
      body: A Python function of a list of batches that calls the (traced) steps
        on each and returns what the group returns (e.g. the last step's logs).
      traced: Whether the steps are traced (False under ``run_eagerly``: the body
        then always runs as Python).
    """

    def __init__(self, body, traced: bool):
        self._body = body
        self._group = function(body, autograph=False) if traced else None
        self._ready = False

    def __call__(self, batches):
        if self._group is None or len(batches) < 2:
            return self._body(batches)
        if not self._ready:
            # The steps trace here, each to its own recording (see the module
            # docstring); the groups after this one are one call each.
            out = self._body(batches)
            self._ready = True
            return out
        return self._group(batches)
