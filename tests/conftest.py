"""Shared pytest set-up.

``DEVICE`` picks where the suite runs (see DEVELOPERS.md):
  unset     whatever torch sees: the first GPU when there is one (TF's default), else CPU;
  DEVICE=cpu  hides GPUs (CUDA_VISIBLE_DEVICES="") so the CPU paths run even on a GPU box;
  DEVICE=gpu  the same tests on CUDA; the run stops at once if there is no CUDA device.
Tests marked ``gpu`` are skipped when no CUDA device is visible.
"""

import os

import pytest

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The reference runs TF's own kernels: on CPUs where TF 2.21 turns its oneDNN ops on by
# default, invalid shapes abort the process or return uninitialised memory (an empty
# VALID conv2d comes back as (1, 2, 2, 3)) instead of raising TF's InvalidArgumentError.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
_DEVICE = os.environ.get("DEVICE", "").lower()
if _DEVICE == "cpu":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # before torch initialises CUDA


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def pytest_configure(config):
    if _DEVICE not in ("", "cpu", "gpu"):
        raise pytest.UsageError(f"DEVICE must be cpu or gpu, not {_DEVICE!r}")
    if _DEVICE == "gpu" and not _cuda_available():
        raise pytest.UsageError("DEVICE=gpu but torch sees no CUDA device")


def pytest_collection_modifyitems(config, items):
    if any(item.get_closest_marker("gpu") for item in items) and not _cuda_available():
        skip = pytest.mark.skip(reason="needs a CUDA device (marker: gpu)")
        for item in items:
            if item.get_closest_marker("gpu"):
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _reset_torchflow_state():
    """Every test starts from torchflow's default global state."""
    from torchflow._src.core import context

    context.reset()
    _snapshot_real_tf_tensor()
    yield
    context.reset()
    _undo_real_tf_numpy_behavior()


_REAL_TF_TENSOR_DICT = {}


def _snapshot_real_tf_tensor():
    """Remembers real TF's Tensor class before any test turns on its NumPy mode."""
    import sys

    if _REAL_TF_TENSOR_DICT or "tensorflow" not in sys.modules:
        return
    from tensorflow.python.framework import ops, tensor

    if not getattr(ops, "_numpy_style_slicing", False):
        _REAL_TF_TENSOR_DICT.update(dict(vars(tensor.Tensor)))


def _undo_real_tf_numpy_behavior():
    """Real TF's experimental_enable_numpy_behavior is process-wide and has no
    off switch; tests comparing against it would change real TF for every later
    test in the worker. Put real TF back the way it was."""
    import sys

    if "tensorflow" not in sys.modules:
        return
    from tensorflow.python.framework import ops, tensor
    from tensorflow.python.ops.numpy_ops import np_dtypes

    if not getattr(ops, "_numpy_style_slicing", False):
        return
    ops._numpy_style_slicing = False
    ops.set_dtype_conversion_mode("off")
    np_dtypes.set_prefer_float32(False)
    if _REAL_TF_TENSOR_DICT:
        for name in list(vars(tensor.Tensor)):
            if name not in _REAL_TF_TENSOR_DICT:
                delattr(tensor.Tensor, name)
        for name, value in _REAL_TF_TENSOR_DICT.items():
            if vars(tensor.Tensor).get(name) is not value and name not in ("__dict__",
                                                                               "__weakref__"):
                try:
                    setattr(tensor.Tensor, name, value)
                except (AttributeError, TypeError):
                    pass


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Ends a run that includes tests/api/test_public_api.py with the API coverage."""
    from pathlib import Path

    if config.option.collectonly:
        return
    target = Path(__file__).resolve().parent / "api" / "test_public_api.py"
    base = Path(config.invocation_params.dir)
    args = [(base / a.split("::")[0]).resolve() for a in (config.args or ["."])]
    if not any(p == target or p in target.parents for p in args):
        return
    try:
        import importlib.util
        import sys

        tool = target.parents[2] / "tools" / "api_coverage.py"
        spec = importlib.util.spec_from_file_location("_api_coverage", tool)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        rows = mod.coverage()
        done, total = mod.totals(rows)
        started = [r for r in rows if r.implemented]
        parts = ", ".join(f"{r.tf_module} {len(r.implemented)}/{len(r.names)}" for r in started)
        terminalreporter.write_sep("-", "TF 2.4 API coverage")
        terminalreporter.write_line(
            f"{done} / {total} TF 2.4 public names ({100.0 * done / max(total, 1):.1f}%) in "
            f"{len(started)} of {len(rows)} namespaces: {parts}")
        terminalreporter.write_line("(full table: python tools/api_coverage.py --all)")
    except Exception as e:  # noqa: BLE001 - a summary line must never break the run
        terminalreporter.write_line(f"API coverage unavailable: {type(e).__name__}: {e}")
