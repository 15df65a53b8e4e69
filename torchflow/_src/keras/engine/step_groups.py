"""A group of ``steps_per_execution`` steps as one call of one traced function.

TF 2.4 runs a group of N steps as one execution of its train (test, predict)
function: a loop over N steps inside one graph. Here a group of N > 1 batches is
one call of a ``tf.function`` over the N batches (``GroupedSteps``), whose
recording holds the N steps one after the other: a group costs one call's
dispatch (signature, inputs, output wrapping), not N.

The first group runs its batches one call each of the single-step functions
(each traces once, as with N = 1; they also serve groups of one batch). The
group function's trace then runs the steps' Python (AutoGraph-converted, as each
step function converts it) once per batch of the group, inside that one trace;
later groups of the same shapes replay it. So a custom ``train_step``'s Python
runs at traces only: the single step's, and the group function's (once per
batch of a group, for each distinct group signature: the full groups and the
short last one), never per replayed group.

A group longer than ``MAX_TRACED_STEPS`` runs as consecutive traced calls of at
most that many batches: a recording grows with every step it holds (tens of
lines per step), while the dispatch it saves is already small beside a step's
work at a few steps per call.

Why the group's trace runs the steps' Python instead of replaying the single
steps' recordings inside it: a recording replayed while another function traces
calls custom autograd Functions (e.g. ``tf.math.rsqrt``'s gradient) around the
recorder's hook, so the group's recording would lose their backward pass.
"""

from __future__ import annotations

from torchflow._src.core.function import function

MAX_TRACED_STEPS = 32


class GroupedSteps:
    """Runs a group of batches through ``make_body(*steps)``: one traced call where
    that pays.

    Args:
      make_body: Called with step functions, returns the group's body: a function of
        a list of batches that calls the steps on each and returns what the group
        returns (e.g. the last step's logs).
      steps: The Python step functions (e.g. ``model.train_step``).
      traced: Whether steps are traced (False under ``run_eagerly``: the body then
        runs the Python steps).
      combine: Makes the group's result from the results of its consecutive
        traced calls (a list); default: the last one's.

    Attributes:
      steps: The single-step functions (``tf.function``s when traced).
    """

    def __init__(self, make_body, steps, traced: bool, combine=None):
        if not traced:
            self.steps = tuple(steps)
            self._body = make_body(*steps)
            self._group = None
        else:
            self.steps = tuple(function(s) for s in steps)
            self._body = make_body(*self.steps)
            # The single steps' traced functions: inside the group's trace their
            # recordings replay into the group's (their Python runs at their own
            # traces only, as in TF).
            self._group = function(make_body(*self.steps), autograph=False)
            for f in (*self.steps, self._group):  # (TF calls them with an iterator)
                f._checks_arguments = False
        self._combine = combine
        self._ready = False

    def __call__(self, batches):
        if self._group is None or len(batches) < 2:
            return self._body(batches)
        if not self._ready:
            out = self._body(batches)  # the single steps trace (see the docstring)
            self._ready = True
            return out
        n = MAX_TRACED_STEPS
        if len(batches) <= n:
            return self._group(batches)
        outs = [self._group(batches[i:i + n]) for i in range(0, len(batches), n)]
        return self._combine(outs) if self._combine is not None else outs[-1]


def concatenated(outs: list) -> list:
    """``combine`` for bodies returning lists (``outputs_of_each``)."""
    return [o for out in outs for o in out]


def logs_of_last(updates, step, default: bool):
    """A group body returning the last batch's logs. With Keras' own step
    (``default``), the batches before the last run ``updates`` (the step without
    reading the metrics back); otherwise every batch runs ``step``."""
    def run(batches):
        if default:
            for b in batches[:-1]:
                updates(b)
            return step(batches[-1]) if batches else None
        logs = None
        for b in batches:
            logs = step(b)
        return logs
    return run


def each(step):
    """A group body calling ``step`` on every batch (returns None)."""
    def run(batches):
        for b in batches:
            step(b)
    return run


def outputs_of_each(step):
    """A group body returning ``[step(batch) for batch in batches]``."""
    def run(batches):
        return [step(b) for b in batches]
    return run
