"""tf.keras.datasets loaders against real tf-keras reading the same files: each test
writes files in TF's cache layout and formats (``$HOME/.keras/datasets/<file>``: npz,
gzipped idx, the CIFAR pickles in TF's tarball) and both libraries load them through
their ``get_file``. Real datasets' hashes cannot be matched by test files, so for the
comparisons (only) both sides' ``validate_file`` accepts them; the unpatched tests show a
wrong-hash or missing file is fetched from TF's origin and, offline, fails with
get_file's error."""

import gzip
import io
import json
import os
import pickle
import tarfile

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.utils import data_utils
from torchflow._src.testing import real_tf

D = tf.keras.datasets
RNG = np.random.default_rng(0)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh ``~/.keras/datasets`` for both libraries."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KERAS_HOME", raising=False)
    root = tmp_path / ".keras" / "datasets"
    root.mkdir(parents=True)
    return root


@pytest.fixture
def accept_hashes(cache, monkeypatch):
    ref = real_tf()
    ref.keras.backend.image_data_format()  # tf-keras imported before patching
    import tf_keras.src.utils.data_utils as ref_utils
    monkeypatch.setattr(ref_utils, "validate_file", lambda *a, **k: True)
    monkeypatch.setattr(data_utils, "validate_file", lambda *a, **k: True)
    return cache


def _same(ours, theirs):
    assert type(ours) is type(theirs)
    if isinstance(ours, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert [list(x) for x in a.ravel()] == [list(x) for x in b.ravel()]
    else:
        np.testing.assert_array_equal(a, b)


def _seqs(n, vocab=40):
    return np.array([RNG.integers(1, vocab, size=int(RNG.integers(2, 12))).tolist()
                     for _ in range(n)] + [[1, 2, 3]], dtype=object)[:n]


def test_mnist(accept_hashes):
    np.savez(accept_hashes / "mnist.npz",
             x_train=RNG.integers(0, 256, (20, 28, 28), dtype=np.uint8),
             y_train=RNG.integers(0, 10, 20, dtype=np.uint8),
             x_test=RNG.integers(0, 256, (7, 28, 28), dtype=np.uint8),
             y_test=RNG.integers(0, 10, 7, dtype=np.uint8))
    _same(D.mnist.load_data(), real_tf().keras.datasets.mnist.load_data())


def test_fashion_mnist(accept_hashes):
    sub = accept_hashes / "fashion-mnist"
    sub.mkdir()
    for prefix, n in (("train", 12), ("t10k", 5)):
        labels = RNG.integers(0, 10, n, dtype=np.uint8)
        images = RNG.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        with gzip.open(sub / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(b"\x00\x00\x08\x01" + n.to_bytes(4, "big") + labels.tobytes())
        with gzip.open(sub / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(b"\x00\x00\x08\x03" + n.to_bytes(4, "big") + (28).to_bytes(4, "big") * 2
                    + images.tobytes())
    ours = D.fashion_mnist.load_data()
    _same(ours, real_tf().keras.datasets.fashion_mnist.load_data())
    assert ours[0][0].shape == (12, 28, 28)


def _tarball(path, folder, members):
    with tarfile.open(path, "w:gz", compresslevel=1) as tar:
        for name, obj in members.items():
            data = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_cifar10(accept_hashes):
    # TF reads five 10,000-image training batches into a fixed 50,000-image array.
    # (Repeated blocks of random images: they compress quickly.)
    members = {f"data_batch_{i}": {b"data": np.tile(RNG.integers(0, 256, (50, 3072),
                                                                 dtype=np.uint8), (200, 1)),
                                   b"labels": RNG.integers(0, 10, 10000).tolist()}
               for i in range(1, 6)}
    members["test_batch"] = {b"data": RNG.integers(0, 256, (30, 3072), dtype=np.uint8),
                             b"labels": RNG.integers(0, 10, 30).tolist()}
    _tarball(accept_hashes / "cifar-10-batches-py.tar.gz", "cifar-10-batches-py", members)
    ours = D.cifar10.load_data()
    assert (accept_hashes / "cifar-10-batches-py" / "test_batch").exists()  # extracted
    _same(ours, real_tf().keras.datasets.cifar10.load_data())
    assert ours[0][0].shape == (50000, 32, 32, 3) and ours[0][1].shape == (50000, 1)


@pytest.mark.parametrize("mode", ["fine", "coarse"])
def test_cifar100(accept_hashes, mode):
    members = {split: {b"data": RNG.integers(0, 256, (n, 3072), dtype=np.uint8),
                       b"fine_labels": RNG.integers(0, 100, n).tolist(),
                       b"coarse_labels": RNG.integers(0, 20, n).tolist()}
               for split, n in (("train", 25), ("test", 9))}
    _tarball(accept_hashes / "cifar-100-python.tar.gz", "cifar-100-python", members)
    _same(D.cifar100.load_data(mode), real_tf().keras.datasets.cifar100.load_data(mode))
    with pytest.raises(ValueError, match="`label_mode` must be one of"):
        D.cifar100.load_data("medium")


def test_cifar10_channels_first(accept_hashes):
    members = {f"data_batch_{i}": {b"data": np.full((2, 3072), i, np.uint8), b"labels": [i, 0]}
               for i in range(1, 6)}
    members["test_batch"] = {b"data": np.arange(3072, dtype=np.int64).astype(np.uint8)[None],
                             b"labels": [3]}
    _tarball(accept_hashes / "cifar-10-batches-py.tar.gz", "cifar-10-batches-py", members)
    tf.keras.backend.set_image_data_format("channels_first")
    try:
        (x, y), (xt, yt) = D.cifar10.load_data()
    finally:
        tf.keras.backend.set_image_data_format("channels_last")
    assert x.shape == (10, 3, 32, 32) and x.dtype == np.uint8
    np.testing.assert_array_equal(y[:, 0], [1, 0, 2, 0, 3, 0, 4, 0, 5, 0])
    np.testing.assert_array_equal(xt[0], np.arange(3072).astype(np.uint8).reshape(3, 32, 32))


IMDB_CASES = [{}, {"num_words": 20, "skip_top": 5}, {"maxlen": 8, "seed": 7},
              {"start_char": None, "oov_char": None, "num_words": 25, "index_from": 1},
              {"nb_words": 15}]


@pytest.mark.parametrize("kw", IMDB_CASES)
def test_imdb(accept_hashes, kw):
    np.savez(accept_hashes / "imdb.npz", x_train=_seqs(30), y_train=RNG.integers(0, 2, 30),
             x_test=_seqs(20), y_test=RNG.integers(0, 2, 20))
    _same(D.imdb.load_data(**kw), real_tf().keras.datasets.imdb.load_data(**kw))


@pytest.mark.parametrize("kw", IMDB_CASES + [{"test_split": 0.5}])
def test_reuters(accept_hashes, kw):
    np.savez(accept_hashes / "reuters.npz", x=_seqs(40), y=RNG.integers(0, 46, 40))
    _same(D.reuters.load_data(**kw), real_tf().keras.datasets.reuters.load_data(**kw))


def test_sequence_errors(accept_hashes):
    np.savez(accept_hashes / "imdb.npz", x_train=_seqs(5), y_train=np.zeros(5, int),
             x_test=_seqs(5), y_test=np.zeros(5, int))
    with pytest.raises(ValueError, match="no sequence was kept. Increase maxlen."):
        D.imdb.load_data(maxlen=2)
    with pytest.raises(TypeError, match="Unrecognized keyword arguments: {'foo': 1}"):
        D.imdb.load_data(foo=1)
    with pytest.raises(TypeError):
        real_tf().keras.datasets.imdb.load_data(foo=1)


def test_word_indexes(accept_hashes):
    (accept_hashes / "imdb_word_index.json").write_text(json.dumps({"the": 1, "movie": 2}))
    (accept_hashes / "reuters_word_index.json").write_text(json.dumps({"said": 1, "oil": 7}))
    ref = real_tf().keras.datasets
    assert D.imdb.get_word_index() == ref.imdb.get_word_index() == {"the": 1, "movie": 2}
    assert D.reuters.get_word_index() == ref.reuters.get_word_index()


@pytest.mark.parametrize("kw", [{}, {"test_split": 0.5, "seed": 3}])
def test_boston_housing(accept_hashes, kw):
    np.savez(accept_hashes / "boston_housing.npz", x=RNG.normal(size=(30, 13)),
             y=RNG.normal(size=30))
    _same(D.boston_housing.load_data(**kw), real_tf().keras.datasets.boston_housing.load_data(**kw))
    with pytest.raises(AssertionError):
        D.boston_housing.load_data(test_split=1.0)


def test_missing_file_gives_get_files_error_offline(cache):
    origin = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
    with pytest.raises(Exception, match="URL fetch failure on " + origin.replace(".", r"\.")):
        D.mnist.load_data()
    assert not os.path.exists(cache / "mnist.npz")  # a failed fetch leaves nothing behind
    with pytest.raises(Exception, match="URL fetch failure on"):
        real_tf().keras.datasets.mnist.load_data()


def test_wrong_hash_file_is_fetched_again(cache, capsys):
    np.savez(cache / "boston_housing.npz", x=np.zeros((3, 13)), y=np.zeros(3))
    with pytest.raises(Exception, match="URL fetch failure on https://storage.googleapis.com/"
                                        "tensorflow/tf-keras-datasets/boston_housing.npz"):
        D.boston_housing.load_data()
    assert "file hash does not match the original value of f553886a" in capsys.readouterr().out


def test_cache_dir_argument_of_later_tf_keras(accept_hashes, tmp_path):
    # tf-keras' cache_dir (TF 2.4 has none): <cache_dir>/datasets/<file>.
    root = tmp_path / "elsewhere"
    (root / "datasets").mkdir(parents=True)
    np.savez(root / "datasets" / "boston_housing.npz", x=RNG.normal(size=(10, 13)),
             y=RNG.normal(size=10))
    _same(D.boston_housing.load_data(cache_dir=str(root)),
          real_tf().keras.datasets.boston_housing.load_data(cache_dir=str(root)))
    assert not (accept_hashes / "boston_housing.npz").exists()
