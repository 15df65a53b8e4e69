"""``help()`` on the main Keras entry points documents every argument, as TF's
docstrings do (each parameter of the signature has an entry under ``Args:``), and
says what is returned and raised."""

import inspect
import re

import pytest

import torchflow as tf

ENTRY_POINTS = [
    (tf.keras.Model, "compile"), (tf.keras.Model, "fit"), (tf.keras.Model, "evaluate"),
    (tf.keras.Model, "predict"), (tf.keras.Model, "train_on_batch"),
    (tf.keras.Model, "test_on_batch"), (tf.keras.Model, "predict_on_batch"),
    (tf.keras.Model, "save"), (tf.keras.Model, "save_weights"),
    (tf.keras.Model, "load_weights"), (tf.keras.Model, "summary"),
    (tf.keras.layers.Layer, "__call__"), (tf.keras.layers.Layer, "add_weight"),
]


def _args_section(doc):
    m = re.search(r"\n\s*Args:\n(.*?)(\n\s*\n\s*[A-Z]\w*( \w+)*:?\n|\Z)", doc + "\n\n", re.S)
    assert m, "no Args section"
    return {a.lstrip("*") for a in re.findall(r"^\s{2,}(\*{0,2}\w+):", m.group(1), re.M)}


@pytest.mark.parametrize("cls,name", ENTRY_POINTS, ids=[n for _, n in ENTRY_POINTS])
def test_every_argument_is_documented(cls, name):
    fn = getattr(cls, name)
    doc = inspect.getdoc(fn)
    assert doc and len(doc.splitlines()) >= 10
    params = [p for p in inspect.signature(fn).parameters if p != "self"]
    documented = _args_section(doc)
    missing = [p for p in params if p not in documented]
    assert not missing, f"{name}: undocumented {missing}"
    if name not in ("compile", "summary", "save", "save_weights"):  # they return None
        assert "Returns:" in doc
    assert "Raises:" in doc


def test_fit_documents_the_step_data_tf_passes():
    doc = inspect.getdoc(tf.keras.Model.fit)
    assert "x, y = data" in doc and "unpack_x_y_sample_weight" in doc
