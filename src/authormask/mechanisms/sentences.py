"""``emp-sentence``: Earth Mover's privacy on sentences and on their nouns; every output sentence
is a real sentence of a public bank.

emp-write releases the nouns and has a public model write the rest, which reads as a list of
nouns. ``emp-sentence`` releases two things, both through Fernandes, Dras & McIver's Theorem 2:

* **each sentence** becomes a point of a public metric space (its all-MiniLM-L6-v2 vector,
  centred and projected on 16 principal axes of a public sentence bank,
  :mod:`authormask.models.sentence_bank`); n-dimensional Laplace noise is added (radius
  ``Gamma(16, 1/(w * epsilon))``, uniform direction; ``w`` the public ``sentence_weight``) and
  the noisy point is post-processed into a sentence of the bank (a *template*: among the 64
  bank sentences nearest to the noisy point, the nearest whose number of noun and name slots is
  the number of released nouns left over the sentences left, rounded);
* **each noun** (the nouns of emp-write's public lexicon, in order) goes through emp-write's
  per-word mechanism and decoder (:class:`~authormask.mechanisms.written.EMPWrite`, radius
  ``Gamma(n, 1/epsilon)`` in the word vectors' space).

The released nouns fill the templates' noun and name slots in order (a slot left over keeps the
template's own word; "a"/"an" follow the word put after them; a word of the public name lists
is capitalised). Every output sentence is a sentence of public prose with the released nouns
in it: it has a verb wherever its template has one.

Sentences are cut by a public rule on the text with its layout removed (whitespace joined):
after ``.``, ``!`` or ``?`` before a capital, a digit or an opening quote, not after a common
abbreviation or an initial (:func:`~authormask.text.sentences.split_sentences`).

Guarantee. Each sentence is one use of the ``(w * epsilon) * d_s``-private sentence mechanism
and each noun one use of the ``epsilon * d_w``-private word mechanism; the template choice, the
decoder and the filling are functions of the noisy points and public data (post-processing,
Lemma 3). For two documents with the same number S of sentences and the same number K of nouns,
by sequential composition (eq. 6), ``P[out | v] <= exp(epsilon * (sum_j d_w(n_j, n'_j) + w *
sum_i d_s(s_i, s'_i))) * P[out | v']``: metric DP for the sum metric. The projection is a
contraction of unit vectors, so ``d_s <= 2`` for any two sentences: a sentence changed in any
way costs at most ``2 * w * epsilon``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.defaults import SENTENCE_WEIGHT
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.mechanisms.laplace import sample_nd_laplace
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
    "fill_template",
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
    "for the 32 nearest words, scored in float64). An input sentence's point is computed by the "
    "packaged encoder in float32: the same text gives the same point on one machine; another "
    "processor may round it differently (a public function either way)"
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


@dataclass(frozen=True)
class SentenceUnit:
    """A document as emp-sentence prepares it: its sentences and its nouns, in order.

    Attributes
    ----------
    sentences
        The sentences (S of them).
    words
        The nouns of the public lexicon with a vector (K of them), in order: what the noun
        kernel perturbs.
    diagnostics
        Private counts.
    """

    sentences: tuple[str, ...]
    words: tuple[str, ...]
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


def _target(left_words: int, left_sentences: int) -> int:
    return int(np.floor(left_words / max(left_sentences, 1) + 0.5))


def choose_templates(
    candidates: NDArray[np.intp], slots: NDArray[np.intp], words: int
) -> list[int]:
    """For each sentence, the template among its candidates (nearest first): the nearest whose
    slot count is the released nouns left over the sentences left (rounded), else the one whose
    count is closest to it (nearer first). A function of the candidates, the bank and K only.

    Parameters
    ----------
    candidates
        One row of bank indices per sentence, nearest first.
    slots
        The bank sentences' slot counts.
    words
        K, the number of released nouns.

    Returns
    -------
    list[int]
        One bank index per sentence.
    """
    out: list[int] = []
    left = words
    n = len(candidates)
    for i, row in enumerate(candidates):
        want = _target(left, n - i)
        counts = slots[row]
        gap = np.abs(counts - want)
        j = int(row[int(np.argmin(gap))])  # argmin takes the first (nearest) of the closest
        out.append(j)
        left = max(0, left - int(slots[j]))
    return out


def fill_template(
    tokens: Sequence[tuple[str, str, str]], words: Sequence[str], names: frozenset[str]
) -> tuple[str, int]:
    """A template with ``words`` in its slots, in order (module notes).

    Parameters
    ----------
    tokens
        The template's tokens: (text, trailing whitespace, slot).
    words
        The words to put in its slots, in order (more than its slots: the rest are left).
    names
        Lower-case words written with a capital (the public name lists).

    Returns
    -------
    tuple[str, int]
        The sentence, and how many words it took.

    Examples
    --------
    >>> fill_template([("A", " ", ""), ("dog", " ", "noun"), ("ran", "", ""), (".", "", "")],
    ...               ["owl"], frozenset())
    ('An owl ran.', 1)
    """
    out: list[list[str]] = []
    used = 0
    for i, (text, space, slot) in enumerate(tokens):
        if slot and used < len(words):
            word = words[used]
            used += 1
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
    return "".join(t + s for t, s in out).strip(), used


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
    """

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
        #: the sentence sampler and search; ``sentence_noise`` is the sampler the noise-off
        #: form switches off, ``kernel`` the nouns' (emp-write's)
        self.sentences = SentenceKernel(bank.points, self.sentence_weight * self.epsilon)
        self.sentence_noise: SentenceKernel | IdentityKernel = self.sentences
        self.kernel: Any = words.kernel
        self.names = names
        self._slots = bank.slots

    def without_noise(self) -> EMPSentence:
        """Both samplers switched off: every noun as itself, every sentence snapped from its
        own point (the limit epsilon -> infinity).

        Returns
        -------
        EMPSentence
            The copy.
        """
        off = copy.copy(self)
        off.kernel = IdentityKernel(self.embeddings)
        off.sentence_noise = IdentityKernel(self.embeddings)
        return off

    # --- preparation ------------------------------------------------------------------------

    def prepare(self, text: str) -> SentenceUnit:
        """The document's sentences and nouns.

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
        nouns = tuple(w for u in units for w in u.words)
        counts: dict[str, int] = {"sentences": len(sentences), "nouns": len(nouns)}
        for u in units:
            for k, v in u.diagnostics.items():
                if k != "content_words":
                    counts[k] = counts.get(k, 0) + int(v)
        return SentenceUnit(sentences, nouns, counts)

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

    def units(self, unit: SentenceUnit) -> int:
        """Sentences and nouns, the work it takes.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        int
            The units of work.
        """
        return len(unit.sentences) + len(unit.words)

    # --- release ----------------------------------------------------------------------------

    def perturb(
        self,
        documents: Sequence[SentenceUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Each document draws from its generator the nouns' noise (in order), then the
        sentences' noise (in order); the rest is post-processing of the noisy points.

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
        points = self.bank.encoder.points([s for d in documents for s in d.sentences])
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
        snapped = kernel.snap_sequences(noisy_words)
        out: list[Output] = []
        for unit, rows, z in zip(documents, snapped, noisy_sentences, strict=True):
            released = tuple(emb.words[int(i)] for i in rows)
            out.append(Output(self.render(z, released), released))
            if progress is not None:
                progress(self.units(unit))
        return out

    def render(self, z: NDArray[np.float64], words: Sequence[str]) -> str:
        """The released text of a document from its noisy sentence points and released nouns.

        Parameters
        ----------
        z
            The noisy sentence points.
        words
            The released nouns, in order.

        Returns
        -------
        str
            The text.
        """
        if len(z) == 0:
            return ""
        templates = choose_templates(self.sentences.nearest(z), self._slots, len(words))
        sentences: list[str] = []
        used = 0
        for j in templates:
            text, took = fill_template(self.bank.tokens[j], words[used:], self.names)
            used += took
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
        e = self.embeddings.identity
        inner = self.words.statement(seeded=seeded)
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
            ),
            embeddings=e.to_dict(),
            model={"sentence bank": self.bank.describe(), **self.bank.identity},
            floating_point=FLOATING_POINT,
            version=__version__,
            guarantee=(
                "metric DP for the sum metric over sentences and nouns (eq. 6): for documents "
                "v, v' with the same number S of sentences and the same number K of nouns, "
                f"P[out | v] <= exp({exact(eps)} * (sum_j d_w(n_j, n'_j) + {exact(w)} * sum_i "
                "d_s(s_i, s'_i))) * P[out | v']; template choice, decoding and filling are "
                "post-processing (Lemma 3); a sentence changed in any way costs at most "
                f"{exact(2 * w * eps)}"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {exact(eps)} * sum over noun positions j of "
                f"d_w(n_j, n'_j) + {exact(w * eps)} * sum over sentence positions i of "
                "d_s(s_i, s'_i) (documents with the same S and K)"
            ),
            released_unchanged=(
                "the number S of sentences and the number K of nouns (the words of the noun "
                "lexicon), so roughly the document's length; their order, through their noisy "
                "versions. Not released: the words themselves other than through the noisy "
                "sentence points and nouns; which noun stands in which sentence; layout"
            ),
            parameters={
                "sentence weight": w,
                "sentence epsilon": w * eps,
                "sentences": "cut after . ! ? before a capital, a digit or an opening quote, "
                "not after a common abbreviation or an initial, on the text with every run of "
                "whitespace made one space (layout changes no cut); a sentence without a letter "
                "or digit is dropped",
                "sentence space": f"{self.bank.describe()}; a sentence's point is computed from "
                "the whole sentence as the mechanism receives it",
                "templates": f"the {CANDIDATES} bank sentences nearest to the noisy point; the "
                "nearest whose noun and name slots number the released nouns left over the "
                "sentences left (rounded), else the closest count",
                "nouns": inner.parameters.get("content words", ""),
            },
            policies={
                "invisible characters": INVISIBLE_CHARACTERS_POLICY,
                "nouns": "as emp-write with content nouns: " + inner.policies.get("tokens", ""),
                "decoder": inner.policies.get("decoder", ""),
                "filling": "the released nouns fill the templates' noun and name slots in order "
                "(a slot left over keeps the bank's word; a/an follow the next word; a word of "
                "the public name lists is capitalised)",
            },
            caveats=(
                "S and K are released: the guarantee compares documents with the same number of "
                "sentences and of nouns, position by position",
                "a sentence's point reads the whole sentence (every word, its order and its "
                "marks): what the writer wrote is protected by the sentence noise only, as far "
                f"as {exact(w * eps)} * d_s bounds it",
                "the nouns are released in order: a writer's choice of nouns is protected only "
                "as far as epsilon * d_w bounds it",
            ),
        )
