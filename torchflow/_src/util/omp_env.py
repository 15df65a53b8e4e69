"""OpenMP settings torchflow chooses before torch loads (see docs/threading.md).

OpenMP (libgomp, which torch's CPU kernels and MKL use here) reads its
environment once, when the library loads, i.e. at ``import torch``. So
``torchflow/_src/__init__.py`` calls ``apply()`` before any engine module imports
torch. A variable the user has set is never touched, and nothing is changed
when torch was imported before torchflow (too late to matter).

Why: with OpenMP's default waiting (a long spin, then sleep), an op split across
threads stalls whenever another process holds one of the cores: the measured
slowdown of an MLP step on a 2-core machine was about 5x-20x
(``benchmarks/bench_threading.py``). Passive waiting (sleep at once) keeps it near
1x but makes every parallel region wake a sleeping thread: an idle machine's MLP
step took 2.3x torch's default time. A short spin (``GOMP_SPINCOUNT=1000``) keeps
the threads of back-to-back ops awake and sleeps soon after: idle within 1.25x of
torch's default, and 1.6x passive's time under contention (against 3x for the
default), so torchflow sets that.
"""

from __future__ import annotations

import os
import sys

# What torchflow sets when the user has not (documented in docs/threading.md).
DEFAULTS = {"GOMP_SPINCOUNT": "1000"}

_THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
_applied: dict = {}
_user_threads = any(v in os.environ for v in _THREAD_VARS)


def apply() -> dict:
    """Sets the OpenMP defaults the user has not set; returns what it set."""
    if _applied or "torch" in sys.modules:
        return dict(_applied)
    if "GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ:
        return {}  # the user chose how OpenMP threads wait
    for k, v in DEFAULTS.items():
        if k not in os.environ:
            os.environ[k] = v
            _applied[k] = v
    return dict(_applied)


def applied() -> dict:
    """The variables torchflow set at import."""
    return dict(_applied)


def user_set_threads() -> bool:
    """True if the user chose a thread count through the environment."""
    return _user_threads


def default_intra_threads(cpu_count: int) -> int:
    """torchflow's default intra-op thread count on a machine with ``cpu_count`` CPUs."""
    return max(1, cpu_count)
