"""Earth Mover's privacy for text (Fernandes, Dras & McIver 2019, Algorithms 1-2, Theorem 4)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PassThroughCounts, PrivacyStatement
from authormask.embeddings._base import Embeddings
from authormask.embeddings.neighbours import NearestWordIndex
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms.laplace import sample_nd_laplace
from authormask.randomness import RandomState, check_random_state, describe_seed
from authormask.text.prepare import (
    FIXED_LENGTH_METHODS,
    FixedLengthBag,
    PreparedDocument,
    TextPreparer,
    fixed_length_bag,
)
from authormask.validation import check_epsilon

__all__ = ["MODES", "EarthMoversMechanism", "ObfuscationResult", "obfuscate_texts"]

logger = logging.getLogger(__name__)

MODES = ("bag", "text")
REFERENCE = (
    "Fernandes, Dras & McIver, Generalised Differential Privacy for Text Document Processing, "
    "POST 2019: Theorem 2, Algorithms 1-2, Theorem 4"
)


@dataclass(frozen=True)
class ObfuscationResult:
    """One released document: its text, its bag (bag mode) and its privacy statement.

    ``words`` are the released content words: the sorted bag in bag mode, the perturbed content
    words in reading order in text mode.
    """

    text: str
    bag: dict[str, int] | None
    statement: PrivacyStatement
    words: tuple[str, ...] = ()


class EarthMoversMechanism:
    """The per-word mechanism K of Theorem 2 composed with ``Vec`` and ``Vec^-1`` (Algorithm 2).

    Each word ``w`` becomes ``Vec^-1(Vec(w) + r p)``: n-dimensional Laplace noise
    (:func:`~authormask.mechanisms.laplace.sample_nd_laplace`) followed by snapping to the nearest
    vocabulary word by Euclidean distance (exact, batched: :class:`NearestWordIndex`). Snapping is
    post-processing (Lemma 3), so each word is released with ``epsilon * d_S``-privacy and a bag
    of N words with ``epsilon * N * E_{d_S}``-privacy (Theorems 1 and 4).
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        index: NearestWordIndex | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        if index is not None and (index.size, index.dimension) != embeddings.vectors.shape:
            raise InvalidParameterError("index was built for other embeddings")
        # The index depends only on the embeddings: pass one in to share it across epsilons.
        self._index = index if index is not None else NearestWordIndex(embeddings.vectors)

    @property
    def index(self) -> NearestWordIndex:
        return self._index

    def perturb_indices(
        self,
        rows: Sequence[int] | np.ndarray,
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Apply K independently to vocabulary rows; returns the output rows (one per input)."""
        rows_arr = np.asarray(rows, dtype=np.intp)
        if rows_arr.size == 0:
            return rows_arr
        x = self.embeddings.vectors[rows_arr].astype(np.float64)
        noisy = sample_nd_laplace(x, epsilon=self.epsilon, random_state=random_state)
        return self._index.nearest(noisy, progress=progress)

    def perturb_words(
        self,
        words: Sequence[str],
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[str, ...]:
        """Apply K independently to each word (all words batched into one search)."""
        rows = [self.embeddings.index_of(w) for w in words]
        out = self.perturb_indices(rows, random_state=random_state, progress=progress)
        vocab = self.embeddings.words
        return tuple(vocab[int(i)] for i in out)

    def perturb_many(
        self,
        documents: Sequence[Sequence[str]],
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        """Perturb the words of several documents in one batch; independent per word."""
        flat = [w for doc in documents for w in doc]
        out = self.perturb_words(flat, random_state=random_state, progress=progress)
        result: list[tuple[str, ...]] = []
        pos = 0
        for doc in documents:
            result.append(out[pos : pos + len(doc)])
            pos += len(doc)
        return result


def _match_case(original: str, replacement: str) -> str:
    if original.isupper() and len(original) > 1:
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _render_text(doc: PreparedDocument, replacements: tuple[str, ...]) -> str:
    pieces: list[str] = []
    cursor = 0
    by_position = dict(zip(doc.content_positions, replacements, strict=True))
    for i, (tok, role) in enumerate(zip(doc.tokens, doc.roles, strict=True)):
        pieces.append(doc.text[cursor : tok.start])
        if i in by_position:
            pieces.append(_match_case(tok.text, by_position[i]))
        elif role != "oov-dropped":
            pieces.append(tok.text)
        cursor = tok.end
    pieces.append(doc.text[cursor:])
    return "".join(pieces)


def obfuscate_texts(
    texts: Sequence[str],
    *,
    embeddings: Embeddings,
    epsilon: float,
    mode: str = "bag",
    length: int | None = None,
    fixed_length: str = "truncate",
    preparer: TextPreparer | None = None,
    stopwords_description: str = "english",
    random_state: RandomState = None,
    mechanism: EarthMoversMechanism | None = None,
    progress: Callable[[int], None] | None = None,
    names: Sequence[str] | None = None,
) -> list[ObfuscationResult]:
    """Obfuscate documents with Earth Mover's privacy and state the guarantee of each output.

    Parameters
    ----------
    texts : sequence of str
        Raw documents.
    embeddings : Embeddings
        Defines the metric space (and so the meaning of epsilon).
    epsilon : float
        Per-word privacy parameter, ``> 0``; unit: one word, Euclidean distance between vectors.
    mode : {"bag", "text"}
        ``bag``: Algorithm 2 on a fixed-length bag of N content words; the output is a bag
        (written in sorted order so it carries no word-order information). ``text``: the same
        per-word mechanism applied in place to every content word; stopwords, punctuation and
        layout are kept so the output stays readable.
    length : int, optional
        N for bag mode. Default: the smallest number of content words among ``texts`` (the
        paper truncates every document of a set to the shortest, appendix B.1). Not allowed in
        text mode.
    fixed_length : {"truncate", "sample"}
        How bag mode reaches N words.
    random_state : None, int or Generator
        ``None``: OS entropy (unseeded); an int makes the run reproducible.
    progress : callable, optional
        Called with the number of words snapped after each block of the search.
    names : sequence of str, optional
        Document names used in error messages (default: "document 1", ...).
    """
    epsilon = check_epsilon(epsilon)
    if mode not in MODES:
        raise InvalidParameterError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if fixed_length not in FIXED_LENGTH_METHODS:
        raise InvalidParameterError(
            f"fixed-length method must be one of {', '.join(FIXED_LENGTH_METHODS)}, "
            f"got {fixed_length!r}"
        )
    if mode == "text" and length is not None:
        raise InvalidParameterError(
            "length N applies to bag mode only (text mode perturbs every content word), "
            f"got {length}"
        )
    if mode == "text" and fixed_length != "truncate":
        raise InvalidParameterError(
            f"fixed-length method applies to bag mode only, got {fixed_length!r} in text mode"
        )
    if not texts:
        raise InvalidParameterError("no documents to obfuscate")
    seed_info = describe_seed(random_state)
    rng = check_random_state(random_state)
    preparer = preparer or TextPreparer(embeddings)
    mech = mechanism or EarthMoversMechanism(embeddings, epsilon=epsilon)
    if mech.epsilon != epsilon or mech.embeddings is not embeddings:
        raise InvalidParameterError("mechanism was built for other embeddings or epsilon")
    labels = list(names) if names is not None else [f"document {i + 1}" for i in range(len(texts))]
    prepared = []
    for label, t in zip(labels, texts, strict=True):
        try:
            prepared.append(preparer.prepare(t))
        except InputError as exc:
            raise InputError(f"{label}: {exc}") from None
    bags: list[FixedLengthBag | None] = []
    if mode == "bag":
        n = length if length is not None else min(len(p.content_words) for p in prepared)
        for label, p in zip(labels, prepared, strict=True):
            try:
                bags.append(
                    fixed_length_bag(
                        p.content_words, length=n, method=fixed_length, random_state=rng
                    )
                )
            except InputError as exc:
                raise InputError(f"{label}: {exc}") from None
        inputs = [b.words for b in bags if b is not None]
    else:
        bags = [None] * len(prepared)
        inputs = [p.content_words for p in prepared]
    outputs = mech.perturb_many(inputs, random_state=rng, progress=progress)
    results: list[ObfuscationResult] = []
    for doc, bag, out in zip(prepared, bags, outputs, strict=True):
        statement = _statement(
            doc,
            bag,
            mode=mode,
            epsilon=epsilon,
            embeddings=embeddings,
            preparer=preparer,
            stopwords_description=stopwords_description,
            seed=seed_info.describe(),
        )
        if mode == "bag":
            counts = Counter(out)
            for w in doc.kept_oov_words:
                counts[w] += 1
            released = sorted(counts.elements())
            results.append(
                ObfuscationResult(
                    " ".join(released), dict(sorted(counts.items())), statement, tuple(released)
                )
            )
        else:
            results.append(ObfuscationResult(_render_text(doc, out), None, statement, out))
    return results


def _statement(
    doc: PreparedDocument,
    bag: FixedLengthBag | None,
    *,
    mode: str,
    epsilon: float,
    embeddings: Embeddings,
    preparer: TextPreparer,
    stopwords_description: str,
    seed: str,
) -> PrivacyStatement:
    ident = embeddings.identity
    n = bag.length if bag is not None else len(doc.content_words)
    kept = doc.count("oov-kept")
    caveats: list[str] = []
    if mode == "bag":
        method = bag.method if bag is not None else "truncate"
        guarantee = (
            f"{epsilon:g}*{n}*E-privacy over bags of N={n} words (Theorem 4): for any two "
            f"documents whose prepared bags b, b' have N={n} words and any output c, "
            f"P[c | b] <= exp({epsilon:g} * {n} * E(b, b')) * P[c | b'], E = Earth Mover's "
            f"distance with Euclidean word distances in {ident.name}"
        )
        bound = f"epsilon_doc(b, b') = {epsilon * n:g} * E(b, b')"
        handling = "removed before the mechanism (not released)"
        fixed = {
            "truncate": "truncate: first N content words (appendix B.1)",
            "sample": "sample: N i.i.d. draws from the bag's word distribution (arXiv 5.2)",
        }[method]
        if method == "sample":
            caveats.append(
                "bags were sampled: between the bags fed to the mechanism the bound is "
                "epsilon*N*E; between source documents with word distributions p, p' it holds "
                "with E replaced by the bottleneck distance W_inf(p, p') >= E"
            )
        caveats.append("the output bag is written in sorted order, so it carries no word order")
    else:
        method = "all content words, in place"
        fixed = method
        guarantee = (
            f"{epsilon:g}*M-privacy over sequences of N={n} content words (eq. 6): for documents "
            f"v, v' with the same skeleton, P[out | v] <= exp({epsilon:g} * sum_i d(v_i, v'_i)) "
            f"* P[out | v']; word order is released, so the bag-level epsilon*N*E bound of "
            f"Theorem 1 does not apply (sum_i d(v_i, v'_i) >= N * E)"
        )
        bound = f"epsilon_doc(v, v') = {epsilon:g} * sum over the {n} positions of d(v_i, v'_i)"
        handling = "passed through unchanged (part of the released skeleton)"
        caveats.append(
            "text mode releases the skeleton unchanged: stopwords, punctuation, layout, the "
            "positions of content words and their capitalisation; the guarantee only compares "
            "documents that share it"
        )
    if kept:
        caveats.append(
            f"{kept} out-of-vocabulary words were released unchanged and are NOT protected; "
            "the bound only compares documents that contain the same such words"
        )
    oov = {
        "drop": "drop (removed, not released)",
        "keep": "keep (released unchanged, unprotected)",
        "map": f"map (replaced by {preparer.oov_map_to!r}, then perturbed)",
    }[preparer.oov]
    counts = PassThroughCounts(
        tokens=len(doc.tokens),
        perturbed=n,
        stopwords=doc.count("stopword"),
        punctuation=doc.count("punctuation"),
        oov_dropped=doc.count("oov-dropped"),
        oov_kept_unprotected=kept,
        oov_mapped=doc.count("oov-mapped"),
        not_released_by_fixed_length=bag.not_released if bag is not None else 0,
    )
    return PrivacyStatement(
        mechanism="Earth Mover's privacy: n-dimensional Laplace noise on word vectors, "
        "snapped to the nearest vocabulary word",
        reference=REFERENCE,
        mode=mode,
        epsilon=epsilon,
        epsilon_unit=f"per word (Euclidean distance between {ident.dimension}-d word vectors)",
        length=n,
        fixed_length_method=fixed,
        guarantee=guarantee,
        document_bound=bound,
        embeddings=ident.to_dict(),
        stopwords=stopwords_description,
        stopword_handling=handling,
        oov_policy=oov,
        counts=counts,
        seed=seed,
        version=__version__,
        caveats=tuple(caveats),
    )
