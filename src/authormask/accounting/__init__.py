"""Accounting: Earth Mover's distance, document-level guarantees and the privacy statement."""

from authormask.accounting.emd import EMDResult, earth_movers_distance, word_movers_distance
from authormask.accounting.guarantees import UtilityBound, privacy_multiplier, utility_bound
from authormask.accounting.statement import PrivacyStatement

__all__ = [
    "EMDResult",
    "PrivacyStatement",
    "UtilityBound",
    "earth_movers_distance",
    "privacy_multiplier",
    "utility_bound",
    "word_movers_distance",
]
