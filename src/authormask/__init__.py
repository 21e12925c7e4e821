"""authormask: author obfuscation with a stated, checkable differential-privacy guarantee.

>>> import authormask as am
>>> am.mechanism_names()
('emp-bag', 'emp-text', 'erae', 'ae-dp', 'syntf', 'random-r')
"""

from authormask._version import __version__
from authormask.accounting import (
    EMDResult,
    PrivacyStatement,
    earth_movers_distance,
    privacy_multiplier,
    utility_bound,
    word_movers_distance,
)
from authormask.embeddings import Embeddings, load_embeddings
from authormask.exceptions import AuthormaskError, InputError, InvalidParameterError
from authormask.mechanisms import EarthMoversMechanism, sample_nd_laplace
from authormask.randomness import check_random_state
from authormask.release import (
    Mechanism,
    Release,
    ReleasedDocument,
    RunReport,
    create_mechanism,
    mechanism_names,
    release,
)
from authormask.text import TextPreparer, fixed_length_bag

__all__ = [
    "AuthormaskError",
    "EMDResult",
    "EarthMoversMechanism",
    "Embeddings",
    "InputError",
    "InvalidParameterError",
    "Mechanism",
    "PrivacyStatement",
    "Release",
    "ReleasedDocument",
    "RunReport",
    "TextPreparer",
    "__version__",
    "check_random_state",
    "create_mechanism",
    "earth_movers_distance",
    "fixed_length_bag",
    "load_embeddings",
    "mechanism_names",
    "privacy_multiplier",
    "release",
    "sample_nd_laplace",
    "utility_bound",
    "word_movers_distance",
]
