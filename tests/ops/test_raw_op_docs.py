"""The docstrings of ``tf.raw_ops`` (issue 19): TF's generated form, true to each op.

Each raw op documents exactly the keywords it takes (inputs, attrs and ``name``), in
signature order, with the defaults it applies; the dtype constraints come from TF's op
definitions (``raw_op_types``, written by ``tools/gen_raw_op_types.py``), checked here
against the installed TensorFlow's registry so the table cannot go stale.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

import torchflow.raw_ops as public_raw
from torchflow._src.ops import raw_op_docs, raw_op_types, raw_ops
from torchflow._src.testing import real_tf

OPS = sorted(raw_ops._OPS)


def _args_section(doc: str) -> list[str]:
    """The argument names ``Args:`` lists (the lines indented two spaces)."""
    body = doc.split("\nArgs:\n", 1)[1].split("\n\nReturns:\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  (\w+): ", body, re.M)]


@pytest.mark.parametrize("op", OPS)
def test_args_are_exactly_the_signature(op):
    fn = getattr(public_raw, op)
    params = list(inspect.signature(fn).parameters)
    assert params[-1] == "name"
    assert _args_section(fn.__doc__) == params


@pytest.mark.parametrize("op", OPS)
def test_defaults_shown_are_the_ones_applied(op):
    fn = getattr(public_raw, op)
    for p in inspect.signature(fn).parameters.values():
        if p.name == "name":
            continue
        entry = re.search(rf"^  {p.name}: (.*?)(?=^  \w+: )", fn.__doc__, re.M | re.S)
        line = " ".join(entry.group(1).split())
        if p.default is inspect.Parameter.empty:
            assert "Defaults to" not in line, line
        else:
            shown = getattr(p.default, "name", None) if hasattr(p.default, "as_numpy_dtype") \
                else repr(p.default)
            assert f"Defaults to `{shown}`." in line, line


def test_every_op_has_its_own_summary_and_types():
    assert sorted(raw_op_docs.SUMMARY) == OPS
    assert sorted(raw_op_types.OPS) == OPS
    for op in OPS:
        doc = getattr(public_raw, op).__doc__
        assert doc.startswith(raw_op_docs.SUMMARY[op] + "\n\n")
        assert "\nReturns:\n  " in doc


def test_documented_keywords_are_accepted_and_others_refused():
    # What the docstring lists is what the op takes: Cast's DstT/Truncate work, and a
    # keyword the doc does not list raises TF's TypeError.
    import torchflow as tf

    assert "DstT:" in public_raw.Cast.__doc__ and "Truncate:" in public_raw.Cast.__doc__
    y = public_raw.Cast(x=tf.constant([1.7]), DstT=tf.int32, Truncate=False, name="c")
    assert y.dtype == tf.int32 and y.numpy().tolist() == [1]
    with pytest.raises(TypeError, match="unexpected keyword argument 'Truncat'"):
        public_raw.Cast(x=tf.constant([1.7]), DstT=tf.int32, Truncat=False)


def test_types_table_matches_tfs_op_definitions():
    tf = real_tf()
    from tensorflow.python.framework import op_def_registry

    spec = importlib.util.spec_from_file_location(
        "gen_raw_op_types", Path(__file__).resolve().parents[2] / "tools" / "gen_raw_op_types.py")
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_raw_op_types", gen)
    spec.loader.exec_module(gen)
    lists = {names: key for key, names in raw_op_types.LISTS.items()}
    for op in OPS:
        params = [p for p in inspect.signature(raw_ops._OPS[op]).parameters if p != "name"]
        codes = gen.op_codes(tf, op_def_registry, op, params, dict(lists))
        body, _, outs = raw_op_types.OPS[op].partition(" -> ")
        stored = dict(item.split("=", 1) for item in body.split()) if body else {}
        assert {k: v for k, v in codes.items() if k != "->"} == stored, op
        assert codes["->"] == outs, op


def test_sum_doc_reads_like_tfs():
    doc = public_raw.Sum.__doc__
    assert doc.splitlines()[0] == raw_op_docs.SUMMARY["Sum"]
    assert "`tf.reduce_sum`" in doc
    assert "axis: A `Tensor`. Must be one of the following types: `int32`, `int64`." in doc
    assert "keep_dims: An optional `bool`. Defaults to `False`." in doc
    assert doc.rstrip().endswith("A `Tensor`. Has the same type as `input`.")
