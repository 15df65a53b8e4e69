#!/usr/bin/env python3
"""Writes ``torchflow/_src/ops/raw_op_types.py``: each raw op's argument and output types.

Reads TF's op registry (the op definitions: inputs, attrs, allowed dtypes) through the
installed TensorFlow, for the ops ``torchflow._src.ops.raw_ops`` implements, and writes
one compact line per op, which ``raw_op_docs`` turns into the ``Args:``/``Returns:``
type phrases of TF's generated raw-op docs. Arguments are keyed by the Python names the
raw op takes (TF's API renames, ``reduction_indices`` -> ``axis``, are followed by
position). Run after adding a raw op; torchflow itself never imports TensorFlow.

Codes (read by ``raw_op_docs``): an argument is ``T:L3`` (a tensor whose dtype is one of
list ``L3``), ``T`` (any dtype), ``=x`` (the dtype of argument ``x``), ``int32`` (a tensor
of that dtype), ``N:L3``/``N`` (a list of same-dtype tensors), ``L`` (a list of tensors),
``a:bool``/``a:list(int)``/... (an attr of that type) or ``a:type:L3`` (a dtype attr
limited to a list). After ``->`` each output is ``name=x`` (the dtype of ``x``),
``name@attr`` (the dtype an attr names), ``name:int64`` (that dtype) or ``name:L=x``
(a list of tensors of ``x``'s dtype).
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
OUT = REPO / "torchflow" / "_src" / "ops" / "raw_op_types.py"


def _dtype_names(tf, attr) -> tuple:
    return tuple(tf.as_dtype(t).name for t in attr.allowed_values.list.type)


def op_codes(tf, op_def_registry, op: str, params: list, lists: dict) -> dict:
    d = op_def_registry.get(op)
    attrs = {a.name: a for a in d.attr}
    inferred = {x for a in d.input_arg for x in (a.type_attr, a.number_attr, a.type_list_attr)
                if x}
    tf_params = [a.name for a in d.input_arg] + [a.name for a in d.attr if a.name not in inferred]
    py_params = [p for p in inspect.signature(getattr(tf.raw_ops, op)).parameters
                 if p != "name"]
    # TF's Python API renames some op-def names (``reduction_indices`` -> ``axis``) and
    # reorders attrs: same names pair up, the renamed rest pair up in order.
    py_name = {n: n for n in tf_params if n in py_params}
    py_name.update(zip([n for n in tf_params if n not in py_name],
                       [n for n in py_params if n not in py_name]))

    def listname(attr) -> str:
        names = _dtype_names(tf, attr)
        return lists.setdefault(names, f"L{len(lists)}")

    first_of: dict = {}
    codes = {}
    for a in d.input_arg:
        n = py_name.get(a.name, a.name)
        if a.number_attr:
            kind = "N"
        elif a.type_list_attr:
            codes[n] = "L"
            continue
        else:
            kind = "T"
        if a.type_attr:
            if a.type_attr in first_of:
                codes[n] = "=" + first_of[a.type_attr]
                continue
            first_of[a.type_attr] = n
            allowed = attrs[a.type_attr].allowed_values.list.type
            codes[n] = f"{kind}:{listname(attrs[a.type_attr])}" if allowed else kind
        else:
            codes[n] = f"{kind}:{listname_fixed(tf, a.type, lists)}" if kind == "N" \
                else tf.as_dtype(a.type).name
    for name in tf_params[len(d.input_arg):]:
        a = attrs[name]
        code = "a:" + a.type
        if a.type == "type" and a.allowed_values.list.type:
            code += ":" + listname(a)
        codes[py_name.get(name, name)] = code
    outs = []
    for o in d.output_arg:
        if o.type_attr in first_of:
            c = "=" + first_of[o.type_attr]
        elif o.type_attr and py_name.get(o.type_attr) in params:
            c = "@" + py_name[o.type_attr]
        elif o.type_attr:  # set by an attr TF 2.4 did not have: its default
            c = tf.as_dtype(attrs[o.type_attr].default_value.type).name
        elif o.type_list_attr or o.number_attr:
            c = "L"
        else:
            c = tf.as_dtype(o.type).name
        if (o.number_attr or o.type_list_attr) and c != "L":
            c = "L" + c  # a list of tensors
        outs.append(f"{o.name}{c}" if c[0] in "=@" else f"{o.name}:{c}")
    codes["->"] = " ".join(outs)
    extra = [p for p in codes if p != "->" and p not in params]
    for p in extra:  # attrs TF 2.21 added after 2.4 (bad_indices_policy, ...)
        del codes[p]
    return codes


def listname_fixed(tf, dtype, lists: dict) -> str:
    names = (tf.as_dtype(dtype).name,)
    return lists.setdefault(names, f"L{len(lists)}")


def main() -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry

    from torchflow._src.ops import raw_ops

    lists: dict = {}
    rows = []
    for op in sorted(raw_ops._OPS):
        params = [p for p in inspect.signature(raw_ops._OPS[op]).parameters if p != "name"]
        codes = op_codes(tf, op_def_registry, op, params, lists)
        body = " ".join(f"{k}={v}" for k, v in codes.items() if k != "->")
        text = f"{body} -> {codes['->']}"
        head = f'    "{op}": '
        while len(head) + len(text) + 3 > 100:
            cut = text.rindex(" ", 0, 100 - len(head) - 3) + 1
            rows.append(f'{head}"{text[:cut]}"')
            text, head = text[cut:], "        "
        rows.append(f'{head}"{text}",')
    out = ['"""Each raw op\'s argument and output types, from TF\'s op definitions.',
           "",
           "Generated by ``tools/gen_raw_op_types.py`` (codes explained there); do not edit.",
           '"""', "", "LISTS = {"]
    for names, key in lists.items():
        line = f'    "{key}": {names!r},'
        while len(line) > 100:
            cut = line.rindex(", ", 0, 99) + 1
            out.append(line[:cut])
            line = "        " + line[cut + 1:]
        out.append(line)
    out += ["}", "", "OPS = {"] + rows + ["}", ""]
    OUT.write_text("\n".join(out))
    print(f"wrote {OUT.relative_to(REPO)}: {len(raw_ops._OPS)} ops, {len(lists)} dtype lists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
