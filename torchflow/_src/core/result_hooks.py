"""Per-op result checks behind the debugging switches: ``enable_check_numerics`` and
``set_log_device_placement``.

Every op result passes through ``tensor.wrap``, which tests one module global
(``tensor._result_hook``) and calls the hook only when it is set, so the switches
cost nothing while off. The hook names the op from the call stack: the outermost
function of ``torchflow._src.ops`` under the user's call (``tf.math.log`` ->
``Log``, ``x * y`` -> ``Mul``). Results made outside an op (``tf.constant``,
conversions, variable reads) are not ops and are not checked, as in TF.
"""

from __future__ import annotations

import sys

import torch

from torchflow._src.core import context, tensor
from torchflow._src.core.errors import InvalidArgumentError

_OPS_PREFIX = "torchflow._src.ops."
_INNER_PREFIXES = ("torchflow._src.ops.", "torchflow._src.core.")
_check_numerics = False

# Python op names whose TF op name is not their CamelCase.
_TF_NAMES = {
    "add": "AddV2", "multiply": "Mul", "mul": "Mul", "subtract": "Sub", "sub": "Sub",
    "divide": "RealDiv", "truediv": "RealDiv", "div": "RealDiv", "realdiv": "RealDiv",
    "floordiv": "FloorDiv", "floor_divide": "FloorDiv", "mod": "FloorMod",
    "floormod": "FloorMod", "neg": "Neg", "negative": "Neg", "pow": "Pow",
    "matmul": "MatMul", "reduce_sum": "Sum", "reduce_mean": "Mean", "reduce_max": "Max",
    "reduce_min": "Min", "reduce_prod": "Prod", "log": "Log", "log1p": "Log1p",
    "exp": "Exp", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "square": "Square",
    "reciprocal": "Reciprocal", "conv2d": "Conv2D", "conv1d": "Conv2D", "conv3d": "Conv3D",
    "bias_add": "BiasAdd", "abs": "Abs", "softmax": "Softmax", "log_softmax": "LogSoftmax",
    "dense": "MatMul", "random_uniform": "RandomUniform", "uniform": "RandomUniform",
    "random_normal": "RandomStandardNormal", "normal": "RandomStandardNormal",
    "lgamma": "Lgamma", "digamma": "Digamma", "xlogy": "Xlogy", "xdivy": "Xdivy",
}


def _tf_op_name(name: str) -> str:
    known = _TF_NAMES.get(name)
    if known is not None:
        return known
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_")) or name


def _current_op() -> str | None:
    """The TF name of the op being run, or None outside an op."""
    frame = sys._getframe(3)  # _current_op <- hook <- wrap <- caller of wrap
    if not frame.f_globals.get("__name__", "").startswith(_OPS_PREFIX):
        return None  # a conversion or a variable read inside an op: not an op result
    found = None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(_INNER_PREFIXES):
            break
        if module.startswith(_OPS_PREFIX):
            name = frame.f_code.co_name
            if name in ("op", "rop"):  # tensor_operators' closures
                fn = frame.f_locals.get("torch_fn") or frame.f_locals.get("fn")
                name = getattr(fn, "__name__", name)
            if not name.startswith("<"):
                found = name
        frame = frame.f_back
    return None if found is None else _tf_op_name(found)


def _numerics_error(op: str, r) -> InvalidArgumentError:
    t = r._t.detach()
    nan = int(torch.isnan(t).sum()) if not t.is_complex() else int(
        (torch.isnan(t.real) | torch.isnan(t.imag)).sum())
    real = t.real if t.is_complex() else t
    neg = int((real == float("-inf")).sum())
    pos = int((real == float("inf")).sum())
    lines = [f'\n\n!!! Detected Infinity or NaN in output 0 of eagerly-executing op "{op}" '
             f"(# of outputs: 1) !!!",
             f"  dtype: <dtype: '{r._dtype.name}'>",
             f"  shape: {tuple(t.shape)}"]
    kinds = []
    if neg:
        lines.append(f"  # of -Inf elements: {neg}")
        kinds.append("-Inf")
    if pos:
        lines.append(f"  # of +Inf elements: {pos}")
        kinds.append("+Inf")
    if nan:
        lines.append(f"  # of +NaN elements: {nan}")  # TF's wording
        kinds.append("NaN")
    what = kinds[0] if len(kinds) == 1 else (
        f"{kinds[0]} and {kinds[1]}" if len(kinds) == 2 else "-Inf, +Inf, and NaN")
    msg = "\n".join(lines) + f"\n\n : Tensor had {what} values [Op:CheckNumericsV2]"
    return InvalidArgumentError(None, None, msg)


def _hook(r) -> None:
    t = r._t
    if not isinstance(t, torch.Tensor):
        return
    op = None
    if _check_numerics and (t.is_floating_point() or t.is_complex()):
        finite = bool(torch.isfinite(t).all()) if t.numel() else True
        if not finite:
            op = _current_op()
            if op is not None:
                raise _numerics_error(op, r)
    if context.GLOBAL.log_device_placement:
        op = op or _current_op()
        if op is not None:
            print(f"Executing op {op} in device {context.tf_device_name(t.device)}",
                  file=sys.stderr)


def refresh() -> None:
    """Installs the hook while a switch is on and removes it when none is."""
    on = _check_numerics or context.GLOBAL.log_device_placement
    tensor._result_hook = _hook if on else None


def set_check_numerics(enabled: bool) -> None:
    global _check_numerics
    _check_numerics = bool(enabled)
    refresh()
