"""``layer_test``: the one-call contract test every Keras layer goes through.

It checks, for one layer class and constructor arguments: the output shape (and
the symbolic KerasTensor shape in a Functional model), the weight count and
shapes, the config round trip and (de)serialization, every dtype policy
(output in the compute dtype, variables in the variable dtype, values close to
float32's), and — with ``compare_tf=True`` — the values against the same layer
in real tf.keras given the same weights.
"""

from __future__ import annotations

import numpy as np

from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.keras.engine.functional import Functional
from torchflow._src.keras.engine.input_layer import Input
from torchflow._src.keras.engine.serialization import deserialize_layer, serialize_layer
from torchflow._src.keras.mixed_precision import policy as policy_lib
from torchflow._src.testing import real_tf

POLICIES = ("float32", "mixed_float16", "mixed_bfloat16", "float64")
_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-4, 1e-5), "mixed_float16": (3e-2, 3e-2),
        "mixed_bfloat16": (8e-2, 8e-2)}


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 5, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


def _to_np(y):
    if isinstance(y, (list, tuple)):
        return [_to_np(v) for v in y]
    if isinstance(y, dict):
        return {k: _to_np(v) for k, v in y.items()}
    return np.asarray(y.numpy() if hasattr(y, "numpy") else y, dtype=np.float64) \
        if np.asarray(y.numpy() if hasattr(y, "numpy") else y).dtype.kind != "O" else \
        np.asarray(y.numpy())


def _close(a, b, rtol, atol, what):
    if isinstance(a, list):
        assert len(a) == len(b), what
        for x, y in zip(a, b):
            _close(x, y, rtol, atol, what)
        return
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def layer_test(layer_cls, kwargs=None, input_shape=None, input_dtype="float32",
               input_data=None, expected_output_shape=None, expected_output_dtype=None,
               compare_tf=True, tf_kwargs=None, policies=POLICIES, call_kwargs=None,
               tf_layer_name=None, rtol=1e-4, atol=1e-5):
    """Runs the contract checks (see the module docstring); returns the float32 output.

    Args:
      layer_cls: The torchflow layer class.
      kwargs: Constructor arguments.
      input_shape: Input shape including the batch dimension (or give ``input_data``).
      input_dtype: dtype of generated input data.
      input_data: Explicit NumPy input.
      expected_output_shape: Expected output shape (None entries match anything).
      expected_output_dtype: Expected output dtype name under float32.
      compare_tf: Compare with real tf.keras' layer of the same name and weights.
      tf_kwargs: Constructor arguments for the tf.keras layer (default ``kwargs``).
      policies: Dtype policies to check.
      call_kwargs: Extra call arguments (e.g. ``training``).
      tf_layer_name: The tf.keras class name if it differs from ``layer_cls.__name__``.
    """
    kwargs = dict(kwargs or {})
    call_kwargs = dict(call_kwargs or {})
    if input_data is None:
        input_data = _data(input_shape, input_dtype)
    input_shape = input_data.shape
    x = convert_to_tensor(input_data)

    layer = layer_cls(**kwargs)
    y = layer(x, **call_kwargs)
    y_np = _to_np(y)
    out_shape = tuple(y.shape.as_list())
    if expected_output_shape is not None:
        for got, want in zip(out_shape, expected_output_shape):
            assert want is None or got == want, f"output shape {out_shape} != " \
                                                f"{expected_output_shape}"
        assert len(out_shape) == len(expected_output_shape)
    if expected_output_dtype is not None:
        assert y.dtype.name == expected_output_dtype, y.dtype.name

    # config round trip and serialization
    config = layer.get_config()
    clone = layer_cls.from_config(config)
    assert clone.get_config() == config, "get_config/from_config round trip changed the config"
    again = deserialize_layer(serialize_layer(layer), {layer_cls.__name__: layer_cls})
    assert type(again) is type(layer)
    assert again.get_config() == config

    # functional API: symbolic shape matches the eager one
    layer2 = layer_cls.from_config(config)
    inp = Input(shape=input_shape[1:], dtype=str(input_data.dtype))
    sym = layer2(inp, **call_kwargs)
    assert sym.shape.is_compatible_with(out_shape), f"symbolic {sym.shape} vs eager {out_shape}"
    model = Functional(inp, sym)
    layer2.set_weights(layer.get_weights())
    _close(_to_np(model(x, **call_kwargs)), y_np, rtol, atol, "functional vs eager")

    # real tf.keras with the same weights
    if compare_tf:
        tf_ref = real_tf()
        tcls = getattr(tf_ref.keras.layers, tf_layer_name or layer_cls.__name__)
        tlayer = tcls(**(tf_kwargs if tf_kwargs is not None else kwargs))
        ty = tlayer(input_data, **call_kwargs)
        tw = tlayer.get_weights()
        ours = layer.get_weights()
        assert len(tw) == len(ours), f"weight count {len(ours)} != tf.keras {len(tw)}"
        for a, b in zip(ours, tw):
            assert a.shape == b.shape, f"weight shape {a.shape} != tf.keras {b.shape}"
        tlayer.set_weights(ours)
        ty = tlayer(input_data, **call_kwargs)
        _close(y_np, _to_np(ty), rtol, atol, "torchflow vs tf.keras")

    # dtype policies
    for pname in policies:
        pl = layer_cls(**{**kwargs, "dtype": pname})
        out = pl(x, **call_kwargs)
        pol = policy_lib.Policy(pname)
        for o in (out if isinstance(out, (list, tuple)) else [out]):
            if o.dtype.is_floating and (expected_output_dtype in (None, "float32")):
                assert o.dtype.name == pol.compute_dtype, \
                    f"{pname}: output dtype {o.dtype.name} != {pol.compute_dtype}"
        for w in pl.weights:
            if w.dtype.is_floating:
                assert w.dtype.name == pol.variable_dtype, \
                    f"{pname}: variable {w.name} dtype {w.dtype.name}"
        if pl.weights:
            pl.set_weights([w.astype(pw.dtype.as_numpy_dtype) for w, pw in
                            zip(layer.get_weights(), pl.weights)])
            r, a = _TOL[pname]
            _close(_to_np(pl(x, **call_kwargs)), y_np, r, a, f"policy {pname}")
    return y
