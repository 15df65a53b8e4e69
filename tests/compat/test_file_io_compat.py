"""A file-handling program in the style of TF's guides (tf.io.gfile housekeeping, a CSV
file parsed with tf.io.decode_csv, records written with TFRecordWriter and read back
with tf.data, the errors a user meets on missing paths and bad fields), run under real
TF and torchflow; everything it prints is compared line by line (issue 19's gfile and
decode_csv fixes)."""

from __future__ import annotations

import os

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _err(fn) -> str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - what is printed is the error's type
        return type(e).__name__
    return "ok"


def file_program(m, root: str) -> list:
    g = m.io.gfile
    out = []
    data = os.path.join(root, "data")
    g.makedirs(os.path.join(data, "raw"))
    g.makedirs(os.path.join(data, "raw"))  # again: no error
    g.mkdir(os.path.join(data, "out"))
    g.mkdir(os.path.join(data, "out"))  # existing: no error
    csv = os.path.join(data, "raw", "points.csv")
    with g.GFile(csv, "w") as f:
        f.write("1,0.5,a\n2,1.5,b\n3,,c\n")
    out.append(f"exists={g.exists(csv)} isdir={g.isdir(data)} size={g.stat(csv).length}")
    out.append(f"listdir={sorted(g.listdir(data))} glob={[os.path.basename(p) for p in g.glob(data + '/raw/*.csv')]}")
    with g.GFile(csv) as f:
        lines = f.read().splitlines()
    ids, xs, names = m.io.decode_csv(lines, [[0], [-1.0], [""]])
    out.append(f"ids={ids.numpy().tolist()} xs={xs.numpy().tolist()} names={names.numpy().tolist()}")
    out.append("bad field: " + _err(lambda: m.io.decode_csv(["x,1.0,a"], [[0], [0.0], [""]])))
    out.append("missing required: " + _err(lambda: m.io.decode_csv(["1,,a"], [[0], [], [""]])))
    rec = os.path.join(data, "out", "points.tfrecord")
    with m.io.TFRecordWriter(rec) as w:
        for i, name in zip(ids.numpy().tolist(), names.numpy().tolist()):
            w.write(b"%d:" % i + name)
    out.append(str([r.numpy() for r in m.data.TFRecordDataset(rec)]))
    g.copy(rec, rec + ".bak")
    out.append("copy onto existing: " + _err(lambda: g.copy(rec, rec + ".bak")))
    g.copy(rec, rec + ".bak", overwrite=True)
    g.rename(rec + ".bak", os.path.join(data, "out", "backup.tfrecord"))
    walked = [(os.path.relpath(top, root), sorted(dirs), sorted(files))
              for top, dirs, files in g.walk(data)]
    out.append(str(sorted(walked)))
    for what, fn in (("remove missing", lambda: g.remove(csv + ".nope")),
                     ("remove directory", lambda: g.remove(os.path.join(data, "raw"))),
                     ("rmtree missing", lambda: g.rmtree(os.path.join(data, "nope"))),
                     ("rename missing", lambda: g.rename(csv + ".nope", csv + ".x")),
                     ("mkdir without parent", lambda: g.mkdir(os.path.join(data, "a", "b"))),
                     ("listdir of a file", lambda: g.listdir(csv)),
                     ("stat missing", lambda: g.stat(csv + ".nope"))):
        out.append(f"{what}: {_err(fn)}")
    g.rmtree(data)
    out.append(f"after rmtree: {g.exists(data)}")
    return out


def test_file_program_matches_tf(tmp_path):
    tf_real = real_tf()
    (tmp_path / "tf").mkdir()
    (tmp_path / "tfl").mkdir()
    expected = file_program(tf_real, str(tmp_path / "tf"))
    got = file_program(tf, str(tmp_path / "tfl"))
    assert got == expected
