"""Privacy mechanisms: the n-dimensional Laplace sampler, Earth Mover's privacy for text, and the
exponential mechanism with token-by-token generation (ER-AE, AE-DP, SynTF, Random-R)."""

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

__all__ = [
    "DEFAULT_LENGTH",
    "EMPBag",
    "EMPText",
    "EarthMoversMechanism",
    "Output",
    "sample_laplace_radius",
    "sample_nd_laplace",
    "sample_unit_directions",
]
