"""SavedModels of tf.Modules written by real TensorFlow load in torchflow and compute
what TF computes (Keras models: test_saved_model_load_keras.py).

One module-scoped fixture has real TF (the reference, TF 2.21 with tf-keras)
write each SavedModel once and record its outputs; each test loads the
directory with ``torchflow.saved_model.load`` and compares the outputs of the
restored functions and signatures with TF's (np.testing.assert_allclose).
"""

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(7)
X2 = RNG.randn(3, 2).astype(np.float32)


def _module(ttf):
    class Inner(ttf.Module):
        def __init__(self):
            super().__init__()
            self.scale = ttf.Variable(1.5)
            self.table = [ttf.Variable([1.0, -1.0]), ttf.Variable([0.25, 0.5])]

    class Mod(ttf.Module):
        def __init__(self):
            super().__init__()
            self.w = ttf.Variable(RNG.randn(2, 3).astype(np.float32), name="w")
            self.b = ttf.Variable(RNG.randn(3).astype(np.float32), name="b")
            self.counter = ttf.Variable(0, dtype=ttf.int64, trainable=False)
            self.inner = Inner()
            self.config = {"offset": ttf.Variable(0.75)}

        @ttf.function(input_signature=[ttf.TensorSpec([None, 2], ttf.float32, name="x")])
        def dense(self, x):
            self.counter.assign_add(1)
            return ttf.nn.relu(ttf.matmul(x, self.w) + self.b)

        @ttf.function
        def mix(self, x, scale=2.0, use_table=False):
            y = x * scale * self.inner.scale + self.config["offset"]
            if use_table:
                y = y + self.inner.table[0] * self.inner.table[1]
            return {"y": y, "sum": ttf.reduce_sum(y, axis=-1), "n": ttf.shape(y)}

    mod = Mod()
    mod.mix(ttf.constant([[1.0, 2.0]]))
    mod.mix(ttf.constant([[1.0, 2.0], [3.0, 4.0]]), 3.0, True)
    mod.mix(ttf.constant([1.0, 2.0], ttf.float32), scale=0.5)
    return mod


def _multi_signature(ttf):
    class Sig(ttf.Module):
        def __init__(self):
            super().__init__()
            self.v = ttf.Variable([[2.0, -1.0], [0.5, 3.0]])

        @ttf.function(input_signature=[ttf.TensorSpec([None, 2], ttf.float32)])
        def project(self, x):
            return {"proj": ttf.matmul(x, self.v)}

        @ttf.function(input_signature=[ttf.TensorSpec([None], ttf.int32, name="ids"),
                                       ttf.TensorSpec([], ttf.float32, name="gain")])
        def lookup(self, ids, gain):
            return {"rows": ttf.gather(self.v, ids) * gain, "count": ttf.size(ids)}

    mod = Sig()
    sigs = {"serving_default": mod.project, "lookup": mod.lookup.get_concrete_function()}
    return mod, sigs


def _asset_module(ttf, vocab_path):
    class WithAsset(ttf.Module):
        def __init__(self):
            super().__init__()
            self.vocab = ttf.saved_model.Asset(vocab_path)
            self.c = ttf.constant([1.0, 2.0, 3.0])  # an eager tensor the function captures
            self.v = ttf.Variable(2.0)

        @ttf.function(input_signature=[])
        def read(self):
            return ttf.io.read_file(self.vocab)

        @ttf.function(input_signature=[ttf.TensorSpec([3])])
        def branch(self, x):
            if ttf.reduce_sum(x) > 0:  # AutoGraph: a StatelessIf in the graph
                y = x * self.c
            else:
                y = x - self.c
            return y * self.v

    return WithAsset()


def _nested_module(ttf):
    class Nested(ttf.Module):
        def __init__(self):
            super().__init__()
            self.v = ttf.Variable(3.0)

        @ttf.function(input_signature=[{
            "a": ttf.TensorSpec([None], ttf.float32),
            "b": (ttf.TensorSpec([2], ttf.int32), ttf.TensorSpec([], ttf.float32))}])
        def nested(self, d):
            return d["a"] * self.v, {"s": ttf.cast(d["b"][0], ttf.float32) * d["b"][1]}

        @ttf.function
        def kw(self, x, *, k=1.0):
            return x + k

    mod = Nested()
    mod.kw(ttf.constant(1.0))
    mod.kw(ttf.constant(1.0), k=5.0)
    return mod


def _checks_module(ttf):
    class Checks(ttf.Module):
        @ttf.function(input_signature=[ttf.TensorSpec([None], ttf.float32)])
        def f(self, x):
            ttf.debugging.assert_non_negative(x, message="need x >= 0")
            ttf.print("sum is", ttf.reduce_sum(x))
            y = ttf.ensure_shape(x * 2.0, [None])
            return ttf.debugging.check_numerics(y, "bad")

    return Checks()


def _tables_module(ttf, vocab_path):
    class Tables(ttf.Module):
        def __init__(self):
            super().__init__()
            init = ttf.lookup.KeyValueTensorInitializer(
                ttf.constant(["a", "b", "c"]), ttf.constant([1, 2, 3], ttf.int64))
            self.table = ttf.lookup.StaticHashTable(init, default_value=-1)
            self.vocab = ttf.lookup.StaticVocabularyTable(ttf.lookup.TextFileInitializer(
                vocab_path, ttf.string, ttf.lookup.TextFileIndex.WHOLE_LINE, ttf.int64,
                ttf.lookup.TextFileIndex.LINE_NUMBER), num_oov_buckets=2)

        @ttf.function(input_signature=[ttf.TensorSpec([None], ttf.string)])
        def f(self, s):
            return self.table.lookup(s), self.vocab.lookup(s), self.table.size()

    return Tables()


WORDS = ["a", "c", "q", "y", "zz", "x"]


def _ops_module(ttf):
    """Control flow over TensorArrays, map_fn, and assorted ops a graph holds."""
    class Ops(ttf.Module):
        def __init__(self):
            super().__init__()
            self.v = ttf.Variable(ttf.range(12, dtype=ttf.float32) / 7.0)

        @ttf.function(input_signature=[ttf.TensorSpec([None], ttf.float32),
                                       ttf.TensorSpec([], ttf.int32)])
        def f(self, x, n):
            ta = ttf.TensorArray(ttf.float32, size=0, dynamic_size=True)
            i = ttf.constant(0)
            while i < n:  # AutoGraph: a While over a TensorList
                ta = ta.write(i, ttf.reduce_sum(x) * ttf.cast(i, ttf.float32))
                i += 1
            grid = ttf.reshape(self.v, [3, 4])
            vals, idx = ttf.math.top_k(self.v, 3)
            unique, unique_idx = ttf.unique(ttf.cast(ttf.round(x), ttf.int32))
            mm = ttf.matmul(grid, grid, transpose_b=True)
            return {
                "stack": ta.stack(), "map": ttf.map_fn(lambda t: t * 2.0 + 1.0, x),
                "loop": ttf.while_loop(lambda j, a: j < 10, lambda j, a: (j + 1, a * 1.1),
                                       (0, 1.0), maximum_iterations=4)[1],
                "vals": vals, "idx": idx, "sort": ttf.sort(x, direction="DESCENDING"),
                "unique": unique, "unique_idx": unique_idx,
                "seg": ttf.math.segment_sum(self.v[:6], [0, 0, 1, 1, 2, 2]),
                "lse": ttf.math.reduce_logsumexp(x),
                "onehot": ttf.one_hot(ttf.argmax(self.v[:5])[None], 5),
                "gather_nd": ttf.gather_nd(grid, [[0, 1], [2, 3]]),
                "scatter": ttf.tensor_scatter_nd_add(ttf.zeros([4]), [[1], [3]], [5.0, 6.0]),
                "einsum": ttf.einsum("ij,jk->ik", grid, ttf.ones([4, 2])),
                "cumsum": ttf.cumsum(x, reverse=True), "clip": ttf.clip_by_norm(x, 1.0),
                "nonzero": ttf.math.count_nonzero(x > 0),
                "roots": ttf.sqrt(ttf.abs(x)) + ttf.math.rsqrt(ttf.abs(x) + 1.0),
                "diag": ttf.linalg.diag_part(mm) + ttf.linalg.trace(mm),
            }

    return Ops()


OPS_X = np.array([0.4, -1.6, 2.2, 2.4], np.float32)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    ttf = real_tf()
    root = tmp_path_factory.mktemp("tf_saved_models")
    out = {}

    mod = _module(ttf)
    mod.dense(X2[:1])
    ttf.saved_model.save(mod, str(root / "module"))
    counter_at_save = int(mod.counter.numpy())
    out["module"] = {
        "dense": mod.dense(X2).numpy(),
        "mix1": {k: v.numpy() for k, v in mod.mix(ttf.constant([[1.0, 2.0]])).items()},
        "mix2": {k: v.numpy() for k, v in mod.mix(
            ttf.constant([[1.0, 2.0], [3.0, 4.0]]), 3.0, True).items()},
        "mix3": {k: v.numpy() for k, v in mod.mix(ttf.constant([5.0, 6.0]), scale=0.5).items()},
        "serving": mod.dense(X2).numpy(),
        "counter_at_save": counter_at_save,
    }

    sig_mod, sigs = _multi_signature(ttf)
    ttf.saved_model.save(sig_mod, str(root / "signatures"), signatures=sigs)
    out["signatures"] = {
        "project": sig_mod.project(X2)["proj"].numpy(),
        "rows": sig_mod.lookup(ttf.constant([1, 0, 1]), ttf.constant(2.0))["rows"].numpy(),
    }
    nm = _nested_module(ttf)
    ttf.saved_model.save(nm, str(root / "nested"))
    got = nm.nested({"a": ttf.constant([1.0, 2.0]),
                     "b": (ttf.constant([1, 2]), ttf.constant(0.5))})
    out["nested"] = {"a": got[0].numpy(), "s": got[1]["s"].numpy()}

    cm = _checks_module(ttf)
    ttf.saved_model.save(cm, str(root / "checks"))
    with pytest.raises(ttf.errors.InvalidArgumentError) as err:
        cm.f(ttf.constant([-1.0]))
    out["checks"] = {"message": next(line for line in err.value.message.splitlines()
                                     if line.startswith("assertion failed"))}

    vocab = root / "vocab.txt"
    vocab.write_text("alpha\nbeta\n")
    am = _asset_module(ttf, str(vocab))
    ttf.saved_model.save(am, str(root / "asset"))
    out["asset"] = {"pos": am.branch(ttf.constant([1.0, 2.0, 3.0])).numpy(),
                    "neg": am.branch(ttf.constant([-1.0, -2.0, -3.0])).numpy()}
    om = _ops_module(ttf)
    ttf.saved_model.save(om, str(root / "ops"))
    out["ops"] = {k: v.numpy() for k, v in om.f(ttf.constant(OPS_X), ttf.constant(3)).items()}

    words = root / "words.txt"
    words.write_text("x\ny\nz\n")
    tm = _tables_module(ttf, str(words))
    ttf.saved_model.save(tm, str(root / "tables"))
    out["tables"] = [t.numpy() for t in tm.f(ttf.constant(WORDS))]
    words.unlink()
    vocab.unlink()  # the SavedModels keep their own copies under assets/
    out["dirs"] = {k: str(root / k) for k in ("module", "signatures", "asset", "nested",
                                              "checks", "tables", "ops")}
    return out


def test_module_variables_and_children(saved):
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    ref = real_tf().saved_model.load(saved["dirs"]["module"])
    np.testing.assert_allclose(loaded.w.numpy(), ref.w.numpy())
    np.testing.assert_allclose(loaded.b.numpy(), ref.b.numpy())
    assert loaded.w.trainable and not loaded.counter.trainable
    assert loaded.counter.dtype == tf.int64
    assert int(loaded.counter.numpy()) == saved["module"]["counter_at_save"] == 1
    assert float(loaded.inner.scale.numpy()) == 1.5
    assert isinstance(loaded.inner.table, list) and len(loaded.inner.table) == 2
    np.testing.assert_allclose(loaded.inner.table[1].numpy(), [0.25, 0.5])
    np.testing.assert_allclose(loaded.config["offset"].numpy(), 0.75)
    assert loaded.tensorflow_version == ref.tensorflow_version


def test_module_function_with_input_signature(saved):
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    np.testing.assert_allclose(loaded.dense(tf.constant(X2)).numpy(), saved["module"]["dense"],
                               rtol=1e-6)
    # A NumPy input converts, as TF's restored functions allow.
    np.testing.assert_allclose(loaded.dense(X2).numpy(), saved["module"]["dense"], rtol=1e-6)
    before = int(loaded.counter.numpy())
    loaded.dense(X2[:1])
    assert int(loaded.counter.numpy()) == before + 1  # the graph's AssignAddVariableOp ran
    with pytest.raises(TypeError, match="Can not cast|could not|Binding"):
        loaded.signatures["serving_default"](x=tf.constant([[1.0, 2.0, 3.0]]))


def test_module_polymorphic_function(saved):
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    got1 = loaded.mix(tf.constant([[1.0, 2.0]]))
    got2 = loaded.mix(tf.constant([[1.0, 2.0], [3.0, 4.0]]), 3.0, True)
    got3 = loaded.mix(tf.constant([5.0, 6.0]), scale=0.5)
    for got, key in ((got1, "mix1"), (got2, "mix2"), (got3, "mix3")):
        assert sorted(got) == sorted(saved["module"][key])
        for k, v in saved["module"][key].items():
            np.testing.assert_allclose(got[k].numpy(), v, rtol=1e-6)
    assert got1["n"].dtype == tf.int32
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.mix(tf.constant([[1, 2]]))  # int32: no saved trace takes it
    with pytest.raises(ValueError, match="Option 3"):
        loaded.mix(tf.constant([[1.0, 2.0]]), 7.0)  # an unsaved Python value


def test_concrete_functions_of_a_restored_function(saved):
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    ref = real_tf().saved_model.load(saved["dirs"]["module"])
    assert len(loaded.mix.concrete_functions) == len(ref.mix.concrete_functions) == 3
    assert loaded.dense.input_signature[0].shape.as_list() == [None, 2]
    concrete = loaded.dense.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    np.testing.assert_allclose(concrete(tf.constant(X2)).numpy(), saved["module"]["dense"],
                               rtol=1e-6)
    # It captures w (2-D), b (1-D) and the call counter (a scalar).
    assert sorted(v.shape.rank for v in concrete.variables) == [0, 1, 2]
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.mix.get_concrete_function(tf.TensorSpec([7], tf.int32))


def test_module_serving_signature(saved):
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    sig = loaded.signatures[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
    out = sig(x=tf.constant(X2))
    assert list(out) == ["output_0"]
    np.testing.assert_allclose(out["output_0"].numpy(), saved["module"]["serving"], rtol=1e-6)
    assert sig.structured_input_signature[1]["x"].shape.as_list() == [None, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor"):
        sig(x=tf.constant([[1, 2]]))
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        sig()


def test_several_signatures(saved):
    loaded = tf.saved_model.load(saved["dirs"]["signatures"])
    assert sorted(loaded.signatures) == ["lookup", "serving_default"]
    proj = loaded.signatures["serving_default"](x=tf.constant(X2))
    np.testing.assert_allclose(proj["proj"].numpy(), saved["signatures"]["project"], rtol=1e-6)
    rows = loaded.signatures["lookup"](ids=tf.constant([1, 0, 1]), gain=tf.constant(2.0))
    assert sorted(rows) == ["count", "rows"]
    np.testing.assert_allclose(rows["rows"].numpy(), saved["signatures"]["rows"])
    assert int(rows["count"].numpy()) == 3
    np.testing.assert_allclose(loaded.project(X2)["proj"].numpy(),
                               saved["signatures"]["project"], rtol=1e-6)


def test_nested_structures_and_keyword_only_arguments(saved):
    loaded = tf.saved_model.load(saved["dirs"]["nested"])
    a, rest = loaded.nested({"a": tf.constant([1.0, 2.0]),
                             "b": (tf.constant([1, 2]), tf.constant(0.5))})
    np.testing.assert_allclose(a.numpy(), saved["nested"]["a"])
    np.testing.assert_allclose(rest["s"].numpy(), saved["nested"]["s"])
    assert float(loaded.kw(tf.constant(1.0)).numpy()) == 2.0
    assert float(loaded.kw(tf.constant(1.0), k=5.0).numpy()) == 6.0
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.kw(tf.constant(1.0), k=6.0)


def test_assert_print_and_shape_checks(saved, capsys):
    loaded = tf.saved_model.load(saved["dirs"]["checks"])
    np.testing.assert_allclose(loaded.f(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    assert "sum is 3" in capsys.readouterr().err
    with pytest.raises(tf.errors.InvalidArgumentError) as err:
        loaded.f(tf.constant([-1.0]))
    assert str(err.value).startswith(saved["checks"]["message"])


def test_control_flow_and_assorted_ops(saved):
    loaded = tf.saved_model.load(saved["dirs"]["ops"])
    got = loaded.f(tf.constant(OPS_X), tf.constant(3))
    assert sorted(got) == sorted(saved["ops"])
    for k, want in saved["ops"].items():
        assert got[k].dtype.as_numpy_dtype == want.dtype, k
        np.testing.assert_allclose(got[k].numpy(), want, rtol=1e-5, atol=1e-6, err_msg=k)
    assert loaded.f(tf.constant(OPS_X), tf.constant(5))["stack"].shape == (5,)


def test_lookup_tables(saved):
    loaded = tf.saved_model.load(saved["dirs"]["tables"])
    got = loaded.f(tf.constant(WORDS))
    for g, want in zip(got, saved["tables"]):
        np.testing.assert_array_equal(g.numpy(), want)
    assert got[0].dtype == tf.int64


def test_assets_constants_and_conditionals(saved):
    loaded = tf.saved_model.load(saved["dirs"]["asset"])
    path = loaded.vocab.asset_path.numpy().decode()
    assert path == os.path.join(saved["dirs"]["asset"], "assets", "vocab.txt")
    assert loaded.read().numpy() == b"alpha\nbeta\n"
    np.testing.assert_allclose(loaded.branch(tf.constant([1.0, 2.0, 3.0])).numpy(),
                               saved["asset"]["pos"])
    np.testing.assert_allclose(loaded.branch(tf.constant([-1.0, -2.0, -3.0])).numpy(),
                               saved["asset"]["neg"])


def test_loaded_function_inside_tf_function(saved):
    loaded = tf.saved_model.load(saved["dirs"]["asset"])
    calls = []

    @tf.function
    def outer(x):
        calls.append(1)  # Python side effect: trace time only
        return loaded.branch(x) + 1.0

    np.testing.assert_allclose(outer(tf.constant([1.0, 2.0, 3.0])).numpy(),
                               saved["asset"]["pos"] + 1.0)
    np.testing.assert_allclose(outer(tf.constant([-1.0, -2.0, -3.0])).numpy(),
                               saved["asset"]["neg"] + 1.0)


def test_loaded_object_checkpoints_like_tf(saved, tmp_path):
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    path = tf.train.Checkpoint(model=loaded).write(str(tmp_path / "tf_ckpt" / "ckpt"))
    ref = real_tf().saved_model.load(saved["dirs"]["module"])
    ref_path = real_tf().train.Checkpoint(model=ref).write(str(tmp_path / "ref_ckpt" / "ckpt"))
    ours = dict(tf.train.list_variables(path))
    theirs = dict(real_tf().train.list_variables(ref_path))
    assert ours == theirs


def test_contains_saved_model(saved, tmp_path):
    assert tf.saved_model.contains_saved_model(saved["dirs"]["module"])
    assert not tf.saved_model.contains_saved_model(str(tmp_path))
    assert os.path.isdir(os.path.join(saved["dirs"]["module"], tf.saved_model.VARIABLES_DIRECTORY))


def test_gradients_through_loaded_function(saved):
    ttf = real_tf()
    ref = ttf.saved_model.load(saved["dirs"]["module"])
    with ttf.GradientTape() as tape:
        loss = ttf.reduce_sum(ref.dense(X2) ** 2)
    want = tape.gradient(loss, [ref.w, ref.b])
    loaded = tf.saved_model.load(saved["dirs"]["module"])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(loaded.dense(X2) ** 2)
    got = tape.gradient(loss, [loaded.w, loaded.b])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5)
