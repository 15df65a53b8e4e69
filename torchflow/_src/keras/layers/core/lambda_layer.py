"""``tf.keras.layers.Lambda``: wraps an arbitrary function as a layer."""

from __future__ import annotations

import base64
import importlib
import inspect
import marshal
import types

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras import activations
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.serialization import get_registered_object
from torchflow._src.util import nest
from torchflow._src.util.api import public


def _dump(fn):
    """``(config value, function_type, module)`` for a function."""
    if getattr(fn, "_keras_dump", None) is not None:
        return fn._keras_dump
    if fn.__name__ == "<lambda>" or "<locals>" in getattr(fn, "__qualname__", ""):
        code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
        return (code, fn.__defaults__, None), "lambda", fn.__module__
    return fn.__name__, "function", fn.__module__


def _load(value, ftype, module, custom_objects=None):
    if ftype == "lambda":
        code, defaults, _ = value if isinstance(value, (list, tuple)) else (value, None, None)
        code_obj = marshal.loads(base64.b64decode(code))
        glb = dict(importlib.import_module(module).__dict__) if module else {}
        fn = types.FunctionType(code_obj, glb, code_obj.co_name,
                                tuple(defaults) if defaults else None)
        # marshal output is not byte-stable; re-serialise to the same config.
        fn._keras_dump = (value, ftype, module)
        return fn
    fn = get_registered_object(value, custom_objects)
    if fn is not None:
        return fn
    if module:
        try:
            return getattr(importlib.import_module(module), value)
        except (ImportError, AttributeError):
            pass
    try:
        return activations.get(value)
    except ValueError:
        raise ValueError(f"Unknown function: {value}") from None


@public("torchflow.keras.layers")
class Lambda(Layer):
    """Calls ``function(inputs, **arguments)``.

    Args:
      function: The function; it may take ``mask`` and ``training`` arguments.
      output_shape: Optional output shape (tuple or function of the input shape);
        inferred by running the function otherwise.
      mask: Optional output mask (a tensor or a function of ``(inputs, mask)``).
      arguments: Extra keyword arguments for ``function``.

    Named functions serialise by module path; lambdas by their marshalled code.
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self._output_shape = output_shape
        self.mask = mask
        self.supports_masking = mask is not None
        params = inspect.signature(function).parameters if callable(function) else {}
        self._fn_takes_mask = "mask" in params
        self._fn_takes_training = "training" in params

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_takes_mask:
            kwargs["mask"] = mask
        if self._fn_takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return nest.map_structure(TensorShape, self._output_shape(input_shape))
        batch = nest.flatten(input_shape)[0]
        batch = TensorShape(batch)[0] if batch is not None and TensorShape(batch).rank else None
        return TensorShape([batch] + list(self._output_shape))

    def get_config(self):
        config = super().get_config()
        value, ftype, module = _dump(self.function)
        config.update({"function": value, "function_type": ftype, "module": module})
        if self._output_shape is None:
            config.update({"output_shape": None, "output_shape_type": "raw",
                           "output_shape_module": None})
        elif callable(self._output_shape):
            v, t, m = _dump(self._output_shape)
            config.update({"output_shape": v, "output_shape_type": t,
                           "output_shape_module": m})
        else:
            config.update({"output_shape": self._output_shape, "output_shape_type": "raw",
                           "output_shape_module": None})
        if callable(self.mask):
            v, t, m = _dump(self.mask)
            config.update({"mask": v, "mask_type": t, "mask_module": m})
        else:
            config.update({"mask": self.mask, "mask_type": "raw", "mask_module": None})
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        fn = _load(config.pop("function"), config.pop("function_type", "function"),
                   config.pop("module", None), custom_objects)
        os_, ost, osm = (config.pop("output_shape", None), config.pop("output_shape_type", "raw"),
                         config.pop("output_shape_module", None))
        if ost != "raw":
            os_ = _load(os_, ost, osm, custom_objects)
        elif isinstance(os_, list):
            os_ = tuple(os_)
        m, mt, mm = (config.pop("mask", None), config.pop("mask_type", "raw"),
                     config.pop("mask_module", None))
        if mt != "raw":
            m = _load(m, mt, mm, custom_objects)
        return cls(fn, output_shape=os_, mask=m, **config)
