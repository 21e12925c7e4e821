"""Sentences and model-sized segments for sequence models (ER-AE), and detokenisation.

ER-AE reads at most ``max_length`` tokens (50 in Bo et al.). A text is split into sentences and a
sentence longer than the limit into consecutive segments of at most ``max_length`` tokens, so
nothing is ever truncated; the number of split sentences is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from authormask.text.clean import clean_text
from authormask.text.tokens import CLITICS, tokenize
from authormask.validation import check_positive_int

__all__ = [
    "ABBREVIATIONS",
    "Segmentation",
    "detokenize",
    "ends_no_sentence",
    "segment_text",
    "split_sentences",
    "word_tokens",
]

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) before whitespace and
# an upper-case letter, a digit or an opening quote - or at a blank line.
_BOUNDARY = re.compile(
    r"(?<=[.!?])[\"')\]\u201d\u2019]*\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])|\n\s*\n"
)
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st co corp inc ltd jan feb mar apr jun jul aug sep sept oct nov dec "
    "u.s u.k u.n e.g i.e vs etc no gen gov sen rep lt col maj capt sgt ft mt".split()
)
#: the words after which a full stop ends no sentence (with a single letter: an initial)
ABBREVIATIONS = _ABBREVIATIONS


def ends_no_sentence(word: str) -> bool:
    """Whether a full stop after ``word`` (lower case, without the stop) ends no sentence: an
    initial or a common abbreviation (the rule of :func:`split_sentences`).

    Parameters
    ----------
    word
        The word before the full stop, in lower case and without the stop.

    Returns
    -------
    bool
        True where a full stop after ``word`` ends no sentence.

    Examples
    --------
    >>> ends_no_sentence("mr"), ends_no_sentence("j"), ends_no_sentence("smith")
    (True, True, False)
    """
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (a rule-based splitter: no model, nothing downloaded).

    A full stop after a common abbreviation (``Mr.``, ``U.S.``, ``Corp.``) or a single capital
    letter (an initial) does not end a sentence.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    list[str]
        Its sentences, stripped.

    Examples
    --------
    >>> split_sentences("Mr. Smith went to Washington. He met the U.S. envoy! Then? Home.")
    ['Mr. Smith went to Washington.', 'He met the U.S. envoy!', 'Then?', 'Home.']
    """
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        candidate = text[start : m.start()].strip()
        last = candidate.rsplit(None, 1)[-1] if candidate else ""
        stem = last.rstrip(".").lower().lstrip("\"'(")
        if candidate.endswith(".") and ends_no_sentence(stem):
            continue
        if candidate:
            out.append(candidate)
        start = m.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


def word_tokens(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens (the vocabulary of the sequence models).

    Clitics are separate tokens, with an ASCII apostrophe
    (:func:`~authormask.text.tokens.tokenize`).

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    list[str]
        Its tokens, lower-cased.

    Examples
    --------
    >>> word_tokens("The U.S. didn\u2019t say!")
    ['the', 'u', '.', 's', '.', 'did', "n't", 'say', '!']
    """
    return [t.lower for t in tokenize(text)]


@dataclass(frozen=True)
class Segmentation:
    """A text cut into segments of at most ``max_length`` tokens.

    ``sentences`` is the number of sentences found, ``split_sentences`` how many of them were
    longer than the limit and were cut into consecutive segments (never truncated).
    ``paragraph_starts`` are the indices of the segments that begin a new paragraph (after a
    blank line), so a released text can keep the input's paragraphs.

    Attributes
    ----------
    segments
        The segments' tokens.
    sentences
        The number of sentences found.
    split_sentences
        The number of sentences cut into several segments.
    paragraph_starts
        The indices of the segments that begin a new paragraph.
    """

    segments: tuple[tuple[str, ...], ...]
    sentences: int
    split_sentences: int
    paragraph_starts: tuple[int, ...] = ()

    @property
    def tokens(self) -> int:
        return sum(len(s) for s in self.segments)

    def join(self, texts: list[str] | tuple[str, ...]) -> str:
        """One text per segment joined as the input was laid out: a space inside a paragraph,
        a blank line between paragraphs.

        Parameters
        ----------
        texts
            One text per segment.

        Returns
        -------
        str
            The joined text.

        Examples
        --------
        >>> seg = segment_text("One two. Three.\\n\\nFour five.", max_length=10)
        >>> seg.join(["a b.", "c.", "d e."])
        'a b. c.\\n\\nd e.'
        """
        starts = set(self.paragraph_starts)
        pieces: list[str] = []
        for i, text in enumerate(texts):
            if i:
                pieces.append("\n\n" if i in starts else " ")
            pieces.append(text)
        return "".join(pieces)


def segment_text(text: str, *, max_length: int) -> Segmentation:
    """Sentences of ``text`` as token segments of at most ``max_length`` tokens, read from the
    cleaned text (:func:`~authormask.text.clean.clean_text`: invisible and control characters
    removed, line breaks and spaces written plainly, NFKC).

    Parameters
    ----------
    text
        The text.
    max_length
        The most tokens of a segment, >= 1.

    Returns
    -------
    Segmentation
        The segments.

    Examples
    --------
    >>> seg = segment_text("One two three four five. Six seven.", max_length=3)
    >>> [list(s) for s in seg.segments], seg.split_sentences
    ([['one', 'two', 'three'], ['four', 'five', '.'], ['six', 'seven', '.']], 1)
    """
    max_length = check_positive_int(max_length, name="max length")
    text = clean_text(text)
    segments: list[tuple[str, ...]] = []
    starts: list[int] = []
    n_sentences = 0
    n_split = 0
    for paragraph in _PARAGRAPH.split(text):
        first = len(segments)
        for sentence in split_sentences(paragraph):
            toks = word_tokens(sentence)
            if not toks:
                continue
            n_sentences += 1
            if len(toks) > max_length:
                n_split += 1
            for i in range(0, len(toks), max_length):
                segments.append(tuple(toks[i : i + max_length]))
        if first and len(segments) > first:
            starts.append(first)
    return Segmentation(tuple(segments), n_sentences, n_split, tuple(starts))


_PARAGRAPH = re.compile(r"\n[ \t\r\f\v]*\n\s*")


_NO_SPACE_BEFORE = frozenset([*".,;:!?%)]}'\u2019\u201d", *CLITICS])
_NO_SPACE_AFTER = frozenset("([{$\u2018\u201c")


def detokenize(tokens: list[str] | tuple[str, ...]) -> str:
    """Join tokens into readable text: no space before closing punctuation or a clitic, or after
    opening punctuation.

    Parameters
    ----------
    tokens
        The tokens.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> detokenize(["the", "price", "(", "in", "$", "5", ")", "rose", ",", "it", "said", "."])
    'the price (in $5) rose, it said.'
    >>> detokenize(["we", "do", "n't", "know", "what", "she", "'s", "seen", "."])
    "we don't know what she's seen."
    """
    out: list[str] = []
    for tok in tokens:
        if out and tok not in _NO_SPACE_BEFORE and out[-1] not in _NO_SPACE_AFTER:
            out.append(" ")
        out.append(tok)
    return "".join(out)
