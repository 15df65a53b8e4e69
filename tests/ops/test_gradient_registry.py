"""tf.RegisterGradient / tf.no_gradient against real TensorFlow: the same registrations
succeed or fail alike (TF's TypeError for non-strings, KeyError for a second
registration and for op types that already have gradients)."""

from __future__ import annotations

import uuid

import pytest

import torchflow
from torchflow._src.ops import gradient_registry
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _outcome(fn):
    try:
        fn()
        return ("ok",)
    except Exception as e:  # noqa: BLE001 - both sides' errors are compared
        msg = str(e).split(" (Previous registration")[0]
        return type(e).__name__, msg


def _program(m, fresh):
    def grad(op, g):
        return g

    return [
        _outcome(lambda: m.no_gradient(f"NoGrad{fresh}")),
        _outcome(lambda: m.no_gradient(f"NoGrad{fresh}")),
        _outcome(lambda: m.RegisterGradient(f"NoGrad{fresh}")(grad)),
        _outcome(lambda: m.RegisterGradient(f"Grad{fresh}")(grad)),
        _outcome(lambda: m.RegisterGradient(f"Grad{fresh}")(grad)),
        _outcome(lambda: m.no_gradient(3)),
        _outcome(lambda: m.RegisterGradient(3)),
        *[_outcome(lambda op=op: m.no_gradient(op)) for op in
          ("Relu", "MatMul", "Shape", "Cast", "Identity")],
        *[_outcome(lambda op=op: m.RegisterGradient(op)(grad)) for op in ("Relu", "AddV2")],
    ]


def test_registrations_behave_as_tfs():
    fresh = uuid.uuid4().hex[:8]
    assert _program(torchflow, fresh) == _program(real_tf(), fresh)


def test_registered_function_is_looked_up():
    name = f"Lookup{uuid.uuid4().hex[:8]}"

    @torchflow.RegisterGradient(name)
    def f(op, grad):
        return grad

    assert gradient_registry.get_gradient_function(name) is f
    torchflow.no_gradient(name + "None")
    assert gradient_registry.get_gradient_function(name + "None") is None
    with pytest.raises(LookupError):
        gradient_registry.get_gradient_function(name + "Missing")
