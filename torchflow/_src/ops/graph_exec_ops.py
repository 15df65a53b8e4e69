"""Graph-only op handlers for ``graph_exec``: ops on resources, constants and the
multi-output ops whose raw form differs (function calls and control flow are
written by ``graph_exec_codegen`` itself).

A handler is ``handler(library, attrs, inputs) -> list of outputs``: ``library``
is the ``graph_exec.FunctionLibrary`` running the graph, ``attrs``
the node's attributes as Python values, ``inputs`` its data inputs in order (a
resource input is the torchflow ``Variable`` itself).
"""

from __future__ import annotations

import sys

import numpy as np

from torchflow._src.core import errors
from torchflow._src.core.convert import constant
from torchflow._src.core.custom_gradient import stop_gradient
from torchflow._src.core.variables import Variable
from torchflow._src.ops import (
    creation_ops,
    debugging_ops,
    gather_ops,
    image_ops,
    indexing,
    linalg_ops,
    math_ops,
    normalization_ops,
    numpy_ops,
    shape_ops,
    space_batch_ops,
)


def _const(library, attrs, inputs):
    return [attrs["value"]]


def _identity(library, attrs, inputs):
    # Tensors are immutable, so Identity can hand on its input itself (a copy gives the
    # same values and gradients); resources (variables) and variants (TensorLists) must.
    return [inputs[0]]


def _identity_n(library, attrs, inputs):
    return list(inputs)


def _no_op(library, attrs, inputs):
    return []


def _stop_gradient(library, attrs, inputs):
    return [stop_gradient(inputs[0])]


def _variable(x, op: str) -> Variable:
    if not isinstance(x, Variable):
        raise errors.InvalidArgumentError(
            None, None, f"Input 0 of {op} must be a resource (a variable), got "
            f"{type(x).__name__} [Op:{op}]")
    return x


def _read_variable(library, attrs, inputs):
    return [_variable(inputs[0], "ReadVariableOp").read_value()]


def _assign_variable(library, attrs, inputs):
    _variable(inputs[0], "AssignVariableOp").assign(inputs[1], read_value=False)
    return []


def _assign_add_variable(library, attrs, inputs):
    _variable(inputs[0], "AssignAddVariableOp").assign_add(inputs[1], read_value=False)
    return []


def _assign_sub_variable(library, attrs, inputs):
    _variable(inputs[0], "AssignSubVariableOp").assign_sub(inputs[1], read_value=False)
    return []


def _var_handle(library, attrs, inputs):
    name = attrs.get("shared_name", "")
    var = getattr(library, "resources", {}).get(name)
    if var is None:
        raise errors.NotFoundError(
            None, None, f"Resource {name} (a VarHandleOp inside a function) does not exist: "
            "the SavedModel's variables are bound as function inputs [Op:VarHandleOp]")
    return [var]


def _resource_gather(library, attrs, inputs):
    var = _variable(inputs[0], "ResourceGather")
    return [gather_ops.gather(var, inputs[1], batch_dims=int(attrs.get("batch_dims", 0)))]


def _truth(x) -> bool:
    a = np.asarray(x.numpy())
    if a.ndim == 0:
        return bool(a)
    return a.size > 0  # TF: a non-scalar predicate is true when it has elements


def _strided_slice(library, attrs, inputs):
    x, begin, end, strides = inputs
    return [indexing.strided_slice(
        x, begin, end, strides, begin_mask=attrs.get("begin_mask", 0),
        end_mask=attrs.get("end_mask", 0), ellipsis_mask=attrs.get("ellipsis_mask", 0),
        new_axis_mask=attrs.get("new_axis_mask", 0),
        shrink_axis_mask=attrs.get("shrink_axis_mask", 0))]


def _fused_batch_norm(library, attrs, inputs):
    x, scale, offset, mean, variance = inputs
    training = bool(attrs.get("is_training", True))
    if training and numpy_ops.shape_tuple(mean) == (0,):
        mean = variance = None  # no running statistics given (LayerNormalization's use)
    y, batch_mean, batch_var = normalization_ops.fused_batch_norm(
        x, scale, offset, mean, variance, epsilon=float(attrs.get("epsilon", 1e-4)),
        data_format=attrs.get("data_format", "NHWC"), is_training=training,
        exponential_avg_factor=float(attrs.get("exponential_avg_factor", 1.0)))
    return [y, batch_mean, batch_var, batch_mean, batch_var,
            creation_ops.zeros([0], dtype=batch_mean.dtype)]


def _select(library, attrs, inputs):
    cond, t, e = inputs
    c_shape, t_shape = numpy_ops.shape_tuple(cond), numpy_ops.shape_tuple(t)
    if len(c_shape) == 1 and len(t_shape) > 1:  # Select's rank-1 condition picks rows
        cond = numpy_ops.reshape(cond, c_shape + (1,) * (len(t_shape) - 1))
    return [gather_ops.where(cond, math_ops.add(t, creation_ops.zeros_like(e)),
                             math_ops.add(e, creation_ops.zeros_like(t)))]


def _batch_matmul_v3(library, attrs, inputs):
    # TF 2.5+'s BatchMatMul (an output dtype attr, Tout, beside V2's); not a TF 2.4 raw op.
    return [linalg_ops.matmul(inputs[0], inputs[1], adjoint_a=bool(attrs.get("adj_x")),
                              adjoint_b=bool(attrs.get("adj_y")))]


def _ensure_shape(library, attrs, inputs):
    return [shape_ops.ensure_shape(inputs[0], attrs.get("shape"))]


def _check_numerics(library, attrs, inputs):
    return [debugging_ops.check_numerics(inputs[0], attrs.get("message", ""))]


def _assert(library, attrs, inputs):
    if not _truth(inputs[0]):
        summarize = int(attrs.get("summarize", 3))
        parts = []
        for t in inputs[1:]:
            a = np.asarray(t.numpy()).reshape(-1)
            vals = [v.decode("utf-8", "replace") if isinstance(v, bytes) else
                    f"{v:g}" if isinstance(v, float) else str(v) for v in a[:summarize].tolist()]
            more = "..." if a.size > summarize else ""
            parts.append("[" + " ".join(vals) + more + "]")  # TF's AssertOp: one [...] each
        raise errors.InvalidArgumentError(
            None, None, "assertion failed: " + " ".join(parts) + " [Op:Assert]")
    return []


def _print_v2(library, attrs, inputs):
    text = inputs[0].numpy()
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    stream = attrs.get("output_stream", "stderr")
    end = attrs.get("end", "\n")
    target = sys.stdout if stream in ("stdout", "log(info)") else sys.stderr
    print(text, end=end, file=target)
    return []


def _var_is_initialized(library, attrs, inputs):
    return [constant(isinstance(inputs[0], Variable))]


def _bucketize(library, attrs, inputs):
    # TF's bucket of x: how many boundaries are <= x.
    x = np.asarray(inputs[0].numpy())
    edges = np.asarray(attrs.get("boundaries", []), np.float64)
    return [constant(np.searchsorted(edges, x, side="right").astype(np.int32))]


def _dense_bincount(library, attrs, inputs):
    values, size, weights = (np.asarray(t.numpy()) for t in inputs)
    size = int(size)
    if size < 0:
        raise errors.InvalidArgumentError(
            None, None, f"size ({size}) must be non-negative [Op:DenseBincount]")
    binary = bool(attrs.get("binary_output", False))
    dtype = inputs[2].dtype  # T: the weights' dtype (an empty weights tensor when counting)
    rows = values.reshape(1, -1) if values.ndim <= 1 else values
    w = weights.reshape(rows.shape) if weights.size else None
    if ((rows < 0) | (rows >= size)).any() and rows.size:
        rows = np.where((rows >= 0) & (rows < size), rows, size)  # out of range: dropped
    out = np.zeros((rows.shape[0], size + 1), np.float64)
    for r in range(rows.shape[0]):
        np.add.at(out[r], rows[r], 1.0 if w is None else w[r])
    out = out[:, :size]
    if binary:
        out = (out != 0).astype(np.float64)
    out = out.reshape(-1) if values.ndim <= 1 else out
    return [constant(out.astype(dtype.as_numpy_dtype), dtype=dtype)]


def _placeholder_with_default(library, attrs, inputs):
    return [inputs[0]]


def _space_to_batch_nd(library, attrs, inputs):
    # TF's graph of a dilated convolution (Keras Conv1D/Conv2D with dilation_rate > 1).
    return [space_batch_ops.space_to_batch_nd(*inputs)]


def _batch_to_space_nd(library, attrs, inputs):
    return [space_batch_ops.batch_to_space(*inputs)]


def _resize(op: str, method: str):
    """TF 2's ``image.resize`` kernels (half-pixel centres; ResizeArea has no such
    attribute); the TF 1 corner-aligned and legacy-centre forms are not run."""

    def handler(library, attrs, inputs):
        legacy = attrs.get("align_corners", False) or (
            op != "ResizeArea" and not attrs.get("half_pixel_centers", False))
        if legacy:
            raise errors.UnimplementedError(
                None, None, f"{op} with align_corners=True or half_pixel_centers=False "
                f"(TF 1's resize) is not supported [Op:{op}]")
        return [image_ops.resize(inputs[0], inputs[1], method=method)]

    return handler


def _unsupported_placeholder(library, attrs, inputs):
    raise errors.InvalidArgumentError(
        None, None, "You must feed a value for placeholder tensor (a graph Placeholder node "
        "runs only with a feed) [Op:Placeholder]")


HANDLERS = {
    "Const": _const,
    "Identity": _identity,
    "Snapshot": _identity,
    "IdentityN": _identity_n,
    "NoOp": _no_op,
    "StopGradient": _stop_gradient,
    "PreventGradient": _stop_gradient,
    "ReadVariableOp": _read_variable,
    "AssignVariableOp": _assign_variable,
    "AssignAddVariableOp": _assign_add_variable,
    "AssignSubVariableOp": _assign_sub_variable,
    "VarHandleOp": _var_handle,
    "ResourceGather": _resource_gather,
    "StridedSlice": _strided_slice,
    "FusedBatchNorm": _fused_batch_norm,
    "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
    "Select": _select,
    "EnsureShape": _ensure_shape,
    "Bucketize": _bucketize,
    "DenseBincount": _dense_bincount,
    "CheckNumerics": _check_numerics,
    "Assert": _assert,
    "PrintV2": _print_v2,
    "VarIsInitializedOp": _var_is_initialized,
    "DestroyResourceOp": _no_op,
    "BatchMatMulV3": _batch_matmul_v3,
    "PlaceholderWithDefault": _placeholder_with_default,
    "SpaceToBatchND": _space_to_batch_nd,
    "ResizeBicubic": _resize("ResizeBicubic", "bicubic"),
    "ResizeArea": _resize("ResizeArea", "area"),
    "BatchToSpaceND": _batch_to_space_nd,
    "Placeholder": _unsupported_placeholder,
}
