"""tf.keras.mixed_precision.experimental (TF 2.4's deprecated API),
tf.mixed_precision.experimental and tf.keras.constraints.RadialConstraint,
against real TF (tf-keras) where 2.21 still has the names."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

MPE = tf.keras.mixed_precision.experimental


@pytest.mark.parametrize("name,loss_scale,want", [
    ("mixed_float16", "auto", "DynamicLossScale"), ("float32", "auto", None),
    ("mixed_bfloat16", "auto", None), ("mixed_float16", None, None),
    ("mixed_float16", 128, "FixedLossScale"), ("float16", "dynamic", "DynamicLossScale")])
def test_policy_loss_scale(name, loss_scale, want):
    p = MPE.Policy(name, loss_scale=loss_scale)
    assert isinstance(p, tf.keras.mixed_precision.Policy)
    assert (type(p.loss_scale).__name__ if p.loss_scale is not None else None) == want
    if want == "FixedLossScale":
        assert float(p.loss_scale()) == 128.0
    # TF 2.4: only an explicit loss scale is serialized; from_config round-trips it.
    cfg = p.get_config()
    assert ("loss_scale" in cfg) == (loss_scale != "auto")
    q = MPE.Policy.from_config(cfg)
    assert q.name == p.name and type(q.loss_scale) is type(p.loss_scale)
    assert repr(p) == f'<Policy "{name}", loss_scale={p.loss_scale}>'


def test_removed_policy_names_match_2_4():
    # TF 2.4's policy.py rejects the TF 2.0 '*_float32_vars' names with this message.
    with pytest.raises(ValueError, match="Policies ending in '_float32_vars' have been removed "
                                         "from TensorFlow. Please use the 'mixed_float16' or "
                                         "'mixed_bfloat16' policy instead. Got policy name: "
                                         "'infer_float32_vars'"):
        MPE.Policy("infer_float32_vars")
    with pytest.raises(ValueError, match="Please use the 'mixed_float16' policy instead"):
        MPE.set_policy("float16_with_float32_vars")
    with pytest.raises(ValueError, match="Invalid argument for loss_scale"):
        MPE.Policy("mixed_float16", loss_scale="big")


def test_set_policy_global_policy_and_layer_policy():
    try:
        MPE.set_policy("mixed_float16")
        assert MPE.global_policy().name == "mixed_float16"
        assert tf.keras.mixed_precision.global_policy().name == "mixed_float16"
        layer = tf.keras.layers.Dense(3)
        assert MPE.get_layer_policy(layer).name == "mixed_float16"
        y = layer(np.ones((2, 4), "float32"))
        assert y.dtype == tf.float16 and layer.kernel.dtype == tf.float32
        MPE.set_policy(MPE.Policy("float32", loss_scale=None))
        assert MPE.global_policy().compute_dtype == "float32"
        with pytest.raises(ValueError, match="floating-point policies"):
            MPE.set_policy("int32")
    finally:
        MPE.set_policy(None)
    assert MPE.global_policy().name == "float32"
    with pytest.raises(ValueError, match="get_policy can only be called on a layer"):
        MPE.get_layer_policy(3)


def test_loss_scale_optimizer_v1_arguments():
    sgd = tf.keras.optimizers.SGD(0.1)
    o = MPE.LossScaleOptimizer(sgd, "dynamic")
    assert isinstance(o, tf.keras.mixed_precision.LossScaleOptimizer)
    assert o.dynamic and float(o.loss_scale) == 2.0 ** 15
    o = MPE.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), 64)
    assert not o.dynamic and float(o.loss_scale) == 64.0
    ls = tf.mixed_precision.experimental.FixedLossScale(8)
    assert float(MPE.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), ls).loss_scale) == 8.0
    ls = tf.mixed_precision.experimental.DynamicLossScale(16, increment_period=3)
    o = MPE.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), ls)
    assert o.dynamic and float(o.loss_scale) == 16.0 and o.dynamic_growth_steps == 3
    with pytest.raises(ValueError, match="multiplier must be 2"):
        MPE.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1),
                               tf.mixed_precision.experimental.DynamicLossScale(multiplier=4))
    with pytest.raises(ValueError, match="Invalid value passed to loss_scale"):
        MPE.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), "static")

    class Custom(tf.mixed_precision.experimental.LossScale):
        pass

    with pytest.raises(TypeError, match="no longer supported"):
        MPE.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), Custom())


def test_loss_scale_optimizer_v1_trains_like_real_tf():
    t = real_tf()
    x = np.random.default_rng(0).random((8, 3)).astype("float32")
    w0 = np.array([[0.5], [-0.2], [0.1]], "float32")
    out = []
    for lib, opt_cls in [(tf, MPE.LossScaleOptimizer), (t, t.keras.mixed_precision.LossScaleOptimizer)]:
        v = lib.Variable(w0)
        if lib is tf:
            opt = opt_cls(tf.keras.optimizers.SGD(0.1), 1024)
        else:  # 2.21 has no experimental class; its fixed-scale equivalent
            opt = opt_cls(t.keras.optimizers.SGD(0.1), dynamic=False, initial_scale=1024)
        for _ in range(3):
            with lib.GradientTape() as tape:
                loss = lib.reduce_mean(lib.square(lib.matmul(x, v) - 1.0))
                scaled = opt.get_scaled_loss(loss)
            g = opt.get_unscaled_gradients(tape.gradient(scaled, [v]))
            opt.apply_gradients(zip(g, [v]))
        out.append(v.numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6)


def test_tf_mixed_precision_experimental_names():
    assert tf.mixed_precision.experimental.LossScale is tf.train.experimental.LossScale
    ls = tf.mixed_precision.experimental.DynamicLossScale(4, increment_period=1)
    ls.update([tf.constant(1.0)])
    assert float(ls()) == 8.0


@pytest.mark.parametrize("shape", [(5, 5, 2, 3), (4, 4, 1, 2), (3, 3, 2, 2), (6, 6, 1, 1),
                                   (2, 2, 3, 1)])
def test_radial_constraint_matches_tf(shape):
    t = real_tf()
    w = np.random.default_rng(1).random(shape).astype("float32")
    got = tf.keras.constraints.RadialConstraint()(tf.constant(w))
    want = t.keras.constraints.RadialConstraint()(t.constant(w))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert tf.keras.constraints.radial_constraint is tf.keras.constraints.RadialConstraint
    assert isinstance(tf.keras.constraints.get("RadialConstraint"),
                      tf.keras.constraints.RadialConstraint)
    with pytest.raises(ValueError, match="must be of rank 4"):
        tf.keras.constraints.RadialConstraint()(tf.ones([3, 3]))
