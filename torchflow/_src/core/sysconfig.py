"""``tf.sysconfig``: where the engine's headers and libraries are, and how it was built.

torchflow has no C++ API of its own: its kernels are PyTorch's, so native
extensions (TF's custom ops) are built against PyTorch with
``torch.utils.cpp_extension``. These functions therefore describe the PyTorch
build torchflow runs on, in the shapes TF's functions return.
"""

from __future__ import annotations

import os

import torch

from torchflow._src.util.api import public

CXX11_ABI_FLAG: int = int(bool(torch._C._GLIBCXX_USE_CXX11_ABI))
"""1 if the engine's C++ library uses the C++11 ABI of ``std::string`` (else 0)."""

MONOLITHIC_BUILD: int = 0
"""0: the engine's libraries are shared libraries, as TF's non-monolithic build."""


@public("torchflow.sysconfig")
def get_include() -> str:
    """The directory of the engine's C++ headers (PyTorch's ``include``).

    Returns:
      An absolute path.

    >>> import os, torchflow as tf
    >>> os.path.isdir(tf.sysconfig.get_include())
    True
    """
    return os.path.join(os.path.dirname(torch.__file__), "include")


@public("torchflow.sysconfig")
def get_lib() -> str:
    """The directory of the engine's shared libraries (PyTorch's ``lib``).

    Returns:
      An absolute path.

    >>> import os, torchflow as tf
    >>> os.path.isdir(tf.sysconfig.get_lib())
    True
    """
    return os.path.join(os.path.dirname(torch.__file__), "lib")


@public("torchflow.sysconfig")
def get_compile_flags() -> list[str]:
    """The compiler flags for building a native extension against the engine.

    Returns:
      A list of strings: the include directory, the C++11 ABI define and the
      language standard.

    >>> import torchflow as tf
    >>> tf.sysconfig.get_compile_flags()[0].startswith("-I")
    True
    """
    return [f"-I{get_include()}",
            f"-I{os.path.join(get_include(), 'torch', 'csrc', 'api', 'include')}",
            f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}", "--std=c++17"]


@public("torchflow.sysconfig")
def get_link_flags() -> list[str]:
    """The linker flags for linking a native extension with the engine.

    Returns:
      A list of strings: the library directory and the libraries.

    >>> import torchflow as tf
    >>> tf.sysconfig.get_link_flags()[0].startswith("-L")
    True
    """
    return [f"-L{get_lib()}", "-lc10", "-ltorch", "-ltorch_cpu"]


@public("torchflow.sysconfig")
def get_build_info() -> dict:
    """Facts of the engine's build, under TF 2.4's ``build_info`` keys.

    Returns:
      A dict: ``is_cuda_build``, ``is_rocm_build`` (bools), and for CUDA builds
      ``cuda_version``, ``cudnn_version`` and ``cuda_compute_capabilities``.

    >>> import torchflow as tf
    >>> isinstance(tf.sysconfig.get_build_info()["is_cuda_build"], bool)
    True
    """
    info: dict = {"is_cuda_build": torch.version.cuda is not None,
                  "is_rocm_build": getattr(torch.version, "hip", None) is not None}
    if torch.version.cuda is not None:
        info["cuda_version"] = torch.version.cuda
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        if cudnn is not None:
            info["cudnn_version"] = str(cudnn // 10000 if cudnn >= 10000 else cudnn // 1000)
        info["cuda_compute_capabilities"] = list(torch.cuda.get_arch_list())
    return info
