"""``tf.math.special``: Bessel functions on torch.special kernels.

16-bit floats run in float32 and are cast back. ``dawsn``, ``expint``,
``fresnel_cos``, ``fresnel_sin`` and ``spence`` have no torch kernel and are not
provided.
"""

from __future__ import annotations

import torch

from torchflow._src.ops import _math_common as mc
from torchflow._src.ops.unary_math_ops import _in_f32, _make_unary

_F = mc.FLOATS
_NS = "torchflow.math.special"

bessel_j0 = _make_unary("bessel_j0", "BesselJ0", _F, _in_f32(torch.special.bessel_j0),
                        "Computes the Bessel function of the first kind of order 0", module=_NS)
bessel_j1 = _make_unary("bessel_j1", "BesselJ1", _F, _in_f32(torch.special.bessel_j1),
                        "Computes the Bessel function of the first kind of order 1", module=_NS)
bessel_y0 = _make_unary("bessel_y0", "BesselY0", _F, _in_f32(torch.special.bessel_y0),
                        "Computes the Bessel function of the second kind of order 0", module=_NS)
bessel_y1 = _make_unary("bessel_y1", "BesselY1", _F, _in_f32(torch.special.bessel_y1),
                        "Computes the Bessel function of the second kind of order 1", module=_NS)
bessel_k0 = _make_unary("bessel_k0", "BesselK0", _F,
                        _in_f32(torch.special.modified_bessel_k0),
                        "Computes the modified Bessel function of the second kind of order 0",
                        module=_NS)
bessel_k1 = _make_unary("bessel_k1", "BesselK1", _F,
                        _in_f32(torch.special.modified_bessel_k1),
                        "Computes the modified Bessel function of the second kind of order 1",
                        module=_NS)
bessel_k0e = _make_unary("bessel_k0e", "BesselK0e", _F,
                         _in_f32(torch.special.scaled_modified_bessel_k0),
                         "Computes the exponentially scaled modified Bessel function K0",
                         module=_NS)
bessel_k1e = _make_unary("bessel_k1e", "BesselK1e", _F,
                         _in_f32(torch.special.scaled_modified_bessel_k1),
                         "Computes the exponentially scaled modified Bessel function K1",
                         module=_NS)
