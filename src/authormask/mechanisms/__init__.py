"""Privacy mechanisms: the n-dimensional Laplace sampler, Earth Mover's privacy for text, the
exponential mechanism with token-by-token generation (ER-AE, AE-DP, SynTF, Random-R), and the
peer word-level mechanisms (Mahalanobis, TEM, SanText)."""

from authormask.mechanisms._base import Output
from authormask.mechanisms.earth_movers import (
    DEFAULT_LENGTH,
    EarthMoversMechanism,
    EMPBag,
    EMPText,
)
from authormask.mechanisms.laplace import (
    sample_laplace_radius,
    sample_nd_laplace,
    sample_unit_directions,
)
from authormask.mechanisms.peers import (
    MahalanobisMechanism,
    MahalanobisText,
    SanText,
    SanTextMechanism,
    TEMText,
    TruncatedExponentialMechanism,
)

__all__ = [
    "DEFAULT_LENGTH",
    "EMPBag",
    "EMPText",
    "EarthMoversMechanism",
    "MahalanobisMechanism",
    "MahalanobisText",
    "Output",
    "SanText",
    "SanTextMechanism",
    "TEMText",
    "TruncatedExponentialMechanism",
    "sample_laplace_radius",
    "sample_nd_laplace",
    "sample_unit_directions",
]
