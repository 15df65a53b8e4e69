"""torchflow: the TensorFlow 2.4 programming model on PyTorch.

``import torchflow as tf`` and write TF 2.4 code. This module only re-exports;
the implementation lives in ``torchflow._src``. Each section below belongs to one
op family or subsystem.
"""

# --- core -------------------------------------------------------------------
from torchflow._src.core.tensor import Tensor as Tensor
from torchflow._src.core.tensor import is_tensor as is_tensor
from torchflow._src.core.tensor import executing_eagerly as executing_eagerly
from torchflow._src.core.tensor_shape import TensorShape as TensorShape
from torchflow._src.core.convert import constant as constant
from torchflow._src.core.convert import convert_to_tensor as convert_to_tensor
from torchflow._src.core.dtypes import DType as DType
from torchflow._src.core.dtypes import as_dtype as as_dtype
from torchflow._src.core.dtypes import bfloat16 as bfloat16
from torchflow._src.core.dtypes import bool as bool  # noqa: A004
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
from torchflow._src.core.dtypes import resource as resource
from torchflow._src.core.dtypes import string as string
from torchflow._src.core.dtypes import uint8 as uint8
from torchflow._src.core.dtypes import uint16 as uint16
from torchflow._src.core.dtypes import uint32 as uint32
from torchflow._src.core.dtypes import uint64 as uint64
from torchflow._src.core.dtypes import variant as variant

# --- math_ops (tf.math aliases at top level) --------------------------------
from torchflow._src.ops.math_ops import add as add
# --- end math_ops -----------------------------------------------------------

# --- array_ops ---------------------------------------------------------------
# --- end array_ops -----------------------------------------------------------

# --- nn / linalg -------------------------------------------------------------
# --- end nn / linalg ---------------------------------------------------------

# --- random / strings / quantization / raw_ops ------------------------------
# --- end random / strings / quantization / raw_ops --------------------------

# --- config / device / debugging / nest / print -----------------------------
# --- end config / device / debugging / nest / print -------------------------

# --- variables / autodiff / function / control flow -------------------------
from torchflow._src.core.variables import Variable as Variable
from torchflow._src.core.variables import VariableAggregation as VariableAggregation
from torchflow._src.core.variables import VariableSynchronization as VariableSynchronization
from torchflow._src.core.variable_scope import name_scope as name_scope
from torchflow._src.core.variable_scope import variable_creator_scope as variable_creator_scope
from torchflow._src.core.module import Module as Module
from torchflow._src.core.tape import GradientTape as GradientTape
from torchflow._src.core.tape import UnconnectedGradients as UnconnectedGradients
from torchflow._src.core.custom_gradient import custom_gradient as custom_gradient
from torchflow._src.core.custom_gradient import grad_pass_through as grad_pass_through
from torchflow._src.core.custom_gradient import recompute_grad as recompute_grad
from torchflow._src.core.custom_gradient import stop_gradient as stop_gradient
from torchflow._src.core.function import function as function
from torchflow._src.core.tensor_spec import TensorSpec as TensorSpec
# --- end variables / autodiff / function / control flow ---------------------

# --- data / io / train --------------------------------------------------------
# --- end data / io / train ----------------------------------------------------

# Public submodules (tf.math, tf.nn, ...). Each family adds its line here.
# --- submodules ----------------------------------------------------------------
# --- end submodules ------------------------------------------------------------

newaxis = None

__version__ = "2.4.0"
VERSION = __version__
