"""``tf.config.threading``: intra-op and inter-op thread counts."""

from torchflow._src.core.config import (
    get_inter_op_parallelism_threads as get_inter_op_parallelism_threads,
)
from torchflow._src.core.config import (
    get_intra_op_parallelism_threads as get_intra_op_parallelism_threads,
)
from torchflow._src.core.config import (
    set_inter_op_parallelism_threads as set_inter_op_parallelism_threads,
)
from torchflow._src.core.config import (
    set_intra_op_parallelism_threads as set_intra_op_parallelism_threads,
)
