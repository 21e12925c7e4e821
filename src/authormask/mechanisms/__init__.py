"""Privacy mechanisms: the n-dimensional Laplace sampler, Earth Mover's privacy for text, the
exponential mechanism with token-by-token generation (ER-AE, AE-DP, SynTF, Random-R), and the
peer word-level mechanisms (Mahalanobis, TEM, SanText).

Each built-in mechanism's spec and factory are declared beside it, as a plugin's are, in a
module that imports no numpy (``earth_movers_spec``, ``generation_spec``, ``peers_spec``, ...):
the registry reads them to list every mechanism's parameters, so the package imports its
mechanisms on first use (PEP 562)."""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
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

# Imported on first use (PEP 562): reading a mechanism's spec loads no numpy.
_LAZY = {
    "Output": "authormask.mechanisms._base",
    "DEFAULT_LENGTH": "authormask.mechanisms.earth_movers",
    "EarthMoversMechanism": "authormask.mechanisms.earth_movers",
    "EMPBag": "authormask.mechanisms.earth_movers",
    "EMPText": "authormask.mechanisms.earth_movers",
    "sample_laplace_radius": "authormask.mechanisms.laplace",
    "sample_nd_laplace": "authormask.mechanisms.laplace",
    "sample_unit_directions": "authormask.mechanisms.laplace",
    "MahalanobisMechanism": "authormask.mechanisms.peers",
    "MahalanobisText": "authormask.mechanisms.peers",
    "SanText": "authormask.mechanisms.peers",
    "SanTextMechanism": "authormask.mechanisms.peers",
    "TEMText": "authormask.mechanisms.peers",
    "TruncatedExponentialMechanism": "authormask.mechanisms.peers",
}

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


__getattr__, __dir__ = lazy_attributes("authormask.mechanisms", _LAZY, globals(), __all__)
