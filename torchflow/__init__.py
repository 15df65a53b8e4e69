"""torchflow: the TensorFlow 2.4 programming model on PyTorch.

``import torchflow as tf`` and write TF 2.4 code. This module only re-exports;
the implementation lives in ``torchflow._src``. Each section below belongs to one
op family or subsystem.
"""

# --- core -------------------------------------------------------------------
import torchflow._src.ops.graph_lowering
import torchflow._src.ops.graph_lowering_ragged
import torchflow._src.ops.tensor_operators
from torchflow import audio as audio
from torchflow import autodiff as autodiff
from torchflow import autograph as autograph
from torchflow import bitwise as bitwise

# --- end variables / autodiff / function / control flow ---------------------
# --- data / io / train --------------------------------------------------------
# --- end data / io / train ----------------------------------------------------
# Public submodules (tf.math, tf.nn, ...). Each family adds its line here.
# --- submodules ----------------------------------------------------------------
from torchflow import compat as compat
from torchflow import config as config
from torchflow import data as data
from torchflow import debugging as debugging
from torchflow import distribute as distribute
from torchflow import dtypes as dtypes
from torchflow import errors as errors
from torchflow import experimental as experimental
from torchflow import feature_column as feature_column
from torchflow import graph_util as graph_util
from torchflow import image as image
from torchflow import io as io
from torchflow import keras as keras
from torchflow import linalg as linalg
from torchflow import lookup as lookup
from torchflow import math as math
from torchflow import mixed_precision as mixed_precision
from torchflow import nest as nest
from torchflow import nn as nn
from torchflow import profiler as profiler
from torchflow import quantization as quantization
from torchflow import queue as queue
from torchflow import ragged as ragged
from torchflow import random as random
from torchflow import raw_ops as raw_ops
from torchflow import saved_model as saved_model
from torchflow import sets as sets
from torchflow import signal as signal
from torchflow import sparse as sparse
from torchflow import strings as strings
from torchflow import summary as summary
from torchflow import sysconfig as sysconfig
from torchflow import test as test
from torchflow import train as train
from torchflow import types as types
from torchflow import version as version
from torchflow import xla as xla
from torchflow._src.core.composite_tensor import TypeSpec as TypeSpec
from torchflow._src.core.convert import constant as constant
from torchflow._src.core.convert import convert_to_tensor as convert_to_tensor
from torchflow._src.core.custom_gradient import custom_gradient as custom_gradient
from torchflow._src.core.custom_gradient import grad_pass_through as grad_pass_through
from torchflow._src.core.custom_gradient import recompute_grad as recompute_grad
from torchflow._src.core.custom_gradient import stop_gradient as stop_gradient

# --- end random / strings / quantization / raw_ops --------------------------
# --- config / device / debugging / nest / print -----------------------------
from torchflow._src.core.device import DeviceSpec as DeviceSpec
from torchflow._src.core.device import device as device
from torchflow._src.core.dtypes import QUANTIZED_DTYPES as QUANTIZED_DTYPES
from torchflow._src.core.dtypes import DType as DType
from torchflow._src.core.dtypes import as_dtype as as_dtype
from torchflow._src.core.dtypes import bfloat16 as bfloat16
from torchflow._src.core.dtypes import bool as bool
from torchflow._src.core.dtypes import complex64 as complex64
from torchflow._src.core.dtypes import complex128 as complex128
from torchflow._src.core.dtypes import double as double
from torchflow._src.core.dtypes import float16 as float16
from torchflow._src.core.dtypes import float32 as float32
from torchflow._src.core.dtypes import float64 as float64
from torchflow._src.core.dtypes import half as half
from torchflow._src.core.dtypes import int8 as int8
from torchflow._src.core.dtypes import int16 as int16
from torchflow._src.core.dtypes import int32 as int32
from torchflow._src.core.dtypes import int64 as int64
from torchflow._src.core.dtypes import qint8 as qint8
from torchflow._src.core.dtypes import qint16 as qint16
from torchflow._src.core.dtypes import qint32 as qint32
from torchflow._src.core.dtypes import quint8 as quint8
from torchflow._src.core.dtypes import quint16 as quint16
from torchflow._src.core.dtypes import resource as resource
from torchflow._src.core.dtypes import string as string
from torchflow._src.core.dtypes import uint8 as uint8
from torchflow._src.core.dtypes import uint16 as uint16
from torchflow._src.core.dtypes import uint32 as uint32
from torchflow._src.core.dtypes import uint64 as uint64
from torchflow._src.core.dtypes import variant as variant
from torchflow._src.core.function import control_dependencies as control_dependencies
from torchflow._src.core.function import function as function
from torchflow._src.core.function import init_scope as init_scope
from torchflow._src.core.function import inside_function as inside_function
from torchflow._src.core.graph_api import Graph as Graph
from torchflow._src.core.indexed_slices import IndexedSlices as IndexedSlices
from torchflow._src.core.indexed_slices import IndexedSlicesSpec as IndexedSlicesSpec
from torchflow._src.core.module import Module as Module
from torchflow._src.core.op_graph import Operation as Operation
from torchflow._src.core.tape import AggregationMethod as AggregationMethod
from torchflow._src.core.tape import GradientTape as GradientTape
from torchflow._src.core.tape import UnconnectedGradients as UnconnectedGradients
from torchflow._src.core.tape import gradients as gradients
from torchflow._src.core.tape import hessians as hessians
from torchflow._src.core.tensor import Tensor as Tensor
from torchflow._src.core.tensor import executing_eagerly as executing_eagerly
from torchflow._src.core.tensor import is_tensor as is_tensor
from torchflow._src.core.tensor_conversion_registry import (
    register_tensor_conversion_function as register_tensor_conversion_function,
)
from torchflow._src.core.tensor_shape import TensorShape as TensorShape
from torchflow._src.core.tensor_spec import TensorSpec as TensorSpec
from torchflow._src.core.tensor_spec import type_spec_from_value as type_spec_from_value
from torchflow._src.core.variable_scope import name_scope as name_scope
from torchflow._src.core.variable_scope import variable_creator_scope as variable_creator_scope

# --- end config / device / debugging / nest / print -------------------------
# --- variables / autodiff / function / control flow -------------------------
from torchflow._src.core.variables import Variable as Variable
from torchflow._src.core.variables import VariableAggregation as VariableAggregation
from torchflow._src.core.variables import VariableSynchronization as VariableSynchronization
from torchflow._src.data.iterator_ops import OptionalSpec as OptionalSpec
from torchflow._src.ops.array_ops import concat as concat
from torchflow._src.ops.array_ops import expand_dims as expand_dims
from torchflow._src.ops.array_ops import pad as pad
from torchflow._src.ops.array_ops import repeat as repeat
from torchflow._src.ops.array_ops import reshape as reshape
from torchflow._src.ops.array_ops import reverse as reverse
from torchflow._src.ops.array_ops import reverse_sequence as reverse_sequence
from torchflow._src.ops.array_ops import roll as roll
from torchflow._src.ops.array_ops import split as split
from torchflow._src.ops.array_ops import squeeze as squeeze
from torchflow._src.ops.array_ops import stack as stack
from torchflow._src.ops.array_ops import tile as tile
from torchflow._src.ops.array_ops import transpose as transpose
from torchflow._src.ops.array_ops import unstack as unstack
from torchflow._src.ops.clip_ops import clip_by_global_norm as clip_by_global_norm
from torchflow._src.ops.clip_ops import clip_by_norm as clip_by_norm
from torchflow._src.ops.clip_ops import clip_by_value as clip_by_value
from torchflow._src.ops.comparison_ops import equal as equal
from torchflow._src.ops.comparison_ops import greater as greater
from torchflow._src.ops.comparison_ops import greater_equal as greater_equal
from torchflow._src.ops.comparison_ops import less as less
from torchflow._src.ops.comparison_ops import less_equal as less_equal
from torchflow._src.ops.comparison_ops import logical_and as logical_and
from torchflow._src.ops.comparison_ops import logical_not as logical_not
from torchflow._src.ops.comparison_ops import logical_or as logical_or
from torchflow._src.ops.comparison_ops import not_equal as not_equal
from torchflow._src.ops.control_flow_ops import case as case
from torchflow._src.ops.control_flow_ops import cond as cond
from torchflow._src.ops.control_flow_ops import group as group
from torchflow._src.ops.control_flow_ops import no_op as no_op
from torchflow._src.ops.control_flow_ops import switch_case as switch_case
from torchflow._src.ops.control_flow_ops import tuple as tuple
from torchflow._src.ops.control_flow_ops import while_loop as while_loop
from torchflow._src.ops.creation_ops import bitcast as bitcast
from torchflow._src.ops.creation_ops import cast as cast
from torchflow._src.ops.creation_ops import eye as eye
from torchflow._src.ops.creation_ops import fill as fill
from torchflow._src.ops.creation_ops import identity as identity
from torchflow._src.ops.creation_ops import identity_n as identity_n
from torchflow._src.ops.creation_ops import linspace as linspace
from torchflow._src.ops.creation_ops import one_hot as one_hot
from torchflow._src.ops.creation_ops import ones as ones
from torchflow._src.ops.creation_ops import ones_like as ones_like
from torchflow._src.ops.creation_ops import range as range
from torchflow._src.ops.creation_ops import saturate_cast as saturate_cast

# --- end math_ops -----------------------------------------------------------
# --- array_ops ---------------------------------------------------------------
from torchflow._src.ops.creation_ops import zeros as zeros
from torchflow._src.ops.creation_ops import zeros_like as zeros_like
from torchflow._src.ops.critical_section_ops import CriticalSection as CriticalSection
from torchflow._src.ops.critical_section_ops import (
    nondifferentiable_batch_function as nondifferentiable_batch_function,
)
from torchflow._src.ops.debugging_ops import Assert as Assert
from torchflow._src.ops.debugging_ops import assert_equal as assert_equal
from torchflow._src.ops.debugging_ops import assert_greater as assert_greater
from torchflow._src.ops.debugging_ops import assert_less as assert_less
from torchflow._src.ops.debugging_ops import assert_rank as assert_rank
from torchflow._src.ops.einsum_ops import einsum as einsum
from torchflow._src.ops.einsum_ops import tensordot as tensordot
from torchflow._src.ops.functional_ops import foldl as foldl
from torchflow._src.ops.functional_ops import foldr as foldr
from torchflow._src.ops.functional_ops import map_fn as map_fn
from torchflow._src.ops.functional_ops import numpy_function as numpy_function
from torchflow._src.ops.functional_ops import py_function as py_function
from torchflow._src.ops.functional_ops import scan as scan
from torchflow._src.ops.functional_ops import vectorized_map as vectorized_map
from torchflow._src.ops.gather_ops import boolean_mask as boolean_mask
from torchflow._src.ops.gather_ops import gather as gather
from torchflow._src.ops.gather_ops import gather_nd as gather_nd
from torchflow._src.ops.gather_ops import scatter_nd as scatter_nd
from torchflow._src.ops.gather_ops import tensor_scatter_nd_add as tensor_scatter_nd_add
from torchflow._src.ops.gather_ops import tensor_scatter_nd_max as tensor_scatter_nd_max
from torchflow._src.ops.gather_ops import tensor_scatter_nd_min as tensor_scatter_nd_min
from torchflow._src.ops.gather_ops import tensor_scatter_nd_sub as tensor_scatter_nd_sub
from torchflow._src.ops.gather_ops import tensor_scatter_nd_update as tensor_scatter_nd_update
from torchflow._src.ops.gather_ops import where as where
from torchflow._src.ops.gradient_registry import RegisterGradient as RegisterGradient
from torchflow._src.ops.gradient_registry import no_gradient as no_gradient
from torchflow._src.ops.graph_import import import_graph_def as import_graph_def
from torchflow._src.ops.histogram_ops import histogram_fixed_width as histogram_fixed_width
from torchflow._src.ops.histogram_ops import (
    histogram_fixed_width_bins as histogram_fixed_width_bins,
)
from torchflow._src.ops.indexing import slice as slice
from torchflow._src.ops.indexing import strided_slice as strided_slice
from torchflow._src.ops.init_ops_v2 import constant_initializer as constant_initializer
from torchflow._src.ops.init_ops_v2 import ones_initializer as ones_initializer
from torchflow._src.ops.init_ops_v2 import random_normal_initializer as random_normal_initializer
from torchflow._src.ops.init_ops_v2 import random_uniform_initializer as random_uniform_initializer
from torchflow._src.ops.init_ops_v2 import zeros_initializer as zeros_initializer
from torchflow._src.ops.linalg_decomp_ops import eig as eig
from torchflow._src.ops.linalg_decomp_ops import eigvals as eigvals

# --- end array_ops -----------------------------------------------------------
# --- nn / linalg -------------------------------------------------------------
from torchflow._src.ops.linalg_ops import matmul as matmul
from torchflow._src.ops.linalg_ops import norm as norm
from torchflow._src.ops.linalg_special_ops import sqrtm as matrix_square_root
from torchflow._src.ops.logging_ops import print as print
from torchflow._src.ops.math_ops import add as add
from torchflow._src.ops.math_ops import add_n as add_n
from torchflow._src.ops.math_ops import atan2 as atan2
from torchflow._src.ops.math_ops import complex as complex
from torchflow._src.ops.math_ops import divide as divide
from torchflow._src.ops.math_ops import maximum as maximum
from torchflow._src.ops.math_ops import minimum as minimum
from torchflow._src.ops.math_ops import multiply as multiply
from torchflow._src.ops.math_ops import pow as pow
from torchflow._src.ops.math_ops import realdiv as realdiv
from torchflow._src.ops.math_ops import scalar_mul as scalar_mul
from torchflow._src.ops.math_ops import subtract as subtract
from torchflow._src.ops.math_ops import truediv as truediv
from torchflow._src.ops.math_ops import truncatediv as truncatediv
from torchflow._src.ops.math_ops import truncatemod as truncatemod
from torchflow._src.ops.partition_ops import dynamic_partition as dynamic_partition
from torchflow._src.ops.partition_ops import dynamic_stitch as dynamic_stitch
from torchflow._src.ops.partition_ops import get_static_value as get_static_value
from torchflow._src.ops.partition_ops import parallel_stack as parallel_stack
from torchflow._src.ops.partition_ops import unravel_index as unravel_index
from torchflow._src.ops.quantization_ops import (
    quantize_and_dequantize_v4 as quantize_and_dequantize_v4,
)
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensor as RaggedTensor
from torchflow._src.ops.ragged.ragged_tensor import RaggedTensorSpec as RaggedTensorSpec
from torchflow._src.ops.reduction_ops import argmax as argmax
from torchflow._src.ops.reduction_ops import argmin as argmin
from torchflow._src.ops.reduction_ops import reduce_all as reduce_all
from torchflow._src.ops.reduction_ops import reduce_any as reduce_any
from torchflow._src.ops.reduction_ops import reduce_logsumexp as reduce_logsumexp
from torchflow._src.ops.reduction_ops import reduce_max as reduce_max
from torchflow._src.ops.reduction_ops import reduce_mean as reduce_mean
from torchflow._src.ops.reduction_ops import reduce_min as reduce_min
from torchflow._src.ops.reduction_ops import reduce_prod as reduce_prod
from torchflow._src.ops.reduction_ops import reduce_sum as reduce_sum
from torchflow._src.ops.scan_ops import cumsum as cumsum
from torchflow._src.ops.shape_ops import broadcast_dynamic_shape as broadcast_dynamic_shape
from torchflow._src.ops.shape_ops import broadcast_static_shape as broadcast_static_shape
from torchflow._src.ops.shape_ops import broadcast_to as broadcast_to
from torchflow._src.ops.shape_ops import ensure_shape as ensure_shape
from torchflow._src.ops.shape_ops import guarantee_const as guarantee_const
from torchflow._src.ops.shape_ops import meshgrid as meshgrid
from torchflow._src.ops.shape_ops import rank as rank
from torchflow._src.ops.shape_ops import sequence_mask as sequence_mask
from torchflow._src.ops.shape_ops import shape as shape
from torchflow._src.ops.shape_ops import shape_n as shape_n
from torchflow._src.ops.shape_ops import size as size
from torchflow._src.ops.sort_ops import argsort as argsort
from torchflow._src.ops.sort_ops import searchsorted as searchsorted
from torchflow._src.ops.sort_ops import sort as sort
from torchflow._src.ops.sort_ops import unique as unique
from torchflow._src.ops.sort_ops import unique_with_counts as unique_with_counts
from torchflow._src.ops.space_batch_ops import batch_to_space as batch_to_space
from torchflow._src.ops.space_batch_ops import (
    required_space_to_batch_paddings as required_space_to_batch_paddings,
)
from torchflow._src.ops.space_batch_ops import space_to_batch as space_to_batch
from torchflow._src.ops.space_batch_ops import space_to_batch_nd as space_to_batch_nd
from torchflow._src.ops.sparse.sparse_misc import edit_distance as edit_distance
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor as SparseTensor
from torchflow._src.ops.sparse.sparse_tensor import SparseTensorSpec as SparseTensorSpec
from torchflow._src.ops.string_hash_ops import fingerprint as fingerprint

# --- end nn / linalg ---------------------------------------------------------
# --- random / strings / quantization / raw_ops ------------------------------
from torchflow._src.ops.string_ops import as_string as as_string
from torchflow._src.ops.tensor_array import TensorArray as TensorArray
from torchflow._src.ops.tensor_array import TensorArraySpec as TensorArraySpec
from torchflow._src.ops.tensor_util_ops import get_logger as get_logger
from torchflow._src.ops.tensor_util_ops import make_ndarray as make_ndarray
from torchflow._src.ops.tensor_util_ops import make_tensor_proto as make_tensor_proto
from torchflow._src.ops.tensor_util_ops import timestamp as timestamp
from torchflow._src.ops.trig_ops import acos as acos
from torchflow._src.ops.trig_ops import acosh as acosh
from torchflow._src.ops.trig_ops import asin as asin
from torchflow._src.ops.trig_ops import asinh as asinh
from torchflow._src.ops.trig_ops import atan as atan
from torchflow._src.ops.trig_ops import atanh as atanh
from torchflow._src.ops.trig_ops import cos as cos
from torchflow._src.ops.trig_ops import cosh as cosh
from torchflow._src.ops.trig_ops import sin as sin
from torchflow._src.ops.trig_ops import sinh as sinh
from torchflow._src.ops.trig_ops import tan as tan

# --- math_ops (tf.math aliases at top level) --------------------------------
from torchflow._src.ops.unary_math_ops import abs as abs
from torchflow._src.ops.unary_math_ops import exp as exp
from torchflow._src.ops.unary_math_ops import floor as floor
from torchflow._src.ops.unary_math_ops import negative as negative
from torchflow._src.ops.unary_math_ops import round as round
from torchflow._src.ops.unary_math_ops import sigmoid as sigmoid
from torchflow._src.ops.unary_math_ops import sign as sign
from torchflow._src.ops.unary_math_ops import sqrt as sqrt
from torchflow._src.ops.unary_math_ops import square as square
from torchflow._src.ops.unary_math_ops import tanh as tanh
from torchflow._src.ops.volume_patch_ops import extract_volume_patches as extract_volume_patches
from torchflow.keras import initializers as initializers
from torchflow.keras import losses as losses
from torchflow.keras import metrics as metrics
from torchflow.keras import optimizers as optimizers

# --- end submodules ------------------------------------------------------------

newaxis = None

__version__ = "2.4.0"
VERSION = __version__
