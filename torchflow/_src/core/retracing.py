"""TF's warning for a ``tf.function`` that retraces on most calls."""

from __future__ import annotations

import logging
import weakref

_log = logging.getLogger("tensorflow")


class RetraceDetector:
    """TF's warning for a function that traces on most calls: 5 traces within the
    last 10 calls or fewer (at most twice per Python function), counted across the
    ``tf.function``s made of one Python function (made again in a loop)."""

    __slots__ = ("calls", "history", "warned", "__weakref__")
    THRESHOLD, MAX_CALLS, MAX_WARNINGS = 5, 10, 2

    def __init__(self):
        self.calls = 0
        self.history: list = []
        self.warned = 0

    def traced(self, fn) -> None:
        self.history = (self.history + [self.calls])[-self.THRESHOLD:]
        self.calls = 0
        total = sum(self.history)
        if (len(self.history) == self.THRESHOLD and total <= self.MAX_CALLS
                and self.warned < self.MAX_WARNINGS):
            self.warned += 1
            _log.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing "
                "is expensive and the excessive number of tracings could be due to (1) "
                "creating @tf.function repeatedly in a loop, (2) passing tensors with "
                "different shapes, (3) passing Python objects instead of tensors. For (1), "
                "please define your @tf.function outside of the loop. For (2), @tf.function "
                "has experimental_relax_shapes=True option that relaxes argument shapes "
                "that can avoid unnecessary retracing. For (3), please refer to "
                "https://www.tensorflow.org/guide/function#controlling_retracing and "
                "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
                self.THRESHOLD, max(total, self.THRESHOLD), fn)


_DETECTORS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_DETECTOR_FALLBACK: dict = {}


def detector(fn) -> RetraceDetector:
    key = getattr(fn, "__func__", fn)
    try:
        det = _DETECTORS.get(key)
        if det is None:
            det = _DETECTORS[key] = RetraceDetector()
    except TypeError:  # not weak-referenceable
        det = _DETECTOR_FALLBACK.setdefault(id(key), RetraceDetector())
    return det
