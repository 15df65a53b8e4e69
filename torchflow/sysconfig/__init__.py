"""``tf.sysconfig``: headers, libraries and build facts of the engine (PyTorch)."""

from torchflow._src.core.sysconfig import CXX11_ABI_FLAG as CXX11_ABI_FLAG
from torchflow._src.core.sysconfig import MONOLITHIC_BUILD as MONOLITHIC_BUILD
from torchflow._src.core.sysconfig import get_build_info as get_build_info
from torchflow._src.core.sysconfig import get_compile_flags as get_compile_flags
from torchflow._src.core.sysconfig import get_include as get_include
from torchflow._src.core.sysconfig import get_lib as get_lib
from torchflow._src.core.sysconfig import get_link_flags as get_link_flags
