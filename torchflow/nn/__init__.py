"""``tf.nn``: neural-network ops (activations, convolutions, pooling, losses)."""

from torchflow._src.keras.layers.rnn.cell_wrappers import (
    RNNCellDeviceWrapper as RNNCellDeviceWrapper,
)
from torchflow._src.keras.layers.rnn.cell_wrappers import (
    RNNCellDropoutWrapper as RNNCellDropoutWrapper,
)
from torchflow._src.keras.layers.rnn.cell_wrappers import (
    RNNCellResidualWrapper as RNNCellResidualWrapper,
)
from torchflow._src.ops.candidate_sampling_ops import all_candidate_sampler as all_candidate_sampler
from torchflow._src.ops.candidate_sampling_ops import (
    fixed_unigram_candidate_sampler as fixed_unigram_candidate_sampler,
)
from torchflow._src.ops.candidate_sampling_ops import (
    learned_unigram_candidate_sampler as learned_unigram_candidate_sampler,
)
from torchflow._src.ops.conv_ops import atrous_conv2d as atrous_conv2d
from torchflow._src.ops.conv_ops import atrous_conv2d_transpose as atrous_conv2d_transpose
from torchflow._src.ops.conv_ops import conv1d as conv1d
from torchflow._src.ops.conv_ops import conv1d_transpose as conv1d_transpose
from torchflow._src.ops.conv_ops import conv2d as conv2d
from torchflow._src.ops.conv_ops import conv2d_transpose as conv2d_transpose
from torchflow._src.ops.conv_ops import conv3d as conv3d
from torchflow._src.ops.conv_ops import conv3d_transpose as conv3d_transpose
from torchflow._src.ops.conv_ops import conv_transpose as conv_transpose
from torchflow._src.ops.conv_ops import convolution as convolution
from torchflow._src.ops.conv_ops import depthwise_conv2d as depthwise_conv2d
from torchflow._src.ops.conv_ops import (
    depthwise_conv2d_backprop_filter as depthwise_conv2d_backprop_filter,
)
from torchflow._src.ops.conv_ops import (
    depthwise_conv2d_backprop_input as depthwise_conv2d_backprop_input,
)
from torchflow._src.ops.conv_ops import separable_conv2d as separable_conv2d
from torchflow._src.ops.ctc_ops import collapse_repeated as collapse_repeated
from torchflow._src.ops.ctc_ops import ctc_beam_search_decoder as ctc_beam_search_decoder
from torchflow._src.ops.ctc_ops import ctc_greedy_decoder as ctc_greedy_decoder
from torchflow._src.ops.ctc_ops import ctc_loss as ctc_loss
from torchflow._src.ops.ctc_ops import ctc_unique_labels as ctc_unique_labels
from torchflow._src.ops.depth_space_ops import depth_to_space as depth_to_space
from torchflow._src.ops.depth_space_ops import space_to_depth as space_to_depth
from torchflow._src.ops.depth_space_ops import with_space_to_batch as with_space_to_batch
from torchflow._src.ops.embedding_ops import embedding_lookup as embedding_lookup
from torchflow._src.ops.fractional_pooling_ops import fractional_avg_pool as fractional_avg_pool
from torchflow._src.ops.fractional_pooling_ops import fractional_max_pool as fractional_max_pool
from torchflow._src.ops.isotonic_ops import isotonic_regression as isotonic_regression
from torchflow._src.ops.loss_ops import compute_average_loss as compute_average_loss
from torchflow._src.ops.loss_ops import l2_loss as l2_loss
from torchflow._src.ops.loss_ops import log_poisson_loss as log_poisson_loss
from torchflow._src.ops.loss_ops import scale_regularization_loss as scale_regularization_loss
from torchflow._src.ops.loss_ops import (
    sigmoid_cross_entropy_with_logits as sigmoid_cross_entropy_with_logits,
)
from torchflow._src.ops.loss_ops import (
    softmax_cross_entropy_with_logits as softmax_cross_entropy_with_logits,
)
from torchflow._src.ops.loss_ops import (
    sparse_softmax_cross_entropy_with_logits as sparse_softmax_cross_entropy_with_logits,
)
from torchflow._src.ops.loss_ops import (
    weighted_cross_entropy_with_logits as weighted_cross_entropy_with_logits,
)
from torchflow._src.ops.morphological_ops import dilation2d as dilation2d
from torchflow._src.ops.morphological_ops import erosion2d as erosion2d
from torchflow._src.ops.nn_ops import bias_add as bias_add
from torchflow._src.ops.nn_ops import crelu as crelu
from torchflow._src.ops.nn_ops import dropout as dropout
from torchflow._src.ops.nn_ops import elu as elu
from torchflow._src.ops.nn_ops import gelu as gelu
from torchflow._src.ops.nn_ops import leaky_relu as leaky_relu
from torchflow._src.ops.nn_ops import log_softmax as log_softmax
from torchflow._src.ops.nn_ops import relu as relu
from torchflow._src.ops.nn_ops import relu6 as relu6
from torchflow._src.ops.nn_ops import selu as selu
from torchflow._src.ops.nn_ops import sigmoid as sigmoid
from torchflow._src.ops.nn_ops import silu as silu
from torchflow._src.ops.nn_ops import softmax as softmax
from torchflow._src.ops.nn_ops import softplus as softplus
from torchflow._src.ops.nn_ops import softsign as softsign
from torchflow._src.ops.nn_ops import swish as swish
from torchflow._src.ops.nn_ops import tanh as tanh
from torchflow._src.ops.normalization_ops import (
    batch_norm_with_global_normalization as batch_norm_with_global_normalization,
)
from torchflow._src.ops.normalization_ops import batch_normalization as batch_normalization
from torchflow._src.ops.normalization_ops import (
    local_response_normalization as local_response_normalization,
)
from torchflow._src.ops.normalization_ops import local_response_normalization as lrn
from torchflow._src.ops.normalization_ops import moments as moments
from torchflow._src.ops.normalization_ops import normalize_moments as normalize_moments
from torchflow._src.ops.normalization_ops import sufficient_statistics as sufficient_statistics
from torchflow._src.ops.normalization_ops import weighted_moments as weighted_moments
from torchflow._src.ops.pooling_ops import avg_pool as avg_pool
from torchflow._src.ops.pooling_ops import avg_pool1d as avg_pool1d
from torchflow._src.ops.pooling_ops import avg_pool2d as avg_pool2d
from torchflow._src.ops.pooling_ops import avg_pool3d as avg_pool3d
from torchflow._src.ops.pooling_ops import max_pool as max_pool
from torchflow._src.ops.pooling_ops import max_pool1d as max_pool1d
from torchflow._src.ops.pooling_ops import max_pool2d as max_pool2d
from torchflow._src.ops.pooling_ops import max_pool3d as max_pool3d
from torchflow._src.ops.pooling_ops import max_pool_with_argmax as max_pool_with_argmax
from torchflow._src.ops.pooling_ops import pool as pool
from torchflow._src.ops.ranking_ops import in_top_k as in_top_k
from torchflow._src.ops.ranking_ops import top_k as top_k

# Aliases of ops owned by other families (tf.math, tf.random, tf.space_to_batch).
from torchflow._src.ops.reduction_ops import l2_normalize as l2_normalize
from torchflow._src.ops.sampled_loss_ops import compute_accidental_hits as compute_accidental_hits
from torchflow._src.ops.sampled_loss_ops import nce_loss as nce_loss
from torchflow._src.ops.sampled_loss_ops import sampled_softmax_loss as sampled_softmax_loss
from torchflow._src.ops.space_batch_ops import space_to_batch as space_to_batch
from torchflow._src.ops.sparse.sparse_embedding import (
    embedding_lookup_sparse as embedding_lookup_sparse,
)
from torchflow._src.ops.sparse.sparse_embedding import (
    safe_embedding_lookup_sparse as safe_embedding_lookup_sparse,
)
from torchflow._src.ops.unary_math_ops import zero_fraction as zero_fraction
