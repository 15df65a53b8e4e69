"""``tf.keras.layers.InputSpec`` and the input compatibility check layers run."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.keras.layers")
class InputSpec:
    """Specifies the rank, dtype and shape of every input to a layer.

    Args:
      dtype: Expected dtype of the input.
      shape: Expected shape (None entries match any size).
      ndim: Expected rank.
      max_ndim: Maximum rank.
      min_ndim: Minimum rank.
      axes: ``{axis: size}`` that must match.
      allow_last_axis_squeeze: Accept a rank one less or more with a last axis of 1.
      name: Expected name of the input (dict inputs).
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None):
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        self.shape = TensorShape(shape) if shape is not None else None
        if self.shape is not None and self.shape.rank is not None:
            self.ndim = self.shape.rank
            self.shape = self.shape.as_list()
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): v for k, v in axes.items()}
        except (ValueError, TypeError):
            raise TypeError(f"The keys in axes must be integers. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: "
                                 f"{max_dim}")

    def __repr__(self):
        spec = [("dtype=" + str(self.dtype)) if self.dtype else "",
                ("shape=" + str(self.shape)) if self.shape else "",
                ("ndim=" + str(self.ndim)) if self.ndim else "",
                ("max_ndim=" + str(self.max_ndim)) if self.max_ndim else "",
                ("min_ndim=" + str(self.min_ndim)) if self.min_ndim else "",
                ("axes=" + str(self.axes)) if self.axes else ""]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raises ValueError (TF's messages) if ``inputs`` do not satisfy ``input_spec``."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict) and any(s.name for s in specs if s is not None):
        names = [s.name for s in specs]
        inputs = [inputs[n] if n in inputs else None for n in names]
    flat = nest.flatten(inputs)
    if len(flat) != len(specs):
        raise ValueError(f"Layer {layer_name} expects {len(specs)} input(s), but it received "
                         f"{len(flat)} input tensors. Inputs received: {inputs}")
    for i, (x, spec) in enumerate(zip(flat, specs)):
        if spec is None or x is None:
            continue
        shape = TensorShape(x.shape)
        if shape.rank is None:
            return
        rank = shape.rank
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
            raise ValueError(f"Input {i} of layer {layer_name} is incompatible with the layer: "
                             f"expected ndim={spec.ndim}, found ndim={rank}. Full shape "
                             f"received: {shape.as_list()}")
        if spec.max_ndim is not None and rank > spec.max_ndim:
            raise ValueError(f"Input {i} of layer {layer_name} is incompatible with the layer: "
                             f"expected max_ndim={spec.max_ndim}, found ndim={rank}")
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise ValueError(f"Input {i} of layer {layer_name} is incompatible with the layer: "
                             f": expected min_ndim={spec.min_ndim}, found ndim={rank}. Full "
                             f"shape received: {shape.as_list()}")
        if spec.dtype is not None and x.dtype.name != spec.dtype:
            raise ValueError(f"Input {i} of layer {layer_name} is incompatible with the layer: "
                             f"expected dtype={spec.dtype}, found dtype={x.dtype.name}")
        dims = shape.as_list()
        for axis, value in spec.axes.items():
            if value is None:
                continue
            a = axis if axis >= 0 else rank + axis
            if 0 <= a < rank and dims[a] is not None and dims[a] not in (value,):
                raise ValueError(f"Input {i} of layer {layer_name} is incompatible with the "
                                 f"layer: expected axis {axis} of input shape to have value "
                                 f"{value} but received input with shape {dims}")
        if spec.shape is not None:
            for want, got in zip(spec.shape, dims):
                if want is not None and got is not None and want != got:
                    raise ValueError(f"Input {i} is incompatible with layer {layer_name}: "
                                     f"expected shape={tuple(spec.shape)}, found shape="
                                     f"{tuple(dims)}")
