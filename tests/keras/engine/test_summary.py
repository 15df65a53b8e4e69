"""``Model.summary()``: the table tf.keras prints, rows compared with real tf.keras
2.21 (Keras 2) and the layout pinned to TF 2.4's ``print_summary``.

TF 2.21 changed the layout (a leading space, blank lines between rows, byte sizes,
"Connected to" as a Python list); the rows' content did not change, so the rows
are compared with 2.21 and the 2.4 layout is checked on its own.
"""

import re

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

ROW = re.compile(r"^\s?(\S+ \(\w+\))\s+(\[?\(.*?\)\]?|multiple)\s+(\d+)\s*(.*?)\s*$")
MORE = re.compile(r"^\s+'?\w+\[\d+\]\[\d+\][\]',]*\s*$")


def _rows(text):
    rows = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            rows.append([m.group(1), m.group(2), int(m.group(3)), _conn(m.group(4))])
        elif rows and MORE.match(line):
            rows[-1][3] += _conn(line)
    return [(a, b, c, tuple(d)) for a, b, c, d in rows]


def _conn(text):
    return [f"{a}[{b}][{c}]" for a, b, c in re.findall(r"(\w+)\[(\d+)\]\[(\d+)\]", text)]


def _branching(k):
    a = k.Input((8,), name="a")
    b = k.Input((4,), name="b")
    x = k.layers.Dense(5, name="d1")(a)
    y = k.layers.Dense(5, name="d2")(b)
    z = k.layers.concatenate([x, y], name="cat")
    shared = k.layers.Dense(5, name="shared")
    out = k.layers.add([shared(y), shared(x)], name="add")
    return k.Model([a, b], [out, k.layers.Dense(1, name="head")(z)], name="branch")


def _chain(k):
    i = k.Input((3,), name="i")
    return k.Model(i, k.layers.Dense(1, name="o")(k.layers.Dense(2, name="h")(i)), name="chain")


def _sequential(k):
    return k.Sequential([k.layers.Dense(3, input_shape=(2,), name="s1"),
                         k.layers.Dense(1, name="s2")], name="seq")


def _nested(k):
    inner = _chain(k)
    i = k.Input((3,), name="outer_in")
    j = k.Input((3,), name="outer_in2")
    return k.Model([i, j], k.layers.add([inner(i), inner(j)], name="sum"), name="outer")


def _sequential_of_functional(k):
    # A Functional model as a Sequential's first layer defines the input (TF builds it).
    i = k.Input((6,), name="digits")
    pretrained = k.Model(i, k.layers.Dense(4, name="dense_1")(i), name="pretrained")
    return k.Sequential([pretrained, k.layers.Dense(2, name="predictions")], name="stack")


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


@pytest.mark.parametrize("build", [_branching, _chain, _sequential, _nested,
                                   _sequential_of_functional])
def test_summary_rows_match_tf_keras(build):
    ours = _rows(_summary(build(tf.keras)))
    theirs = _rows(_summary(build(real_tf().keras)))
    assert ours and ours == theirs


def test_branching_model_has_the_connected_to_column_in_tf_2_4_layout():
    text = _summary(_branching(tf.keras)).splitlines()
    assert text[0] == 'Model: "branch"'
    assert text[1] == "_" * 98
    # TF 2.4: columns end at 33%, 55%, 67% and 100% of 98 characters.
    assert text[2] == ("Layer (type)".ljust(32) + "Output Shape".ljust(21)
                       + "Param #".ljust(12) + "Connected to".ljust(33))
    assert text[3] == "=" * 98
    shared = text.index(next(line for line in text if line.startswith("shared (Dense)")))
    assert text[shared].split() == ["shared", "(Dense)", "(None,", "5)", "30", "d2[0][0]"]
    assert text[shared + 1].strip() == "d1[0][0]"
    assert len(text[shared + 1]) == 98 and text[shared + 1].index("d1") == 65
    assert text[shared + 2] == "_" * 98
    assert text[-4:] == ["Total params: 111", "Trainable params: 111",
                         "Non-trainable params: 0", "_" * 98]


def test_chain_keeps_three_columns():
    text = _summary(_chain(tf.keras)).splitlines()
    assert text[1] == "_" * 65 and "Connected to" not in text[2]
    assert text[4].startswith("i (InputLayer)") and "[(None, 3)]" in text[4]


def test_functional_layer_order_and_weights_match_tf_keras():
    ours, theirs = _branching(tf.keras), _branching(real_tf().keras)
    assert [l.name for l in ours.layers] == [l.name for l in theirs.layers]
    assert [tuple(w.shape) for w in ours.get_weights()] == \
        [tuple(w.shape) for w in theirs.get_weights()]
    ours.set_weights(theirs.get_weights())  # lists move between the two
