"""``tf.quantization``: simulated quantization."""

from torchflow._src.ops.quantization_ops import (
    fake_quant_with_min_max_args as fake_quant_with_min_max_args,
)
from torchflow._src.ops.quantization_ops import (
    fake_quant_with_min_max_args_gradient as fake_quant_with_min_max_args_gradient,
)
from torchflow._src.ops.quantization_ops import (
    fake_quant_with_min_max_vars as fake_quant_with_min_max_vars,
)
from torchflow._src.ops.quantization_ops import (
    fake_quant_with_min_max_vars_gradient as fake_quant_with_min_max_vars_gradient,
)
from torchflow._src.ops.quantization_ops import (
    fake_quant_with_min_max_vars_per_channel as fake_quant_with_min_max_vars_per_channel,
)
from torchflow._src.ops.quantization_ops import (
    fake_quant_with_min_max_vars_per_channel_gradient as fake_quant_with_min_max_vars_per_channel_gradient,
)
from torchflow._src.ops.quantization_ops import quantize_and_dequantize as quantize_and_dequantize
from torchflow._src.ops.quantization_ops import (
    quantize_and_dequantize_v2 as quantize_and_dequantize_v2,
)
from torchflow._src.ops.quantize_ops import dequantize as dequantize
from torchflow._src.ops.quantize_ops import quantize as quantize
from torchflow._src.ops.quantize_ops import quantized_concat as quantized_concat
