"""Text preparation: tokens, stopwords, bags of words, the paper's fixed length N, rendering."""

from authormask.text.prepare import (
    FIXED_LENGTH_METHODS,
    OOV_POLICIES,
    FixedLengthBag,
    PreparedDocument,
    TextPreparer,
    fixed_length_bag,
)
from authormask.text.render import match_case, render_text
from authormask.text.stopwords import default_stopwords, load_stopwords
from authormask.text.tokens import CLITICS, Token, tokenize

__all__ = [
    "CLITICS",
    "FIXED_LENGTH_METHODS",
    "OOV_POLICIES",
    "FixedLengthBag",
    "PreparedDocument",
    "TextPreparer",
    "Token",
    "default_stopwords",
    "fixed_length_bag",
    "load_stopwords",
    "match_case",
    "render_text",
    "tokenize",
]
