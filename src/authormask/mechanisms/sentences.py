"""``emp-sentence``: Earth Mover's privacy on sentences and on their nouns; every output sentence
is a real sentence of a public bank.

emp-write releases the nouns and has a public model write the rest, which reads as a list of
nouns. ``emp-sentence`` releases two things, both through Fernandes, Dras & McIver's Theorem 2:

* **each sentence** becomes a point of a public metric space (its all-MiniLM-L6-v2 vector,
  centred and projected on 16 principal axes of a public sentence bank,
  :mod:`authormask.models.sentence_bank`; the encoder reads the sentence with the words of
  the public name lists and the digits masked, :func:`encoder_text`); n-dimensional Laplace
  noise is added (radius ``Gamma(16, 1/(w * epsilon))``, uniform direction; ``w`` the public
  ``sentence_weight``) and the noisy point is post-processed into a sentence of the bank (a
  *template*: among the 64 bank sentences nearest to the noisy point, the nearest whose number
  of noun and name slots is the number of released nouns left over the sentences left,
  rounded);
* **each noun** (the nouns of emp-write's public lexicon, in order) goes through emp-write's
  per-word mechanism and decoder (:class:`~authormask.mechanisms.written.EMPWrite`, radius
  ``Gamma(n, 1/epsilon)`` in the word vectors' space).

* **each name** (a noun that is a word of the public name lists the entity step draws its
  surrogates from, :data:`~authormask.text.entities.public_lists`) goes through k-ary
  randomized response on that public alphabet instead (:class:`~authormask.mechanisms.names.
  NameKernel`, ``name_weight * epsilon`` per name changed, the discrete metric): under the
  default entity step a recognised person or place is already a random surrogate drawn from
  those lists, so a release keeps the document's cast of surrogates (the same surrogate
  throughout) at a known cost, where the word vectors' noise would scatter it.

The released nouns fill the templates' noun slots in order, the released names their name slots
(a noun slot left over keeps the template's own word; a name slot left over the name released
last, or the template's own before any); "a"/"an" follow the word put after them, and a
possessive "'s" after a word ending in s becomes "'"; a word of the public name lists is
capitalised. Every output sentence is a sentence of public prose with the
released nouns in it: it has a verb wherever its template has one.

Sentences are cut by a public rule on the text with its layout removed (whitespace joined):
after ``.``, ``!`` or ``?`` before a capital, a digit or an opening quote, not after a common
abbreviation or an initial (:func:`~authormask.text.sentences.split_sentences`).

Guarantee. Each sentence is one use of the ``(w * epsilon) * d_s``-private sentence mechanism,
each noun one use of the ``epsilon * d_w``-private word mechanism and each name one use of the
``(u * epsilon) * [x != y]``-private name mechanism (``u`` the public ``name_weight``); the
template choice, the decoder and the filling are functions of the noisy points, the released
names and public data (post-processing, Lemma 3). For two documents with the same number S of
sentences, the same number K of nouns and the same number M of names, by sequential
composition (eq. 6), ``P[out | v] <= exp(epsilon * (sum_j d_w(n_j, n'_j) + w * sum_i d_s(s_i,
s'_i) + u * #{l : m_l != m'_l})) * P[out | v']``: metric DP for the sum metric. The projection
is a contraction of unit vectors, so ``d_s <= 2`` for any two sentences: a sentence changed in
any way costs at most ``2 * w * epsilon``, a name ``u * epsilon``.

Its spec (emp-sentence) and factory, as the registry offers it:
:mod:`~authormask.mechanisms.sentences_spec`.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.defaults import NAME_WEIGHT, SENTENCE_WEIGHT
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.mechanisms.laplace import sample_nd_laplace
from authormask.mechanisms.names import NameKernel
from authormask.mechanisms.written import EMPWrite
from authormask.models.sentence_bank import DIMENSION, SentenceBank
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY
from authormask.text.sentences import split_sentences
from authormask.validation import check_epsilon

__all__ = [
    "CANDIDATES",
    "EMPSentence",
    "SentenceKernel",
    "SentenceUnit",
    "document_sentences",
    "encoder_text",
    "fill_template",
    "in_number_of",
]

#: the bank sentences the template is chosen among, nearest first (public constant)
CANDIDATES = 64

REFERENCE = (
    "Fernandes, Dras & McIver, Generalised Differential Privacy for Text Document Processing, "
    "POST 2019: Theorem 2 (the n-dimensional Laplace mechanism, here on sentence points and on "
    "word vectors), eq. 6 (composition over positions), Lemma 3 (post-processing); the sentence "
    "bank, the template choice and the filling are authormask's"
)
TITLE = (
    "Earth Mover's privacy on each sentence (snapped to a real sentence of a public bank) and "
    "on each noun (put in that sentence's noun slots), in order"
)
FLOATING_POINT = (
    "no noisy point or vector is released; the Gamma radii are exact sums of unbounded Exp(1) "
    "draws (no cap); a sentence's template is chosen among the 64 bank sentences nearest to its "
    "noisy point, by distances computed in float64 (a deterministic function of the noisy "
    "point: post-processing whatever its rounding); the nouns as in emp-write (a float32 screen "
    "for the 32 nearest words, scored in float64); a name's redraw probability computed in "
    "60-digit decimals and rounded up to a double (more noise, never less), its coin exact for "
    "that double and its uniform name an unbiased integer. An input sentence's point is computed "
    "by the packaged encoder in float32: the same text gives the same point on one machine; "
    "another processor may round it differently; and sentences are encoded in batches of 16 "
    "(a sentence met again while the process remembers it, up to 65,536 sentences, keeps the "
    "point it got first; authormask serve remembers none), whose padding moves a point by about "
    "1e-7 with the company it was encoded in (an unaccounted loss of about sentence_weight * "
    "epsilon * 1e-7 per sentence, open)"
)

_SPACES = re.compile(r"\s+")


def document_sentences(text: str) -> list[str]:
    """The sentences of a document as emp-sentence cuts them: layout removed (every run of
    whitespace one space), then :func:`~authormask.text.sentences.split_sentences`; a sentence
    without a letter or digit is dropped.

    Parameters
    ----------
    text
        The document.

    Returns
    -------
    list[str]
        Its sentences.

    Examples
    --------
    >>> document_sentences("The dog ran.\\n\\n   It   barked!  ... !")
    ['The dog ran.', 'It barked! ...']
    """
    joined = _SPACES.sub(" ", text).strip()
    return [s for s in split_sentences(joined) if any(c.isalnum() for c in s)]


#: a run of letters (``Dean's``: ``Dean`` and ``s``) or a run of digits
_WORD_OR_DIGITS = re.compile(r"[^\W\d_]+|\d+")


@functools.cache
def _list_words() -> tuple[frozenset[str], frozenset[str]]:
    """The words of the public given-name and surname lists, and of the place list, lower
    case."""
    from authormask.text.entities import public_lists

    lists = public_lists()
    people = frozenset(w.lower() for e in (*lists.given_names, *lists.surnames) for w in e.split())
    return people, frozenset(w.lower() for e in lists.places for w in e.split())


def encoder_text(sentence: str) -> str:
    """What the encoder reads of a sentence: every capitalised word of the public given-name
    and surname lists becomes ``John``, of the place list ``London``, and every run of digits
    ``0``: what the entity step draws its surrogates from. A capitalised word of the lists
    reaches the release through the names channel only, so the sentence's point does not read
    it twice (a name outside the lists is read as written), and a surrogate
    drawn at random (the writer's no more than any other) does not move it; the point still
    reads that a name stood there, so a sentence with names finds templates with name slots.

    Parameters
    ----------
    sentence
        A sentence.

    Returns
    -------
    str
        The sentence as the encoder reads it.

    Examples
    --------
    >>> encoder_text("Anna met Smith in Oslo at 10.")
    'John met John in London at 0.'
    >>> encoder_text("Anna's car wasn't at Paul Smith's.")
    "John's car wasn't at John John's."
    >>> encoder_text("x\u00b2abc at 42")
    'x\u00b2abc at 0'
    """
    people, places = _list_words()

    def mask(m: re.Match[str]) -> str:
        w = m.group(0)
        if w[0].isdecimal():  # a run of \d (a superscript two starts a word: "²abc" stays)
            return "0"
        if not w[0].isupper():
            return w
        low = w.lower()
        return "John" if low in people else "London" if low in places else w

    return _WORD_OR_DIGITS.sub(mask, sentence)


@dataclass(frozen=True)
class SentenceUnit:
    """A document as emp-sentence prepares it: its sentences and its nouns, in order.

    Attributes
    ----------
    sentences
        The sentences (S of them).
    words
        The nouns of the public lexicon with a vector that are not names (K of them), in
        order: what the noun kernel perturbs.
    names
        The nouns that are words of the public name alphabet (M of them), in order: what the
        name kernel perturbs.
    diagnostics
        Private counts.
    """

    sentences: tuple[str, ...]
    words: tuple[str, ...]
    names: tuple[str, ...] = ()
    diagnostics: dict[str, int] = field(default_factory=dict)


class SentenceKernel:
    """Theorem 2 on sentence points: ``z = x + r * p`` with ``r ~ Gamma(16, 1/epsilon)`` (an
    exact sum of unbounded exponentials) and ``p`` uniform on the sphere
    (:func:`~authormask.mechanisms.laplace.sample_nd_laplace`), then the
    :data:`CANDIDATES` bank sentences nearest to ``z`` (exact float64 distances). With
    ``epsilon=None`` the noise is off: ``z = x``.

    Parameters
    ----------
    points
        The bank's points (one row per bank sentence).
    epsilon
        Per unit of sentence distance, > 0; None: no noise.
    """

    def __init__(self, points: NDArray[np.float64], epsilon: float | None) -> None:
        self.points = np.ascontiguousarray(points, dtype=np.float64)
        self.squared = np.einsum("ij,ij->i", self.points, self.points)
        self.epsilon = None if epsilon is None else check_epsilon(epsilon)

    def noisy(self, x: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.float64]:
        """The noisy points of ``x`` (one row per sentence), drawn with ``rng``.

        Parameters
        ----------
        x
            The sentences' points.
        rng
            The document's generator.

        Returns
        -------
        NDArray[np.float64]
            The noisy points.
        """
        if self.epsilon is None or len(x) == 0:
            return np.asarray(x, dtype=np.float64)
        return sample_nd_laplace(x, epsilon=self.epsilon, random_state=rng)

    def nearest(self, z: NDArray[np.float64], k: int = CANDIDATES) -> NDArray[np.intp]:
        """The ``k`` bank rows nearest to each noisy point, nearest first (ties by row).

        Parameters
        ----------
        z
            The noisy points.
        k
            How many.

        Returns
        -------
        NDArray[np.intp]
            One row of ``k`` bank indices per point.
        """
        z = np.asarray(z, dtype=np.float64)
        if len(z) == 0:
            return np.zeros((0, k), dtype=np.intp)
        k = min(k, len(self.points))
        # exact: ||z||^2 is common to a row, so the order is that of ||b||^2 - 2 z.b in float64
        scores = self.squared[None, :] - 2.0 * (z @ self.points.T)
        part = np.argpartition(scores, k - 1, axis=1)[:, :k]
        rows = np.arange(len(z))[:, None]
        order = np.lexsort((part, scores[rows, part]), axis=1)
        return np.asarray(part[rows, order], dtype=np.intp)


def _product_down(a: float, b: float) -> float:
    """The largest double at or below the real product ``a * b`` (the name kernel's epsilon:
    never above what the statement says)."""
    product = a * b
    if Decimal(product) > Decimal(a) * Decimal(b):
        product = math.nextafter(product, 0.0)
    return product


def _target(left_words: NDArray[np.intp], left_sentences: int) -> NDArray[np.intp]:
    return np.floor(left_words / max(left_sentences, 1) + 0.5).astype(np.intp)


def choose_templates(
    candidates: NDArray[np.intp], slots: NDArray[np.intp], words: Sequence[int]
) -> list[int]:
    """For each sentence, the template among its candidates (nearest first): the nearest whose
    slot counts (one per kind: nouns, names) are the released words of that kind left over the
    sentences left (rounded), else the one whose counts are closest to them (the sum of the
    gaps; nearer first); a template the document has used already only when every candidate
    has been. A function of the candidates, the bank and the counts only.

    Parameters
    ----------
    candidates
        One row of bank indices per sentence, nearest first.
    slots
        The bank sentences' slot counts, one column per kind.
    words
        The number of released words of each kind (K nouns, M names).

    Returns
    -------
    list[int]
        One bank index per sentence.

    Examples
    --------
    >>> slots = np.array([[0, 0], [2, 0], [1, 1]])
    >>> choose_templates(np.array([[0, 1, 2], [0, 1, 2]]), slots, (3, 1))
    [1, 2]
    >>> choose_templates(np.array([[1, 0, 2], [1, 0, 2]]), slots, (4, 0))
    [1, 0]
    """
    table = np.asarray(slots, dtype=np.intp).reshape(len(slots), -1)
    out: list[int] = []
    left = np.asarray(words, dtype=np.intp)
    n = len(candidates)
    used: set[int] = set()
    for i, row in enumerate(candidates):
        want = _target(left, n - i)
        gap = np.abs(table[row] - want[None, :]).sum(axis=1)
        again = np.fromiter((int(r) in used for r in row), dtype=bool, count=len(row))
        if not again.all():
            gap = np.where(again, np.iinfo(np.intp).max, gap)
        j = int(row[int(np.argmin(gap))])  # argmin takes the first (nearest) of the closest
        out.append(j)
        used.add(j)
        left = np.maximum(0, left - table[j])
    return out


@functools.cache
def _plural(word: str) -> bool:
    from lemminflect import getLemma

    lemmas = getLemma(word.lower(), upos="NOUN")
    return bool(lemmas) and lemmas[0] != word.lower()


@functools.cache
def in_number_of(word: str, like: str) -> str:
    """``word`` (a released noun) in the grammatical number of ``like`` (the template's noun it
    stands in for): "hand" in the slot of "dogs" is "hands", "hands" in the slot of "dog"
    "hand" (lemminflect's table; a word it does not know stays as it is). Post-processing of
    the released word and the public template.

    Parameters
    ----------
    word
        The released noun, lower case.
    like
        The template's word.

    Returns
    -------
    str
        The word in that number.

    Examples
    --------
    >>> in_number_of("hand", "dogs"), in_number_of("boxes", "cat"), in_number_of("hand", "cat")
    ('hands', 'box', 'hand')
    """
    from lemminflect import getInflection, getLemma

    plural = _plural(like)
    if plural == _plural(word):
        return word
    lemmas = getLemma(word, upos="NOUN")
    forms = getInflection(lemmas[0] if lemmas else word, tag="NNS" if plural else "NN")
    return forms[0].lower() if forms else word


def fill_template(
    tokens: Sequence[tuple[str, str, str]],
    words: Sequence[str],
    names: frozenset[str],
    people: Sequence[str] = (),
    last: str | None = None,
) -> tuple[str, int, int]:
    """A template with ``words`` in its noun slots and ``people`` in its name slots, in order
    (module notes).

    Parameters
    ----------
    tokens
        The template's tokens: (text, trailing whitespace, slot).
    words
        The nouns to put in its noun slots, in order (more than its slots: the rest are left).
    names
        Lower-case words written with a capital (the public name lists).
    people
        The names to put in its name slots, in order.
    last
        The name released last before this sentence: a name slot left over takes it (None: the
        template's own word).

    Returns
    -------
    tuple[str, int, int]
        The sentence, and how many nouns and names it took.

    Examples
    --------
    >>> fill_template([("A", " ", ""), ("dog", " ", "noun"), ("ran", "", ""), (".", "", "")],
    ...               ["owl"], frozenset())
    ('An owl ran.', 1, 0)
    >>> fill_template([("The", " ", ""), ("men", "", "noun"), ("'s", " ", ""), ("hat", "", "noun"),
    ...                (".", "", "")], ["boys", "cap"], frozenset())
    ("The boys' cap.", 2, 0)
    >>> fill_template([("Three", " ", ""), ("dogs", " ", "noun"), ("ran", "", ""), (".", "", "")],
    ...               ["hand"], frozenset())
    ('Three hands ran.', 1, 0)
    >>> fill_template([("Ivan", " ", "name"), ("met", " ", ""), ("Olga", "", "name"),
    ...                (".", "", "")], [], frozenset({"anna"}), ["anna"])
    ('Anna met Anna.', 0, 1)
    """
    out: list[list[str]] = []
    used = 0
    named = 0
    for i, (text, space, slot) in enumerate(tokens):
        word = None
        if slot == "name":
            if named < len(people):
                word = last = people[named]
                named += 1
            elif last is not None:
                word = last
        elif slot and used < len(words):
            word = in_number_of(words[used], text)
            used += 1
        if word is not None:
            if word in names or i == 0:
                word = word[:1].upper() + word[1:]
            text = word
        out.append([text, space])
    for i in range(len(out) - 1):  # the article before the word it now stands before
        article = out[i][0]
        if article.lower() in ("a", "an") and out[i][1]:
            vowel = out[i + 1][0][:1].lower() in "aeiou"
            fixed = "an" if vowel else "a"
            out[i][0] = fixed.capitalize() if article[0].isupper() else fixed
        # a possessive after a word put in a slot that ends in s: "boys'", not "boys's"
        if out[i + 1][0] == "'s" and not out[i][1] and out[i][0].lower().endswith("s"):
            out[i + 1][0] = "'"
    return "".join(t + s for t, s in out).strip(), used, named


class EMPSentence(Mechanism):
    """``emp-sentence`` (module notes).

    Parameters
    ----------
    words : EMPWrite
        The noun mechanism (``content="nouns"``): its preparation, kernel and decoder release
        the nouns; its writer is not used.
    bank : SentenceBank
        The public sentence bank.
    epsilon : float
        Per noun (Euclidean distance of word vectors); the sentences get
        ``sentence_weight * epsilon`` per unit of sentence distance.
    sentence_weight : float
        The weight of a sentence's distance against a noun's, > 0.
    names
        Lower-case words written with a capital (the public name lists).
    name_alphabet
        The public names released by randomized response (lower case, distinct; at least two,
        or none: every noun through the noun kernel).
    name_weight : float
        The weight of a name changed against a unit of noun distance, > 0.
    """

    #: it writes each noun in the number of the template's noun it stands for
    RENDERING = frozenset({"own-forms"})

    name = "emp-sentence"
    title = TITLE
    reference = REFERENCE

    def __init__(
        self,
        *,
        words: EMPWrite,
        bank: SentenceBank,
        epsilon: float,
        sentence_weight: float = SENTENCE_WEIGHT,
        names: frozenset[str] = frozenset(),
        name_alphabet: Sequence[str] = (),
        name_weight: float = NAME_WEIGHT,
    ) -> None:
        if words.released is None:
            raise InvalidParameterError("emp-sentence releases nouns: its words need content nouns")
        self.words = words
        self.embeddings = words.embeddings
        self.bank = bank
        self.epsilon = check_epsilon(epsilon)
        if words.epsilon != self.epsilon:
            raise InvalidParameterError("the noun mechanism has another epsilon")
        if not (np.isfinite(sentence_weight) and sentence_weight > 0):
            raise InvalidParameterError(f"sentence_weight must be > 0, got {sentence_weight!r}")
        self.sentence_weight = float(sentence_weight)
        if not (np.isfinite(name_weight) and name_weight > 0):
            raise InvalidParameterError(f"name_weight must be > 0, got {name_weight!r}")
        self.name_weight = float(name_weight)
        #: the name sampler (k-ary randomized response on the public alphabet), None without
        #: an alphabet; ``name_noise`` is what the noise-off form switches off
        self.name_kernel = (
            NameKernel(sorted(name_alphabet), _product_down(self.name_weight, self.epsilon))
            if name_alphabet
            else None
        )
        self.name_noise: NameKernel | IdentityKernel | None = self.name_kernel
        #: the sentence sampler and search; ``sentence_noise`` is the sampler the noise-off
        #: form switches off, ``kernel`` the nouns' (emp-write's)
        self.sentences = SentenceKernel(bank.points, self.sentence_weight * self.epsilon)
        self.sentence_noise: SentenceKernel | IdentityKernel = self.sentences
        self.kernel: Any = words.kernel
        self.names = names
        #: noun slots and name slots of every bank sentence (one column each)
        self._slots = bank.slots

    def without_noise(self) -> EMPSentence:
        """Every sampler switched off: every noun and name as itself, every sentence snapped
        from its own point (the limit epsilon -> infinity).

        Returns
        -------
        EMPSentence
            The copy.
        """
        off = copy.copy(self)
        off.kernel = IdentityKernel(self.embeddings)
        off.sentence_noise = IdentityKernel(self.embeddings)
        off.name_noise = IdentityKernel(self.embeddings)
        return off

    # --- preparation ------------------------------------------------------------------------

    def prepare(self, text: str) -> SentenceUnit:
        """The document's sentences, nouns and names.

        Parameters
        ----------
        text
            The document.

        Returns
        -------
        SentenceUnit
            Its unit.
        """
        sentences = tuple(document_sentences(text))
        units = self.words.prepare_text(text)
        every = [w for u in units for w in u.words]
        alphabet = {} if self.name_kernel is None else self.name_kernel.index
        nouns = tuple(w for w in every if w not in alphabet)
        names = tuple(w for w in every if w in alphabet)
        counts: dict[str, int] = {
            "sentences": len(sentences),
            "nouns": len(nouns),
            "names": len(names),
        }
        for u in units:
            for k, v in u.diagnostics.items():
                if k != "content_words":
                    counts[k] = counts.get(k, 0) + int(v)
        return SentenceUnit(sentences, nouns, names, counts)

    def content_kinds(self, text: str) -> tuple[str, ...]:
        """``"name"`` per noun of ``text`` that is a word of the name alphabet, ``"noun"`` per
        other noun (emp-write's content words), in order: the K nouns and M names the
        guarantee counts.

        Parameters
        ----------
        text
            A word or a few words.

        Returns
        -------
        tuple[str, ...]
            One kind per position.
        """
        alphabet = {} if self.name_kernel is None else self.name_kernel.index
        return tuple(
            "name" if w in alphabet else "noun"
            for u in self.words.preparer.units([text])
            for w in u.words
        )

    def prepare_parts(self, parts: Iterable[str]) -> Any:
        """The whole document, joined (a document is one unit).

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        SentenceUnit
            Its unit.
        """
        yield self.prepare("".join(parts))

    def diagnostics(self, unit: SentenceUnit) -> dict[str, int]:
        """Private counts of a prepared unit.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        dict[str, int]
            The counts.
        """
        return dict(unit.diagnostics)

    def released_words(self, unit: SentenceUnit) -> tuple[str, ...]:
        """The nouns of its sentences, in order.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        tuple[str, ...]
            Its words.
        """
        return tuple(unit.words)

    def units(self, unit: SentenceUnit) -> int:
        """Sentences, nouns and names, the work it takes.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        int
            The units of work.
        """
        return len(unit.sentences) + len(unit.words) + len(unit.names)

    # --- release ----------------------------------------------------------------------------

    def perturb(
        self,
        documents: Sequence[SentenceUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Each document draws from its generator the nouns' noise (in order), then the
        sentences' noise (in order), then its names (in order); the rest is post-processing of
        the noisy points and the released names.

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
        if not documents:
            return []
        emb = self.embeddings
        kernel = self.kernel
        noisy_words: list[np.ndarray] = []
        noisy_sentences: list[NDArray[np.float64]] = []
        released_names: list[list[str]] = []
        points = self.bank.encoder.points([encoder_text(s) for d in documents for s in d.sentences])
        start = 0
        for unit, rng in zip(documents, rngs, strict=True):
            rows = [emb.index_of(w) for w in unit.words]
            noisy_words.append(kernel.noisy_vectors(rows, random_state=rng))
            x = points[start : start + len(unit.sentences)]
            start += len(unit.sentences)
            if isinstance(self.sentence_noise, IdentityKernel):
                noisy_sentences.append(np.asarray(x, dtype=np.float64))
            else:
                noisy_sentences.append(self.sentence_noise.noisy(x, rng))
            names = self.name_noise
            if isinstance(names, NameKernel):
                released_names.append(names.release(unit.names, rng))
            else:  # no name alphabet (no names), or the noise switched off (each as itself)
                released_names.append(list(unit.names))
        snapped = kernel.snap_sequences(noisy_words)
        out: list[Output] = []
        for unit, rows, z, people in zip(
            documents, snapped, noisy_sentences, released_names, strict=True
        ):
            released = tuple(emb.words[int(i)] for i in rows)
            text = self.render(z, released, people)
            out.append(Output(text, (*released, *people)))
            if progress is not None:
                progress(self.units(unit))
        return out

    def render(
        self, z: NDArray[np.float64], words: Sequence[str], people: Sequence[str] = ()
    ) -> str:
        """The released text of a document from its noisy sentence points, released nouns and
        released names.

        Parameters
        ----------
        z
            The noisy sentence points.
        words
            The released nouns, in order.
        people
            The released names, in order.

        Returns
        -------
        str
            The text.
        """
        if len(z) == 0:
            return ""
        counts = (len(words), len(people))
        templates = choose_templates(self.sentences.nearest(z), self._slots, counts)
        sentences: list[str] = []
        used = named = 0
        last: str | None = None
        for j in templates:
            text, took, took_names = fill_template(
                self.bank.tokens[j], words[used:], self.names, people[named:], last
            )
            used += took
            named += took_names
            if named:
                last = people[named - 1]
            sentences.append(text)
        return " ".join(sentences)

    # --- statement --------------------------------------------------------------------------

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement: epsilon per noun, ``sentence_weight * epsilon`` per sentence.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps = self.epsilon
        w = self.sentence_weight
        u = self.name_weight
        e = self.embeddings.identity
        inner = self.words.statement(seeded=seeded)
        k = 0 if self.name_kernel is None else len(self.name_kernel.alphabet)
        name_unit = (
            f"; each name (one of {k} public names) gets {exact(u)} * epsilon = "
            f"{exact(u * eps)} per name changed (any name for any other)"
            if k
            else ""
        )
        name_sum = f" + {exact(u)} * #{{l : m_l != m'_l}}" if k else ""
        name_bound = (
            f" + {exact(u * eps)} * the number of name positions l where m_l != m'_l" if k else ""
        )
        return PrivacyStatement(
            randomness=SEEDED if seeded else UNSEEDED,
            mechanism=self.name,
            title=self.title,
            reference=REFERENCE,
            epsilon=eps,
            epsilon_unit=(
                f"per noun (Euclidean distance between {e.dimension}-d word vectors of "
                f"{e.name}); each sentence gets {exact(w)} * epsilon = {exact(w * eps)} per unit "
                f"of Euclidean distance between {DIMENSION}-d sentence points (at most 2 apart)"
                f"{name_unit}"
            ),
            embeddings=e.to_dict(),
            model={"sentence bank": self.bank.describe(), **self.bank.identity},
            floating_point=FLOATING_POINT,
            version=__version__,
            guarantee=(
                "metric DP for the sum metric over sentences, nouns and names (eq. 6): for "
                "documents v, v' with the same number S of sentences, K of nouns and M of names, "
                f"P[out | v] <= exp({exact(eps)} * (sum_j d_w(n_j, n'_j) + {exact(w)} * sum_i "
                f"d_s(s_i, s'_i){name_sum})) * P[out | v']; template choice, decoding and filling "
                "are post-processing (Lemma 3); a sentence changed in any way costs at most "
                f"{exact(2 * w * eps)}"
                + (f", a name {exact(u * eps)} on its own (its sentence apart)" if k else "")
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {exact(eps)} * sum over noun positions j of "
                f"d_w(n_j, n'_j) + {exact(w * eps)} * sum over sentence positions i of "
                f"d_s(s_i, s'_i){name_bound} (documents with the same S, K and M)"
            ),
            released_unchanged=(
                "the number S of sentences, the number K of nouns (the words of the noun "
                "lexicon) and the number M of names (nouns that are words of the public name "
                "lists), so roughly the document's length; their order, through their noisy "
                "versions. Not released: the words themselves other than through the noisy "
                "sentence points, nouns and names; which noun or name stands in which sentence, "
                "or between which nouns; layout"
            ),
            parameters={
                "sentence weight": w,
                "sentence epsilon": w * eps,
                "name weight": u,
                "name epsilon": u * eps,
                "names": (
                    f"k-ary randomized response on {k} public names (the lower-cased words of "
                    "the entity step's public name lists that are nouns of the lexicon): a name "
                    "is redrawn uniformly from them with probability "
                    f"{self.name_kernel.redraw!r}, else kept (kept with probability "
                    f"{self.name_kernel.keep_probability():.6g})"
                    if self.name_kernel is not None
                    else "none: every noun through the noun kernel"
                ),
                "sentences": "cut after . ! ? before a capital, a digit or an opening quote, "
                "not after a common abbreviation or an initial, on the text with every run of "
                "whitespace made one space (layout changes no cut); a sentence without a letter "
                "or digit is dropped",
                "sentence space": f"{self.bank.describe()}; a sentence's point is computed from "
                "the whole sentence as the mechanism receives it, with every capitalised word "
                "of the public given-name and surname lists read as John, of the place list as "
                "London, and every run of digits as 0 (a capitalised word of the lists reaches "
                "the release through the names channel only; a name outside the lists is read "
                "as written)",
                "templates": f"the {CANDIDATES} bank sentences nearest to the noisy point; the "
                "nearest whose noun slots and name slots number the released nouns and names "
                "left over the sentences left (rounded), else the closest counts (least sum of "
                "the gaps); a template the document has used only when every candidate has been",
                "nouns": inner.parameters.get("content words", ""),
            },
            policies={
                "invisible characters": INVISIBLE_CHARACTERS_POLICY,
                "nouns": "as emp-write with content nouns: " + inner.policies.get("tokens", ""),
                "decoder": inner.policies.get("decoder", ""),
                "filling": "the released nouns fill the templates' noun slots in order and the "
                "released names their name slots in order (a noun in the number of the bank's "
                "noun it stands in for, by lemminflect's table; a noun slot left over keeps the "
                "bank's word; a name slot left over the name released last, or the bank's "
                "before any; a/an follow the next word; 's after a word ending in s becomes '; a "
                "word of the public name lists is capitalised)",
            },
            caveats=(
                "S, K and M are released: the guarantee compares documents with the same number "
                "of sentences, of nouns and of names, position by position; which nouns are "
                "names is the public lists' (a noun such as brown or walker that is also a "
                "name of the lists is a name), so writing a name where another writes a noun "
                "changes K and M and is not covered",
                "a sentence's point reads the whole sentence (every word, its order and its "
                "marks): what the writer wrote is protected by the sentence noise only, as far "
                f"as {exact(w * eps)} * d_s bounds it",
                "the nouns are released in order: a writer's choice of nouns is protected only "
                "as far as epsilon * d_w bounds it",
                "which of the nouns are names is released (M): under the default entity step "
                "the names are mostly surrogates drawn at random, and a name released as itself "
                "shows the reader the document's cast",
            ),
        )
