"""``tf.print`` of RaggedTensors and SparseTensors writes what real TF writes."""

from __future__ import annotations

import sys

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def program(m):
    m.print(m.ragged.constant([[1, 2, 3], [4], [5, 6]]), output_stream=sys.stdout)
    m.print("x", m.ragged.constant([[[1.5], [2.0]], []], ragged_rank=1), output_stream=sys.stdout)
    m.print(m.ragged.constant([list(range(10)), [1]]), output_stream=sys.stdout)
    m.print(m.ragged.constant([[1, 2, 3, 4, 5, 6, 7]] * 8), summarize=-1, output_stream=sys.stdout)
    m.print(m.ragged.constant([["a", "b"], ["c"]]), output_stream=sys.stdout)
    m.print(m.ragged.constant([[True], [False, True]]), output_stream=sys.stdout)
    m.print(m.sparse.SparseTensor([[0, 0], [1, 2]], [1.5, 2.25], [3, 4]), output_stream=sys.stdout)
    m.print({"a": m.ragged.constant([[1], []])}, 3, output_stream=sys.stdout)


def test_tf_print_of_composites_matches_tensorflow(capfd):
    rtf = real_tf()
    program(rtf)
    sys.stdout.flush()
    theirs = capfd.readouterr().out
    program(tf)
    sys.stdout.flush()
    ours = capfd.readouterr().out
    assert ours == theirs
    assert "[[1, 2, 3], [4], [5, 6]]" in ours
