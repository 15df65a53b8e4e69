"""``tf.io.gfile`` against real TF: results and error types on the same local files."""

from __future__ import annotations

import pytest

import torchflow as tfl
from torchflow._src.testing import real_tf


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the error type is what is compared
        return type(e).__name__
    return list(r) if hasattr(r, "__next__") else r


CASES = {
    "mkdir_existing": lambda g, d: g.mkdir(d),
    "mkdir_on_a_file": lambda g, d: g.mkdir(d + "/f"),
    "mkdir_no_parent": lambda g, d: g.mkdir(d + "/a/b"),
    "makedirs_existing": lambda g, d: g.makedirs(d),
    "rmtree_missing": lambda g, d: g.rmtree(d + "/nope"),
    "rename_missing": lambda g, d: g.rename(d + "/nope", d + "/x"),
    "copy_missing": lambda g, d: g.copy(d + "/nope", d + "/x"),
    "copy_onto_existing": lambda g, d: g.copy(d + "/f", d + "/f"),
    "remove_missing": lambda g, d: g.remove(d + "/nope"),
    "remove_directory": lambda g, d: g.remove(d + "/sub"),
    "isdir_missing": lambda g, d: g.isdir(d + "/nope"),
    "listdir_file": lambda g, d: g.listdir(d + "/f"),
    "listdir": lambda g, d: g.listdir(d),
    "walk_missing": lambda g, d: g.walk(d + "/nope"),
    "stat_missing": lambda g, d: g.stat(d + "/nope"),
    "stat_length": lambda g, d: g.stat(d + "/f").length,
    "gfile_read_missing": lambda g, d: g.GFile(d + "/nope").read(),
    "exists": lambda g, d: g.exists(d + "/f"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gfile_like_tf(case, tmp_path):
    tf = real_tf()
    outs = []
    for g, sub in ((tf.io.gfile, "tf"), (tfl.io.gfile, "tfl")):
        d = tmp_path / sub
        (d / "sub").mkdir(parents=True)
        (d / "f").write_text("hello")
        outs.append(_outcome(lambda: CASES[case](g, str(d))))
    assert outs[0] == outs[1]


def test_walk_rename_copy_and_gfile_roundtrip(tmp_path):
    g = tfl.io.gfile
    d = str(tmp_path)
    g.makedirs(d + "/a/b")
    with g.GFile(d + "/a/f.txt", "w") as f:
        f.write("abc")
    g.copy(d + "/a/f.txt", d + "/a/b/g.txt")
    g.rename(d + "/a/b/g.txt", d + "/a/h.txt")
    with g.GFile(d + "/a/h.txt", "rb") as f:
        assert f.read() == b"abc" and f.size() == 3
    walked = [(top, sorted(dirs), sorted(files)) for top, dirs, files in g.walk(d + "/a")]
    assert walked == [(d + "/a", ["b"], ["f.txt", "h.txt"]), (d + "/a/b", [], [])]
    g.rmtree(d + "/a")
    assert not g.exists(d + "/a")
