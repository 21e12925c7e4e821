"""What a mechanism is given: entities (names, numbers, links) replaced before it runs.

:class:`EntityInputs` wraps any text mechanism (the registry wraps every mechanism that reads
the text, :mod:`authormask.core.factories`). With ``entities``:

* ``"surrogate"`` (the default): its preparation finds the document's entities
  (:class:`~authormask.text.entities.Recogniser`: input only, deterministic); its release splits
  the document's generator into two independent children (``Generator.spawn``), draws the
  surrogates with the first (:class:`~authormask.text.entities.Surrogates`) and prepares and
  perturbs the text with the surrogates in it with the second. The surrogates come from the
  release's secret randomness and public lists, never from the text: a seeded release is
  byte-identical when it is run again or resumed, and the same entity in two documents gets
  independent surrogates;
* ``"mask"``: every entity becomes its type (``[PERSON]``) in the preparation; no draw;
* ``"keep"``: the text is given to the mechanism as it is (no recogniser, the document's
  generator passed on untouched, so the release is the mechanism's own); the statement says
  that entities are not protected beyond the mechanism's noise.

Under ``surrogate`` and ``mask`` a document is one unit of the wrapper: the mechanism's own units
(a part, a canonical unit of a few thousand words) are prepared from the text with the
surrogates in it when the document is released, and handed to the mechanism at most
:data:`PERTURB_WORK` units of work at a time (a long document's search and decoding hold a
batch, not the document; each batch is perturbed in a second thread while the next is
prepared, one at a time and in order), so the whole document's text is held until then (a
document of more than :data:`PART_WORDS` words is cut into parts of that many words for the
recogniser, :func:`word_parts`: by words, so the layout never moves a cut; a name found in one
part is taken wherever it stands in the document, :meth:`~authormask.text.entities.
Recogniser.find_document`). The units, counts and whole-release
parameters (``emp-bag``'s N ``"shortest"``) known before the release are those of the text
itself where the surrogates keep the mechanism's positions (below), else of the masked text;
for a mechanism that does not say its kinds, a surrogate text it refuses (fewer than N content
words: a surrogate outside the vocabulary dropped) is released as the masked text instead.

Guarantee: the surrogates are drawn independently of the input, so replacing is a randomised
map applied before the mechanism; the mechanism's statement holds for the text it is given,
and the statement's ``entities`` policy says what of the entities remains.

What the recogniser decides never changes what the guarantee counts (issue 47): where the
mechanism says the kind of each position its noise is given (``content_kinds``: every built-in
text mechanism does), the surrogates are adjusted word by word (:class:`KindKeepingSurrogates`):
a word the mechanism would release becomes a surrogate word it releases as the same kind, a
word it would not release is dropped, on the mechanism's tokens (an entity inside a token,
``London`` of ``London-based``, is widened to the token; a name's marks and function words
stay as written). The text the mechanism is given then has the positions, kinds and order of
the text without the step, and its skeleton (function words and marks); the recogniser
(which reads casing, punctuation and context) decides only which of them hold a surrogate.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import logging
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from authormask.accounting.statement import PrivacyStatement
from authormask.exceptions import InputError
from authormask.mechanisms._base import Mechanism, Output
from authormask.text.clean import clean_text
from authormask.text.entities import (
    MASKS,
    PIPELINE,
    Entity,
    PublicLists,
    Recogniser,
    Surrogates,
    check_entities_mode,
    mask_entities,
    public_lists,
    replace_entities,
)
from authormask.text.parts import MAX_PART_CHARS
from authormask.text.prepare import NEGATION_AUXILIARIES
from authormask.text.sentences import ABBREVIATIONS, ends_no_sentence
from authormask.text.tokens import CLITICS, Token, tokenize

__all__ = [
    "PART_WORDS",
    "PERTURB_WORK",
    "ContentKinds",
    "EntityDocument",
    "EntityInputs",
    "KindKeepingSurrogates",
    "entities_policy",
    "on_tokens",
    "word_parts",
]


@dataclass(frozen=True)
class EntityDocument:
    """A document as :class:`EntityInputs` prepares it: its parts, the entities of each, and
    what the mechanism's units of the masked text count (for progress and the private report
    before the release), with the units themselves where they are held: for whole-release
    parameters, the release itself under ``mask``, and a mechanism whose surrogates do not
    keep its kinds (a refused surrogate text is released masked). Where the surrogates keep
    the mechanism's kinds, the units counted are those of the text itself, prepared again
    from ``parts`` when they are needed (issue 50: a long document's units, every token of it
    for ``emp-text``, were held until it was released: 55 MB for a million characters).

    Attributes
    ----------
    parts
        The document's parts, cleaned.
    entities
        The entities of each part.
    masked
        The mechanism's units of the masked text, or None where they are not held.
    work
        The units' units of work, summed.
    counts
        The units' private counts (numbers summed, anything else the last unit's).
    """

    parts: tuple[str, ...]
    entities: tuple[tuple[Entity, ...], ...]
    masked: tuple[Any, ...] | None
    work: int
    counts: dict[str, Any]

    @property
    def found(self) -> int:
        return sum(len(e) for e in self.entities)


def entities_policy(mode: str, lists: PublicLists | None = None, *, kinds_kept: bool = True) -> str:
    """The statement's ``entities`` policy for ``mode`` (what is done, and what remains).

    Parameters
    ----------
    mode
        ``"surrogate"``, ``"keep"`` or ``"mask"``.
    lists
        The public lists surrogates are drawn from (named in the policy), or None.
    kinds_kept
        Whether the surrogates are adjusted to the mechanism's content kinds
        (:class:`KindKeepingSurrogates`: it says them), so the step never changes what the
        guarantee counts.

    Returns
    -------
    str
        The policy.
    """
    found = (
        f"people, places and organisations (the named-entity recogniser of spaCy {PIPELINE}: "
        "PERSON; GPE, LOC, FAC; ORG; each name found also wherever the same text stands "
        "elsewhere in the document, and each word of a person's name) and e-mail addresses, "
        "URLs, handles (@name, u/name, r/name), hashtags (#tag), codes (letters mixed with "
        "digits: postcodes, IBANs, passport and order numbers, identifiers), phone numbers, "
        "dates and numbers (patterns), and a month's name alone, capitalised, where the "
        "recogniser reads a date (DATE: in June, last March; not where it reads none: May I)"
    )
    misses = (
        "what the recogniser misses (names in lower case, unusual names and nicknames, numbers "
        "written in words, codes of fewer than four letters and digits such as B12, an address "
        "written 'jane at example.com', a month it does not read as a date, seasons and "
        "holidays) reaches the mechanism unchanged and is protected by its noise only"
    )
    if mode == "keep":
        return (
            "keep: names, places, organisations, numbers, dates, e-mail addresses, URLs, "
            "handles, hashtags, codes and phone numbers are given to the mechanism like any "
            "other word and are protected by its noise only (a name it releases unchanged names "
            "its bearer); give entities 'surrogate' to replace them first"
        )
    reads = (
        "The recogniser reads the text as written: casing, punctuation, the words around a "
        "name and words the mechanism does not release"
    )
    if mode == "mask":
        labels = ", ".join(dict.fromkeys(MASKS.values()))
        return (
            f"mask: before the mechanism, {found} are replaced by their type ({labels}), "
            "which the mechanism then treats as words. What remains: that an entity stood "
            f"there and its type; {misses}. {reads}, and its decisions change the words the "
            "mechanism is given and their number (one type per entity): the guarantee compares "
            "the masked texts"
        )
    if kinds_kept:
        counted = (
            f"{reads}; its decisions never change the number of positions the mechanism's "
            "noise is given, nor their kinds (as the mechanism reads them), nor their order: each "
            "word of a "
            "person, place or organisation that the mechanism would release (by its own rule, "
            "read from the word alone, in lower case) becomes a word drawn uniformly from the "
            "lists' words of the entity's type that it releases as the same kind (a person: "
            "given names and surnames; a place: places; an organisation: the organisation "
            "names' words, surnames and places; where none of those is of that kind, a common "
            "noun of the type: "
            + "; ".join(f"{t.split()[0]}: {', '.join(w)}" for t, w in TYPE_NOUNS.items())
            + "), whatever the entity's length or casing; an entity inside one of the "
            "mechanism's tokens is first widened to the whole token (London of London-based, "
            "1990 of 1990s), and within a name (or a link, handle or address whose surrogate "
            "of the same form has other marks) its marks and function words (of the English "
            "stopword list and the auxiliaries of negative contractions, a clitic 's after a "
            "word kept) stay as written, the other words filled; so that no sentence cut "
            "of the public rule moves (a full stop before A-Z, a digit or an opening quote, not "
            "after an initial or a listed abbreviation), an initial before its full stop that "
            "the mechanism gives a position becomes a random initial of its kind (one it does "
            "not stays), a listed abbreviation (St., U.S.) stays, a capitalised name word "
            "dropped where a sentence starts becomes Someone or Somewhere (a word of no "
            "position), a fill where a sentence starts with a capital outside A-Z (Émile) is "
            "written in lower case and one of a link or address that starts with A-Z is "
            "capitalised; a link or address whose filled form the tokeniser reads as other "
            "positions (o'neil@mail.com filled may be one e-mail) gets listed words joined by "
            "'/' instead (its marks then differ); a "
            "number, date, code, address, link or handle keeps its surrogate of the same form "
            "where that has the same kinds (else such listed words, or for a number first a "
            "random number from 1 to 9999); and each other word the mechanism would not release "
            "(a name outside its vocabulary or lexicon) is dropped. So the "
            "guarantee compares the texts as the mechanism reads them without the step (the "
            "same number K of positions); what the recogniser decides is only which of those "
            "positions hold a word drawn from the lists instead of its own, and from which "
            "type's words (a capitalised common noun it takes for a name is replaced: casing, "
            "which the mechanism does not release, can thus change which of its words are "
            "released); the counts and refusals (too few content words) are those of the text "
            "itself"
        )
    else:
        counted = (
            f"{reads}, and this mechanism does not say which words it releases: a surrogate may "
            "have more or fewer released words than its entity, so the recogniser's decisions "
            "may change the number of positions the guarantee counts; a text the mechanism "
            "refuses with its surrogates in it (a surrogate outside its vocabulary dropped) is "
            "released as the text with every entity replaced by its type"
        )
    lists = lists or public_lists()
    return (
        f"surrogate: before the mechanism, {found} are replaced by surrogates drawn from the "
        "release's secret randomness and public lists, independently of the input: a person "
        "word by word by random given names and surnames, a place by a random place, an "
        "organisation by a random name or pattern filled with a random surname or place (lists: "
        f"{lists.identity}); a number, date or phone number by random digits of the same form; "
        "a code by random letters (of the same case) and digits of the same form; an e-mail "
        "address or URL by a random one at a reserved example domain; a handle or hashtag by a "
        "random given name (a subreddit by a random place) with random digits (under the "
        "adjustment below, one whose marks differ from its entity's has its words filled "
        "instead, its marks kept). Consistent "
        "within a document: the same entity text (and each word of a person's name) gets the "
        "same surrogate throughout one document, drawn afresh for every document, so the same "
        "entity in two documents gets independent surrogates. A surrogate has as many words "
        "as its entity, laid out with the same whitespace (but for the adjustment below). "
        "What remains: "
        "that an entity stood there and its type, its number of words, the form of numbers, "
        "dates, codes and phone numbers (length and separators), and which occurrences within a "
        f"document are the same entity; {misses}. {counted}"
    )


def _styled_like(word: str, like: str) -> str:
    """``word`` in the case style of ``like``: all capitals, capitalised or lower case."""
    letters = [ch for ch in like if ch.isalpha()]
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return word.upper()
    if letters and letters[0].isupper():
        return word[:1].upper() + word[1:]
    return word.lower()


class ContentKinds:
    """A mechanism's ``content_kinds`` of single words and short spans, remembered, and the
    public lists' words of each kind (what :class:`KindKeepingSurrogates` reads).

    Parameters
    ----------
    kinds
        The mechanism's ``content_kinds``.
    lists
        The public lists surrogates are drawn from.
    """

    def __init__(self, kinds: Callable[[str], tuple[str, ...] | None], lists: PublicLists) -> None:
        self._kinds_of = kinds
        self.lists = lists
        self._seen: dict[str, tuple[str, ...]] = {}
        self._tokens: dict[str, tuple[tuple[str, Token, tuple[str, ...]], ...] | None] = {}
        self._pools: dict[tuple[str, str], tuple[str, ...]] = {}

    def __call__(self, text: str) -> tuple[str, ...]:
        found = self._seen.get(text)
        if found is None:
            found = tuple(self._kinds_of(text) or ())
            if len(self._seen) < _KINDS_REMEMBERED:
                self._seen[text] = found
        return found

    def tokens(self, word: str) -> tuple[tuple[str, Token, tuple[str, ...]], ...] | None:
        """``word`` (no whitespace) as the mechanisms' tokens: for each, the text before it
        (nothing the tokeniser skips is lost), the token and its kinds read alone; None where
        those kinds together are not the whole word's (remembered).

        Parameters
        ----------
        word
            A word of an entity, as written.

        Returns
        -------
        tuple[tuple[str, Token, tuple[str, ...]], ...] | None
            The tokens, or None.
        """
        if word in self._tokens:
            return self._tokens[word]
        tokens = tokenize(word)
        kinds = [self(t.text) if t.is_word else () for t in tokens]
        found: tuple[tuple[str, Token, tuple[str, ...]], ...] | None = None
        if tuple(k for ks in kinds for k in ks) == self(word):
            starts = [0, *(t.end for t in tokens)]
            found = tuple(
                (word[a : t.start], t, k) for a, t, k in zip(starts, tokens, kinds, strict=False)
            )
        if len(self._tokens) < _KINDS_REMEMBERED:
            self._tokens[word] = found
        return found

    def pool(self, name: str, content: str) -> tuple[str, ...]:
        """The words an entity of type ``name`` draws from (:func:`_list_words`) that the
        mechanism reads as one position of kind ``content``, in order.

        Parameters
        ----------
        name
            ``person``, ``place``, ``organisation`` or ``any``.
        content
            The position's kind.

        Returns
        -------
        tuple[str, ...]
            The words.
        """
        key = (name, content)
        found = self._pools.get(key)
        if found is None:  # two threads at once compute the same tuple
            found = tuple(w for w in _list_words(self.lists, name) if self(w) == (content,))
            self._pools[key] = found
        return found


#: the common nouns a word of an entity type draws from where none of the type's listed words
#: has the kind the mechanism gives its position (emp-sentence's "noun", a lexicon noun outside
#: its name alphabet: "Stiles", a noun, became "Railways" from every listed word before): a
#: person stays a person, a place a place, an organisation an organisation (public constants)
TYPE_NOUNS: dict[str, tuple[str, ...]] = {
    "person nouns": (
        "stranger",
        "friend",
        "neighbour",
        "visitor",
        "traveller",
        "cousin",
        "captain",
        "doctor",
        "teacher",
        "student",
        "soldier",
        "sailor",
        "farmer",
        "driver",
        "officer",
        "nurse",
        "partner",
        "colleague",
        "guest",
        "rider",
        "writer",
        "singer",
        "lawyer",
        "pilot",
        "guard",
        "clerk",
        "servant",
        "boy",
        "girl",
        "man",
        "woman",
        "kid",
    ),
    "place nouns": (
        "town",
        "city",
        "village",
        "harbour",
        "valley",
        "island",
        "county",
        "province",
        "district",
        "capital",
        "port",
        "coast",
        "hill",
        "river",
        "forest",
        "suburb",
        "market",
    ),
    "organisation nouns": (
        "company",
        "agency",
        "firm",
        "council",
        "ministry",
        "bank",
        "school",
        "club",
        "society",
        "committee",
        "office",
        "bureau",
        "union",
        "group",
        "institute",
    ),
}


#: single words whose kinds :class:`ContentKinds` remembers (bounded: one release's entities)
_KINDS_REMEMBERED = 65_536


@functools.cache
def _list_words(lists: PublicLists, name: str) -> tuple[str, ...]:
    """The words of the public lists an entity of type ``name`` draws from (``person``: given
    names and surnames; ``place``: places; ``organisation``: the organisation names' and
    patterns' words without their slots, surnames and places; ``person nouns``, ``place
    nouns``, ``organisation nouns``: :data:`TYPE_NOUNS`; ``any``: every listed word), sorted,
    each once."""
    if name in TYPE_NOUNS:
        return tuple(sorted(set(TYPE_NOUNS[name])))
    sources = {
        "person": (lists.given_names, lists.surnames),
        "place": (lists.places,),
        "organisation": (lists.organisations, lists.surnames, lists.places),
    }.get(name, (lists.given_names, lists.surnames, lists.places, lists.organisations))
    words: set[str] = set()
    for entries in sources:
        for entry in entries:
            words.update(w for w in entry.split() if w.isalpha())
    return tuple(sorted(words))


class KindKeepingSurrogates:
    """The surrogates of one document, adjusted so that the entity step never changes what the
    mechanism's guarantee counts (issue 47): the kind of every position the mechanism gives
    its noise (``mechanism.content_kinds``: emp-write's nouns, emp-text's content words,
    emp-sentence's nouns and names), in order.

    Each word of a person, place or organisation gets one surrogate word per position the
    mechanism would give its noise for it (none for a word it would not release:
    ``Oluwaseun`` outside emp-write's lexicon, ``SAID``: the word is dropped), each of that
    position's kind, drawn uniformly from the public lists' words of the entity's type that
    the mechanism releases as that kind (a person: the given names and surnames; a place: the
    places; an organisation: the organisation names' words, surnames and places; where none
    is of that kind, the type's common nouns, :data:`TYPE_NOUNS`, of that kind; where none of
    those either, every listed word): a draw that depends on the entity's type and the
    position's kind only, never on the entity's length, casing or neighbours. Any other entity
    (a number, date, code, address, link, handle) keeps its
    :class:`~authormask.text.entities.Surrogates` surrogate of the same form when that has the
    kinds of the entity (redrawn up to 16 times), else gets such words (for a number, date,
    phone number or code a random number from 1 to 9999 first). Drawn with the surrogates'
    generator and consistent within the document (the same original word, the same
    surrogate). The kinds of a word are read from the word alone, as the mechanism reads it
    (lower case): what the recogniser reads (casing, punctuation, context) decides which
    positions hold a surrogate and of which entity type, never how many positions there are
    or of which kind.

    An entity is first widened to the mechanism's tokens (:func:`on_tokens`: ``London`` of
    ``London-based``, ``1990`` of ``1990s`` become the whole token, which the mechanism reads
    as one position). Within a word of a name, the marks and the function words (``of`` in
    ``Department of Justice``, ``&`` in ``Wind & Fire``, a clitic ``'s``) stay as written,
    since emp-doc, emp-text and the peers release them where they stand: only the positions
    the mechanism gives its noise are replaced, and only the words it would not release at
    all are dropped (issue 47's audit: ``Department of Justice`` lost its ``of`` and ``department
    of justice`` kept it, so casing changed emp-doc's released skeleton).

    Parameters
    ----------
    surrogates
        The document's surrogates.
    kinds
        The mechanism's kinds, remembered.
    function_words
        The mechanism's function words (lower case): kept as written within a name.
    """

    def __init__(
        self,
        surrogates: Surrogates,
        kinds: ContentKinds,
        function_words: frozenset[str] = frozenset(),
    ) -> None:
        self.surrogates = surrogates
        self.kinds = kinds
        self.function_words = function_words
        self._fills: dict[tuple[str, str, int], str] = {}
        self._wholes: dict[tuple[str, str], str] = {}
        self._text = ""  # the text whose entities are being replaced (a sentence's start)

    def text(self, text: str, entities: Sequence[Entity]) -> str:
        """``text`` with every entity replaced (class notes).

        Parameters
        ----------
        text
            The document's text.
        entities
            Its entities, in text order, without overlaps.

        Returns
        -------
        str
            The text with surrogates.
        """
        self._text = text
        return replace_entities(text, on_tokens(text, entities), self.surrogate)

    def surrogate(self, entity: Entity) -> str:
        """The surrogate of ``entity``, adjusted to the kinds of its words (class notes).

        Parameters
        ----------
        entity
            An entity of the document.

        Returns
        -------
        str
            What replaces it (empty when none of its words is released).
        """
        if entity.kind not in _WORDWISE:
            return self._whole(entity, self.surrogates.surrogate(entity))
        dot_after = self._text[entity.end : entity.end + 1] == "."
        out = self._piecewise(entity.text, entity.kind, whole=False, dot_after=dot_after)
        assert out is not None  # word by word, each word filled whole where it must be
        first = entity.text[:1]
        if (
            first.isupper()
            and not "A" <= first <= "Z"
            and "A" <= out[:1] <= "Z"
            and _SENTENCE_START.search(self._text, 0, entity.start)
        ):
            # a capital outside A-Z (Émile) starts no sentence for the public rule: its fill
            # (Roger) would, so it is written in lower case there (no sentence cut moves)
            out = out[0].lower() + out[1:]
        if (
            not out
            and "A" <= entity.text[:1] <= "Z"
            and _SENTENCE_START.search(self._text, 0, entity.start)
        ):
            # dropped where a sentence starts: a capitalised word of no position keeps the cut
            # before it (emp-sentence's sentences: "He left. Oluwaseun arrived." is two)
            stand_in = _STAND_INS.get(entity.kind, "Someone")
            if not self.kinds(stand_in):
                return stand_in
        return out

    def _piecewise(
        self, text: str, kind: str, *, whole: bool, dot_after: bool = False
    ) -> str | None:
        """``text`` word by word (:meth:`_tokens`), joined by its own whitespace; a word whose
        tokens do not add up is filled as a whole (``whole`` False) or gives None (``whole``
        True: the caller decides). A listed abbreviation (``U.S.``) stays as written, and
        ``dot_after``: a full stop follows ``text`` (its last word is read before it)."""
        old = text.split()
        gaps = re.findall(r"\s+", text.strip())
        pieces: list[str] = []
        for i, o in enumerate(old):
            last = dot_after and i == len(old) - 1
            if o.rstrip(".").casefold() in ABBREVIATIONS and (o.endswith(".") or last):
                word: str | None = o  # a full stop after it ends no sentence: no cut moves
            else:
                word = self._tokens(o + "." if last else o, kind)
                if word is not None and last:
                    word = word[:-1]  # the full stop read after it is the text's own
            if word is None:  # the tokens alone do not add up to the word: the word's kinds
                if whole:
                    return None
                want = self.kinds(o)
                fills = (self._fill(k, kind, o, j) for j, k in enumerate(want))
                # a word of several positions gets as many words joined by a "/" (a mark both
                # tokenisers cut at), so no whitespace is added to the layout
                word = "/".join(_styled_like(w, o) for w in fills if w)
            if word:
                if pieces:
                    pieces.append(gaps[i - 1] if 0 < i <= len(gaps) else " ")
                pieces.append(word)
        return "".join(pieces)

    def _initial(self, letter: str, want: tuple[str, ...], kind: str) -> str:
        """A random capital letter read as ``letter`` is (its kinds), the same for the same
        letter in the document; ``letter`` itself where none of 26 draws is."""
        key = (kind, f"initial {letter.casefold()}", 0)
        found = self._fills.get(key)
        if found is None:
            found = letter
            rng = self.surrogates.rng
            for _ in range(26):
                drawn = chr(ord("A") + int(rng.integers(26)))
                if self.kinds(drawn) == want:
                    found = drawn if letter.isupper() else drawn.lower()
                    break
            self._fills[key] = found
        return found

    def _kept(self, text: str) -> tuple[str, ...] | None:
        """What of ``text`` the step keeps as written (its marks, function words and clitics,
        lower case, in order), or None where its tokens do not add up (remembered kinds)."""
        out: list[str] = []
        for word in text.split():
            tokens = self.kinds.tokens(word)
            if tokens is None:
                return None
            out.extend(
                t.lower
                for _, t, k in tokens
                if not k and (not t.is_word or t.lower in self.function_words or t.lower in CLITICS)
            )
        return tuple(out)

    def _tokens(self, word: str, kind: str) -> str | None:
        """``word`` (one word of a name, as written) token by token: a mark, a function word
        or a clitic as written, each position the mechanism gives its noise a fill of its
        kind, any other token dropped; None where the tokens' kinds read one by one are not
        those of the whole word (the caller then fills the word as a whole)."""
        tokens = self.kinds.tokens(word)
        if tokens is None:
            return None
        out: list[str] = []
        kept = False  # whether the word before a clitic stays (a clitic alone would be a word)
        for i, (before, token, want) in enumerate(tokens):
            out.append(before)
            dot = i + 1 < len(tokens) and tokens[i + 1][1].text == "."
            if dot and ends_no_sentence(token.lower):
                # an initial or an abbreviation before its full stop ends no sentence: an
                # initial of a position becomes a random one of its kinds, one of none (a
                # function word: "A.") and an abbreviation stay (no sentence cut moves)
                initial = len(token.text) == 1 and want
                new = self._initial(token.text, want, kind) if initial else token.text
            elif want:
                fills = (self._fill(k, kind, token.text, j) for j, k in enumerate(want))
                new = "/".join(_styled_like(w, token.text) for w in fills if w)
            elif token.lower in CLITICS:
                new = token.text if kept else ""
            elif not token.is_word or token.lower in self.function_words:
                new = token.text
            else:
                new = ""
            if token.is_word and token.lower not in CLITICS:
                kept = bool(new)
            out.append(new)
        out.append(word[tokens[-1][1].end :] if tokens else word)
        return "".join(out)

    def _whole(self, entity: Entity, drawn: str) -> str:
        """A number, date, code, address, link or handle: its surrogate where that has the
        kinds of the entity, else another of the same form (up to :data:`_REDRAWS` draws, so
        the form stays), else fills (:meth:`_word`); the same for the same entity text."""
        key = (entity.kind, entity.text if entity.kind in _NUMBERS else entity.text.casefold())
        found = self._wholes.get(key)
        if found is None:
            want = self.kinds(entity.text)
            rng, lists = self.surrogates.rng, self.surrogates.lists
            kept = self._kept(entity.text)
            for _ in range(_REDRAWS):
                if self.kinds(drawn) == want and self._kept(drawn) == kept:
                    break
                drawn = Surrogates(rng, lists).surrogate(entity)  # another of the same form
            found = self._word(entity.text, drawn, entity.kind)
            if "A" <= entity.text[:1] <= "Z" and found[:1].islower():
                found = found[0].upper() + found[1:]  # a capital that may start a sentence
            self._wholes[key] = found
        return found

    def _word(self, old: str, new: str, kind: str) -> str:
        """``new`` where it has the kinds of ``old`` and keeps what the step keeps of it (its
        marks and function words: ``@john_smith``'s ``@`` and ``_``, ``bbc.co.uk``'s dots);
        else ``old`` token by token (:meth:`_piecewise`); nothing where ``old`` has no
        position; else one listed word per position of ``old``, of its kind."""
        want = self.kinds(old)
        if self.kinds(new) == want and self._kept(new) == self._kept(old):
            return new
        piecewise = self._piecewise(old, kind, whole=True)
        if piecewise is not None and self.kinds(piecewise) == want:
            return piecewise  # (filled, "o'neil@mail.com" may become one token: not taken)
        if not want:
            return ""
        fills = (self._fill(k, kind, old, i) for i, k in enumerate(want))
        # words joined as the original's were: by a space where it had one, else by a "/" (a
        # mark both tokenisers cut at), so the layout (whitespace) stays
        joiner = " " if any(ch.isspace() for ch in old) else "/"
        return joiner.join(_styled_like(w, old) for w in fills if w)

    def _fill(self, content: str, kind: str, old: str, i: int) -> str:
        key = (kind, old.casefold(), i)
        found = self._fills.get(key)
        if found is None:
            found = self._draw(content, kind)
            self._fills[key] = found
        return found

    def _draw(self, content: str, kind: str) -> str:
        rng = self.surrogates.rng
        if kind in _NUMBERS:
            for _ in range(_NUMBER_TRIES):
                n = str(int(rng.integers(1, 10_000)))
                if self.kinds(n) == (content,):
                    return n
        own = kind if kind in _WORDWISE else None
        for name in (own, f"{own} nouns" if own else None, "any"):
            fits = self.kinds.pool(name, content) if name else ()
            if fits:
                return fits[int(rng.integers(len(fits)))]
        return ""  # no listed word of this kind: the position is dropped (never in practice)


#: the entity kinds whose surrogate has one word per word of the entity (adjusted word by word)
_WORDWISE = frozenset({"person", "place", "organisation"})
#: the entity kinds whose fill is a random number first
_NUMBERS = frozenset({"number", "date", "phone", "code"})
#: how many random numbers a number's fill tries before the listed words
_NUMBER_TRIES = 64
#: how many surrogates of the same form an entity that is not a name tries before fills
_REDRAWS = 16


#: where a sentence starts: the text's start, or a sentence end and whitespace before ``at``
_SENTENCE_START = re.compile(r"(?:\A|[.!?][\"')\]\u201d\u2019]*\s+)[\"'(\[\u201c\u2018]?\Z")
#: what stands in for a capitalised name word dropped where a sentence starts (no position)
_STAND_INS = {"person": "Someone", "place": "Somewhere", "organisation": "Someone"}


def _joins_token(text: str, at: int) -> bool:
    """Whether the character at ``at`` (beside an entity) may join a token across the entity's
    end: a letter, digit, underscore, combining mark, hyphen or apostrophe."""
    if at < 0 or at >= len(text):
        return False
    ch = text[at]
    return ch.isalnum() or ch in "_-'\u2019" or unicodedata.category(ch).startswith("M")


def on_tokens(text: str, entities: Sequence[Entity]) -> list[Entity]:
    """``entities`` widened to the tokens of the mechanisms' tokeniser
    (:func:`~authormask.text.tokens.tokenize`) they cut: the recogniser finds ``London`` in
    ``London-based`` and a number finds ``1990`` in ``1990s``, but the mechanism reads
    ``london-based`` and ``1990s`` as one position each, so a surrogate of the part alone
    (``Scotland-based``, ``1349s``: unknown words) changed K (issue 47's audit). Entities that
    come to overlap are merged (the first one's kind).

    Parameters
    ----------
    text
        The text.
    entities
        Its entities, in text order, without overlaps.

    Returns
    -------
    list[Entity]
        The entities on token boundaries, in text order, without overlaps.

    Examples
    --------
    >>> on_tokens("A London-based firm.", [Entity(2, 8, "place", "London")])
    [Entity(start=2, end=14, kind='place', text='London-based')]
    >>> on_tokens("Tom's dog.", [Entity(0, 3, "person", "Tom")])
    [Entity(start=0, end=3, kind='person', text='Tom')]
    """
    out: list[Entity] = []
    chunk: tuple[int, int, list[Token]] = (0, 0, [])  # the last run of non-whitespace read
    for e in entities:
        start, end = e.start, e.end
        # an entity on a token's bounds already (most) is not read again
        if _joins_token(text, start - 1) or _joins_token(text, end):
            if not chunk[0] <= start < end <= chunk[1]:  # the run around it, read once
                lo, hi = start, end
                while lo > 0 and not text[lo - 1].isspace():
                    lo -= 1
                while hi < len(text) and not text[hi].isspace():
                    hi += 1
                chunk = (lo, hi, tokenize(text[lo:hi]))
            for token in chunk[2]:
                a, b = chunk[0] + token.start, chunk[0] + token.end
                if a < e.end and b > e.start:
                    start, end = min(start, a), max(end, b)
        if out and start < out[-1].end:  # overlaps a widened one: merged, its kind first
            first = out[-1]
            end = max(end, first.end)
            out[-1] = Entity(first.start, end, first.kind, text[first.start : end])
        elif (start, end) == (e.start, e.end):
            out.append(e)
        else:
            out.append(Entity(start, end, e.kind, text[start:end]))
    return out


log = logging.getLogger(__name__)

#: the words of a part the recogniser reads at once (about 45 KB of English prose)
PART_WORDS = 8192

#: the mechanism's units of work :meth:`EntityInputs.perturb` hands it at once, at most (the
#: engine's batch, :data:`~authormask.core.stream.BATCH_WORK`: the search and the decoder hold
#: about a kilobyte a unit of work, so a long document peaks where a text of a few thousand
#: content words does)
PERTURB_WORK = 4_096
#: a word longer than this counts as several (a run without whitespace is cut, as parts are)
_WORD = re.compile(rf"\S{{1,{MAX_PART_CHARS}}}\s*")


def word_parts(parts: Iterable[str], words: int = PART_WORDS) -> tuple[str, ...]:
    """A document (arriving in ``parts``) cut into parts of ``words`` words each (runs of
    non-whitespace with the whitespace after them; the last part holds the rest): the layout
    (how many spaces or line breaks stand between the words) never moves a cut, where a cut by
    characters moves with every added space. A document without a word is one part. A part
    also ends after the word that takes it to :data:`~authormask.text.parts.MAX_PART_CHARS`
    characters (1 MiB: 8192 words of 128 characters on average, never prose), so the
    recogniser's bound on a text holds.

    Parameters
    ----------
    parts
        The document, in any parts.
    words
        The words of a part.

    Returns
    -------
    tuple[str, ...]
        The parts, in order; joined they are the document.

    Examples
    --------
    >>> word_parts(["a b  c", " d e"], words=2)
    ('a b  ', 'c d ', 'e')
    >>> word_parts(["a  b   c", "  d e"], words=2)[1]
    'c  d '
    """
    text = "".join(parts)
    if len(text) < MAX_PART_CHARS and len(text.split()) < words:
        # fewer words than a part (most documents): one part, without a regular expression
        # matched word by word (str.split's whitespace is the expression's \s, character for
        # character, and no run of non-whitespace is longer than MAX_PART_CHARS)
        return (text,)
    lead = len(text) - len(text.lstrip())
    out: list[str] = []
    start = 0
    count = 0
    for m in _WORD.finditer(text, lead):
        count += 1
        if count == words or m.end() - start >= MAX_PART_CHARS:
            out.append(text[start : m.end()])
            start, count = m.end(), 0
    if start < len(text) or not out:
        out.append(text[start:])
    return tuple(out)


def _children(rng: np.random.Generator) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent children of a document's generator: the surrogates' and the
    mechanism's (``Generator.spawn``; from 256 bits drawn from it where its bit generator has
    no seed sequence)."""
    try:
        a, b = rng.spawn(2)
    except TypeError:  # pragma: no cover - a bit generator made without a SeedSequence
        seq = np.random.SeedSequence([int(x) for x in rng.integers(0, 2**32, size=8)])
        a, b = (np.random.Generator(np.random.PCG64(s)) for s in seq.spawn(2))
    return a, b


class EntityInputs(Mechanism):
    """``mechanism`` given texts with their entities replaced (module docstring).

    Parameters
    ----------
    mechanism : Mechanism
        Any text mechanism (built by the registry, or by hand).
    entities
        ``"surrogate"``, ``"keep"`` or ``"mask"``: what is done with names, numbers and links
        before the mechanism runs.
    recogniser
        Finds the entities (default: the packaged pipeline's, loaded at its first use).
    lists
        The public lists surrogates are drawn from (default: the packaged ones).
    """

    def __init__(
        self,
        mechanism: Mechanism,
        *,
        entities: str = "surrogate",
        recogniser: Recogniser | None = None,
        lists: PublicLists | None = None,
    ) -> None:
        self.inner = mechanism
        self.entities = check_entities_mode(entities)
        self.name: str = mechanism.name
        self._recogniser = recogniser
        self.lists = lists or public_lists()
        #: the threads making the mechanism ready (:meth:`_ready_meanwhile`), not yet joined
        self._readying: list[threading.Thread] = []

    @property
    def embeddings(self) -> Any:
        """The public embeddings of the mechanism it hands the words to."""
        return self.inner.embeddings

    @property
    def recogniser(self) -> Recogniser:
        if self._recogniser is None:
            from authormask.text.entities import load_recogniser

            self._recogniser = load_recogniser()
        return self._recogniser

    # --- preparation (input only, deterministic) ---------------------------------------------

    def prepare(self, text: str) -> Any:
        """``keep``: the mechanism's own preparation; otherwise the document's
        :class:`EntityDocument`.

        Parameters
        ----------
        text
            The document.

        Returns
        -------
        Any
            Its prepared unit.
        """
        if self.entities == "keep":
            return self.inner.prepare(text)
        return next(iter(self.prepare_parts([text])))

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[Any]:
        """``keep``: the mechanism's own units. Otherwise one :class:`EntityDocument` per
        document (the entities of every part found in batches, the masked text prepared by the
        mechanism, which refuses what it would refuse).

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        Any
            The document's units.
        """
        if self.entities == "keep":
            yield from self.inner.prepare_parts(parts)
            return
        # cleaned first (as the mechanism cleans it): a zero-width space or a bidi override
        # inside a name must not hide it from the recogniser; then cut by words, not by
        # characters, so the layout never moves a cut (issue 47, W1b)
        texts = word_parts((clean_text(p) for p in parts), PART_WORDS)
        if self._kinds_kept:
            # the surrogates keep every position and its kind, so the text as it is has the
            # counts (and the refusals) of the text the mechanism is given, whatever the
            # recogniser found (the masked text's, "[PLACE]-based", would depend on it): they
            # are counted while a second process reads names, and a refusal is raised after
            counting: list[tuple[int, dict[str, Any], list[Any] | None]] = []
            failed: list[Exception] = []

            def count_texts() -> None:
                try:
                    counting.append(self._count(texts))
                except Exception as exc:  # raised once the names are found, as before
                    failed.append(exc)
                else:
                    self._ready_meanwhile(counting[0][0])

            found = self.recogniser.find_document(texts, meanwhile=count_texts)
            if failed:
                raise failed[0]
            work, counts, held = counting[0]
        else:
            found = self.recogniser.find_document(texts)
            work, counts, held = self._count(
                mask_entities(t, e) for t, e in zip(texts, found, strict=True)
            )
        yield EntityDocument(
            texts, found, None if held is None else tuple(held), work=work, counts=counts
        )

    def make_ready(self, work: int) -> None:
        """The mechanism's :meth:`~authormask.mechanisms._base.Mechanism.make_ready`.

        Parameters
        ----------
        work
            About how many units of work the release will perturb.
        """
        self.inner.make_ready(work)

    def _ready_meanwhile(self, work: int) -> None:
        """Where a document holds a batch of work or more (:data:`PERTURB_WORK`), the
        mechanism's :meth:`make_ready` in a second thread, while the recogniser reads the rest
        of it: its search's kernels load (most of a second for the Earth Mover's search) while
        both cores read names, not while the second waits for the first batch (issue 50). Its
        failure is the first batch's to meet (it loads them again, or falls back)."""
        if work < PERTURB_WORK:
            return

        def ready() -> None:
            try:
                self.inner.make_ready(work)
            except Exception as exc:  # the first batch meets it again
                log.debug("the mechanism could not be made ready ahead: %s", exc)

        # not a daemon: the interpreter waits for it (at most the load) rather than ending
        # while it imports; joined before the first batch is perturbed (:meth:`_ready_joined`),
        # so its loading never runs beside the mechanism's own (numba's compiles set the
        # process's warning filters)
        thread = threading.Thread(target=ready, name="authormask-ready")
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: the first batch loads it
            log.debug("the mechanism could not be made ready ahead: %s", exc)
            return
        self._readying.append(thread)

    def _ready_joined(self) -> None:
        """Wait for the loading :meth:`_ready_meanwhile` started, if any."""
        while self._readying:
            self._readying.pop().join()

    def _count(self, texts: Iterable[str]) -> tuple[int, dict[str, Any], list[Any] | None]:
        """The units of work and the diagnostics of the mechanism's units of ``texts``, and
        the units where they are needed again as prepared (:class:`EntityDocument`), else
        None: every unit is prepared (the mechanism refuses what it would refuse)."""
        held: list[Any] | None = (
            None if self._kinds_kept and not self.inner.needs_all_documents else []
        )
        work = 0
        counts: dict[str, Any] = {}
        for unit in self.inner.prepare_parts(texts):
            work += int(self.inner.units(unit))
            for key, value in self.inner.diagnostics(unit).items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    counts[key] = counts.get(key, 0) + value
                else:
                    counts[key] = value
            if held is not None:
                held.append(unit)
        return work, counts, held

    def _masked_units(self, document: EntityDocument) -> Iterable[Any]:
        """The mechanism's units of the document's masked text: those held, else prepared
        again from its parts (only where the surrogates keep the mechanism's kinds, whose
        units counted are the text's own), as they are taken."""
        if document.masked is not None:
            return document.masked
        return self.inner.prepare_parts(document.parts)

    @contextlib.contextmanager
    def reading_ahead(self, *, many: bool = True) -> Iterator[Callable[[list[str]], None] | None]:
        """With the entity step, where a second core is to be had, the recogniser runs in a
        second process and reads the documents handed ahead while this one perturbs
        (:meth:`~authormask.text.entities.Recogniser.ahead`); the texts it is handed are cut
        as :meth:`prepare_parts` cuts them, so the names found are the same.

        Parameters
        ----------
        many
            Whether the release has more than one document; with one, only a second process
            started before is used (:meth:`~authormask.text.entities.Recogniser.start_elsewhere`).

        Yields
        ------
        Callable[[list[str]], None] | None
            The function that hands a later document's parts ahead, or None.
        """
        if self.entities == "keep":
            yield None
            return
        with self.recogniser.ahead(start=many) as submit:
            if submit is None:
                yield None
                return

            def expect(parts: list[str]) -> None:
                submit(word_parts((clean_text(p) for p in parts), PART_WORDS))

            yield expect

    @property
    def _kinds_kept(self) -> bool:
        """Whether surrogates keep the mechanism's positions and kinds (``surrogate``, and the
        mechanism says its kinds)."""
        return self.entities == "surrogate" and self.kinds is not None

    def diagnostics(self, document: Any) -> dict[str, Any]:
        """The mechanism's counts (summed over the masked units) and the entities replaced.

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        dict[str, Any]
            Its private counts, by name.
        """
        if self.entities == "keep":
            return dict(self.inner.diagnostics(document))
        out = dict(document.counts)
        out["entities_replaced"] = document.found
        return out

    def units(self, document: Any) -> int:
        """The mechanism's units of work of the document.

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        int
            Its units of work.
        """
        if self.entities == "keep":
            return int(self.inner.units(document))
        return int(document.work)

    def released_words(self, document: Any) -> tuple[str, ...]:
        """The mechanism's words of each unit of the masked text, in order: of the text with
        its entities masked, or, where the surrogates keep the mechanism's kinds, of the text
        itself (its names among them, not the surrogates a release draws: the noise-off
        release matches them where no entity is found).

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        tuple[str, ...]
            Its words.
        """
        if self.entities == "keep":
            return tuple(self.inner.released_words(document))
        return tuple(w for u in self._masked_units(document) for w in self.inner.released_words(u))

    # --- whole-release parameters ---------------------------------------------------------------

    @property
    def needs_all_documents(self) -> bool:
        return bool(self.inner.needs_all_documents)

    def rendering(self) -> frozenset[str]:
        """The mechanism's (the surrogates are its words).

        Returns
        -------
        frozenset[str]
            Its :meth:`~authormask.mechanisms._base.Mechanism.rendering`.
        """
        return frozenset(self.inner.rendering())

    def with_length_from(self, documents: Iterable[Any]) -> EntityInputs:
        """The mechanism's whole-release parameter resolved from the masked units.

        Parameters
        ----------
        documents
            Every document's prepared unit.

        Returns
        -------
        EntityInputs
            The mechanism, resolved.
        """
        units = (
            documents
            if self.entities == "keep"
            else (u for d in documents for u in self._masked_units(d))
        )
        resolved = copy.copy(self)
        resolved.inner = self.inner.with_length_from(units)
        return resolved

    def resolved_parameters(self) -> dict[str, Any]:
        """The mechanism's resolved parameters.

        Returns
        -------
        dict[str, Any]
            The parameters fixed, by name.
        """
        return dict(self.inner.resolved_parameters())

    def unchanged_probabilities(self, text: str, *, segments: int = 4) -> list[float] | None:
        """The mechanism's, for the words it is given.

        Parameters
        ----------
        text
            The text.
        segments
            The number of segments looked at.

        Returns
        -------
        list[float] | None
            One probability per token, or None.
        """
        return self.inner.unchanged_probabilities(text, segments=segments)

    # --- release -------------------------------------------------------------------------------

    def perturb(
        self,
        documents: Sequence[Any],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Each document released by the mechanism, its entities replaced as ``entities`` says.

        Parameters
        ----------
        documents
            The prepared units.
        rngs
            One generator per unit (its document's).
        progress
            Called with the units of work done.

        Returns
        -------
        list[Output]
            One output per unit.
        """
        if self.entities == "keep":
            return list(self.inner.perturb(documents, rngs, progress=progress))
        # the batch's units handed to the mechanism together (one search and one decoding for
        # many documents, not one a document), but never more than PERTURB_WORK units of work
        # at once: a long document's units are prepared and perturbed a batch at a time, so
        # its memory is two batches' (one perturbed, the next prepared), not the document's
        # (issue 50). Each unit draws from its own
        # document's generator, in order, so its draws do not depend on the batching (as the
        # engine batches units with `keep`)
        #
        # Where the documents hold more than one batch, each is perturbed in a second thread
        # while this one prepares the next (the surrogates drawn, the text prepared: Python
        # that would leave the second core idle while the search, which releases the
        # interpreter's lock, waits for it): one batch at a time and in order, so the
        # mechanism's draws are those of one thread. One batch is perturbed here (a thread
        # would cost a short release milliseconds: a sentence's took 3-8 ms longer in one)
        outputs: list[list[Output]] = [[] for _ in documents]
        pending: list[tuple[int, Any, np.random.Generator]] = []
        work = 0
        running: tuple[list[int], Future[list[Output]]] | None = None
        given_up = threading.Event()

        def reported(n: int) -> None:
            """The mechanism's progress, where a batch whose release was given up (an error
            or Ctrl-C in this thread) stops: the release does not end before it does."""
            if given_up.is_set():
                raise _GivenUp
            if progress is not None:
                progress(n)

        def collect() -> None:
            nonlocal running
            if running is not None:
                owners, future = running
                done = future.result()
                running = None
                for i, output in zip(owners, done, strict=True):
                    outputs[i].append(output)

        def hand_on(pool: ThreadPoolExecutor | None) -> None:
            nonlocal work, running
            if pending:
                collect()
                owners = [i for i, _, _ in pending]
                units, their_rngs = [u for _, u, _ in pending], [r for _, _, r in pending]
                if pool is None:
                    done = self.inner.perturb(units, their_rngs, progress=progress)
                    for i, output in zip(owners, done, strict=True):
                        outputs[i].append(output)
                else:
                    future = pool.submit(self.inner.perturb, units, their_rngs, progress=reported)
                    running = (owners, future)
                pending.clear()
                work = 0

        self._ready_joined()
        many = sum(int(document.work) for document in documents) > PERTURB_WORK
        pool = ThreadPoolExecutor(1, thread_name_prefix="authormask-perturb") if many else None
        try:
            for i, (document, rng) in enumerate(zip(documents, rngs, strict=True)):
                mine, inner_rng = self._units(document, rng)
                for unit in mine:
                    pending.append((i, unit, inner_rng))
                    work += int(self.inner.units(unit))
                    if work >= PERTURB_WORK:
                        hand_on(pool)
            hand_on(pool)
            collect()
        finally:
            # after an error here (or Ctrl-C) the batch at work stops at its next progress
            given_up.set()
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        return [_joined(o) for o in outputs]

    def _units(
        self, document: EntityDocument, rng: np.random.Generator
    ) -> tuple[Iterable[Any], Any]:
        """The mechanism's units of the document with its entities replaced (prepared as they
        are taken, where the surrogates keep the mechanism's kinds), and the generator the
        mechanism draws from."""
        if self.entities == "mask" or document.found == 0:
            return self._masked_units(document), rng
        mine, theirs = _children(rng)
        surrogates = self._surrogates(mine)
        # the surrogates are drawn in the order of the parts however the units are taken: the
        # draws of the one generator and the mechanism's preparation are independent
        texts = (
            surrogates.text(t, e) for t, e in zip(document.parts, document.entities, strict=True)
        )
        if self._kinds_kept:  # never refused: the positions are those of the text, which it took
            return self.inner.prepare_parts(texts), theirs
        try:
            return list(self.inner.prepare_parts(texts)), theirs
        except InputError:  # a surrogate outside the vocabulary dropped (module docstring)
            return list(self._masked_units(document)), theirs

    def stepped_text(self, parts: str | Iterable[str], rng: np.random.Generator) -> str:
        """The text the mechanism is given when the document ``parts`` is released with the
        document generator ``rng``: the entity step alone, with the same surrogates the
        release draws (what the mechanism keeps, to measure a release against).

        Under ``surrogate`` the generator's first child draws the surrogates exactly as
        :meth:`perturb` draws them, so ``rng`` must be in the state the release's document
        generator is in before the release draws from it: a fresh
        :func:`~authormask.randomness.document_generator` of the same root, position and
        content (spawning children advances a generator's seed sequence, so a generator a
        release has used gives other surrogates). Under ``mask`` the text with every entity
        replaced by its type; under ``keep`` the text as it is. A document the mechanism
        refuses with its surrogates in it (a surrogate outside the vocabulary dropped below N
        content words) is released as the masked text, and that is what is returned.

        Parameters
        ----------
        parts
            The document (one string), or its parts in order as the release reads them.
        rng
            The document's generator, fresh (see above); unused under ``keep`` and ``mask``.

        Returns
        -------
        str
            The document as the mechanism is given it (cleaned, under ``surrogate`` and
            ``mask``, as the release cleans it).
        """
        texts = [parts] if isinstance(parts, str) else list(parts)
        if self.entities == "keep":
            return "".join(texts)
        document = next(iter(self.prepare_parts(texts)))
        masked = "".join(
            mask_entities(t, e) for t, e in zip(document.parts, document.entities, strict=True)
        )
        if self.entities == "mask" or document.found == 0:
            return masked
        mine, _ = _children(rng)
        surrogates = self._surrogates(mine)
        stepped = [
            surrogates.text(t, e) for t, e in zip(document.parts, document.entities, strict=True)
        ]
        try:
            list(self.inner.prepare_parts(iter(stepped)))
        except InputError:  # released as the masked text (module docstring)
            if self._kinds_kept:
                raise
            return masked
        return "".join(stepped)

    @functools.cached_property
    def kinds(self) -> ContentKinds | None:
        """The mechanism's kinds of words (remembered), or None where it does not say them
        (its ``content_kinds`` is None): then surrogates are not adjusted to them."""
        if self.inner.content_kinds("") is None:
            return None
        return ContentKinds(self.inner.content_kinds, self.lists)

    def _surrogates(self, rng: np.random.Generator) -> Surrogates | KindKeepingSurrogates:
        """One document's surrogates, drawn from ``rng``: adjusted to the mechanism's kinds
        where it says them."""
        surrogates = Surrogates(rng, self.lists)
        kinds = self.kinds
        if kinds is None:
            return surrogates
        # the function words every built-in reads: the stopwords and the auxiliaries of
        # negative contractions (emp-doc's class holds "would", "must", "ai")
        function = self.recogniser.stopwords | NEGATION_AUXILIARIES
        return KindKeepingSurrogates(surrogates, kinds, function)

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The mechanism's statement with the ``entities`` policy added.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        statement = self.inner.statement(seeded=seeded)
        policy = entities_policy(self.entities, self.lists, kinds_kept=self.kinds is not None)
        unchanged = statement.released_unchanged
        if self.entities != "keep":
            # what the mechanism calls unreleased (capitals, punctuation, context) the
            # recogniser reads: the statement's own list says so where it stands (issue 47)
            unchanged += (
                ". Before the mechanism, the entity step reads the text as written (casing, "
                "punctuation, context) to choose which words are replaced (the 'entities' "
                "policy)"
            )
        return dataclasses.replace(
            statement,
            released_unchanged=unchanged,
            policies={**statement.policies, "entities": policy},
        )


class _GivenUp(Exception):
    """Raised in a batch's thread where the release it belongs to was given up."""


def _joined(outputs: Sequence[Output]) -> Output:
    """One document's outputs, unit after unit, as one (the release stream joins them so)."""
    if len(outputs) == 1:
        return outputs[0]
    bags = [o.bag for o in outputs if o.bag is not None]
    bag: dict[str, int] | None = None
    if bags:
        bag = {}
        for b in bags:
            for word, count in b.items():
                bag[word] = bag.get(word, 0) + count
        bag = dict(sorted(bag.items()))
    return Output(
        text="".join(o.text for o in outputs),
        words=tuple(w for o in outputs for w in o.words),
        bag=bag,
        figures=dict(outputs[-1].figures) if outputs else {},
    )
