"""``categorical_column_with_vocabulary_file`` (and its sequence twin) against
real TF: ids from a file's lines, a truncated ``vocabulary_size``, OOV buckets
(Fingerprint64 of the value), default values and integer vocabularies."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


@pytest.fixture()
def files(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("fixed\nnormal\nreversible\nother\n")
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("10\n20\n30\n")
    return str(words), str(numbers)


CASES = {
    "all_lines": lambda fc, m, w, n: fc.categorical_column_with_vocabulary_file("t", w),
    "truncated_oov": lambda fc, m, w, n: fc.categorical_column_with_vocabulary_file(
        "t", w, vocabulary_size=2, num_oov_buckets=3),
    "default_value": lambda fc, m, w, n: fc.categorical_column_with_vocabulary_file(
        "t", w, vocabulary_size=3, default_value=0),
    "integers_oov": lambda fc, m, w, n: fc.categorical_column_with_vocabulary_file(
        "k", n, dtype=m.int64, num_oov_buckets=2),
}


def _run(m, case, w, n):
    col = CASES[case](m.feature_column, m, w, n)
    feats = {"t": m.constant([["normal"], ["zz"], ["other"], ["fixed"]]),
             "k": m.constant([[20], [99], [-5], [10]], dtype=m.int64)}
    out = m.keras.layers.DenseFeatures([m.feature_column.indicator_column(col)])(feats)
    return repr(col), col.num_buckets, out.numpy()


@pytest.mark.parametrize("case", sorted(CASES))
def test_vocabulary_file_column_matches_tf(case, files):
    ours, theirs = _run(torchflow, case, *files), _run(real_tf(), case, *files)
    assert ours[:2] == theirs[:2]
    np.testing.assert_array_equal(ours[2], theirs[2])


def test_sequence_vocabulary_file_embedding_matches_tf(files):
    def run(m):
        fc = m.feature_column
        col = fc.embedding_column(fc.sequence_categorical_column_with_vocabulary_file(
            "t", files[0], num_oov_buckets=1), 2)
        layer = m.keras.experimental.SequenceFeatures([col])
        feats = {"t": m.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                            m.constant(["other", "zz", "fixed"]), [2, 2])}
        layer(feats)
        layer.set_weights([np.arange(10, dtype="float32").reshape(5, 2)])
        seq, length = layer(feats)
        return seq.numpy(), length.numpy()

    ours, theirs = run(torchflow), run(real_tf())
    np.testing.assert_allclose(ours[0], theirs[0])
    assert ours[1].tolist() == theirs[1].tolist()
