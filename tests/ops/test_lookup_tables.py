"""``tf.lookup`` tables against real TensorFlow (2.21; where TF 2.4's messages differ,
2.4's are asserted and the test says so): eager, in ``tf.function`` (traced once,
replayed) and in ``tf.data`` map functions, with string and integer keys."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf

WHOLE, LINE = -2, -1


def _same(ours, theirs):
    assert_close(ours, theirs.numpy())
    assert ours.dtype.name == theirs.dtype.name


@pytest.fixture()
def files(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("emerson\nlake\npalmer\n")
    cols = tmp_path / "cols.csv"
    cols.write_text("a,10,x\nb,20,y\nc,30,z\n")
    return str(vocab), str(cols)


HASH_CASES = [  # keys, values, key dtype, value dtype, default, queries
    (["a", "b", "c"], [1, 2, 3], "string", "int64", -1, ["c", "q", "a", ""]),
    ([5, 7, 9], ["five", "seven", "nine"], "int64", "string", "?", [9, 1, 5]),
    ([5, 7], [1.5, 2.5], "int64", "float32", -1.0, [[5, 6], [7, 7]]),
    ([1, 2], [10, 20], "int32", "int32", 0, [2, 3]),
    (["x", "y"], ["X", "Y"], "string", "string", "-", [["y"], ["z"]]),
]


@pytest.mark.parametrize("keys,values,kd,vd,default,queries", HASH_CASES)
def test_static_hash_table_eager_and_function(keys, values, kd, vd, default, queries):
    rtf = real_tf()

    def build(m):
        init = m.lookup.KeyValueTensorInitializer(m.constant(keys, getattr(m, kd)),
                                                  m.constant(values, getattr(m, vd)))
        return m.lookup.StaticHashTable(init, default)

    ours, theirs = build(tf), build(rtf)
    q, rq = tf.constant(queries, getattr(tf, kd)), rtf.constant(queries, getattr(rtf, kd))
    _same(ours.lookup(q), theirs.lookup(rq))
    _same(ours[q], theirs[rq])
    _same(ours.size(), theirs.size())
    _same(ours.default_value, theirs.default_value)
    assert (ours.key_dtype.name, ours.value_dtype.name) == (kd, vd)
    k, v = ours.export()
    rk, rv = theirs.export()
    assert sorted(zip(k.numpy().tolist(), v.numpy().tolist())) == \
        sorted(zip(rk.numpy().tolist(), rv.numpy().tolist()))
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return ours.lookup(x)

    _same(f(q), theirs.lookup(rq))
    _same(f(q), theirs.lookup(rq))
    if kd != "string" and vd != "string":
        assert len(calls) == 1  # replayed: the lookup is a node of the recording


VOCAB_CASES = [  # vocabulary keys, key dtype, lookup_key_dtype, oov, queries
    (["emerson", "lake", "palmer"], "string", None, 5, ["palmer", "king", "crimson", ""]),
    ([5, 7, 11], "int64", None, 3, [5, 6, 7, 100, -4]),
    ([5, 7, 11], "int64", "int32", 4, [11, 12, 0]),
    (None, "string", None, 4, ["a", "b", "a"]),
]


@pytest.mark.parametrize("vocab,kd,lkd,oov,queries", VOCAB_CASES)
def test_static_vocabulary_table_hashes_oov_with_fingerprint64(vocab, kd, lkd, oov, queries):
    rtf = real_tf()

    def build(m):
        init = None
        if vocab is not None:
            init = m.lookup.KeyValueTensorInitializer(
                m.constant(vocab, getattr(m, kd)), m.range(len(vocab), dtype=m.int64))
        return m.lookup.StaticVocabularyTable(
            init, oov, lookup_key_dtype=getattr(m, lkd) if lkd else None)

    ours, theirs = build(tf), build(rtf)
    qd = lkd or kd
    q, rq = tf.constant(queries, getattr(tf, qd)), rtf.constant(queries, getattr(rtf, qd))
    _same(ours.lookup(q), theirs.lookup(rq))
    _same(ours.size(), theirs.size())
    assert ours.key_dtype.name == theirs.key_dtype.name
    f = tf.function(lambda x: ours.lookup(x) * 2)
    _same(f(q), theirs.lookup(rq) * 2)
    _same(f(q[::-1]), theirs.lookup(rq[::-1]) * 2)


@pytest.mark.parametrize("spec", [
    dict(key_dtype="string", key_index=WHOLE, value_dtype="int64", value_index=LINE),
    dict(key_dtype="int64", key_index=LINE, value_dtype="string", value_index=WHOLE),
    dict(key_dtype="string", key_index=WHOLE, value_dtype="int64", value_index=LINE,
         vocab_size=2),
    dict(key_dtype="string", key_index=WHOLE, value_dtype="int64", value_index=LINE,
         value_index_offset=3),
])
def test_text_file_initializer_whole_line_and_line_number(files, spec):
    rtf = real_tf()
    vocab, _ = files

    def build(m):
        s = dict(spec, key_dtype=getattr(m, spec["key_dtype"]),
                 value_dtype=getattr(m, spec["value_dtype"]))
        default = "?" if spec["value_dtype"] == "string" else -7
        return m.lookup.StaticHashTable(m.lookup.TextFileInitializer(vocab, **s), default)

    queries = ["lake", "palmer", "king"] if spec["key_dtype"] == "string" else [0, 2, 9]
    ours, theirs = build(tf), build(rtf)
    kd = spec["key_dtype"]
    _same(ours.lookup(tf.constant(queries, getattr(tf, kd))),
          theirs.lookup(rtf.constant(queries, getattr(rtf, kd))))
    _same(ours.size(), theirs.size())


@pytest.mark.parametrize("key_index,value_index,vd", [(0, 1, "int64"), (2, 0, "string"),
                                                      (0, 1, "float32")])
def test_text_file_initializer_columns_with_a_delimiter(files, key_index, value_index, vd):
    rtf = real_tf()
    _, cols = files

    def build(m):
        default = "?" if vd == "string" else -1
        return m.lookup.StaticHashTable(m.lookup.TextFileInitializer(
            cols, m.string, key_index, getattr(m, vd), value_index, delimiter=","), default)

    queries = ["a", "c", "z", "x", "q"]
    _same(build(tf).lookup(tf.constant(queries)), build(rtf).lookup(rtf.constant(queries)))


def test_vocabulary_file_pipeline_in_tf_data(files):
    rtf = real_tf()
    vocab, _ = files
    lines = ["lake palmer", "emerson king", "crimson lake lake"]

    def pipeline(m):
        table = m.lookup.StaticVocabularyTable(m.lookup.TextFileInitializer(
            vocab, m.string, m.lookup.TextFileIndex.WHOLE_LINE, m.int64,
            m.lookup.TextFileIndex.LINE_NUMBER), num_oov_buckets=2)
        ds = m.data.Dataset.from_tensor_slices(lines)
        ds = ds.map(lambda s: table.lookup(m.strings.split(s)))
        ds = ds.map(lambda ids: (m.reduce_sum(ids), m.size(ids)))
        return [(int(a), int(b)) for a, b in ds]

    assert pipeline(tf) == pipeline(rtf)


def test_int_keys_in_tf_data_map():
    rtf = real_tf()

    def pipeline(m):
        table = m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(
            m.constant([3, 4, 5], m.int64), m.constant([0.5, 1.5, 2.5])), -1.0)
        ds = m.data.Dataset.range(7).map(lambda i: table.lookup(i) * 2.0)
        return [float(x) for x in ds]

    assert pipeline(tf) == pipeline(rtf)


def test_dataset_initializer():
    rtf = real_tf()

    def build(m, init_cls):
        ds = m.data.Dataset.from_tensor_slices((["x", "y", "z"], m.constant([3, 4, 5],
                                                                          m.int64)))
        return m.lookup.StaticHashTable(init_cls(ds), -1)

    ours = build(tf, tf.lookup.experimental.DatasetInitializer)
    # TF 2.21 keeps it as tf.data.experimental.DatasetInitializer (2.4: tf.lookup.experimental)
    theirs = build(rtf, rtf.data.experimental.DatasetInitializer)
    _same(ours.lookup(tf.constant(["z", "w", "x"])), theirs.lookup(rtf.constant(["z", "w", "x"])))


def test_ragged_keys_keep_their_structure():
    rtf = real_tf()

    def run(m):
        t = m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(
            ["a", "b"], m.constant([1, 2], m.int64)), -1)
        return t.lookup(m.ragged.constant([["a"], ["b", "q", "a"]])).to_list()

    assert run(tf) == run(rtf)


def test_dense_hash_table_insert_erase_lookup_and_replay():
    rtf = real_tf()

    def build(m):
        return m.lookup.experimental.DenseHashTable(
            m.int64, m.float32, default_value=-1.0, empty_key=0, deleted_key=-1)

    ours, theirs = build(tf), build(rtf)
    for m, t in ((tf, ours), (rtf, theirs)):
        t.insert(m.constant([1, 2, 3], m.int64), m.constant([1.5, 2.5, 3.5]))
        t.erase(m.constant([2, 7], m.int64))
        t.insert_or_assign(m.constant([3], m.int64), m.constant([9.0]))
    q = [1, 2, 3, 4]
    _same(ours.lookup(tf.constant(q, tf.int64)), theirs.lookup(rtf.constant(q, rtf.int64)))
    _same(ours.size(), theirs.size())
    calls = []

    @tf.function
    def step(k, v):
        calls.append(1)
        ours.insert(k, v)
        return ours.lookup(k + 100), ours.size()

    @rtf.function
    def rstep(k, v):
        theirs.insert(k, v)
        return theirs.lookup(k + 100), theirs.size()

    for k in ([10, 110], [20, 120], [10, 130]):
        ko, vo = tf.constant(k, tf.int64), tf.constant([float(x) for x in k])
        kr, vr = rtf.constant(k, rtf.int64), rtf.constant([float(x) for x in k])
        (a, n), (b, rn) = step(ko, vo), rstep(kr, vr)
        _same(a, b)
        _same(n, rn)
    assert len(calls) == 1


# --- errors ---------------------------------------------------------------------------

def _both_raise(fn, exc_tf, exc_rtf=None):
    rtf = real_tf()
    with pytest.raises(exc_tf) as ours:
        fn(tf)
    with pytest.raises(exc_rtf or getattr(rtf.errors, exc_tf.__name__, exc_tf)) as theirs:
        fn(rtf)
    return str(ours.value), str(theirs.value)


def _string_table(m):
    return m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(
        ["a", "b"], m.constant([1, 2], m.int64)), -1)


def test_wrong_key_dtype_is_a_type_error_with_tf_2_4s_message():
    ours, _ = _both_raise(lambda m: _string_table(m).lookup(m.constant([1, 2])), TypeError)
    # TF 2.4's text (2.21 says "Dtype of argument `keys` must be ...")
    assert ours == "Signature mismatch. Keys must be dtype <dtype: 'string'>, got " \
                   "<dtype: 'int32'>."
    ours, _ = _both_raise(lambda m: m.lookup.StaticVocabularyTable(
        m.lookup.KeyValueTensorInitializer(m.constant([1], m.int64), m.constant([0], m.int64)),
        2).lookup(m.constant([1], m.int32)), TypeError)
    assert "Keys must be dtype <dtype: 'int64'>" in ours


def test_default_value_of_another_dtype():
    ours, theirs = _both_raise(lambda m: m.lookup.StaticHashTable(
        m.lookup.KeyValueTensorInitializer(["a"], m.constant([1], m.int64)), 1.5), TypeError)
    assert ours == theirs == "Cannot convert 1.5 to EagerTensor of dtype int64"


@pytest.mark.parametrize("args,message", [
    ((WHOLE, "string", LINE), "Signature mismatch. Values must be dtype <dtype: 'int64'>, "
                              "got <dtype: 'string'>."),
    ((-3, "int64", LINE), "Invalid key index -3."),
    ((LINE, "int64", WHOLE), "Signature mismatch. Keys must be dtype <dtype: 'int64'>, got "
                             "<dtype: 'string'>."),
])
def test_text_file_initializer_bad_indices(files, args, message):
    vocab, _ = files
    key_index, vd, value_index = args

    def make(m):
        return m.lookup.TextFileInitializer(vocab, m.string, key_index, getattr(m, vd),
                                            value_index)

    ours, _ = _both_raise(make, ValueError)
    assert ours == message  # TF 2.4's messages (2.21 reworded them)


def test_text_file_errors_at_initialization(files, tmp_path):
    vocab, cols = files

    def missing(m):
        m.lookup.StaticHashTable(m.lookup.TextFileInitializer(
            str(tmp_path / "nope.txt"), m.string, WHOLE, m.int64, LINE), -1)

    ours, theirs = _both_raise(missing, tf.errors.NotFoundError)
    assert "nope.txt; No such file or directory" in ours and "No such file" in theirs

    def columns(m):
        m.lookup.StaticHashTable(m.lookup.TextFileInitializer(
            cols, m.string, 0, m.int64, 5, delimiter=","), -1)

    ours, theirs = _both_raise(columns, tf.errors.InvalidArgumentError)
    core = "line 0 (a,10,x) : expected at least 6 got 3"
    assert core in ours and core in theirs

    def parse(m):
        m.lookup.StaticHashTable(m.lookup.TextFileInitializer(
            cols, m.string, 0, m.int64, 2, delimiter=","), -1)

    ours, theirs = _both_raise(parse, tf.errors.InvalidArgumentError)
    assert "Field x in line 0 is not a valid int64." in ours
    assert "Field x in line 0 is not a valid int64." in theirs


def test_vocabulary_table_needs_oov_buckets():
    ours, _ = _both_raise(lambda m: m.lookup.StaticVocabularyTable(
        m.lookup.KeyValueTensorInitializer(["a"], m.constant([0], m.int64)), 0), ValueError)
    assert ours == "oov_buckets must be > 0."  # TF 2.4's message


def test_dense_hash_table_reserved_keys():
    def table(m):
        return m.lookup.experimental.DenseHashTable(m.int64, m.int64, -1, empty_key=0,
                                                    deleted_key=-1)

    for op, use in (("LookupTableInsertV2", lambda m, t, k: t.insert(k, k)),
                    ("LookupTableFindV2", lambda m, t, k: t.lookup(k)),
                    ("LookupTableRemoveV2", lambda m, t, k: t.erase(k))):
        for key, what in ((0, "empty_key"), (-1, "deleted_key")):
            ours, theirs = _both_raise(
                lambda m: use(m, table(m), m.constant([key], m.int64)),
                tf.errors.InvalidArgumentError)
            msg = f"Using the {what} as a table key is not allowed"
            assert msg in ours and msg in theirs and f"[Op:{op}]" in ours
    ours, theirs = _both_raise(lambda m: m.lookup.experimental.DenseHashTable(
        m.int64, m.int64, -1, empty_key=3, deleted_key=3), tf.errors.InvalidArgumentError)
    assert "Empty and deleted keys cannot be equal" in ours and \
        "Empty and deleted keys cannot be equal" in theirs
    ours, theirs = _both_raise(lambda m: table(m).lookup(m.constant([1], m.int32)), ValueError)
    assert "Tensor conversion requested dtype int64 for Tensor with dtype int32" in ours


def test_traced_graph_holds_tfs_table_ops():
    table = _string_table(tf)
    vocab = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([4, 8], tf.int64), tf.constant([0, 1], tf.int64)), 3)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
    def f(x):
        return vocab.lookup(x), table.size()

    ops = [op.type for op in f.get_concrete_function().graph.get_operations()]
    for want in ("AsString", "StringToHashBucketFast", "LookupTableFindV2",
                 "LookupTableSizeV2", "SelectV2"):
        assert want in ops
    assert np.asarray(f(tf.constant([8, 5], tf.int64))[0]).tolist() == [
        1, int(real_tf().strings.to_hash_bucket_fast(["5"], 3)[0]) + 2]


@pytest.mark.parametrize("kd,keys,queries", [
    ("int64", [5, 9, 3, 77, 1024, 13], [5, 3, 4, 1024, 9, 13]),
    ("string", ["a", "bb", "ccc", "dddd"], ["bb", "q", "ccc", "a", "dddd"]),
])
def test_dense_hash_table_checkpoints_both_ways(tmp_path, kd, keys, queries):
    """TF's checkpoint of a DenseHashTable holds its bucket arrays (table-keys and
    table-values, [num_buckets, 1]); TF's lookup probes them by its own hash, so
    torchflow lays its entries out by that hash: each side reads the other's."""
    rtf = real_tf()
    reserved = (0, -1) if kd == "int64" else ("", "$")

    def table(m):
        return m.lookup.experimental.DenseHashTable(
            getattr(m, kd), m.float32, -1.0, empty_key=reserved[0], deleted_key=reserved[1],
            initial_num_buckets=8)

    values = [float(i) + 0.5 for i in range(len(keys))]
    for writer, reader in ((tf, rtf), (rtf, tf)):
        t = table(writer)
        t.insert(writer.constant(keys, getattr(writer, kd)), writer.constant(values))
        t.erase(writer.constant(keys[1:2], getattr(writer, kd)))
        path = writer.train.Checkpoint(d=t).write(str(tmp_path / f"{writer.__name__}" / "c"))
        shapes = dict(reader.train.list_variables(path))
        assert shapes["d/.ATTRIBUTES/table-keys"] == shapes["d/.ATTRIBUTES/table-values"] == \
            [8, 1]
        back = table(reader)
        reader.train.Checkpoint(d=back).read(path)
        q = reader.constant(queries, getattr(reader, kd))
        expected = t.lookup(writer.constant(queries, getattr(writer, kd))).numpy()
        np.testing.assert_array_equal(np.asarray(back.lookup(q)), expected)
        assert int(back.size()) == len(keys) - 1


def test_raw_table_ops_on_handles():
    rtf = real_tf()

    def run(m):
        r = m.raw_ops
        h = r.HashTableV2(key_dtype=m.string, value_dtype=m.int64)
        r.LookupTableImportV2(table_handle=h, keys=m.constant(["a", "b"]),
                              values=m.constant([1, 2], m.int64))
        found = r.LookupTableFindV2(table_handle=h, keys=m.constant([["b", "z"]]),
                                    default_value=m.constant(-1, m.int64))
        mh = r.MutableHashTableV2(key_dtype=m.int64, value_dtype=m.float32)
        r.LookupTableInsertV2(table_handle=mh, keys=m.constant([3, 4, 5], m.int64),
                              values=m.constant([0.5, 1.5, 2.5]))
        r.LookupTableRemoveV2(table_handle=mh, keys=m.constant([4], m.int64))
        k, v = r.LookupTableExportV2(table_handle=mh, Tkeys=m.int64, Tvalues=m.float32)
        return (found.numpy().tolist(), int(r.LookupTableSizeV2(table_handle=h)),
                sorted(zip(k.numpy().tolist(), v.numpy().tolist())))

    assert run(tf) == run(rtf)
    table = _string_table(tf)  # a tf.lookup table's handle serves the raw ops too
    assert tf.raw_ops.LookupTableSizeV2(table_handle=table.resource_handle).numpy() == 2


def test_a_repeated_key_with_another_value_is_refused(tmp_path):
    dup = tmp_path / "dup.txt"
    dup.write_text("a\nb\na\n")
    ours, theirs = _both_raise(lambda m: m.lookup.StaticHashTable(
        m.lookup.KeyValueTensorInitializer(["a", "a"], m.constant([1, 2], m.int64)), -1),
        tf.errors.FailedPreconditionError)
    msg = "HashTable has different value for same key. Key a has 1 and trying to add value 2"
    assert msg in ours and msg in theirs
    for vocab_size in (None, 5):  # the repeated line is met before the short file
        ours, theirs = _both_raise(lambda m: m.lookup.StaticHashTable(
            m.lookup.TextFileInitializer(str(dup), m.string, WHOLE, m.int64, LINE,
                                         vocab_size=vocab_size), -1),
            tf.errors.FailedPreconditionError)
        msg = "Key a has 0 and trying to add value 2"
        assert msg in ours and msg in theirs
    same = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        ["a", "a"], tf.constant([1, 1], tf.int64)), -1)
    assert same.lookup(tf.constant(["a"])).numpy().tolist() == [1]


def test_short_vocabulary_file(files):
    vocab, _ = files
    ours, theirs = _both_raise(lambda m: m.lookup.StaticHashTable(
        m.lookup.TextFileInitializer(vocab, m.string, WHOLE, m.int64, LINE, vocab_size=5), -1),
        tf.errors.InvalidArgumentError)
    msg = "expected 5 but got 3"
    assert "Invalid vocab_size in" in ours and msg in ours and msg in theirs
