"""tf.strings against real TensorFlow: values, dtypes and error types."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tfl
from torchflow._src.ops import string_ops
from torchflow._src.testing import real_tf

WORDS = ["Hello World", "  ab c ", "", "héllo", "A,B,,C", "x" * 70]


def _c(m, v, dtype=None):
    return m.constant(v) if dtype is None else m.constant(v, dtype=getattr(m, dtype))


# (name, function of the module m returning a tensor)
_CASES = [
    ("length", lambda m: m.strings.length(_c(m, WORDS))),
    ("length_utf8", lambda m: m.strings.length(_c(m, WORDS), unit="UTF8_CHAR")),
    ("lower", lambda m: m.strings.lower(["HÉllo ABC", "x"])),
    ("lower_utf8", lambda m: m.strings.lower(["HÉllo ABC"], encoding="utf-8")),
    ("upper", lambda m: m.strings.upper([["aé", "b"], ["c", "Dd"]])),
    ("strip", lambda m: m.strings.strip(["  a b \n", "\tc", ""])),
    ("join", lambda m: m.strings.join(["a", ["b", "c"], ["d", "e"]], separator="+")),
    ("join_nosep", lambda m: m.strings.join([["a", "b"], ["c", "d"]])),
    ("reduce_join_all", lambda m: m.strings.reduce_join([["a", "b"], ["c", "d"]])),
    ("reduce_join_ax1", lambda m: m.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1,
                                                        separator="-")),
    ("reduce_join_ax0_keep", lambda m: m.strings.reduce_join([["a", "b"], ["c", "d"]], axis=0,
                                                             keepdims=True)),
    ("reduce_join_neg", lambda m: m.strings.reduce_join([[["a", "b"]], [["c", "d"]]],
                                                        axis=-1, separator=",")),
    ("reduce_join_multi", lambda m: m.strings.reduce_join([[["a", "b"]], [["c", "d"]]],
                                                          axis=[0, 2])),
    ("reduce_join_multi_rev", lambda m: m.strings.reduce_join([[["a", "b"]], [["c", "d"]]],
                                                              axis=[2, 0], separator=".")),
    ("split_scalar", lambda m: m.strings.split("a  b c")),
    ("split_sep", lambda m: m.strings.split("a,,b", sep=",")),
    ("split_max", lambda m: m.strings.split("a,b,c", sep=",", maxsplit=1)),
    ("to_number", lambda m: m.strings.to_number(["1.5", "-2", "1e3", " 4"])),
    ("to_number_edge", lambda m: m.strings.to_number(["0x10", "1e39", "+3", "-inf", "Infinity",
                                                      "1.", ".5"])),
    ("to_number_f64", lambda m: m.strings.to_number(["inf", "0.1"], out_type=m.float64)),
    ("to_number_i32", lambda m: m.strings.to_number(["15", "-7", " 3 "], out_type=m.int32)),
    ("to_number_i64", lambda m: m.strings.to_number(["9999999999"], out_type=m.int64)),
    ("as_string_f", lambda m: m.strings.as_string(_c(m, [3.5, 1e10, -2.25]))),
    ("as_string_sci", lambda m: m.strings.as_string(_c(m, [3.5, 1e10]), scientific=True)),
    ("as_string_short", lambda m: m.strings.as_string(_c(m, [3.5, 1e10, 0.1]), shortest=True)),
    ("as_string_prec", lambda m: m.strings.as_string(_c(m, [3.14159]), precision=2, width=8,
                                                     fill="0")),
    ("as_string_int_w", lambda m: m.strings.as_string(_c(m, [3, -4]), width=5)),
    ("as_string_int_0", lambda m: m.strings.as_string(_c(m, [3, -4]), width=5, fill="0")),
    ("as_string_i64", lambda m: m.strings.as_string(_c(m, [2**40], "int64"))),
    ("as_string_bool", lambda m: m.strings.as_string(_c(m, [True, False]))),
    ("as_string_cplx", lambda m: m.strings.as_string(_c(m, [1 + 2j]))),
    ("as_string_f64", lambda m: m.strings.as_string(_c(m, [1 / 3], "float64"), precision=10)),
    ("format_1d", lambda m: m.strings.format("x={}", _c(m, [1, 2, 3, 4, 5, 6, 7]))),
    ("format_2d", lambda m: m.strings.format("{} and {}", (_c(m, [[1.5, 2.0], [3.0, 4.25]]),
                                                           _c(m, 7)))),
    ("format_3d", lambda m: m.strings.format("{}", _c(m, np.arange(24).reshape(2, 3, 4)),
                                             summarize=1)),
    ("format_str", lambda m: m.strings.format("s={}", _c(m, ["ab", "c"]))),
    ("format_bool", lambda m: m.strings.format("{}", _c(m, [True, False]))),
    ("format_float", lambda m: m.strings.format("{}", _c(m, [0.1, 1e10, 1e-7, 2.5e-3]))),
    ("format_all", lambda m: m.strings.format("{}", _c(m, list(range(10))), summarize=-1)),
    ("format_ph", lambda m: m.strings.format("a%b", _c(m, 1), placeholder="%")),
    # TF's UTF-8-safe C escaping of string elements (a Python repr escaped the UTF-8).
    ("format_escapes", lambda m: m.strings.format("{}", _c(m, [
        "naïve 日本", "q\"u'o\\te", "l\nt\tr\r", b"\x01\x7f\xff\x80"]))),
    ("constant_mixed_bytes_str", lambda m: _c(m, [[b"na\xc3\xafve", "x"], ["日本", b"\xff"]])),
    ("regex_full", lambda m: m.strings.regex_full_match(["abc", "ab", "aXc"], "a.c")),
    ("regex_full_cls", lambda m: m.strings.regex_full_match(["a1", "b22", "c"], r"[a-z]\d+")),
    ("regex_replace", lambda m: m.strings.regex_replace(["aaa bb", "cab"], "a+", "X")),
    ("regex_replace_grp", lambda m: m.strings.regex_replace("aaa bb", "(a)(a)", r"\2x\1",
                                                            replace_global=False)),
    ("regex_posix", lambda m: m.strings.regex_replace(["Hi, there! 42_x"], "[[:punct:]]", "")),
    ("regex_posix2", lambda m: m.strings.regex_replace(["Hi, there! 42\tx"],
                                                       "[^[:alpha:][:space:]]+", "#")),
    ("regex_0", lambda m: m.strings.regex_replace("aaa bb", "a+", r"<\0>")),
    ("substr", lambda m: m.strings.substr("hello", -3, 2)),
    ("substr_neg_len", lambda m: m.strings.substr("hello", 1, -1)),
    ("regex_full_scalar", lambda m: m.strings.regex_full_match("", "")),
    ("length_scalar", lambda m: m.strings.length("abc")),
    ("regex_replace_empty", lambda m: m.strings.regex_replace(["aaa", "abc"], "a*", "-")),
    ("regex_replace_empty2", lambda m: m.strings.regex_replace("abc", "", "-")),
    ("unicode_encode_empty", lambda m: m.strings.unicode_encode(_c(m, [], "int32"), "UTF-8")),
    ("substr_end", lambda m: m.strings.substr("hello", 5, 2)),
    ("substr_vec", lambda m: m.strings.substr(["hello", "abc"], [1, 2], [10, 1])),
    ("substr_utf8", lambda m: m.strings.substr("héllo", 1, 2, unit="UTF8_CHAR")),
    ("bytes_split", lambda m: m.strings.bytes_split("hé")),
    ("unicode_decode", lambda m: m.strings.unicode_decode("héllo€", "UTF-8")),
    ("hash_fast", lambda m: m.strings.to_hash_bucket_fast(_c(m, WORDS + ["y" * 40, "z" * 20]),
                                                          1000)),
    ("hash_fast_big", lambda m: m.strings.to_hash_bucket_fast(_c(m, WORDS), 2**62)),
    ("hash_strong", lambda m: m.strings.to_hash_bucket_strong(_c(m, WORDS), 2**40, [7, 11])),
    ("equal", lambda m: m.equal(_c(m, ["a", "b"]), "a")),
    ("not_equal", lambda m: m.not_equal(_c(m, [["a"], ["b"]]), _c(m, ["a", "b"]))),
]


@pytest.mark.parametrize("name,fn", _CASES, ids=[c[0] for c in _CASES])
def test_like_tf(name, fn):
    theirs = fn(real_tf())
    ours = fn(tfl)
    assert ours.dtype.name == theirs.dtype.name
    a, b = ours.numpy(), theirs.numpy()
    assert np.shape(a) == np.shape(b)
    if np.asarray(b).dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-6)
    else:
        assert np.asarray(a).tolist() == np.asarray(b).tolist()


def test_split_ragged_rows_match_tf():
    x = ["a b", "", "c  d e"]
    theirs = real_tf().strings.split(x)
    ours = tfl.strings.split(x)
    assert isinstance(ours, tfl.RaggedTensor) and ours.dtype == tfl.string
    assert ours.to_list() == theirs.to_list() and repr(ours) == repr(theirs)
    nested = tfl.strings.split([["a b"], ["c"]])
    assert nested.to_list() == [[[b"a", b"b"]], [[b"c"]]] and nested.ragged_rank == 2
    dec = tfl.strings.unicode_decode(["hé", "x"], "UTF-8")
    assert dec.to_list() == real_tf().strings.unicode_decode(["hé", "x"], "UTF-8").to_list()
    assert dec.dtype == tfl.int32


_BAD = [
    ("to_number_bad", lambda m: m.strings.to_number(["1.5x"])),
    ("to_number_underscore", lambda m: m.strings.to_number(["1_0"])),
    ("to_number_empty", lambda m: m.strings.to_number([""])),
    ("to_number_int_hex", lambda m: m.strings.to_number(["0x10"], out_type=m.int32)),
    ("to_number_int_frac", lambda m: m.strings.to_number(["1.5"], out_type=m.int32)),
    ("to_number_overflow", lambda m: m.strings.to_number(["99999999999"], out_type=m.int32)),
    ("substr_range", lambda m: m.strings.substr("hello", 7, 2)),
    ("substr_shapes", lambda m: m.strings.substr(["hello", "abc"], [1, 2], 10)),
    ("as_string_prec_int", lambda m: m.strings.as_string(_c(m, [3]), precision=2)),
    ("as_string_fill", lambda m: m.strings.as_string(_c(m, [3]), fill="ab")),
    ("regex_bad", lambda m: m.strings.regex_full_match(["abc"], "(a")),
    ("format_count", lambda m: m.strings.format("{} {}", _c(m, 1))),
    ("join_shapes", lambda m: m.strings.join([["a", "b"], [["c", "d"]]])),
    ("reduce_join_dup", lambda m: m.strings.reduce_join([["a", "b"]], axis=[1, 1])),
    ("reduce_join_axis", lambda m: m.strings.reduce_join([["a", "b"]], axis=2)),
    ("length_unit", lambda m: m.strings.length("abc", unit="CHAR")),
    ("length_int", lambda m: m.strings.length(5)),
    ("length_tensor_int", lambda m: m.strings.length(_c(m, [5]))),
]


@pytest.mark.parametrize("name,fn", _BAD, ids=[c[0] for c in _BAD])
def test_errors_like_tf(name, fn):
    with pytest.raises(Exception) as theirs:
        fn(real_tf())
    with pytest.raises(Exception) as ours:
        fn(tfl)
    assert type(ours.value).__name__ == type(theirs.value).__name__, str(ours.value)


def test_string_equal_helper_for_math_dispatch():
    eq = string_ops.equal(tfl.constant([["a", "b"]]), tfl.constant([["a"], ["b"]]))
    assert eq.dtype == tfl.bool
    assert eq.numpy().tolist() == [[True, False], [False, True]]
    assert string_ops.not_equal("x", ["x", "y"]).numpy().tolist() == [False, True]


_MORE = [
    ("to_hash_bucket", lambda m: m.strings.to_hash_bucket(_c(m, WORDS + ["y" * 15]), 2**62)),
    ("unicode_encode", lambda m: m.strings.unicode_encode(_c(m, [104, 233, 8364]), "UTF-8")),
    ("unicode_encode_2d", lambda m: m.strings.unicode_encode(_c(m, [[104, 233], [65, 66]]),
                                                             "UTF-8")),
    ("unicode_encode_bad", lambda m: m.strings.unicode_encode(_c(m, [104, 0x110000]), "UTF-8")),
    ("unicode_encode_16", lambda m: m.strings.unicode_encode(_c(m, [104, 233]), "UTF-16-BE")),
    ("transcode", lambda m: m.strings.unicode_transcode(["héllo", "x"], "UTF-8", "UTF-16-BE")),
    ("transcode_bad", lambda m: m.strings.unicode_transcode([b"h\xe9"], "UTF-8", "UTF-8")),
    ("unicode_split", lambda m: m.strings.unicode_split("héllo", "UTF-8")),
    ("decode_offsets", lambda m: m.strings.unicode_decode_with_offsets("h€llo", "UTF-8")[1]),
    ("segment_join", lambda m: m.strings.unsorted_segment_join(["a", "b", "c", "d"],
                                                               [0, 1, 0, 3], 4, separator="-")),
    ("segment_join_2d", lambda m: m.strings.unsorted_segment_join([["a", "b"], ["c", "d"]],
                                                                  [1, 0], 2)),
    ("ngrams", lambda m: m.strings.ngrams(["a", "b", "c", "d"], 2)),
    ("ngrams_2d", lambda m: m.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2,
                                             separator="_")),
    ("ngrams_pad", lambda m: m.strings.ngrams(["a", "b", "c"], 2, pad_values=("<s>", "</s>"))),
    ("ngrams_padw", lambda m: m.strings.ngrams(["a", "b", "c"], 3, pad_values="#",
                                               padding_width=1)),
    ("ngrams_short", lambda m: m.strings.ngrams(["a", "b"], 3)),
    ("ngrams_keep", lambda m: m.strings.ngrams(["a", "b"], 3, preserve_short_sequences=True)),
    ("ngrams_multi", lambda m: m.strings.ngrams(["a", "b", "c"], (1, 2))),
]


@pytest.mark.parametrize("name,fn", _MORE, ids=[c[0] for c in _MORE])
def test_more_like_tf(name, fn):
    test_like_tf(name, fn)


def test_unicode_ragged_rows_match_tf():
    tf = real_tf()
    x = ["hé€", "", "ab"]
    cps, offs = tfl.strings.unicode_decode_with_offsets(x, "UTF-8")
    tcps, toffs = tf.strings.unicode_decode_with_offsets(x, "UTF-8")
    assert [r.numpy().tolist() for r in cps] == tcps.to_list()
    assert [r.numpy().tolist() for r in offs] == toffs.to_list()
    assert [r.numpy().tolist() for r in tfl.strings.unicode_split(x, "UTF-8")] == \
        tf.strings.unicode_split(x, "UTF-8").to_list()
    assert tfl.strings.unicode_encode(cps, "UTF-8").numpy().tolist() == \
        tf.strings.unicode_encode(tcps, "UTF-8").numpy().tolist()


@pytest.mark.parametrize("value,dtype", [
    ([1, 2, 3], "int32"), ([[1, 2], [3, 4]], "int64"), (["abc", "d"], None),
    ([["abc", "d"], ["x", "y"]], None), ([[1.5]], "float32"), ([[True, False]], "bool"),
    ([["a"], ["b"]], None),
])
def test_fingerprint_like_tf(value, dtype):
    theirs = real_tf().fingerprint(_c(real_tf(), value, dtype))
    ours = tfl.fingerprint(_c(tfl, value, dtype))
    assert ours.dtype == tfl.uint8
    assert ours.numpy().tolist() == theirs.numpy().tolist()


def test_fingerprint_errors_like_tf():
    for call in (lambda m: m.fingerprint(m.constant(1)),
                 lambda m: m.fingerprint(m.constant([1]), method="md5")):
        with pytest.raises(real_tf().errors.InvalidArgumentError):
            call(real_tf())
        with pytest.raises(tfl.errors.InvalidArgumentError):
            call(tfl)
