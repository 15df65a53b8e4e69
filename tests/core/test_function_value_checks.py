"""tf.function with an ``input_signature`` whose body calls an op that checks values
(``tf.linalg.inv``, ``cholesky``, ``solve``): TF traces it without values, so
``get_concrete_function`` succeeds and only a call with a singular matrix raises.
torchflow's trace without real inputs stands in values; where zeros are rejected it
retries with identity matrices. Compared with real TensorFlow on the same inputs."""

import numpy as np
import pytest

import torchflow as tf

tf_ref = pytest.importorskip("tensorflow")

SIG = [(None, 3, 3)]
CASES = {
    "inv": lambda t, x: t.linalg.inv(x),
    "cholesky": lambda t, x: t.linalg.cholesky(x),
    "solve": lambda t, x: t.linalg.solve(x, x[..., :1]),
    "inv_of_product": lambda t, x: t.linalg.inv(t.matmul(x, x, transpose_b=True)),
}


def _spd(n: int) -> np.ndarray:
    a = np.random.default_rng(n).normal(size=(n, 3, 3)).astype(np.float32)
    return a @ np.swapaxes(a, 1, 2) + 3 * np.eye(3, dtype=np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_without_values_then_called(name):
    results = {}
    for lib in (tf, tf_ref):
        fn = lib.function(lambda x, lib=lib: CASES[name](lib, x),
                          input_signature=[lib.TensorSpec(SIG[0], lib.float32)])
        cf = fn.get_concrete_function()
        assert cf.structured_outputs.shape.as_list()[0] is None
        results[lib] = [fn(_spd(n)).numpy() for n in (1, 4)]
        if lib is tf_ref and name == "cholesky":
            # TF 2.21 fills a failed decomposition with NaNs and logs a warning; TF 2.4's
            # Cholesky kernel raised InvalidArgumentError, as torchflow does: 2.4 wins.
            continue
        # A singular matrix fails at call time, as the op's run-time check in TF.
        with pytest.raises(lib.errors.InvalidArgumentError):
            fn(np.zeros((2, 3, 3), np.float32))
    for got, want in zip(results[tf], results[tf_ref]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
