"""``tf.random.experimental``."""

from torchflow._src.ops.random_generator import Algorithm as Algorithm
from torchflow._src.ops.random_generator import Generator as Generator
from torchflow._src.ops.random_generator import create_rng_state as create_rng_state
from torchflow._src.ops.random_generator import get_global_generator as get_global_generator
from torchflow._src.ops.random_generator import set_global_generator as set_global_generator
from torchflow._src.ops.stateless_random_ops import stateless_fold_in as stateless_fold_in
from torchflow._src.ops.stateless_random_ops import stateless_split as stateless_split
