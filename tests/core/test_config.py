"""tf.config: devices, visibility, TF32, eager-function flag and threads."""

import os
import subprocess
import sys
import warnings

import pytest
import torch

import torchflow as tf
from torchflow._src.core import context
from torchflow._src.testing import real_tf


def test_physical_and_logical_devices_match_tf_on_cpu():
    rtf = real_tf()
    assert tf.config.list_physical_devices("CPU") == [
        tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")]
    assert [tuple(d) for d in tf.config.list_physical_devices("CPU")] == \
        [tuple(d) for d in rtf.config.list_physical_devices("CPU")]
    assert [tuple(d) for d in tf.config.list_logical_devices("CPU")] == \
        [tuple(d) for d in rtf.config.list_logical_devices("CPU")]
    assert tf.config.list_physical_devices("cpu") == rtf.config.list_physical_devices("cpu") == []
    n_gpu = torch.cuda.device_count() if torch.cuda.is_available() else 0
    assert len(tf.config.list_physical_devices("GPU")) == n_gpu


def test_logical_device_configuration_defaults_match_tf():
    rtf = real_tf()
    assert tuple(tf.config.LogicalDeviceConfiguration()) == \
        tuple(rtf.config.LogicalDeviceConfiguration())
    assert tf.config.experimental.VirtualDeviceConfiguration(10).memory_limit == 10


def test_virtual_cpus_appear_as_logical_devices():
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    names = [d.name for d in tf.config.list_logical_devices("CPU")]
    assert names == ["/device:CPU:0", "/device:CPU:1"]
    assert len(tf.config.get_logical_device_configuration(cpu)) == 2
    with tf.device("/CPU:1"):
        assert tf.constant(1).device.endswith("CPU:0")


def test_memory_growth_rules_match_tf():
    rtf = real_tf()
    cpu = tf.config.list_physical_devices("CPU")[0]
    rcpu = rtf.config.list_physical_devices("CPU")[0]
    for ours, theirs in [
        (lambda: tf.config.experimental.set_memory_growth(cpu, True),
         lambda: rtf.config.experimental.set_memory_growth(rcpu, True)),
        (lambda: tf.config.experimental.get_memory_growth(
            tf.config.PhysicalDevice("/physical_device:GPU:9", "GPU")),
         lambda: rtf.config.experimental.get_memory_growth(
             rtf.config.PhysicalDevice("/physical_device:GPU:9", "GPU"))),
    ]:
        with pytest.raises(ValueError):
            ours()
        with pytest.raises(ValueError):
            theirs()
    assert tf.config.experimental.get_device_details(cpu) == \
        rtf.config.experimental.get_device_details(rcpu) == {}


def test_visible_devices_and_default_device():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert cpu in tf.config.get_visible_devices()
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices("GPU") == []
    assert tf.constant(1.0).device.endswith("CPU:0")
    with pytest.raises(ValueError):
        tf.config.set_visible_devices([], "CPU")
    with pytest.raises(ValueError):
        tf.config.set_visible_devices(tf.config.PhysicalDevice("/physical_device:GPU:7", "GPU"))


def test_soft_placement_flag():
    assert tf.config.get_soft_device_placement() is True
    tf.config.set_soft_device_placement(False)
    assert tf.config.get_soft_device_placement() is False
    assert context.GLOBAL.soft_device_placement is False


def test_tf32_on_by_default_and_switchable():
    rtf = real_tf()
    assert tf.config.experimental.tensor_float_32_execution_enabled() is \
        rtf.config.experimental.tensor_float_32_execution_enabled() is True
    assert torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32
    tf.config.experimental.enable_tensor_float_32_execution(False)
    assert not tf.config.experimental.tensor_float_32_execution_enabled()
    assert not torch.backends.cuda.matmul.allow_tf32 and not torch.backends.cudnn.allow_tf32
    context.reset()  # the test fixture's reset restores TF32
    assert torch.backends.cuda.matmul.allow_tf32


def test_run_functions_eagerly_flag():
    assert tf.config.functions_run_eagerly() is False
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly() and context.GLOBAL.run_functions_eagerly
    tf.config.experimental_run_functions_eagerly(False)
    assert not tf.config.experimental_functions_run_eagerly()


def test_intra_op_threads_map_to_torch():
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert torch.get_num_threads() == 1
    assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    tf.config.threading.set_intra_op_parallelism_threads(0)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    with pytest.raises(ValueError):
        tf.config.threading.set_intra_op_parallelism_threads(-1)


def test_inter_op_threads_after_start_warns_instead_of_failing():
    n = torch.get_num_interop_threads()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tf.config.threading.set_inter_op_parallelism_threads(n + 1)  # torch allows one call
    m = torch.get_num_interop_threads()
    with pytest.warns(RuntimeWarning, match="already running"):
        tf.config.threading.set_inter_op_parallelism_threads(n + 2)
    assert tf.config.threading.get_inter_op_parallelism_threads() == n + 2
    assert torch.get_num_interop_threads() == m


def _fresh(code: str, **env_over) -> str:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_NUM_THREADS")}
    env.update(env_over)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_import_sets_a_short_openmp_spin_unless_user_chose():
    code = ("import os, torchflow; print(os.environ.get('GOMP_SPINCOUNT'), "
            "os.environ.get('OMP_WAIT_POLICY'))")
    assert _fresh(code) == "1000 None"
    assert _fresh(code, OMP_WAIT_POLICY="ACTIVE") == "None ACTIVE"  # the user's choice
    assert _fresh(code, GOMP_SPINCOUNT="50") == "50 None"
    late = "import os, torch, torchflow; print(os.environ.get('GOMP_SPINCOUNT'))"
    assert _fresh(late) == "None"  # torch loaded first: too late, leave it alone


def test_inter_op_threads_before_first_use_reach_torch():
    code = ("import torchflow as tf, torch; "
            "tf.config.threading.set_inter_op_parallelism_threads(3); "
            "print(torch.get_num_interop_threads())")
    assert _fresh(code) == "3"


def test_optimizer_and_policy_settings_recorded():
    rtf = real_tf()
    assert tf.config.optimizer.get_jit() == rtf.config.optimizer.get_jit()
    tf.config.optimizer.set_jit(True)
    assert tf.config.optimizer.get_jit() == "autoclustering"
    assert tf.config.optimizer.get_experimental_options() == \
        {"disable_model_pruning": False, "disable_meta_optimizer": False}
    assert tf.config.experimental.get_device_policy() == \
        rtf.config.experimental.get_device_policy()
    with pytest.raises(ValueError):
        tf.config.experimental.set_device_policy("bogus")
    assert tf.config.experimental.get_synchronous_execution() is True
    with pytest.raises(ValueError):
        tf.config.experimental.get_memory_info("CPU:0")


@pytest.mark.gpu
def test_gpu_details_and_memory_info():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    gpu = tf.config.list_physical_devices("GPU")[0]
    details = tf.config.experimental.get_device_details(gpu)
    assert "device_name" in details and len(details["compute_capability"]) == 2
    tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu) is True
    info = tf.config.experimental.get_memory_info("GPU:0")
    assert set(info) == {"current", "peak"}
    assert tf.constant(1.0).device.endswith("GPU:0")
    tf.config.set_visible_devices([], "GPU")
    assert tf.constant(1.0).device.endswith("CPU:0")


@pytest.mark.gpu
def test_tf32_reaches_cuda_matmul():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    a = torch.randn(512, 512, device="cuda")
    exact = (a.double() @ a.double()).float()
    tf.config.experimental.enable_tensor_float_32_execution(False)
    err_off = (a @ a - exact).abs().max().item()
    tf.config.experimental.enable_tensor_float_32_execution(True)
    err_on = (a @ a - exact).abs().max().item()
    if torch.cuda.get_device_capability()[0] >= 8:
        assert err_on > err_off * 4


def test_compatibility_switches_are_accepted():
    # TF 2.4 names (the *_mlir_graph_optimization pair is gone from TF 2.21).
    for name in ("enable_mlir_bridge", "disable_mlir_bridge", "enable_mlir_graph_optimization",
                 "disable_mlir_graph_optimization"):
        assert getattr(tf.config.experimental, name)() is None
    f = tf.config.experimental.ClusterDeviceFilters()
    f.set_device_filters("worker", 0, ["/job:ps"])
    with pytest.raises(TypeError):
        f.set_device_filters("worker", 0, [1])
    with pytest.raises(NotImplementedError):  # unsupported, with a clear error (issue 19)
        tf.debugging.experimental.enable_dump_debug_info("/tmp/unused")
    tf.debugging.experimental.disable_dump_debug_info()
    assert tf.dtypes.cast(tf.constant([1.5]), tf.int32).numpy().tolist() == [1]
