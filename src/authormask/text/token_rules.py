"""The tokeniser's rules that decide how many words a text has, in the statement's words.

A mechanism's guarantee compares documents with the same number K of content positions; K is
counted on tokens, so every rule that makes one token of what a reader sees as two words (or
two of one) changes K and is named in the statement's ``tokens`` policy (issue 47: ``The dog
house.`` and ``The dog-house.`` gave emp-write K 2 and 0, and no statement said why).
:data:`CANONICAL_RULES` are those of :func:`~authormask.text.canonical.canonical_tokens`
(``emp-write``, ``emp-sentence``, ``emp-doc``, ``random-sub``); :data:`TEXT_RULES` those of
:func:`~authormask.text.tokens.tokenize` (``emp-text``, ``emp-bag`` and the peers).
"""

from __future__ import annotations

__all__ = ["CANONICAL_RULES", "TEXT_RULES"]

_SHARED = (
    "a word joined by inner hyphens or apostrophes is one token (dog-house, well-known, "
    "O'Brien): one content word where the vocabulary has it (well-known), else an unknown "
    "word, as the 'unknown words' policy says (where it is dropped, 'The dog house.' has two "
    "content words and 'The dog-house.' none), so joining or splitting two words changes K; "
    "English contractions are split into a word and a "
    "clitic (don't: do + n't; dog's: dog + 's), and a clitic is never a content word; a word is "
    "cut at every other mark (dog/house, dog_house and U.S.A. are two, two and three words)"
)

#: the rules of the canonical tokens, as the statement's ``tokens`` policy gives them
CANONICAL_RULES = (
    "Unicode NFKC, lower-cased; "
    + _SHARED
    + "; a number (digits with a ., , or : only between two digits, an optional leading . and "
    "a trailing %: 12.4%, 1,000, 10:30), a URL and an e-mail address are each one token, a "
    "content word only where the vocabulary has it (else an unknown word)"
)

#: the rules of the text tokens (in place), as the statement's ``tokens`` policy gives them
TEXT_RULES = (
    "Unicode NFKC, lower-cased; "
    + _SHARED
    + "; a number is cut at its inner marks (12.4% and 10:30 are two words each, 1,000 two), "
    "and a URL or e-mail address at its marks (jane.doe@example.com is four words)"
)
