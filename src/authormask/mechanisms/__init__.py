"""Privacy mechanisms: the n-dimensional Laplace sampler and Earth Mover's privacy for text."""

from authormask.mechanisms.earth_movers import (
    MODES,
    EarthMoversMechanism,
    ObfuscationResult,
    obfuscate_texts,
)
from authormask.mechanisms.laplace import (
    sample_laplace_radius,
    sample_nd_laplace,
    sample_unit_directions,
)

__all__ = [
    "MODES",
    "EarthMoversMechanism",
    "ObfuscationResult",
    "obfuscate_texts",
    "sample_laplace_radius",
    "sample_nd_laplace",
    "sample_unit_directions",
]
