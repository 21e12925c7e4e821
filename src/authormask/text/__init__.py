"""Text preparation: tokens, stopwords, bags of words and the paper's fixed length N."""

from authormask.text.prepare import (
    FIXED_LENGTH_METHODS,
    OOV_POLICIES,
    FixedLengthBag,
    PreparedDocument,
    TextPreparer,
    fixed_length_bag,
)
from authormask.text.stopwords import default_stopwords, load_stopwords
from authormask.text.tokenize import Token, tokenize

__all__ = [
    "FIXED_LENGTH_METHODS",
    "OOV_POLICIES",
    "FixedLengthBag",
    "PreparedDocument",
    "TextPreparer",
    "Token",
    "default_stopwords",
    "fixed_length_bag",
    "load_stopwords",
    "tokenize",
]
