"""tf.strings ops that return (or take) RaggedTensors, against real TensorFlow."""

from __future__ import annotations

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

X = ["a b", "", "c  d e"]

CASES = {
    "split": lambda t: t.strings.split(X),
    "split_2d": lambda t: t.strings.split([["a b"], ["c"]]),
    "split_sep": lambda t: t.strings.split(X, sep=" "),
    "split_maxsplit": lambda t: t.strings.split(["a,b,c", "d"], sep=",", maxsplit=1),
    "split_ragged": lambda t: t.strings.split(t.strings.split(["a-b c", "d"]), sep="-"),
    "split_one_empty": lambda t: t.strings.split([""]),
    "bytes_split": lambda t: t.strings.bytes_split(["ab", "c"]),
    "unicode_split": lambda t: t.strings.unicode_split(["hé", "x"], "UTF-8"),
    "unicode_decode": lambda t: t.strings.unicode_decode(["hé€", "x", ""], "UTF-8"),
    "unicode_decode_2d": lambda t: t.strings.unicode_decode([["hé"], ["x"]], "UTF-8"),
    "unicode_decode_offsets": lambda t: list(t.strings.unicode_decode_with_offsets(
        ["hé", "x"], "UTF-8")),
    "unicode_split_offsets": lambda t: list(t.strings.unicode_split_with_offsets(
        ["hé", "x"], "UTF-8")),
    "unicode_encode_ragged": lambda t: t.strings.unicode_encode(
        t.strings.unicode_decode(["hé", "x"], "UTF-8"), "UTF-8"),
    "ngrams": lambda t: t.strings.ngrams(t.strings.split(["a b c", "d", "e f"]), 2),
    "ngrams_pad": lambda t: t.strings.ngrams(t.strings.split(["a b c", "d"]), 2,
                                             pad_values="#"),
    "ngrams_widths": lambda t: t.strings.ngrams(t.strings.split(["a b c", "d"]), (1, 2)),
    "reduce_join": lambda t: t.strings.reduce_join(t.strings.split(X), axis=1, separator="|"),
    "reduce_join_neg": lambda t: t.strings.reduce_join(t.strings.split(X), axis=-1),
    "reduce_join_2d": lambda t: t.strings.reduce_join(t.strings.split([["a b"], ["c"]]),
                                                      axis=-1),
    "hash_fast": lambda t: t.strings.to_hash_bucket_fast(t.strings.split(X), 1024),
    "hash": lambda t: t.strings.to_hash_bucket(t.strings.split(X), 1024),
    "hash_strong": lambda t: t.strings.to_hash_bucket_strong(t.strings.split(X), 1024, [1, 2]),
    "join": lambda t: t.strings.join([t.strings.split(X), t.strings.split(X)], separator="+"),
    "length": lambda t: t.strings.length(t.strings.split(X)),
    "upper": lambda t: t.strings.upper(t.strings.split(X)),
    "regex_replace": lambda t: t.strings.regex_replace(t.strings.split(X), "[ae]", "_"),
    "to_number": lambda t: t.strings.to_number(t.ragged.constant([["1.5", "2"], []])),
    "substr": lambda t: t.strings.substr(t.strings.split(["abc de", "fgh"]), 0, 2),
}


def _norm(x):
    if isinstance(x, list):
        return [_norm(v) for v in x]
    if hasattr(x, "ragged_rank"):
        return ("ragged", x.to_list(), x.dtype.name, x.shape.as_list(), x.ragged_rank)
    return ("dense", x.numpy().tolist(), x.dtype.name, x.shape.as_list())


@pytest.mark.compat
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_tf(name):
    assert _norm(CASES[name](tf)) == _norm(CASES[name](real_tf()))


def test_split_result_feeds_ragged_ops():
    rt = tf.strings.split(["the cat sat", "a dog"])
    lengths = rt.row_lengths()
    assert lengths.numpy().tolist() == [3, 2]
    assert tf.strings.length(rt.flat_values).numpy().tolist() == [3, 3, 3, 1, 3]
    assert rt.to_tensor().numpy().tolist() == [[b"the", b"cat", b"sat"], [b"a", b"dog", b""]]
