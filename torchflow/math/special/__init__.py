"""tf.math.special: special functions (re-exports only)."""

from torchflow._src.ops.special_math_ops import bessel_j0 as bessel_j0
from torchflow._src.ops.special_math_ops import bessel_j1 as bessel_j1
from torchflow._src.ops.special_math_ops import bessel_k0 as bessel_k0
from torchflow._src.ops.special_math_ops import bessel_k0e as bessel_k0e
from torchflow._src.ops.special_math_ops import bessel_k1 as bessel_k1
from torchflow._src.ops.special_math_ops import bessel_k1e as bessel_k1e
from torchflow._src.ops.special_math_ops import bessel_y0 as bessel_y0
from torchflow._src.ops.special_math_ops import bessel_y1 as bessel_y1
from torchflow._src.ops.special_math_ops import dawsn as dawsn
from torchflow._src.ops.special_math_ops import expint as expint
from torchflow._src.ops.special_math_ops import fresnel_cos as fresnel_cos
from torchflow._src.ops.special_math_ops import fresnel_sin as fresnel_sin
from torchflow._src.ops.special_math_ops import spence as spence
from torchflow._src.ops.special_unary_ops import bessel_i0 as bessel_i0
from torchflow._src.ops.special_unary_ops import bessel_i0e as bessel_i0e
from torchflow._src.ops.special_unary_ops import bessel_i1 as bessel_i1
from torchflow._src.ops.special_unary_ops import bessel_i1e as bessel_i1e
