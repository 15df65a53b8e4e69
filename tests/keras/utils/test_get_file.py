"""get_file: local files and file:// URLs with TF's cache, hash and extract rules."""

from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


@pytest.fixture
def payload(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    data = src / "data.txt"
    data.write_text("hello torchflow\n")
    with tarfile.open(src / "arch.tar.gz", "w:gz") as t:
        t.add(data, arcname="folder/data.txt")
    with zipfile.ZipFile(src / "arch.zip", "w") as z:
        z.write(data, arcname="zfolder/data.txt")
    return src


def _both(**kwargs):
    """Runs get_file under torchflow and real TF, each in its own cache dir."""
    cache = kwargs.pop("cache")
    # An existing cache_dir: TF 2.4 falls back to /tmp/.keras for one it cannot write.
    (cache / "ours").mkdir(exist_ok=True)
    (cache / "tf").mkdir(exist_ok=True)
    ours = tf.keras.utils.get_file(cache_dir=str(cache / "ours"), **kwargs)
    theirs = real_tf().keras.utils.get_file(cache_dir=str(cache / "tf"), **kwargs)
    return ours, theirs


def test_file_url_lands_in_cache_subdir_like_tf(payload, tmp_path):
    origin = (payload / "data.txt").as_uri()
    ours, theirs = _both(fname="d.txt", origin=origin, cache_subdir="sub", cache=tmp_path)
    assert os.path.relpath(ours, tmp_path / "ours") == os.path.relpath(theirs, tmp_path / "tf")
    assert os.path.relpath(ours, tmp_path / "ours") == os.path.join("sub", "d.txt")
    with open(ours) as f:
        assert f.read() == "hello torchflow\n"
    # Cached: a second call with a dead origin does not fetch.
    again = tf.keras.utils.get_file("d.txt", "file:///no/such/file", cache_subdir="sub",
                                    cache_dir=str(tmp_path / "ours"))
    assert again == ours


def test_absolute_existing_fname_is_returned(payload, tmp_path):
    path = str(payload / "data.txt")
    assert tf.keras.utils.get_file(path, "file:///no/such/file",
                                   cache_dir=str(tmp_path)) == path


@pytest.mark.parametrize("name, kind", [("arch.tar.gz", "tar"), ("arch.zip", "zip")])
def test_extract_like_tf(payload, tmp_path, name, kind):
    origin = (payload / name).as_uri()
    ours, theirs = _both(fname=name, origin=origin, extract=True, cache=tmp_path)
    inner = "folder" if kind == "tar" else "zfolder"
    for got in (ours, theirs):
        assert os.path.exists(os.path.join(os.path.dirname(got), inner, "data.txt"))
    assert os.path.basename(ours) == name


def test_untar_returns_the_folder(payload, tmp_path):
    origin = (payload / "arch.tar.gz").as_uri()
    got = tf.keras.utils.get_file("arch", origin, untar=True, cache_dir=str(tmp_path))
    assert got == os.path.join(str(tmp_path), "datasets", "arch")
    assert os.path.exists(os.path.join(os.path.dirname(got), "folder", "data.txt"))


def test_hashes_checked_and_stale_file_refetched(payload, tmp_path, capsys):
    origin = (payload / "data.txt").as_uri()
    content = (payload / "data.txt").read_bytes()
    sha, md5 = hashlib.sha256(content).hexdigest(), hashlib.md5(content).hexdigest()
    got = tf.keras.utils.get_file("h.txt", origin, file_hash=sha, cache_dir=str(tmp_path))
    assert tf.keras.utils.get_file("h.txt", origin, md5_hash=md5, cache_dir=str(tmp_path)) == got
    with open(got, "w") as f:
        f.write("stale")
    tf.keras.utils.get_file("h.txt", origin, file_hash=sha, cache_dir=str(tmp_path))
    assert "file hash does not match the original value" in capsys.readouterr().out
    with open(got, "rb") as f:
        assert f.read() == content
    with pytest.raises(ValueError, match="Incomplete or corrupted file"):
        tf.keras.utils.get_file("h2.txt", origin, file_hash="0" * 64, cache_dir=str(tmp_path))


def test_unfetchable_url_raises_tfs_exception(tmp_path):
    origin = "file:///no/such/dir/x.bin"
    (tmp_path / "tf").mkdir()
    (tmp_path / "ours").mkdir()
    with pytest.raises(Exception) as theirs:
        real_tf().keras.utils.get_file("x.bin", origin, cache_dir=str(tmp_path / "tf"))
    with pytest.raises(Exception) as ours:
        tf.keras.utils.get_file("x.bin", origin, cache_dir=str(tmp_path / "ours"))
    assert type(ours.value) is type(theirs.value) is Exception
    assert str(ours.value) == str(theirs.value)
    assert str(ours.value).startswith("URL fetch failure on file:///no/such/dir/x.bin: ")
    assert not os.path.exists(tmp_path / "ours" / "datasets" / "x.bin")
