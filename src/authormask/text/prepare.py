"""Document preparation (section 2 and appendix B.1 of Fernandes et al. 2019).

Lowercasing, punctuation and stopword removal, a bag of words, an explicit out-of-vocabulary
(OOV) policy, and the fixed length N that Theorem 1 needs (bags must have equal size):

* ``truncate`` keeps the first N content words (appendix B.1: "truncate each text or snippet to
  the length of the shortest one in the set");
* ``sample`` draws N words i.i.d. from the bag's word-frequency distribution (arXiv 2018
  version, section 5.2).

The text is first cleaned (:func:`~authormask.text.clean.clean_text`: invisible and control
characters removed, line breaks and spaces written plainly, NFKC). Tokens
(:func:`~authormask.text.tokens.tokenize`) are words and punctuation marks; English
clitics (``n't``, ``'s``, ``'m``, ``'ll``, ``'re``, ``'ve``, ``'d``) are separate word tokens,
looked up in their lower-case ASCII-apostrophe form, and the default English stopword list contains
them. Every word token is a stopword, a content word (in the vocabulary) or out of vocabulary.
When ``n't`` is a stopword, the auxiliary it is attached to (``do`` in ``don't``, ``ca`` in
``can't``, ``could`` in ``couldn't``) is one too, as the NLTK list's ``don``, ``couldn`` and
``won`` intend: a negative contraction is a function word as a whole.

OOV policies (words with no vector cannot be perturbed):

* ``drop`` (default): the word is removed and never released. Bag mode only: in text mode a
  dropped word would leave a hole that shows where it was
  (:func:`~authormask.text.render.render_text` refuses such a document);
* ``keep``: the word is released unchanged - it is NOT protected; the public statement says so
  (the number of such words goes to the private run report only);
* ``map``: the word (a name, a number, anything with no vector) becomes a content position, so
  its identity is never released and every non-stopword word position of the text is released
  perturbed. What the mechanism is fed there: by default (``oov_map_to=None``) a content word
  drawn at random by the mechanism (:mod:`authormask.mechanisms.unknown`; the prepared document
  holds a public placeholder word there and lists the position in ``mapped``); or a fixed
  in-vocabulary word ``oov_map_to``, perturbed like any other word.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.text.clean import clean_text
from authormask.text.stopwords import default_stopwords
from authormask.text.tokens import Token, tokenize
from authormask.validation import check_positive_int

__all__ = [
    "FIXED_LENGTH_METHODS",
    "OOV_POLICIES",
    "FixedLengthBag",
    "PreparedDocument",
    "TextPreparer",
    "fixed_length_bag",
]

OOV_POLICIES = ("drop", "keep", "map")
FIXED_LENGTH_METHODS = ("truncate", "sample")

Role = Literal["content", "stopword", "punctuation", "oov-dropped", "oov-kept", "oov-mapped"]


@dataclass(frozen=True)
class PreparedDocument:
    """A document split into what the mechanism perturbs and what it does not.

    ``content_words`` are the (lowercased, in-vocabulary) words fed to the mechanism, in document
    order; ``content_positions`` their token indices (an ``oov-mapped`` token is a content
    position whose word is the preparer's ``oov_map_to``, or its placeholder). ``roles`` gives
    each token's fate; ``mapped`` the indices into ``content_words`` of the unknown words.

    Attributes
    ----------
    text
        The cleaned text.
    tokens
        Its tokens.
    roles
        Each token's role.
    content_words
        The words fed to the mechanism, in document order.
    content_positions
        Their token indices.
    kept_oov_words
        The unknown words kept as they are.
    mapped
        The indices into ``content_words`` of the unknown words mapped.
    """

    text: str
    tokens: tuple[Token, ...]
    roles: tuple[Role, ...]
    content_words: tuple[str, ...]
    content_positions: tuple[int, ...]
    kept_oov_words: tuple[str, ...]
    mapped: tuple[int, ...] = ()

    def count(self, role: Role) -> int:
        """The number of tokens whose role is ``role``.

        Parameters
        ----------
        role
            A role.

        Returns
        -------
        int
            The count.
        """
        return sum(1 for r in self.roles if r == role)

    @property
    def bag(self) -> Counter[str]:
        """The bag of content words (Definition 1)."""
        return Counter(self.content_words)


@dataclass(frozen=True)
class FixedLengthBag:
    """The N words that enter the mechanism, and how they were chosen.

    Attributes
    ----------
    words
        The N words.
    length
        N.
    method
        ``"truncate"`` or ``"sample"``.
    available
        The number of content words of the document.
    """

    words: tuple[str, ...]
    length: int
    method: str
    available: int

    @property
    def not_released(self) -> int:
        """Content words of the document that the fixed-length step left out (truncate only)."""
        return max(self.available - self.length, 0) if self.method == "truncate" else 0


class TextPreparer:
    """Prepare raw text for a given embedding vocabulary.

    Parameters
    ----------
    embeddings : Embeddings
        Words without a vector are out of vocabulary.
    stopwords
        Removed in bag mode, passed through unchanged in text mode. Default: the English list.
    oov
        ``"drop"``, ``"keep"`` or ``"map"``: the out-of-vocabulary policy (see the module
        docstring).
    oov_map_to
        The in-vocabulary word OOV words become under ``oov="map"``; ``None`` (the default): a
        word drawn at random by the mechanism (module notes).
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        stopwords: frozenset[str] | set[str] | None = None,
        oov: str = "drop",
        oov_map_to: str | None = None,
    ) -> None:
        if oov not in OOV_POLICIES:
            raise InvalidParameterError(
                f"oov policy must be one of {', '.join(OOV_POLICIES)}, got {oov!r}"
            )
        if oov == "map" and oov_map_to is not None and oov_map_to not in embeddings:
            raise InvalidParameterError(
                f"oov_map_to must be in the embeddings vocabulary, got {oov_map_to!r}"
            )
        self.embeddings = embeddings
        self.stopwords = frozenset(default_stopwords() if stopwords is None else stopwords)
        self.oov = oov
        self.oov_map_to = oov_map_to
        #: the word a prepared document holds at an unknown position (:func:`placeholder_word`)
        self.placeholder = placeholder_word(embeddings, self.stopwords, oov_map_to)

    def prepare(self, text: str, *, require_content: bool = True) -> PreparedDocument:
        """Clean (:func:`~authormask.text.clean.clean_text`: invisible and control characters
        removed, NFKC), tokenise, lowercase and classify every token; raise ``InputError`` if
        nothing is left (unless ``require_content`` is False: a part of a longer document may
        have no content word). The document's ``text`` is the cleaned text.

        Parameters
        ----------
        text
            The document.
        require_content
            Whether a document without content is refused.

        Returns
        -------
        PreparedDocument
            The prepared document.

        Raises
        ------
        InputError
            If the document is empty, or has no content word (when ``require_content``).
        """
        text = clean_text(text)
        if require_content and not text.strip():
            raise InputError("document is empty or whitespace only")
        tokens = tokenize(text)
        roles: list[Role] = []
        content: list[str] = []
        positions: list[int] = []
        kept: list[str] = []
        mapped: list[int] = []
        negation = "n't" in self.stopwords
        for i, tok in enumerate(tokens):
            low = tok.lower
            if not tok.is_word:
                roles.append("punctuation")
            elif low in self.stopwords or (negation and _before_negation(tokens, i)):
                roles.append("stopword")
            elif low in self.embeddings:
                roles.append("content")
                content.append(low)
                positions.append(i)
            elif self.oov == "drop":
                roles.append("oov-dropped")
            elif self.oov == "keep":
                roles.append("oov-kept")
                kept.append(low)
            else:
                roles.append("oov-mapped")
                mapped.append(len(content))
                content.append(self.placeholder)
                positions.append(i)
        if require_content and not content:
            raise InputError(
                "document has no content words left after removing punctuation, stopwords and "
                f"out-of-vocabulary words ({len(tokens)} tokens)"
            )
        return PreparedDocument(
            text=text,
            tokens=tuple(tokens),
            roles=tuple(roles),
            content_words=tuple(content),
            content_positions=tuple(positions),
            kept_oov_words=tuple(kept),
            mapped=tuple(mapped),
        )


def placeholder_word(
    embeddings: Embeddings, excluded: frozenset[str], oov_map_to: str | None
) -> str:
    """``oov_map_to``, else ``"unknown"`` when it is a vocabulary word not in ``excluded``, else
    the most frequent vocabulary word not in ``excluded``: the public word a prepared document
    holds where a mechanism will draw one (what a path that feeds prepared words straight to a
    per-word kernel, as the evaluation's studies do, perturbs there)."""
    if oov_map_to is not None:
        return oov_map_to
    if "unknown" in embeddings and "unknown" not in excluded:
        return "unknown"
    for w in embeddings.words:
        if w not in excluded:
            return w
    return embeddings.words[0]


#: The auxiliaries of English negative contractions (``ca`` of ``can't``, ``wo`` of ``won't``):
#: a fixed public list, treated as stopwords when ``n't`` is attached to them. Any other word
#: before ``n't`` (a name, a typo) stays a content word and is perturbed.
NEGATION_AUXILIARIES = frozenset(
    "ai are ca could dare did do does had has have is might must need ought sha should was "
    "were wo would".split()
)


def _before_negation(tokens: list[Token], i: int) -> bool:
    """Whether token ``i`` is an auxiliary of a negative contraction (``ca`` in ``can't``)."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return (
        nxt is not None
        and nxt.start == tokens[i].end
        and nxt.lower == "n't"
        and tokens[i].lower in NEGATION_AUXILIARIES
    )


def fixed_length_bag(
    words: tuple[str, ...] | list[str],
    *,
    length: int,
    method: str = "truncate",
    random_state: RandomState = None,
) -> FixedLengthBag:
    """Reduce a document's content words to exactly ``length`` words.

    ``truncate`` keeps the first N words and refuses a document with fewer; ``sample`` draws N
    words i.i.d. *with replacement* from the document's words (arXiv version 5.2), so any
    document with at least one content word gives a bag of N.

    Parameters
    ----------
    words
        The document's content words, in order.
    length
        N, >= 1.
    method
        ``"truncate"`` or ``"sample"``.
    random_state
        The randomness of ``sample``: None, an int seed or a numpy Generator.

    Returns
    -------
    FixedLengthBag
        The N words and how they were chosen.

    Raises
    ------
    InputError
        If there are no words, or fewer than N with ``truncate``.
    InvalidParameterError
        If ``length`` or ``method`` is invalid.

    Examples
    --------
    >>> fixed_length_bag(("a", "b", "c"), length=2).words
    ('a', 'b')
    >>> len(fixed_length_bag(("a",), length=3, method="sample", random_state=0).words)
    3
    """
    length = check_positive_int(length, name="length N")
    if method not in FIXED_LENGTH_METHODS:
        raise InvalidParameterError(
            f"fixed-length method must be one of {', '.join(FIXED_LENGTH_METHODS)}, got {method!r}"
        )
    words = tuple(words)
    if not words:
        raise InputError("the document has no content words")
    if method == "truncate" and length > len(words):
        raise InputError(
            f"length N={length} is larger than the document's {len(words)} content words"
        )
    if method == "truncate":
        chosen = words[:length]
    else:
        rng = check_random_state(random_state)
        picks = rng.integers(0, len(words), size=length)
        chosen = tuple(words[int(i)] for i in picks)
    return FixedLengthBag(words=chosen, length=length, method=method, available=len(words))
