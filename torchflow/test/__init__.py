"""``tf.test``: the test-case base class, assertion helpers and test utilities."""

from torchflow._src.ops.test_util import Benchmark as Benchmark
from torchflow._src.ops.test_util import TestCase as TestCase
from torchflow._src.ops.test_util import assert_equal_graph_def as assert_equal_graph_def
from torchflow._src.ops.test_util import benchmark_config as benchmark_config
from torchflow._src.ops.test_util import compute_gradient as compute_gradient
from torchflow._src.ops.test_util import create_local_cluster as create_local_cluster
from torchflow._src.ops.test_util import gpu_device_name as gpu_device_name
from torchflow._src.ops.test_util import is_built_with_cuda as is_built_with_cuda
from torchflow._src.ops.test_util import is_built_with_gpu_support as is_built_with_gpu_support
from torchflow._src.ops.test_util import is_built_with_rocm as is_built_with_rocm
from torchflow._src.ops.test_util import is_built_with_xla as is_built_with_xla
from torchflow._src.ops.test_util import is_gpu_available as is_gpu_available
from torchflow._src.ops.test_util import main as main
