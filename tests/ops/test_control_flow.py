"""Control flow, functional ops and TensorArray against real TensorFlow."""

import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf

CASES = {
    "cond": lambda lib: lib.cond(lib.constant(True), lambda: lib.constant(1), lambda: 2),
    "case_default": lambda lib: lib.case([(lib.constant(False), lambda: lib.constant(1))],
                                         default=lambda: lib.constant(3)),
    "case_first": lambda lib: lib.case([(lib.constant(True), lambda: lib.constant(1)),
                                        (lib.constant(True), lambda: lib.constant(2))]),
    "switch": lambda lib: lib.switch_case(lib.constant(1), [lambda: lib.constant(1),
                                                            lambda: lib.constant(2)]),
    "switch_oob": lambda lib: lib.switch_case(lib.constant(5), [lambda: lib.constant(1),
                                                                lambda: lib.constant(2)]),
    "switch_default": lambda lib: lib.switch_case(lib.constant(-1), {0: lambda: lib.constant(1)},
                                                  default=lambda: lib.constant(7)),
    "while": lambda lib: lib.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2.0),
                                        (lib.constant(0), lib.constant(1.0)))[1],
    "while_max": lambda lib: lib.while_loop(lambda i: True, lambda i: [i + 1],
                                            [lib.constant(0)], maximum_iterations=4)[0],
    "while_dict": lambda lib: lib.while_loop(lambda d: d["a"] < 3,
                                             lambda d: ({"a": d["a"] + 1},),
                                             [{"a": lib.constant(0)}])[0]["a"],
    "map_fn": lambda lib: lib.map_fn(lambda x: x * 2, lib.constant([1, 2, 3])),
    "map_fn_sig": lambda lib: lib.map_fn(lambda x: lib.cast(x, lib.float32),
                                         lib.constant([1, 2]), fn_output_signature=lib.float32),
    "map_fn_struct": lambda lib: lib.map_fn(lambda x: (x[0], x[0] + x[1]),
                                            (lib.constant([1, 2]), lib.constant([3, 4])),
                                            fn_output_signature=(lib.int32, lib.int32))[1],
    "map_fn_empty": lambda lib: lib.map_fn(lambda x: x, lib.zeros([0, 2])),
    "scan": lambda lib: lib.scan(lambda a, x: a + x, lib.constant([1, 2, 3])),
    "scan_rev": lambda lib: lib.scan(lambda a, x: a + x, lib.constant([1, 2, 3]),
                                     initializer=lib.constant(10), reverse=True),
    "foldl": lambda lib: lib.foldl(lambda a, x: a - x, lib.constant([1, 2, 3])),
    "foldr": lambda lib: lib.foldr(lambda a, x: a - x, lib.constant([1, 2, 3])),
    "vmap": lambda lib: lib.vectorized_map(lambda x: lib.reduce_sum(x * x),
                                           lib.constant([[1.0, 2.0], [3.0, 4.0]])),
    "vmap_fallback": lambda lib: lib.shape(lib.vectorized_map(
        lambda x: x + lib.random.uniform([2]), lib.constant([[1.0, 2.0], [3.0, 4.0]]))),
    "ta_stack": lambda lib: lib.TensorArray(lib.float32, size=2).write(0, 1.0).write(1, 2.0)
    .stack(),
    "ta_dynamic": lambda lib: lib.TensorArray(lib.float32, size=0, dynamic_size=True)
    .write(2, lib.constant(1.0)).stack(),
    "ta_partial": lambda lib: lib.TensorArray(lib.float32, size=2)
    .write(0, lib.constant([1.0, 2.0])).stack(),
    "ta_gather": lambda lib: lib.TensorArray(lib.float32, size=3)
    .unstack(lib.constant([1.0, 2.0, 3.0])).gather([2, 0]),
    "ta_scatter": lambda lib: lib.TensorArray(lib.float32, size=3)
    .scatter([2, 0], lib.constant([1.0, 2.0])).stack(),
    "ta_split_concat": lambda lib: lib.TensorArray(lib.float32, size=2, infer_shape=False)
    .split(lib.constant([1.0, 2.0, 3.0]), [1, 2]).concat(),
    "ta_size": lambda lib: lib.TensorArray(lib.float32, size=3).size(),
    "ta_empty": lambda lib: lib.TensorArray(lib.float32, size=0).stack(),
}

ERRORS = {
    "cond_not_callable": lambda lib: lib.cond(lib.constant(True), 1, lambda: 2),
    "cond_vector": lambda lib: lib.cond(lib.constant([True, False]), lambda: 1, lambda: 2),
    "case_none_true": lambda lib: lib.case([(lib.constant(False), lambda: lib.constant(1)),
                                            (lib.constant(False), lambda: lib.constant(2))]),
    "while_structure": lambda lib: lib.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,),
                                                  [0, 1]),
    "while_not_callable": lambda lib: lib.while_loop(1, lambda i: i, [0]),
    "while_no_vars": lambda lib: lib.while_loop(lambda i: True, lambda i: i, []),
    "map_fn_dtype": lambda lib: lib.map_fn(lambda x: lib.cast(x, lib.float32),
                                           lib.constant([1, 2])),
    "map_fn_ragged": lambda lib: lib.map_fn(lambda x: x, (lib.constant([1, 2]),
                                                          lib.constant([1, 2, 3]))),
    "ta_oob": lambda lib: lib.TensorArray(lib.float32, size=2).write(3, lib.constant(1.0)),
    "ta_dtype": lambda lib: lib.TensorArray(lib.float32, size=2).write(0, lib.constant(1)),
    "ta_shape": lambda lib: lib.TensorArray(lib.float32, size=2).write(0, lib.constant([1.0]))
    .write(1, lib.constant([1.0, 2.0])),
    "ta_read_oob": lambda lib: lib.TensorArray(lib.float32, size=2).read(5),
    "ta_read_unknown": lambda lib: lib.TensorArray(lib.float32, size=2).read(1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_tf(name):
    rtf = real_tf()
    ours, theirs = CASES[name](tf), CASES[name](rtf)
    assert_close(ours, theirs.numpy() if hasattr(theirs, "numpy") else theirs)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_tf(name):
    rtf = real_tf()
    with pytest.raises(Exception) as theirs:
        ERRORS[name](rtf)
    expected = type(theirs.value)
    ours_type = getattr(tf.errors, expected.__name__, expected)
    with pytest.raises(ours_type):
        ERRORS[name](tf)


def test_gradients_flow_through_control_flow():
    rtf = real_tf()
    res = []
    for lib in (tf, rtf):
        x = lib.constant([1.0, 2.0])
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = lib.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x),
                               (lib.constant(0), lib.ones([2])))[1]
            z = lib.cond(lib.constant(True), lambda: y * 2.0, lambda: y)
            m = lib.map_fn(lambda t: t * t, z)
            ta = lib.TensorArray(lib.float32, size=1).write(0, m).stack()
            out = lib.reduce_sum(ta) + lib.reduce_sum(lib.vectorized_map(lambda t: t * 3.0, x))
        res.append(tape.gradient(out, x))
    assert_close(res[0], res[1].numpy(), rtol=1e-5)


def test_map_fn_over_a_vector_of_strings_gives_each_element_as_a_scalar():
    """Each element of a 1-D string tensor is a scalar string tensor (it was a bare
    bytes object, which string ops rejected)."""
    rtf = real_tf()
    words = [b"ab", b"cde", b""]
    for lib in (tf, rtf):
        got = lib.map_fn(lambda s, lib=lib: lib.strings.length(s), lib.constant(words),
                         fn_output_signature=lib.int32)
        assert got.numpy().tolist() == [2, 3, 0]
        upper = lib.map_fn(lambda s, lib=lib: lib.strings.upper(s), lib.constant([words]))
        assert upper.numpy().tolist() == [[b"AB", b"CDE", b""]]
