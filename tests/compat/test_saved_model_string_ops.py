"""String ops in SavedModels (issue 15's audit): torchflow computes ``tf.strings`` in
NumPy, so a saved graph must never hold the trace's result as a constant. Each
function takes a fixed-shape string argument (so no shape check can catch a baked
value); saved by torchflow it is either refused (``UnimplementedError``) or it
serves, in real TF and in torchflow, TF's values for inputs the trace never saw.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import op_graph
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

WORDS = ["Hello World ", "  ab,cd ", "naïve x"]


def _cases(lib):
    s = lib.strings
    return {
        "length": lambda x: s.length(x),
        "length_utf8": lambda x: s.length(x, unit="UTF8_CHAR"),
        "lower": lambda x: s.lower(x),
        "upper": lambda x: s.upper(x),
        "strip": lambda x: s.strip(x),
        "join": lambda x: s.join([x, "-", x], separator="|"),
        "reduce_join": lambda x: s.reduce_join(x, separator="+"),
        "reduce_join_axis": lambda x: s.reduce_join(lib.reshape(x, [3, 1]), axis=1),
        "substr": lambda x: s.substr(x, 1, 3),
        "regex_full_match": lambda x: s.regex_full_match(x, ".*o.*"),
        "regex_replace": lambda x: s.regex_replace(x, "[aeiou]", "_"),
        "regex_replace_first": lambda x: s.regex_replace(x, "l", "L", replace_global=False),
        "to_number": lambda x: s.to_number(s.substr(s.as_string(s.length(x)), 0, 1)),
        "as_string": lambda x: s.as_string(s.length(x), width=4, fill="0"),
        "split_lengths": lambda x: s.split(x).row_lengths(),
        "split_ragged_upper": lambda x: s.upper(s.split(x)).to_tensor(),
        "split_ragged_length": lambda x: s.length(s.split(x)).to_tensor(),
        "hash": lambda x: s.to_hash_bucket_fast(x, 7),
        "bytes_split": lambda x: s.bytes_split(x).to_tensor(),
        "unicode_split": lambda x: s.unicode_split(x, "UTF-8").to_tensor(),
        "unicode_decode": lambda x: s.unicode_decode(x, "UTF-8").to_tensor(),
        "unicode_encode": lambda x: s.unicode_encode(s.unicode_decode(x, "UTF-8"), "UTF-8"),
        "unicode_transcode": lambda x: s.unicode_transcode(x, "UTF-8", "UTF-16-BE"),
        "ngrams": lambda x: s.ngrams(s.split(x), 2).to_tensor(),
        "format": lambda x: s.format("{}", [x]),
        "segment_join": lambda x: s.unsorted_segment_join(x, [1, 0, 1], 2),
        "reduce_join_ragged": lambda x: s.reduce_join(s.split(x), axis=1),
        "unicode_decode_offsets": lambda x: lib.concat([
            lib.cast(r.to_tensor(), lib.int64) for r in
            s.unicode_decode_with_offsets(x, "UTF-8")], axis=1),
        "unicode_split_offsets": lambda x: s.unicode_split_with_offsets(x, "UTF-8")[1]
        .to_tensor(),
        "unicode_split_chars": lambda x: s.unicode_split_with_offsets(x, "UTF-8")[0]
        .to_tensor(),
        "unicode_decode_strict": lambda x: s.unicode_decode(
            x, "UTF-8", errors="strict", replace_control_characters=True).row_lengths(),
        "unicode_encode_utf16": lambda x: s.unicode_encode(
            s.unicode_decode(x, "UTF-8"), "UTF-16-BE"),
        "unicode_transcode_ragged": lambda x: s.unicode_transcode(
            s.split(x), "UTF-8", "UTF-32-BE").to_tensor(),
        "format_several": lambda x: s.format("[{}] has {} ({})", [
            x, s.length(x), lib.constant([[1.5, 2.0]])], summarize=2),
        "format_placeholder": lambda x: s.format("<%>", s.length(x), placeholder="%"),
        "segment_join_ids": lambda x: s.unsorted_segment_join(
            x, lib.math.floormod(s.length(x), 2), 3, separator="/"),
        "fingerprint": lambda x: s.to_hash_bucket_fast(
            s.as_string(lib.cast(lib.fingerprint(x), lib.int32)), 1000),
        "fingerprint_raw": lambda x: lib.fingerprint(x),
        "unicode_script": lambda x: s.unicode_script(s.unicode_decode(x, "UTF-8").flat_values),
    }


# What torchflow still refuses to write (no lowering yet): every other case must save.
REFUSED = {"bytes_split", "reduce_join_ragged"}


@pytest.mark.parametrize("name", sorted(_cases(tf)))
def test_string_op_is_lowered_or_refused_never_baked(name, tmp_path):
    rtf = real_tf()
    fn, rfn = _cases(tf)[name], _cases(rtf)[name]
    m = tf.Module()
    m.f = tf.function(fn, input_signature=[tf.TensorSpec([3], tf.string)])
    try:
        tf.saved_model.save(m, str(tmp_path))
    except tf.errors.UnimplementedError as e:
        assert "Unlowered" in str(e) or "no TensorFlow op" in str(e)
        assert name in REFUSED, f"{name} is refused: {e}"
        return
    assert name not in REFUSED, f"{name} now saves: take it off REFUSED"
    x = rtf.constant(WORDS)
    want = rfn(x).numpy()
    np.testing.assert_array_equal(rtf.saved_model.load(str(tmp_path)).f(x).numpy(), want)
    np.testing.assert_array_equal(
        np.asarray(tf.saved_model.load(str(tmp_path)).f(tf.constant(WORDS))), want)


def test_every_tf_strings_op_has_a_lowering():
    """A new tf.strings op without a lowering would be baked: each public one must
    have one (a TF op, or a refusal)."""
    missing = [n for n in dir(tf.strings) if not n.startswith("_") and
               callable(getattr(tf.strings, n)) and
               not op_graph.is_registered(getattr(tf.strings, n))]
    assert missing == []


TF_WRITTEN = ("unicode_decode", "unicode_decode_offsets", "unicode_split",
              "unicode_split_offsets", "unicode_encode", "unicode_encode_utf16",
              "unicode_transcode", "format", "format_several", "format_placeholder",
              "segment_join", "segment_join_ids", "fingerprint_raw", "unicode_script")


@pytest.mark.parametrize("name", TF_WRITTEN)
def test_tf_written_string_graph_runs_in_torchflow(name, tmp_path):
    """The other way: real TF's SavedModel of the op (its own graph of UnicodeDecode,
    UnicodeEncode, StringFormat, UnsortedSegmentJoin, Fingerprint, ...) loads in
    torchflow and serves TF's values."""
    rtf = real_tf()
    m = rtf.Module()
    m.f = rtf.function(_cases(rtf)[name], input_signature=[rtf.TensorSpec([3], rtf.string)])
    rtf.saved_model.save(m, str(tmp_path))
    other = ["¿Qué?", "", "a\tb\"c"]
    for words in (WORDS, other):
        want = m.f(rtf.constant(words)).numpy()
        got = tf.saved_model.load(str(tmp_path)).f(tf.constant(words))
        np.testing.assert_array_equal(np.asarray(got), want)
