"""The canonical skeleton of ``emp-doc``: a text reduced to what its words sit in, with every
stylistic variant that is not a word removed before release.

What a writer's style rides on, besides the words, is the layout and the marks: line breaks
and spacing, typographic quotes and dashes, ``!!!`` and ``...``, capitalisation. ``emp-doc``
releases none of these as written. The text is

1. normalised: Unicode NFKC (full-width forms, ligatures and ``\u2026`` become their ASCII
   spelling), then typographic variants are mapped to one ASCII mark each (curly and angle quotes
   to ``"``, a single quote standing alone to ``"``, every dash to ``-``);
2. tokenised (:func:`~authormask.text.tokenize.tokenize`: words, with clitics split off, and
   single punctuation marks); an apostrophe written right after a word while no quotation is
   open is a possessive (``Stiles'``) and becomes the clitic ``'s``, any other single quote a
   quotation mark;
3. reduced: in a run of consecutive marks (whatever whitespace lies between them) a sentence end
   (``.``, ``!``, ``?``) after a sentence end is dropped (``?!`` is ``?``, ``...`` is ``.``),
   and any other mark equal to the one before it is dropped (``--`` is ``-``), except quotes and
   brackets, which pair up;
4. classified: every word is a *function* word (the function-word list, typically the stopwords,
   and with ``n't`` the auxiliaries of negative contractions, restricted to words with a
   vector) or a *content* word (any other word; one without a vector is mapped to a fixed
   vocabulary word, as ``--oov map`` does in ``emp-text``).

The release is rendered from the canonical token sequence alone (:func:`render_canonical`): words
in lower case, the first word of every sentence capitalised (and the pronoun ``I``), single
spaces between tokens, none before closing marks and clitics or after opening ones, the whole
text as one paragraph. Two texts that differ only in whitespace, line breaks, punctuation
variants, repeated marks or casing have the same canonical token sequence, so the same release
with the same seed.

What is still released (the skeleton): the number of tokens, which positions hold a function
word, a content word or a mark, and the marks themselves (so the sentence boundaries).

Long documents arrive in parts (:mod:`authormask.text.parts`); the canonical tokens are regrouped
into units of :data:`UNIT_WORDS` words, whatever the parts were, so a unit (and so the order in
which noise is drawn) depends on the canonical tokens only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text.prepare import NEGATION_AUXILIARIES
from authormask.text.tokenize import CLITICS, tokenize

__all__ = [
    "MARKS",
    "UNIT_WORDS",
    "CanonicalPreparer",
    "CanonicalUnit",
    "SkeletonState",
    "canonical_tokens",
    "render_canonical",
]

Kind = Literal["content", "function", "mark"]

#: words per unit of a long document (the unit of batching and of noise draws)
UNIT_WORDS = 4096
#: marks that end a sentence
SENTENCE_END = frozenset(".!?")
#: marks never merged with an equal neighbour: they pair up
_PAIRED = frozenset('"()[]{}')
_NO_SPACE_BEFORE = frozenset(".,;:!?%)]}")
_NO_SPACE_AFTER = frozenset("([{$")

_TYPOGRAPHIC = str.maketrans(
    {
        "\u2018": "'",  # single quotes: apostrophes inside words, quotes when alone
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2039": '"',
        "\u203a": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)


def normalise(text: str) -> str:
    """NFKC, then one ASCII mark for each typographic variant.

    >>> normalise("\u201cWait\u2026\u201d \u2014 she\u2019s")
    '"Wait..." - she\\'s'
    """
    return unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC)


@dataclass(frozen=True)
class SkeletonState:
    """Where the canonical token stream stands between two tokens: the previous token (``None``
    at the start of the document, ``""`` after a word, else the mark), whether the next word
    starts a sentence, and whether a quote is open. A function of the canonical tokens."""

    previous: str | None = None
    sentence_start: bool = True
    quote_open: bool = False


_START = SkeletonState()


#: the mark policies: ``canonical`` keeps each mark (normalised and reduced); ``minimal``
#: also writes every sentence end as ``.`` and every other mark but quotes as ``,``
MARKS = ("canonical", "minimal")


def _minimal(mark: str) -> str:
    if mark in SENTENCE_END:
        return "."
    return mark if mark == '"' else ","


def canonical_tokens(
    text: str, state: SkeletonState = _START, *, marks: str = "canonical"
) -> tuple[list[tuple[bool, str]], SkeletonState]:
    """The canonical tokens of ``text`` as ``(is_word, token)`` (words in lower case, marks
    reduced: module notes), read on from ``state``; and the state after them.

    >>> toks, _ = canonical_tokens("Wait!!! Don't \u2014\u2014 go...")
    >>> [t for _, t in toks]
    ['wait', '!', 'do', "n't", '-', 'go', '.']
    >>> toks, _ = canonical_tokens("Wait!? Don't (ever) go; now -- ok", marks="minimal")
    >>> " ".join(t for _, t in toks)
    "wait . do n't , ever , go , now , ok"
    """
    out: list[tuple[bool, str]] = []
    previous, sentence_start, quote_open = state.previous, state.sentence_start, state.quote_open
    word_end = -1  # where the last word token ended (-1: none in this part)
    for tok in tokenize(normalise(text)):
        if tok.is_word:
            out.append((True, tok.lower))
            previous, sentence_start = "", False
            word_end = tok.end
            continue
        mark = "_" if tok.text.startswith("_") else tok.text
        if mark == "'" and tok.start == word_end and not quote_open:
            # an apostrophe written right after a word, no quotation open: a possessive
            # (Stiles' pec), released as the clitic 's
            out.append((True, "'s"))
            previous, sentence_start = "", False
            continue
        if mark == "'":
            mark = '"'  # any other single quote is a quotation mark
        if marks == "minimal":
            mark = _minimal(mark)
        if previous is not None and previous != "":
            if mark in SENTENCE_END and previous in SENTENCE_END:
                continue
            if mark == previous and mark not in _PAIRED:
                continue
        out.append((False, mark))
        previous = mark
        if mark in SENTENCE_END:
            sentence_start = True
        if mark == '"':
            quote_open = not quote_open
    return out, SkeletonState(previous, sentence_start, quote_open)


@dataclass(frozen=True)
class CanonicalUnit:
    """Up to :data:`UNIT_WORDS` words of a document's canonical tokens.

    ``kinds`` gives every token's kind in order, ``marks`` the marks, ``content_words`` the
    words fed to the content mechanism (an unknown word as the preparer's ``oov_map_to``),
    ``function_words`` those fed to the function-word mechanism, ``start`` the skeleton state
    before the first token. ``diagnostics`` are private counts.
    """

    kinds: tuple[Kind, ...]
    marks: tuple[str, ...]
    content_words: tuple[str, ...]
    function_words: tuple[str, ...]
    start: SkeletonState
    diagnostics: dict[str, int] = field(default_factory=dict)

    @property
    def words(self) -> int:
        return len(self.content_words) + len(self.function_words)


class CanonicalPreparer:
    """Canonical units for ``emp-doc`` (module notes).

    ``function_words`` is the closed class perturbed within itself; only those with a vector in
    ``embeddings`` count (a listed word without one is an ordinary word). When ``n't`` is one,
    the auxiliaries of negative contractions (``ca`` of ``can't``, ``wo`` of ``won't``) are too.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        function_words: frozenset[str],
        oov_map_to: str = "unknown",
        marks: str = "canonical",
    ) -> None:
        if marks not in MARKS:
            raise InvalidParameterError(f"marks must be one of {', '.join(MARKS)}, got {marks!r}")
        self.marks = marks
        if oov_map_to not in embeddings:
            raise InvalidParameterError(
                f"oov_map_to must be in the embeddings vocabulary, got {oov_map_to!r}"
            )
        self.embeddings = embeddings
        listed = set(function_words)
        if "n't" in listed:  # the auxiliaries of negative contractions (ca, wo, do, ...)
            listed |= NEGATION_AUXILIARIES
        self.function_words = frozenset(w for w in listed if w in embeddings)
        self.oov_map_to = oov_map_to
        if oov_map_to in self.function_words:
            raise InvalidParameterError(f"oov_map_to {oov_map_to!r} is a function word")

    def units(self, parts: Iterable[str]) -> Iterator[CanonicalUnit]:
        """The canonical units of a document that arrives in ``parts``; a document with no word
        at all is refused at its end."""
        state = _START
        pending: list[tuple[bool, str]] = []
        start = state
        words = 0
        seen = 0
        raw = 0
        for part in parts:
            raw += len(part)
            toks, state = canonical_tokens(part, state, marks=self.marks)
            for is_word, tok in toks:
                pending.append((is_word, tok))
                if is_word:
                    words += 1
                    seen += 1
                    if words == UNIT_WORDS:
                        unit = self._unit(pending, start)
                        start = _state_after(pending, start)
                        pending, words = [], 0
                        yield unit
        if seen == 0:
            raise InputError("document has no words")
        if pending:
            yield self._unit(pending, start)

    def prepare(self, text: str) -> CanonicalUnit:
        """The canonical unit of a short text (at most :data:`UNIT_WORDS` words)."""
        units = list(self.units([text]))
        if len(units) != 1:
            raise InvalidParameterError("prepare takes a text of one unit; use units()")
        return units[0]

    def _unit(self, tokens: Sequence[tuple[bool, str]], start: SkeletonState) -> CanonicalUnit:
        kinds: list[Kind] = []
        marks: list[str] = []
        content: list[str] = []
        function: list[str] = []
        mapped = 0
        for is_word, tok in tokens:
            if not is_word:
                kinds.append("mark")
                marks.append(tok)
            elif tok in self.function_words:
                kinds.append("function")
                function.append(tok)
            elif tok in self.embeddings:
                kinds.append("content")
                content.append(tok)
            else:
                kinds.append("content")
                content.append(self.oov_map_to)
                mapped += 1
        return CanonicalUnit(
            kinds=tuple(kinds),
            marks=tuple(marks),
            content_words=tuple(content),
            function_words=tuple(function),
            start=start,
            diagnostics={
                "tokens": len(kinds),
                "content_words": len(content),
                "function_words": len(function),
                "marks": len(marks),
                "oov_mapped": mapped,
            },
        )


def _state_after(tokens: Sequence[tuple[bool, str]], start: SkeletonState) -> SkeletonState:
    previous, sentence_start, quote_open = start.previous, start.sentence_start, start.quote_open
    for is_word, tok in tokens:
        if is_word:
            previous, sentence_start = "", False
        else:
            previous = tok
            sentence_start = sentence_start or tok in SENTENCE_END
            if tok == '"':
                quote_open = not quote_open
    return SkeletonState(previous, sentence_start, quote_open)


def render_canonical(unit: CanonicalUnit, content: Sequence[str], function: Sequence[str]) -> str:
    """The released text of ``unit`` with the released ``content`` and ``function`` words in
    its word positions (module notes). A unit after the first begins with the space that
    separates it from the one before.

    >>> from authormask.embeddings import Embeddings
    >>> import numpy as np
    >>> words = ("the", "cat", "sat", "unknown", "i", "n't", "do")
    >>> emb = Embeddings("toy", "doctest", words, np.eye(7, dtype=np.float32))
    >>> prep = CanonicalPreparer(emb, function_words=frozenset({"the", "i", "n't", "do"}))
    >>> unit = prep.prepare('  THE cat sat!!!\\n\\n\\u201cI don\\u2019t,\\u201d Zoe  said')
    >>> unit.content_words, unit.function_words
    (('cat', 'sat', 'unknown', 'unknown'), ('the', 'i', 'do', "n't"))
    >>> render_canonical(unit, unit.content_words, unit.function_words)
    'The cat sat! "I don\\'t," unknown unknown'
    """
    c = iter(content)
    f = iter(function)
    m = iter(unit.marks)
    pieces: list[str] = []
    previous, sentence_start, quote_open = (
        unit.start.previous,
        unit.start.sentence_start,
        unit.start.quote_open,
    )
    for kind in unit.kinds:
        if kind == "mark":
            tok = next(m)
            if tok == '"':
                space = previous is not None and not quote_open and previous not in _NO_SPACE_AFTER
                quote_open = not quote_open
            else:
                space = (
                    previous is not None
                    and tok not in _NO_SPACE_BEFORE
                    and previous not in _NO_SPACE_AFTER
                    and not (previous == '"' and quote_open)
                )
            if space:
                pieces.append(" ")
            pieces.append(tok)
            previous = tok
            sentence_start = sentence_start or tok in SENTENCE_END
            continue
        word = next(c) if kind == "content" else next(f)
        space = (
            previous is not None
            and (word not in CLITICS or previous != "")  # a clitic attaches to a word only
            and previous not in _NO_SPACE_AFTER
            and not (previous == '"' and quote_open)
        )
        if space:
            pieces.append(" ")
        if word == "i":
            word = "I"
        elif sentence_start:
            word = word[:1].upper() + word[1:]
        pieces.append(word)
        previous, sentence_start = "", False
    return "".join(pieces)
