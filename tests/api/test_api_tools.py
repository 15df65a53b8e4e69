"""tools/tf24_api.py (golden extraction) and tools/api_coverage.py on synthetic inputs."""

import importlib.util
import sys
import zipfile
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_tool_{name}", TOOLS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_extract_reads_generated_api_modules(tmp_path):
    t = _load("tf24_api")
    wheel = tmp_path / "tf.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("tensorflow/__init__.py",
                   "import sys as _sys\nfrom tensorflow._api.v2 import math\n"
                   "from tensorflow.python.ops.array_ops import newaxis\n"
                   "from tensorflow.python.ops.math_ops import add as add\n")
        z.writestr("tensorflow/_api/v2/__init__.py", "")
        z.writestr("tensorflow/_api/v2/math/__init__.py",
                   "from . import special\n"
                   "from tensorflow.python.ops.gen_math_ops import acos\n"
                   "from tensorflow.python.ops.math_ops import _private\n")
        z.writestr("tensorflow/_api/v2/summary/__init__.py",
                   "from tensorflow.python.ops.summary_ops_v2 import flush\n")
        z.writestr("tensorflow/_api/v2/compat/v1/__init__.py",
                   "from tensorflow.python.ops.math_ops import add\n")
        z.writestr("tensorflow/python/keras/api/_v2/keras/layers/__init__.py",
                   "from tensorflow.python.keras.layers.core import Dense\n"
                   "from tensorflow.python.keras.api._v2.keras.layers import experimental\n")
    api = t.extract(wheel)
    assert api == {
        "tensorflow": ["add", "newaxis"],
        "tensorflow.math": ["acos"],
        "tensorflow.summary": ["audio", "flush", "histogram", "image", "scalar", "text"],
        "tensorflow.keras.layers": ["Dense"],
    }


def test_import_public_tells_absent_from_broken(tmp_path, monkeypatch):
    c = _load("api_coverage")
    pkg = tmp_path / "fakeflow"
    (pkg / "broken").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "broken" / "__init__.py").write_text("import fakeflow_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert c.import_public("fakeflow.absent") is None
    with pytest.raises(ModuleNotFoundError):
        c.import_public("fakeflow.broken")


def test_coverage_counts_attributes(tmp_path):
    c = _load("api_coverage")
    rows = c.coverage({"tensorflow": ["add", "no_such_name_in_tf"],
                       "tensorflow.no_such_namespace": ["x"]})
    by = {r.tf_name: r for r in rows}
    assert by["tensorflow"].implemented == ["add"]
    assert by["tensorflow"].missing == ["no_such_name_in_tf"]
    assert by["tensorflow.no_such_namespace"].implemented == []
    assert c.totals(rows) == (1, 3)
    assert "**1 / 3**" in c.table(rows)
