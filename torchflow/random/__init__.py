"""``tf.random``: random-number ops, seeds and generators."""

from torchflow._src.ops.candidate_sampling_ops import all_candidate_sampler as all_candidate_sampler
from torchflow._src.ops.candidate_sampling_ops import (
    fixed_unigram_candidate_sampler as fixed_unigram_candidate_sampler,
)
from torchflow._src.ops.candidate_sampling_ops import (
    learned_unigram_candidate_sampler as learned_unigram_candidate_sampler,
)
from torchflow._src.ops.candidate_sampling_ops import (
    log_uniform_candidate_sampler as log_uniform_candidate_sampler,
)
from torchflow._src.ops.candidate_sampling_ops import (
    uniform_candidate_sampler as uniform_candidate_sampler,
)
from torchflow._src.ops.random_generator import Algorithm as Algorithm
from torchflow._src.ops.random_generator import Generator as Generator
from torchflow._src.ops.random_generator import create_rng_state as create_rng_state
from torchflow._src.ops.random_generator import get_global_generator as get_global_generator
from torchflow._src.ops.random_generator import set_global_generator as set_global_generator
from torchflow._src.ops.random_ops import categorical as categorical
from torchflow._src.ops.random_ops import gamma as gamma
from torchflow._src.ops.random_ops import normal as normal
from torchflow._src.ops.random_ops import poisson as poisson
from torchflow._src.ops.random_ops import set_seed as set_seed
from torchflow._src.ops.random_ops import shuffle as shuffle
from torchflow._src.ops.random_ops import truncated_normal as truncated_normal
from torchflow._src.ops.random_ops import uniform as uniform
from torchflow._src.ops.stateless_random_ops import stateless_binomial as stateless_binomial
from torchflow._src.ops.stateless_random_ops import stateless_categorical as stateless_categorical
from torchflow._src.ops.stateless_random_ops import stateless_gamma as stateless_gamma
from torchflow._src.ops.stateless_random_ops import stateless_normal as stateless_normal
from torchflow._src.ops.stateless_random_ops import (
    stateless_parameterized_truncated_normal as stateless_parameterized_truncated_normal,
)
from torchflow._src.ops.stateless_random_ops import stateless_poisson as stateless_poisson
from torchflow._src.ops.stateless_random_ops import (
    stateless_truncated_normal as stateless_truncated_normal,
)
from torchflow._src.ops.stateless_random_ops import stateless_uniform as stateless_uniform
from torchflow.random import experimental as experimental
