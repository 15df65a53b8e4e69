"""tf.register_tensor_conversion_function against real TF: custom types convert
through convert_to_tensor and op inputs, priorities, NotImplemented, errors."""

import pytest

import torchflow as tf
from torchflow._src.core import tensor_conversion_registry as _registry
from torchflow._src.testing import real_tf


def _program(lib):
    class Meters:
        def __init__(self, v):
            self.v = v

    class Feet(Meters):
        pass

    calls = []

    def to_tensor(value, dtype=None, name=None, as_ref=False):
        calls.append("meters")
        return lib.constant(value.v, dtype=dtype or lib.float32)

    def feet_first(value, dtype=None, name=None, as_ref=False):
        calls.append("feet")
        if not isinstance(value, Feet):
            return NotImplemented
        return lib.constant(value.v * 0.3048, dtype=dtype or lib.float32)

    lib.register_tensor_conversion_function(Meters, to_tensor)
    lib.register_tensor_conversion_function(Meters, feet_first, priority=10)
    out = [lib.convert_to_tensor(Meters(2.0)).numpy(),
           lib.add(Meters(1.0), 1.0).numpy(),
           lib.convert_to_tensor(Feet(10.0)).numpy(),
           lib.convert_to_tensor(Meters(3), dtype=lib.float64).dtype.name]

    class Bad:
        pass

    lib.register_tensor_conversion_function(
        Bad, lambda v, dtype=None, name=None, as_ref=False: lib.constant(1))
    try:
        lib.convert_to_tensor(Bad(), dtype=lib.float32)
    except RuntimeError as e:
        out.append(("RuntimeError", "incompatible dtype" in str(e)))
    for args in [(3, to_tensor), (int, to_tensor), (Meters, 5)]:
        try:
            lib.register_tensor_conversion_function(*args)
        except TypeError as e:
            out.append(str(e))
    return out, calls


def test_matches_tf(monkeypatch):
    # The registry is process-wide (as TF's): leave it as it was after the test.
    monkeypatch.setattr(_registry, "_REGISTRY", [])
    t = real_tf()
    got, got_calls = _program(tf)
    want, want_calls = _program(t)
    assert len(got) == len(want)
    for g, w in zip(got[:5], want[:5]):
        assert g == pytest.approx(w) if hasattr(w, "shape") else g == w
    # TF 2.4's wording; 2.21 says "Argument `base_type` must be ... Obtained: 3" and
    # "Argument `conversion_func` must be callable. Received 5.".
    assert got[5] == "base_type must be a type or a tuple of types."
    assert got[7] == "conversion_func must be callable."
    assert got[6] == want[6]
    assert got_calls == want_calls
