"""The canonical skeleton of ``emp-doc``: a text reduced to what its words sit in, with every
stylistic variant that is not a word removed before release.

What a writer's style rides on, besides the words, is the layout and the marks: line breaks
and spacing, typographic quotes and dashes, ``!!!`` and ``...``, capitalisation. ``emp-doc``
releases none of these as written. The text is

1. normalised: cleaned (:func:`~authormask.text.clean.clean_text`: invisible and control
   characters removed, line breaks and spaces written plainly, then Unicode NFKC, so full-width
   forms, ligatures and ``\u2026`` become their ASCII spelling), then typographic variants are
   mapped to one ASCII mark each (curly and angle quotes to ``"``, a single quote standing alone
   to ``"``, every dash to ``-``);
2. tokenised (:func:`~authormask.text.tokens.tokenize` with ``compounds=True``: words, with
   clitics split off, and single punctuation marks). A number with its inner ``.``, ``,`` and
   ``:`` and a ``%`` after it (``12.4%``, ``1,000``, ``10:30``), a URL and an e-mail address
   are one word each, so no sentence end is read inside them; they are content words like any
   other (one without a vector, as most are, is mapped: step 4);
3. quoted: each quotation mark is an opening (:data:`OPEN_QUOTE`) or a closing
   (:data:`CLOSE_QUOTE`) mark, decided by the characters on its two sides in the text (other
   quotation marks looked past): after a space, the start, ``(``, ``[``, ``{`` or ``-`` and
   before anything else it opens; after anything else and before a space, the end or one of
   ``.,;:!?)]}-`` it closes; otherwise (both or neither) it closes while a quotation is open
   and opens when none is. A ``"`` right after a digit is an inch mark (:data:`INCH_MARK`),
   not a quotation mark (``5" of snow``). So an unpaired mark changes no other, and the open
   quotation is forgotten at a paragraph boundary (a blank line). An apostrophe written right
   after a word while no quotation is open is a possessive (``Stiles'``) and becomes the clitic
   ``'s``; any other single quote is a quotation mark;
4. reduced: in a run of consecutive marks (whatever whitespace lies between them) a sentence end
   (``.``, ``!``, ``?``) after a sentence end is dropped (``?!`` is ``?``, ``...`` is ``.``),
   and any other mark equal to the one before it is dropped (``--`` is ``-``), except quotation
   and inch marks and brackets, which pair up;
5. classified: every word is a *function* word (the function-word list, typically the stopwords,
   and with ``n't`` the auxiliaries of negative contractions, restricted to words with a
   vector) or a *content* word (any other word; one without a vector is mapped to a fixed
   vocabulary word, as ``--oov map`` does in ``emp-text``).

Under ``marks="minimal"`` (:data:`MARKS`) the marks are then written as few: ``?`` stays ``?``
(a question is meaning, not style), ``.`` and ``!`` are ``.``, quotation and inch marks stay,
every other mark is ``,``. A run of sentence ends is then its first after this mapping
(``?!`` is ``?``, ``!?`` is ``.``).

The release is rendered from the canonical token sequence alone (:func:`render_canonical`): words
in lower case, the first word of every sentence capitalised (and the pronoun ``I``), single
spaces between tokens, none before closing marks (closing quotes and inch marks among them) and
clitics or after opening ones (opening quotes among them), each quotation or inch mark as ``"``,
the whole text as one paragraph. Two texts that differ only in whitespace, line breaks, punctuation
variants, repeated marks or casing have the same canonical token sequence, so the same release
with the same seed.

What is still released (the skeleton): the number of tokens, which positions hold a function
word, a content word or a mark, and the marks themselves (so the sentence boundaries, the
questions and the quotations).

Long documents arrive in parts (:mod:`authormask.text.parts`); the canonical tokens are regrouped
into units of :data:`UNIT_WORDS` words, whatever the parts were, so a unit (and so the order in
which noise is drawn) depends on the canonical tokens only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text.clean import clean_text
from authormask.text.prepare import NEGATION_AUXILIARIES, placeholder_word
from authormask.text.tokens import CLITICS, tokenize

__all__ = [
    "CLOSE_QUOTE",
    "INCH_MARK",
    "MARKS",
    "OPEN_QUOTE",
    "UNIT_WORDS",
    "CanonicalPreparer",
    "CanonicalUnit",
    "ReadingState",
    "SkeletonState",
    "canonical_tokens",
    "is_number",
    "render_canonical",
]

Kind = Literal["content", "function", "mark"]

#: words per unit of a long document (the unit of batching and of noise draws)
UNIT_WORDS = 4096
#: marks that end a sentence
SENTENCE_END = frozenset(".!?")
#: the canonical tokens of an opening and a closing quotation mark, and of an inch mark (each
#: released as ``"``; module notes, step 3)
OPEN_QUOTE = "\u201c"
CLOSE_QUOTE = "\u201d"
INCH_MARK = "\u2033"
_QUOTE_MARKS = frozenset((OPEN_QUOTE, CLOSE_QUOTE, INCH_MARK))
#: marks never merged with an equal neighbour: they pair up
_PAIRED = frozenset("()[]{}") | _QUOTE_MARKS
_NO_SPACE_BEFORE = frozenset(".,;:!?%)]}") | {CLOSE_QUOTE, INCH_MARK}
_NO_SPACE_AFTER = frozenset("([{$") | {OPEN_QUOTE}
#: the quotation marks of the normalised text (looked past when deciding a quote's side)
_QUOTE_CHARS = frozenset("\"'")
#: a quote after one of these (or a space, or the start) may open a quotation ...
_OPENS_AFTER = frozenset("([{-")
#: ... and one before these (or a space, or the end) may close one
_CLOSES_BEFORE = frozenset(".,;:!?)]}-")
#: a number as the canonical tokens hold it: digits, a ``.``, ``,`` or ``:`` only between two
#: digits, an optional ``.`` before and ``%`` after (``12.4%``, ``1,000``, ``10:30``, ``.5``)
_NUMBER = re.compile(r"\.?\d+(?:[.,:]\d+)*%?")
#: line breaks (str.splitlines'); two in one gap between tokens, or a U+2029, end a paragraph
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028]")

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
    """Cleaned (:func:`~authormask.text.clean.clean_text`, which ends in NFKC), then one ASCII
    mark for each typographic variant.

    >>> normalise("\u201cWait\u2026\u201d \u2014 she\u2019s com\u00admit\u200bted")
    '"Wait..." - she\\'s committed'
    """
    return clean_text(text).translate(_TYPOGRAPHIC)


@dataclass(frozen=True)
class SkeletonState:
    """Where the canonical token stream stands between two tokens: the previous token (``None``
    at the start of the document, ``""`` after a word, else the mark) and whether the next word
    starts a sentence. A function of the canonical tokens (all that rendering needs).

    Attributes
    ----------
    previous
        The previous token: None at the start of the document, ``""`` after a word, else the mark.
    sentence_start
        Whether the next word starts a sentence.
    """

    previous: str | None = None
    sentence_start: bool = True


_START = SkeletonState()


@dataclass(frozen=True)
class ReadingState:
    """Where the reading of a document stands between two parts: the skeleton state, whether a
    quotation is open (module notes, step 3), the last character read (``""`` at the start),
    the line breaks since the last token (two or more: a paragraph boundary) and whether the
    part before ended in a ``\\r`` (whose ``\\n``, first in the next part, ends the same line
    break). Only the reading uses the last four; they are never rendered.

    Attributes
    ----------
    skeleton
        The skeleton state.
    quote_open
        Whether a quotation is open.
    last
        The last character read (``""`` at the start).
    breaks
        The line breaks since the last token.
    carriage_return
        Whether the part before ended in a carriage return.
    """

    skeleton: SkeletonState = _START
    quote_open: bool = False
    last: str = ""
    breaks: int = 0
    carriage_return: bool = False


_READ_START = ReadingState()


#: the mark policies: ``canonical`` keeps each mark (normalised and reduced); ``minimal``
#: also writes ``!`` as ``.`` (``.`` and ``?`` stay), keeps quotation and inch marks and writes
#: every other mark as ``,``
MARKS = ("canonical", "minimal")


def _minimal(mark: str) -> str:
    if mark in SENTENCE_END:
        return "?" if mark == "?" else "."
    return mark if mark in _QUOTE_MARKS else ","


def _line_breaks(gap: str, last: str) -> int:
    """The line breaks in the whitespace ``gap`` read after the character ``last`` (a ``\\n``
    after a ``\\r`` ends the same one); a U+2029 counts as a paragraph's two."""
    if last == "\r" and gap.startswith("\n"):
        gap = gap[1:]
    return len(_LINE_BREAK.findall(gap)) + 2 * gap.count("\u2029")


def _quote_side(text: str, start: int, end: int, last: str, quote_open: bool) -> str:
    """:data:`OPEN_QUOTE` or :data:`CLOSE_QUOTE` for the quotation mark ``text[start:end]``, by
    the characters on its two sides (module notes, step 3); ``last`` is the character before
    ``text`` (``""``: the start of the document)."""
    i = start - 1
    while i >= 0 and text[i] in _QUOTE_CHARS:
        i -= 1
    left = text[i] if i >= 0 else last
    j = end
    while j < len(text) and text[j] in _QUOTE_CHARS:
        j += 1
    right = text[j] if j < len(text) else ""
    opens = left == "" or left.isspace() or left in _OPENS_AFTER
    closes = right == "" or right.isspace() or right in _CLOSES_BEFORE
    if opens != closes:
        return OPEN_QUOTE if opens else CLOSE_QUOTE
    return CLOSE_QUOTE if quote_open else OPEN_QUOTE


def canonical_tokens(
    text: str, state: ReadingState = _READ_START, *, marks: str = "canonical"
) -> tuple[list[tuple[bool, str]], ReadingState]:
    """The canonical tokens of ``text`` as ``(is_word, token)`` (words in lower case, marks
    reduced: module notes), read on from ``state``; and the state after them.

    Parameters
    ----------
    text
        The next part of the document.
    state
        Where the reading stands (the start of a document by default).
    marks
        ``"canonical"`` or ``"minimal"``: how far marks are reduced.

    Returns
    -------
    tuple[list[tuple[bool, str]], ReadingState]
        The tokens, and the state after them.

    Examples
    --------
    >>> toks, _ = canonical_tokens("Wait!!! Don't \u2014\u2014 go...")
    >>> [t for _, t in toks]
    ['wait', '!', 'do', "n't", '-', 'go', '.']
    >>> toks, _ = canonical_tokens("Wait!? Don't (ever) go; now -- ok?", marks="minimal")
    >>> " ".join(t for _, t in toks)
    "wait . do n't , ever , go , now , ok ?"
    >>> toks, _ = canonical_tokens('5" of snow. "Hi," he said at 10:30.')
    >>> names = {OPEN_QUOTE: "<open>", CLOSE_QUOTE: "<close>", INCH_MARK: "<inch>"}
    >>> " ".join(names.get(t, t) for _, t in toks)
    '5 <inch> of snow . <open> hi , <close> he said at 10:30 .'
    """
    out: list[tuple[bool, str]] = []
    previous, sentence_start = state.skeleton.previous, state.skeleton.sentence_start
    quote_open, last, breaks = state.quote_open, state.last, state.breaks
    carriage_return = state.carriage_return
    if carriage_return and text.startswith("\n"):
        # the "\n" of a "\r\n" cut in two: the "\r" was read (cleaned) as the line break
        text, carriage_return = text[1:], False
    if text:
        carriage_return = text.endswith("\r")
    text = normalise(text)
    word_end = -1  # where the last word token ended (-1: none in this part)
    gap_start = 0  # where the whitespace before the next token starts
    for tok in tokenize(text, compounds=True):
        breaks += _line_breaks(
            text[gap_start : tok.start], text[gap_start - 1] if gap_start else last
        )
        if breaks >= 2:  # a paragraph boundary: the open quotation is forgotten
            quote_open = False
        breaks, gap_start = 0, tok.end
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
        if mark == '"' and (text[tok.start - 1] if tok.start else last).isdigit():
            mark = INCH_MARK  # 5" of snow
        elif mark in _QUOTE_CHARS:  # a quotation mark (so is any other single quote)
            mark = _quote_side(text, tok.start, tok.end, last, quote_open)
            quote_open = mark == OPEN_QUOTE
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
    if text:
        breaks += _line_breaks(text[gap_start:], text[gap_start - 1] if gap_start else last)
        last = text[-1]
    return out, ReadingState(
        SkeletonState(previous, sentence_start), quote_open, last, min(breaks, 2), carriage_return
    )


@dataclass(frozen=True)
class CanonicalUnit:
    """Up to :data:`UNIT_WORDS` words of a document's canonical tokens.

    ``kinds`` gives every token's kind in order, ``marks`` the marks, ``content_words`` the
    words fed to the content mechanism (an unknown word as the preparer's ``oov_map_to`` or
    placeholder, its index in ``mapped``: :mod:`authormask.mechanisms.unknown`),
    ``function_words`` those fed to the function-word mechanism, ``start`` the skeleton state
    before the first token. ``diagnostics`` are private counts. ``unknown`` holds the unknown
    words themselves, one per index of ``mapped``: no mechanism with a guarantee reads them
    (``random-sub``, which has none, releases a number among them as written where it keeps
    the word).

    Attributes
    ----------
    kinds
        Every token's kind, in order.
    marks
        The marks, in order.
    content_words
        The words fed to the content mechanism.
    function_words
        The words fed to the function-word mechanism.
    start
        The skeleton state before the first token.
    diagnostics
        Private counts.
    mapped
        The indexes in ``content_words`` of the unknown words mapped.
    unknown
        The unknown words as the canonical tokens hold them, one per index of ``mapped``.
    """

    kinds: tuple[Kind, ...]
    marks: tuple[str, ...]
    content_words: tuple[str, ...]
    function_words: tuple[str, ...]
    start: SkeletonState
    diagnostics: dict[str, int] = field(default_factory=dict)
    mapped: tuple[int, ...] = ()
    unknown: tuple[str, ...] = ()

    @property
    def words(self) -> int:
        return len(self.content_words) + len(self.function_words)


class CanonicalPreparer:
    """Canonical units for ``emp-doc`` (module notes).

    ``function_words`` is the closed class perturbed within itself; only those with a vector in
    ``embeddings`` count (a listed word without one is an ordinary word). When ``n't`` is one,
    the auxiliaries of negative contractions (``ca`` of ``can't``, ``wo`` of ``won't``) are too.

    Parameters
    ----------
    embeddings
        The vocabulary of the content and function words.
    function_words
        The closed class of function words.
    oov_map_to
        The word an unknown word becomes (in ``embeddings``, not a function word), or None.
    marks
        ``"canonical"`` or ``"minimal"``: how far marks are reduced.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        function_words: frozenset[str],
        oov_map_to: str | None = None,
        marks: str = "canonical",
    ) -> None:
        if marks not in MARKS:
            raise InvalidParameterError(f"marks must be one of {', '.join(MARKS)}, got {marks!r}")
        self.marks = marks
        if oov_map_to is not None and oov_map_to not in embeddings:
            raise InvalidParameterError(
                f"oov_map_to must be in the embeddings vocabulary, got {oov_map_to!r}"
            )
        self.embeddings = embeddings
        listed = set(function_words)
        #: whether the auxiliaries of negative contractions (ca, wo, do, ...) are in the class
        self.negation = "n't" in listed
        if self.negation:
            listed |= NEGATION_AUXILIARIES
        self.function_words = frozenset(w for w in listed if w in embeddings)
        self.oov_map_to = oov_map_to
        if oov_map_to in self.function_words:
            raise InvalidParameterError(f"oov_map_to {oov_map_to!r} is a function word")
        self.placeholder = placeholder_word(embeddings, self.function_words, oov_map_to)

    def units(self, parts: Iterable[str]) -> Iterator[CanonicalUnit]:
        """The canonical units of a document that arrives in ``parts``; a document with no word
        at all is refused at its end.

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        CanonicalUnit
            The units, in order.

        Raises
        ------
        InputError
            If the document has no word.
        """
        state = _READ_START
        pending: list[tuple[bool, str]] = []
        start = _START
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
        """The canonical unit of a short text (at most :data:`UNIT_WORDS` words).

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        CanonicalUnit
            Its one unit.

        Raises
        ------
        InvalidParameterError
            If the text has more than one unit.
        """
        units = list(self.units([text]))
        if len(units) != 1:
            raise InvalidParameterError("prepare takes a text of one unit; use units()")
        return units[0]

    def _unit(self, tokens: Sequence[tuple[bool, str]], start: SkeletonState) -> CanonicalUnit:
        kinds: list[Kind] = []
        marks: list[str] = []
        content: list[str] = []
        function: list[str] = []
        mapped: list[int] = []
        unknown: list[str] = []
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
                mapped.append(len(content))
                unknown.append(tok)
                content.append(self.placeholder)
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
                "oov_mapped": len(mapped),
            },
            mapped=tuple(mapped),
            unknown=tuple(unknown),
        )


def is_number(token: str) -> bool:
    """Whether a canonical word token is a number: digits, with a ``.``, ``,`` or ``:`` only
    between two digits, an optional ``.`` before and ``%`` after.

    Parameters
    ----------
    token
        A canonical word token.

    Returns
    -------
    bool
        True for a number.

    Examples
    --------
    >>> [t for t in ["12.4%", "1,000", "10:30", ".5", "2023", "1990s", "v1.2", "12."]
    ...  if is_number(t)]
    ['12.4%', '1,000', '10:30', '.5', '2023']
    """
    return _NUMBER.fullmatch(token) is not None


def _state_after(tokens: Sequence[tuple[bool, str]], start: SkeletonState) -> SkeletonState:
    previous, sentence_start = start.previous, start.sentence_start
    for is_word, tok in tokens:
        if is_word:
            previous, sentence_start = "", False
        else:
            previous = tok
            sentence_start = sentence_start or tok in SENTENCE_END
    return SkeletonState(previous, sentence_start)


def render_canonical(unit: CanonicalUnit, content: Sequence[str], function: Sequence[str]) -> str:
    """The released text of ``unit`` with the released ``content`` and ``function`` words in
    its word positions (module notes). A unit after the first begins with the space that
    separates it from the one before.

    Parameters
    ----------
    unit
        The unit.
    content
        The released content words, one per content position.
    function
        The released function words, one per function position.

    Returns
    -------
    str
        The released text of the unit.

    Examples
    --------
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
    previous, sentence_start = unit.start.previous, unit.start.sentence_start
    for kind in unit.kinds:
        if kind == "mark":
            tok = next(m)
            space = (
                previous is not None
                and tok not in _NO_SPACE_BEFORE
                and previous not in _NO_SPACE_AFTER
            )
            if space:
                pieces.append(" ")
            pieces.append('"' if tok in _QUOTE_MARKS else tok)
            previous = tok
            sentence_start = sentence_start or tok in SENTENCE_END
            continue
        word = next(c) if kind == "content" else next(f)
        space = (
            previous is not None
            and (word not in CLITICS or previous != "")  # a clitic attaches to a word only
            and previous not in _NO_SPACE_AFTER
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
