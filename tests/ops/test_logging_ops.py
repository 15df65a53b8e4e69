"""tf.print against real TensorFlow (both write to a file:// stream)."""

import io
import sys

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

CASES = {
    "floats": lambda tf: [tf.constant([1., 2.5, 1 / 3])],
    "scalar": lambda tf: [tf.constant(1.0)],
    "specials": lambda tf: [tf.constant([1e10, 1e-7, -0.0, np.nan, np.inf, -np.inf])],
    "float64": lambda tf: [tf.constant([0.1], tf.float64), tf.constant([1 / 3], tf.float64)],
    "long": lambda tf: [tf.range(10)],
    "matrix": lambda tf: [tf.reshape(tf.range(100), [10, 10])],
    "rank3": lambda tf: [tf.reshape(tf.range(24), [2, 3, 4])],
    "strings": lambda tf: [tf.constant(["a", "b"]), tf.constant("hello")],
    "lone_string": lambda tf: [tf.constant("hello")],
    "python": lambda tf: ["x:", 1, 2.5, [1, 2], {"a": tf.constant([1, 2])}, (tf.constant(1), "s")],
    "bool": lambda tf: [tf.constant([True, False])],
    "complex": lambda tf: [tf.constant([1 + 2j])],
    "empty": lambda tf: [tf.zeros([0])],
    "uint8": lambda tf: [tf.constant([1, 2], tf.uint8)],
    "half": lambda tf: [tf.constant([1.5], tf.float16), tf.constant([1.5], tf.bfloat16)],
    "big": lambda tf: [tf.constant([123456789.0]), tf.constant([0.000123])],
    "f64_range": lambda tf: [tf.constant([1e-5, 100000., 1e6, 1e16], tf.float64)],
    "numpy": lambda tf: [np.array([1, 2])],
    "ones": lambda tf: [tf.zeros([3, 1, 2])],
}
KWARGS = {"summarize1": {"summarize": 1}, "all": {"summarize": -1}, "sep": {"sep": ",", "end": "!\n"}}


def _printed(mod, case, kwargs, path):
    path.write_text("")
    mod.print(*CASES[case](mod), output_stream=f"file://{path}", **kwargs)
    return path.read_text()


@pytest.mark.parametrize("case", list(CASES))
def test_print_matches_tf(case, tmp_path):
    rtf = real_tf()
    ours = _printed(tf, case, {}, tmp_path / "ours.txt")
    theirs = _printed(rtf, case, {}, tmp_path / "theirs.txt")
    assert ours == theirs


@pytest.mark.parametrize("kw", list(KWARGS))
@pytest.mark.parametrize("case", ["matrix", "rank3", "long", "strings"])
def test_print_kwargs_match_tf(case, kw, tmp_path):
    rtf = real_tf()
    ours = _printed(tf, case, KWARGS[kw], tmp_path / "ours.txt")
    theirs = _printed(rtf, case, KWARGS[kw], tmp_path / "theirs.txt")
    assert ours == theirs


def test_default_stream_is_stderr_and_stdout_works(capsys):
    tf.print(tf.constant([1, 2]))
    tf.print("x", tf.constant(3), output_stream=sys.stdout)
    out, err = capsys.readouterr()
    assert err == "[1 2]\n" and out == "x 3\n"


def test_other_streams_and_errors():
    buf = io.StringIO()
    tf.print(tf.constant(1), output_stream=buf)
    assert buf.getvalue() == "1\n"
    seen = []
    tf.print("a", tf.constant([1]), output_stream=seen.append)
    assert seen == ["a [1]"]
    with pytest.raises(ValueError):
        tf.print(1, output_stream="nowhere")
    with pytest.raises(ValueError):
        tf.print(1, bogus=True)
