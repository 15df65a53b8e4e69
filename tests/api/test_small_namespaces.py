"""tf.sysconfig, tf.xla.experimental, tf.types.experimental and the tf.experimental
execution switches, against real TensorFlow where TF's answers are not about TF's
own build (sysconfig describes torchflow's engine, PyTorch)."""

from __future__ import annotations

import os
import typing

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


def test_sysconfig_points_at_the_engine_headers_and_libraries():
    s = torchflow.sysconfig
    assert os.path.isfile(os.path.join(s.get_include(), "torch", "extension.h"))
    libs = os.listdir(s.get_lib())
    for flag in s.get_link_flags()[1:]:
        assert any(f.startswith("lib" + flag[2:] + ".") for f in libs), flag
    assert s.get_compile_flags()[0] == "-I" + s.get_include()
    assert s.get_link_flags()[0] == "-L" + s.get_lib()
    assert f"-D_GLIBCXX_USE_CXX11_ABI={s.CXX11_ABI_FLAG}" in s.get_compile_flags()
    assert s.CXX11_ABI_FLAG in (0, 1) and s.MONOLITHIC_BUILD == 0


@pytest.mark.compat
def test_sysconfig_has_tfs_shapes():
    rtf = real_tf()
    for name in ("get_include", "get_lib"):
        assert type(getattr(torchflow.sysconfig, name)()) is type(getattr(rtf.sysconfig, name)())
    for name in ("get_compile_flags", "get_link_flags"):
        assert all(isinstance(f, str) for f in getattr(torchflow.sysconfig, name)())
    mine, theirs = torchflow.sysconfig.get_build_info(), rtf.sysconfig.get_build_info()
    assert set(mine) <= set(theirs)
    for k in mine:
        assert type(mine[k]) is type(theirs[k]), k
    assert type(torchflow.sysconfig.CXX11_ABI_FLAG) is type(rtf.sysconfig.CXX11_ABI_FLAG)


XLA_CASES = {
    "single": (lambda tf: lambda x: x + 1, lambda tf: [tf.constant(1.0)]),
    "tuple": (lambda tf: lambda x: (x + 1, x * 2), lambda tf: [tf.constant(1.5)]),
    "no_inputs": (lambda tf: lambda: tf.constant(3), lambda tf: None),
    "python_inputs": (lambda tf: lambda x, y: [x, y], lambda tf: [1.0, 2.0]),
    "dict": (lambda tf: lambda x: {"a": x * 3}, lambda tf: [tf.constant(1.0)]),
    "nested": (lambda tf: lambda x: (x, (x + 1, x)), lambda tf: [tf.constant(1.0)]),
    "python_result": (lambda tf: lambda: 5, lambda tf: None),
    "matmul": (lambda tf: lambda a: tf.matmul(a, a, transpose_b=True),
               lambda tf: [tf.constant(np.arange(6.0).reshape(2, 3))]),
}


def _canon(x):
    if isinstance(x, dict):
        return ("dict", {k: _canon(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_canon(v) for v in x])
    return (x.numpy().tolist(), x.dtype.name)


@pytest.mark.compat
@pytest.mark.parametrize("case", sorted(XLA_CASES))
def test_xla_compile_returns_what_tf_returns(case):
    fn, inputs = XLA_CASES[case]
    rtf = real_tf()
    want = _canon(rtf.xla.experimental.compile(fn(rtf), inputs(rtf)))
    got = _canon(torchflow.xla.experimental.compile(fn(torchflow), inputs(torchflow)))
    assert got == want


@pytest.mark.compat
def test_jit_scope_is_tfs_eager_error_and_accepted_in_functions():
    msgs = []
    for m in (real_tf(), torchflow):
        with pytest.raises(RuntimeError) as e:
            with m.xla.experimental.jit_scope():
                pass
        msgs.append(str(e.value))

        @m.function
        def f(x):
            with m.xla.experimental.jit_scope(compile_ops=True):
                return x * 2

        assert float(f(m.constant(2.0))) == 4.0
    assert msgs[0] == msgs[1]


def test_tensor_like_is_a_union_of_what_converts():
    args = typing.get_args(torchflow.types.experimental.TensorLike)
    assert torchflow.Tensor in args and np.ndarray in args
    for v in (torchflow.constant(1), 1, 2.5, True, "s", b"b", 1j, (1, 2), [1], np.ones(2),
              np.float32(1), torchflow.Variable(1.0)):
        assert isinstance(v, args), v
        torchflow.convert_to_tensor(v)


@pytest.mark.compat
def test_async_scope_and_executor_type_run_ops_as_tf():
    out = []
    for m in (real_tf(), torchflow):
        with m.experimental.async_scope():
            x = m.constant([1, 2]) * 3
        m.experimental.async_clear_error()
        with m.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
            y = m.function(lambda a: a + 1)(x)
        out.append(y.numpy().tolist())
    assert out[0] == out[1] == [4, 7]


@pytest.mark.compat
def test_register_filesystem_plugin_missing_file_as_tf(tmp_path):
    missing = str(tmp_path / "libnope.so")
    errs = []
    for m in (real_tf(), torchflow):
        with pytest.raises(FileNotFoundError) as e:
            m.experimental.register_filesystem_plugin(missing)
        errs.append(str(e.value))
    assert errs[0] == errs[1]
    plugin = tmp_path / "libfs.so"
    plugin.write_bytes(b"\x7fELF")
    with pytest.raises(torchflow.errors.UnimplementedError):
        torchflow.experimental.register_filesystem_plugin(str(plugin))
