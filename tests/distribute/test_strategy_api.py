"""The tf.distribute Strategy API surface: the default strategy, contexts, small value
classes, TF 2.4's renames and removals, and TF's errors for misuse."""

import warnings

import numpy as np
import pytest
from distribute_testing import logical_cpus

import torchflow as tf
from torchflow._src.testing import real_tf


def test_default_strategy_contexts():
    s = tf.distribute.get_strategy()
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    ctx = tf.distribute.get_replica_context()
    assert ctx is not None and ctx.num_replicas_in_sync == 1
    assert int(ctx.replica_id_in_sync_group) == 0
    assert s.num_replicas_in_sync == 1
    # The default strategy runs fn once and reduces nothing away.
    out = s.run(lambda x: x * 2, args=(tf.constant(3.0),))
    assert float(out) == 6.0
    assert float(s.reduce("SUM", out, axis=None)) == 6.0
    assert s.experimental_local_results(out)[0] is out
    ds = tf.data.Dataset.range(3)
    assert s.experimental_distribute_dataset(ds) is ds
    v = tf.Variable(1.0)
    assert s.extended.variable_created_in_scope(v)
    assert float(s.extended.update(v, lambda var, x: var.assign_add(x), args=(2.0,))) == 3.0


def test_scope_and_contexts(strategy2):
    assert tf.distribute.get_strategy() is not strategy2
    with strategy2.scope() as s:
        assert s is strategy2
        assert tf.distribute.has_strategy()
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        assert tf.distribute.get_strategy() is strategy2
        with strategy2.scope():  # re-entering the same strategy is allowed
            pass

        def fn():
            ctx = tf.distribute.get_replica_context()
            return (ctx.replica_id_in_sync_group, tf.distribute.in_cross_replica_context(),
                    ctx.num_replicas_in_sync)

        ids = strategy2.run(fn)
    assert [int(t) for t in strategy2.experimental_local_results(ids[0])] == [0, 1]
    assert ids[1] is False and ids[2] == 2
    assert not tf.distribute.has_strategy()


def test_merge_call_merges_replica_arguments(strategy2):
    seen = []

    def merge_fn(strategy, value):
        seen.append((strategy, [float(x) for x in strategy.experimental_local_results(value)],
                     tf.distribute.in_cross_replica_context()))
        return strategy.reduce("SUM", value, axis=None)

    def fn():
        ctx = tf.distribute.get_replica_context()
        x = tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0
        return ctx.merge_call(merge_fn, args=(x,))

    out = strategy2.run(fn)
    assert seen == [(strategy2, [1.0, 2.0], True)]
    assert [float(t) for t in strategy2.experimental_local_results(out)] == [3.0, 3.0]


def test_replicas_take_turns_between_merge_calls(strategy2):
    """Side effects run in replica order, segment by segment (TF's eager runner)."""
    log = []

    def fn():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group_py
        log.append(("a", rid))
        tf.distribute.get_replica_context().merge_call(lambda s: log.append("merge"))
        log.append(("b", rid))

    strategy2.run(fn)
    assert log == [("a", 0), ("a", 1), "merge", ("b", 0), ("b", 1)]


def test_input_context_and_value_context():
    ctx = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1,
                                     num_replicas_in_sync=4)
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == \
        (2, 1, 4)
    assert ctx.get_per_replica_batch_size(16) == 4
    with pytest.raises(ValueError, match="not divisible"):
        ctx.get_per_replica_batch_size(10)
    assert str(ctx) == "tf.distribute.InputContext(input pipeline id 1, total: 2)"
    rtf = real_tf()
    assert str(ctx) == str(rtf.distribute.InputContext(2, 1, 4))
    v = tf.distribute.experimental.ValueContext(1, 2)
    assert (v.replica_id_in_sync_group, v.num_replicas_in_sync) == (1, 2)


def test_enums_and_options_match_tf():
    rtf = real_tf()
    assert [m.name for m in tf.distribute.ReduceOp] == [m.name for m in rtf.distribute.ReduceOp]
    assert [m.value for m in tf.distribute.InputReplicationMode] == \
        [m.value for m in rtf.distribute.InputReplicationMode]
    impl = tf.distribute.experimental.CommunicationImplementation
    assert [m.name for m in impl] == \
        [m.name for m in rtf.distribute.experimental.CommunicationImplementation]
    opts = tf.distribute.experimental.CommunicationOptions()
    ref = rtf.distribute.experimental.CommunicationOptions()
    assert str(opts) == str(ref)
    assert (opts.bytes_per_pack, opts.timeout_seconds, opts.implementation.name) == \
        (ref.bytes_per_pack, ref.timeout_seconds, ref.implementation.name)
    o = tf.distribute.experimental.CommunicationOptions(bytes_per_pack=1024, timeout_seconds=5,
                                                        implementation="ring")
    assert (o.bytes_per_pack, o.timeout_seconds, o.implementation) == (1024, 5, impl.RING)
    merged = opts.merge(o)
    assert (merged.bytes_per_pack, merged.implementation) == (1024, impl.RING)
    with pytest.raises(ValueError):
        tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError):
        tf.distribute.experimental.CommunicationOptions(implementation=3)
    io = tf.distribute.InputOptions()
    assert io.experimental_prefetch_to_device is True
    assert io.experimental_replication_mode is tf.distribute.InputReplicationMode.PER_WORKER
    assert tf.distribute.RunOptions() == (True, False)


def test_2_4_renames_and_removals(strategy2):
    # CollectiveCommunication is CommunicationImplementation in 2.4 (a plain alias).
    assert tf.distribute.experimental.CollectiveCommunication is \
        tf.distribute.experimental.CommunicationImplementation
    with pytest.warns(DeprecationWarning, match="CommunicationOptions"):
        hints = tf.distribute.experimental.CollectiveHints(bytes_per_pack=8)
    assert hints.bytes_per_pack == 8
    # Removed in 2.4: AttributeError, as in TF.
    for name in ("experimental_run_v2", "experimental_make_numpy_dataset"):
        with pytest.raises(AttributeError):
            getattr(strategy2, name)
        with pytest.raises(AttributeError):
            getattr(strategy2.extended, name)
    # The 2.4 name, and the experimental_ spelling with TF's deprecation warning.
    seen = []

    def dataset_fn(ctx):
        seen.append(ctx.num_replicas_in_sync)
        return tf.data.Dataset.range(4).batch(ctx.get_per_replica_batch_size(4))

    strategy2.distribute_datasets_from_function(dataset_fn)
    with pytest.warns(DeprecationWarning, match="rename to distribute_datasets_from_function"):
        strategy2.experimental_distribute_datasets_from_function(dataset_fn)
    assert seen == [2, 2]
    # options= replaces experimental_hints= in 2.4.
    with strategy2.scope():
        pr = strategy2.experimental_distribute_values_from_function(
            lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group)))
        out = strategy2.extended.reduce_to(
            "SUM", pr, "/cpu:0", options=tf.distribute.experimental.CommunicationOptions())
        assert float(strategy2.experimental_local_results(out)[0]) == 1.0
        with pytest.raises(TypeError):
            strategy2.extended.reduce_to("SUM", pr, "/cpu:0", experimental_hints=None)


def test_error_mixing_strategy_scopes(strategy2):
    other = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy2.scope():
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy"):
            with other.scope():
                pass
    with pytest.raises(RuntimeError, match="cross-replica context"):
        strategy2.run(lambda: strategy2.scope().__enter__())


def test_error_logical_devices_after_start():
    logical_cpus(2)
    names = [d.name for d in tf.config.list_logical_devices("CPU")]
    assert names == ["/device:CPU:0", "/device:CPU:1"]
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(RuntimeError, match="Virtual devices cannot be modified after being "
                                           "initialized"):
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
    # The same configuration again is no change, as in TF.
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    with pytest.raises(RuntimeError, match="Intra op parallelism cannot be modified"):
        tf.config.threading.set_intra_op_parallelism_threads(1)
    with pytest.raises(RuntimeError, match="Inter op parallelism cannot be modified"):
        tf.config.threading.set_inter_op_parallelism_threads(1)


def test_duplicate_devices_refused_and_missing_gpus_soft_placed():
    logical_cpus(2)
    with pytest.raises(ValueError, match="No duplicates"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])
    if tf.config.list_physical_devices("GPU"):
        return
    # As TF's guide does on a machine without GPUs: the replicas run on the CPU.
    s = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    assert s.num_replicas_in_sync == 2
    assert s.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:GPU:0",
                                         "/job:localhost/replica:0/task:0/device:GPU:1")
    with s.scope():
        v = tf.Variable(1.0)
    out = s.run(lambda: v + 1.0)
    assert [float(t) for t in s.experimental_local_results(out)] == [2.0, 2.0]


def test_error_mismatched_replica_structures(strategy2):
    def fn():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group_py
        return [tf.constant(1.0)] * (rid + 1)

    with pytest.raises(ValueError, match="structures of the values returned by each replica"):
        strategy2.run(fn)


def test_error_merge_call_in_some_replicas_only(strategy2):
    def fn():
        ctx = tf.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group_py == 0:
            ctx.merge_call(lambda s: None)

    with pytest.raises(RuntimeError, match="some replicas but not others"):
        strategy2.run(fn)


def test_error_in_one_replica_is_raised_and_others_stop(strategy2):
    reached = []

    def fn():
        ctx = tf.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group_py == 1:
            raise KeyError("boom")
        ctx.merge_call(lambda s: None)
        reached.append("after merge")

    with pytest.raises(KeyError, match="boom"):
        strategy2.run(fn)
    assert reached == []


def test_error_variables_made_outside_the_scope(strategy2):
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.Adam()
    with strategy2.scope():
        assert not strategy2.extended.variable_created_in_scope(v)
        with pytest.raises(ValueError, match="Trying to create optimizer slot variable under "
                                             "the scope for tf.distribute.Strategy"):
            strategy2.run(lambda: opt.apply_gradients([(tf.ones([2]), v)]))
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    with strategy2.scope():
        with pytest.raises(ValueError, match="was not created in the distribution strategy"):
            model.compile("sgd", "mse")


def test_error_apply_gradients_in_cross_replica_context(strategy2):
    with strategy2.scope():
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD()
        with pytest.raises(RuntimeError, match="cannot be called in cross-replica context"):
            opt.apply_gradients([(tf.constant(1.0), v)])


def test_dataset_passed_to_run_unwrapped_reaches_every_replica(strategy2):
    """TF 2.4 passes a non-distributed argument (a Dataset too) to every replica as it
    is; iterating it in each replica sees the whole dataset."""
    ds = tf.data.Dataset.range(3)
    out = strategy2.run(lambda d: tf.constant([int(x) for x in d]), args=(ds,))
    got = [t.numpy().tolist() for t in strategy2.experimental_local_results(out)]
    assert got == [[0, 1, 2], [0, 1, 2]]


def test_gather_and_reduce_with_axis(strategy2):
    pr = strategy2.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([[1.0, 2.0]]) * (ctx.replica_id_in_sync_group + 1))
    np.testing.assert_allclose(strategy2.gather(pr, axis=0).numpy(), [[1, 2], [2, 4]])
    np.testing.assert_allclose(strategy2.reduce("SUM", pr, axis=None).numpy(), [[3, 6]])
    np.testing.assert_allclose(strategy2.reduce("MEAN", pr, axis=None).numpy(), [[1.5, 3]])
    np.testing.assert_allclose(strategy2.reduce("SUM", pr, axis=1).numpy(), 9.0)
    np.testing.assert_allclose(strategy2.reduce("MEAN", pr, axis=1).numpy(), 9.0 / 4)
    with pytest.raises(RuntimeError, match="not supported in replica context"):
        strategy2.run(lambda: strategy2.gather(tf.constant(1.0), axis=0))
    with strategy2.scope():
        with pytest.raises(ValueError, match="cannot be reduced with the given reduce op"):
            strategy2.extended.reduce_to("SUM", tf.constant(1.0), "/cpu:0")


def test_one_device_strategy():
    s = tf.distribute.OneDeviceStrategy("/cpu:0")
    with s.scope():
        v = tf.Variable(2.0)
    assert s.num_replicas_in_sync == 1
    assert isinstance(v, tf.distribute.DistributedValues)
    out = s.run(lambda: v * 3)
    assert float(out) == 6.0


def test_no_warnings_on_plain_use(strategy2):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with strategy2.scope():
            tf.Variable(1.0)
        strategy2.run(lambda: tf.constant(1.0))


def test_central_storage_strategy():
    names = logical_cpus(2)
    s = tf.distribute.experimental.CentralStorageStrategy(names, parameter_device="/cpu:0")
    assert s.num_replicas_in_sync == 2
    assert s.extended.parameter_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with s.scope():
        v = tf.Variable(2.0)
        opt = tf.keras.optimizers.SGD(0.5)

    def step():
        with tf.GradientTape() as tape:
            loss = v * v / 2.0  # each replica: d/dv = v, halved by the replica count
        opt.apply_gradients([(tape.gradient(loss, v) / 2.0, v)])

    s.run(step)
    assert float(v.numpy()) == 2.0 - 0.5 * 2.0  # the all-reduced gradient is v


def test_local_results_of_non_distributed_values(strategy2):
    rtf = real_tf()
    t = tf.constant(1.0)
    assert strategy2.experimental_local_results(t)[0] is t
    nested = (tf.constant(1.0), tf.constant(2.0))
    out = strategy2.experimental_local_results(nested)
    ref = rtf.distribute.get_strategy().experimental_local_results(
        (rtf.constant(1.0), rtf.constant(2.0)))
    assert len(out) == len(ref) == 1 and out[0] is nested


def test_experimental_set_strategy(strategy2):
    tf.distribute.experimental_set_strategy(strategy2)
    try:
        assert tf.distribute.get_strategy() is strategy2
        assert tf.distribute.in_cross_replica_context()
        v = tf.Variable(1.0)
        assert strategy2.extended.variable_created_in_scope(v)
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    with strategy2.scope():
        with pytest.raises(RuntimeError, match="Must not be called inside"):
            tf.distribute.experimental_set_strategy(tf.distribute.OneDeviceStrategy("/cpu:0"))
