"""``tf.keras.layers.experimental.EinsumDense``: a dense layer written as an einsum.

``equation`` names the input, kernel and output axes (``"ab,bc->ac"`` is ``Dense``);
the kernel's shape comes from the input's dims and ``output_shape``; ``bias_axes``
names the output axes the bias spans (from the first of them to the last axis). An
ellipsis stands for axes passed through on the left (``"...b,bc->...c"``) or on the
right (``"ab...,bc->ac..."``). The same equation forms, shapes and errors as TF 2.4.
"""

from __future__ import annotations

import re

from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.layers import _utils as U
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.einsum_ops import einsum
from torchflow._src.util.api import public

_FORMS = ((r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", None),
          (r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)$", True),
          (r"([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]{2,})\.\.\.$", False))


def _split_equation(equation):
    for pattern, left in _FORMS:
        m = re.match(pattern, equation)
        if m:
            return m.group(1), m.group(2), m.group(3), bool(left), left is not None
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form "
                     "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def analyze_equation(equation, bias_axes, input_shape, output_shape):
    """``(kernel_shape, bias_shape, full_output_shape)`` of an EinsumDense.

    Args:
      equation: The layer's einsum equation.
      bias_axes: Output axis letters the bias spans, or None.
      input_shape: The input's shape (a list; the batch dimension may be None).
      output_shape: The output's shape without the batch dimension (int or sequence).

    Raises:
      ValueError: For an equation, output shape or bias axes that do not fit together.
    """
    in_spec, w_spec, out_spec, left_elided, _ = _split_equation(equation)
    input_shape = list(input_shape)
    elided = len(input_shape) - len(in_spec)
    out = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            out.insert(1, input_shape[i])
    elif elided > 0:
        out.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        in_map = {d: i + elided - len(input_shape) for i, d in enumerate(in_spec)}
        out_map = {d: i + elided - len(out) for i, d in enumerate(out_spec)}
    else:
        in_map = {d: i for i, d in enumerate(in_spec)}
        out_map = {d: i for i, d in enumerate(out_spec)}
    for d in in_spec:
        if d in out_map:
            o, i = out[out_map[d]], input_shape[in_map[d]]
            if o is not None and o != i:
                raise ValueError(f"Input shape and output shape do not match at shared "
                                 f"dimension '{d}'. Input shape is {i}, and output shape "
                                 f"is {o}.")
    for d in out_spec:
        if d not in in_spec and d not in w_spec:
            raise ValueError(f"Dimension '{d}' was specified in the output '{out_spec}' but has "
                             f"no corresponding dim in the input spec '{in_spec}' or weight "
                             f"spec '{out_spec}.'")
    kernel_shape = []
    for d in w_spec:
        if d in in_map:
            kernel_shape.append(input_shape[in_map[d]])
        elif d in out_map:
            kernel_shape.append(out[out_map[d]])
        else:
            raise ValueError(f"Weight dimension '{d}' did not have a match in either the input "
                             f"spec '{in_spec}' or the output spec '{out_spec}'. For this "
                             "layer, the weight must be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        for d in bias_axes:
            if d not in out_spec:
                raise ValueError(f"Bias dimension '{d}' was requested, but is not a part of "
                                 f"the output specification '{out_spec}'")
        first = min(out_spec.find(d) for d in bias_axes)
        shift = elided if left_elided else 0
        idx = {d: i for i, d in enumerate(out_spec)}
        bias_shape = [out[idx[d] + shift] if d in bias_axes else 1 for d in out_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * max(elided, 0))
    return kernel_shape, bias_shape, out


@public("torchflow.keras.layers.experimental")
class EinsumDense(Layer):
    """A layer that uses ``tf.einsum`` as the backing computation (TF 2.4's EinsumDense).

    Args:
      equation: An einsum equation ``"<input>,<kernel>-><output>"`` (letters; an ellipsis
        on the left or right of the input and output passes axes through).
      output_shape: The expected output shape without the batch dimension (an int for
        one axis; None for an axis taken from the input).
      activation: Activation (name or callable; default linear).
      bias_axes: A string of output axis letters the bias spans (default: no bias).
      kernel_initializer, bias_initializer: Initializers (``glorot_uniform``, ``zeros``).
      kernel_regularizer, bias_regularizer, activity_regularizer: Regularizers.
      kernel_constraint, bias_constraint: Constraints.
      **kwargs: Base ``Layer`` arguments.

    Raises:
      ValueError: At build, for an equation, output shape or bias axes that do not fit.

    >>> import torchflow as tf
    >>> layer = tf.keras.layers.experimental.EinsumDense("ab,bc->ac", output_shape=64,
    ...                                                  bias_axes="c")
    >>> layer(tf.ones([2, 32])).shape
    TensorShape([2, 64])
    """

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.equation = equation
        if isinstance(output_shape, int):
            self.partial_output_shape = (output_shape,)
        else:
            self.partial_output_shape = tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = U.get_act(activation)
        self.kernel_initializer = U.get_init(kernel_initializer)
        self.bias_initializer = U.get_init(bias_initializer)
        self.kernel_regularizer = U.get_reg(kernel_regularizer)
        self.bias_regularizer = U.get_reg(bias_regularizer)
        self.kernel_constraint = U.get_con(kernel_constraint)
        self.bias_constraint = U.get_con(bias_constraint)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        kernel_shape, bias_shape, full = analyze_equation(
            self.equation, self.bias_axes, shape, self.partial_output_shape)
        self.full_output_shape = TensorShape(full)
        self.kernel = self.add_weight("kernel", shape=kernel_shape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True)
        if bias_shape is not None:
            self.bias = self.add_weight("bias", shape=bias_shape,
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, trainable=True)
        else:
            self.bias = None
        self.built = True

    def compute_output_shape(self, input_shape):
        _, _, full = analyze_equation(self.equation, self.bias_axes,
                                      TensorShape(input_shape).as_list(),
                                      self.partial_output_shape)
        return TensorShape(full)

    def call(self, inputs):
        cd = self._compute_dtype_obj
        if cd is not None and inputs.dtype != cd:
            inputs = cast(inputs, cd)
        y = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)

    def get_config(self):
        config = super().get_config()
        config.update({
            "output_shape": self.partial_output_shape, "equation": self.equation,
            "activation": U.ser_act(self.activation), "bias_axes": self.bias_axes,
            "kernel_initializer": U.ser_init(self.kernel_initializer),
            "bias_initializer": U.ser_init(self.bias_initializer),
            "kernel_regularizer": U.ser_reg(self.kernel_regularizer),
            "bias_regularizer": U.ser_reg(self.bias_regularizer),
            "activity_regularizer": U.ser_reg(self.activity_regularizer),
            "kernel_constraint": U.ser_con(self.kernel_constraint),
            "bias_constraint": U.ser_con(self.bias_constraint),
        })
        return config
