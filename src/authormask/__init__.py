"""authormask: author obfuscation with a stated, checkable differential-privacy guarantee."""

from authormask._version import __version__
from authormask.accounting import (
    EMDResult,
    PrivacyStatement,
    earth_movers_distance,
    privacy_multiplier,
    utility_bound,
    word_movers_distance,
)
from authormask.accounting.calibration import CalibrationResult, word_statistics
from authormask.embeddings import Embeddings, load_embeddings
from authormask.exceptions import AuthormaskError, InputError, InvalidParameterError
from authormask.mechanisms import (
    EarthMoversMechanism,
    ObfuscationResult,
    obfuscate_texts,
    sample_nd_laplace,
)
from authormask.randomness import check_random_state
from authormask.text import TextPreparer, fixed_length_bag

__all__ = [
    "AuthormaskError",
    "CalibrationResult",
    "EMDResult",
    "EarthMoversMechanism",
    "Embeddings",
    "InputError",
    "InvalidParameterError",
    "ObfuscationResult",
    "PrivacyStatement",
    "TextPreparer",
    "__version__",
    "check_random_state",
    "earth_movers_distance",
    "fixed_length_bag",
    "load_embeddings",
    "obfuscate_texts",
    "privacy_multiplier",
    "sample_nd_laplace",
    "utility_bound",
    "word_movers_distance",
    "word_statistics",
]
