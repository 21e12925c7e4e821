"""authormask: author obfuscation with a stated, checkable differential-privacy guarantee.

>>> import authormask as am
>>> am.mechanism_names()[:6]
('emp-bag', 'emp-text', 'erae', 'ae-dp', 'syntf', 'random-r')
>>> am.mechanism_names()[6:]  # doctest: +NORMALIZE_WHITESPACE
('mahalanobis', 'tem', 'santext', 'emp-doc', 'random-sub', 'emp-write', 'emp-sentence',
 'emp-event')
"""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes
from authormask._version import __version__

# The public API is imported on first use (PEP 562), so `import authormask` and the CLI's
# start do not load numpy-heavy modules, POT, torch or scikit-learn until they are needed.
_LAZY = {
    "EMDResult": "authormask.accounting",
    "PrivacyStatement": "authormask.accounting",
    "earth_movers_distance": "authormask.accounting",
    "privacy_multiplier": "authormask.accounting",
    "utility_bound": "authormask.accounting",
    "word_movers_distance": "authormask.accounting",
    "Embeddings": "authormask.embeddings",
    "load_embeddings": "authormask.embeddings",
    "AuthormaskError": "authormask.exceptions",
    "InputError": "authormask.exceptions",
    "InvalidParameterError": "authormask.exceptions",
    "EarthMoversMechanism": "authormask.mechanisms",
    "sample_nd_laplace": "authormask.mechanisms",
    "check_random_state": "authormask.randomness",
    "Engine": "authormask.core",
    "Mechanism": "authormask.core",
    "Release": "authormask.core",
    "ReleasedDocument": "authormask.core",
    "RunReport": "authormask.core",
    "create_mechanism": "authormask.core",
    "mechanism_names": "authormask.core",
    "release": "authormask.core",
    "TextPreparer": "authormask.text",
    "fixed_length_bag": "authormask.text",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from authormask.accounting import (
        EMDResult,
        PrivacyStatement,
        earth_movers_distance,
        privacy_multiplier,
        utility_bound,
        word_movers_distance,
    )
    from authormask.core import (
        Engine,
        Mechanism,
        Release,
        ReleasedDocument,
        RunReport,
        create_mechanism,
        mechanism_names,
        release,
    )
    from authormask.embeddings import Embeddings, load_embeddings
    from authormask.exceptions import AuthormaskError, InputError, InvalidParameterError
    from authormask.mechanisms import EarthMoversMechanism, sample_nd_laplace
    from authormask.randomness import check_random_state
    from authormask.text import TextPreparer, fixed_length_bag

__all__ = [
    "AuthormaskError",
    "EMDResult",
    "EarthMoversMechanism",
    "Embeddings",
    "Engine",
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


__getattr__, __dir__ = lazy_attributes("authormask", _LAZY, globals(), __all__)
