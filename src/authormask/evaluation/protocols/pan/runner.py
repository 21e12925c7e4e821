"""Running the PAN protocol: :func:`run_pan` releases every problem's texts at every row
(together, so a mechanism that fixes N from its inputs fixes one N per problem), has each
attacker answer for the released unknown texts, scores it by PAN's macro-F1 and measures the
utilities of the released texts against the originals (MiniLM similarity, content recall,
retrieval, fluency) and, once per problem, their floors; it keeps the start of a few released
texts for the sample sheet. Releases, cells and floors are cached."""

from __future__ import annotations

import contextlib
import logging
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from authormask._process import process_memo
from authormask._version import __version__
from authormask.core import mechanism_spec, release
from authormask.core.executors import Engine, check_engine, open_executor
from authormask.datasets.pan import PanCollection, PanProblem
from authormask.evaluation.cache import ResultsCache, cache_key
from authormask.evaluation.measures import AttackerSettings
from authormask.evaluation.measures import attacker as attacker_measure
from authormask.evaluation.measures.attackers.typed import EmbeddingMemo
from authormask.evaluation.measures.utilities.content import (
    content_counts,
    content_recalls,
    recall_identity,
    recall_of_counts,
)
from authormask.evaluation.measures.utilities.fluency import (
    FLUENCY_DESCRIPTION,
    CrossFittedJudges,
    FluencyJudge,
    cross_fit_config,
    fluency_model,
    judge_setting,
    shuffled,
    use_judge,
)
from authormask.evaluation.measures.utilities.retrieval import retrieval_hits, similarity_floor
from authormask.evaluation.measures.utilities.sentences import (
    SENTENCES_DESCRIPTION,
    finite_verb_shares,
    sentences_identity,
)
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.measures.utilities.topic import (
    CLASSIFIER,
    FANDOM_FILE,
    FandomClassifiers,
    read_fandoms,
)
from authormask.evaluation.metrics import UNKNOWN, pan_macro_f1
from authormask.evaluation.protocols._common import (
    derive_seed,
    package_versions,
    point_seeds,
    problem_code,
)
from authormask.evaluation.protocols.pan.config import (
    RATIO_UTILITIES,
    STEPPED,
    PanConfig,
    limit_mechanisms,
)
from authormask.evaluation.protocols.pan.results import (
    PanCell,
    PanExcerpt,
    PanFloor,
    PanResult,
    PanUtilityCell,
)
from authormask.evaluation.releases import (
    NOISE_OFF_EPSILON,
    HasIdentity,
    build_mechanism,
    identity_of,
    mechanism_identity,
    mechanism_parameters,
    public_parameters,
    with_defaults,
)
from authormask.evaluation.stepped import entity_stepped_texts
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError

__all__ = [
    "CACHE_FORMAT",
    "MODEL_OPTIONS",
    "check_pan",
    "mechanism_models",
    "run_pan",
]

logger = logging.getLogger(__name__)

#: 3: keys hold the mechanism's identity (:func:`~authormask.evaluation.releases.
#: mechanism_identity`: its packaged data too); 4: keys hold the entity mode the releases ran
#: under (the user's ``surrogate`` by default, where every release was ``keep`` before), and a
#: utility's key the problem's own judge (``fluency-xfit``) or fandoms (``topic-holds``)
CACHE_FORMAT = 4
#: the sample sheet: this many sampled unknown texts of the first problem, cut to this many words
SAMPLE_TEXTS = 3
EXCERPT_WORDS = 60
#: the content-recall floor reads every ordered pair of the sampled texts up to this many, else
#: this many distinct pairs drawn once per problem from the base seed (module docstring)
FLOOR_PAIRS = 5000


def _seeds(
    base: int, problem: str, mechanism: str, epsilon: float | None, rep: int
) -> tuple[int, int]:
    """(texts, attacker) seeds of one cell group."""
    text, attacker = point_seeds(
        base, mechanism, epsilon, rep, roles=2, within=(problem_code(problem),)
    )
    return text, attacker


#: per kind of trained model (a registry spec's :attr:`~authormask.core.specs.MechanismSpec.
#: model_kind`): the parameter of :func:`run_pan` (and option of ``authormask evaluate``) that
#: passes it, whether it was trained with the embedding reward, and the command that trains it
MODEL_OPTIONS: dict[str, tuple[str, bool, str]] = {
    "reward": ("erae_model", True, "authormask train erae"),
    "plain": ("aedp_model", False, "authormask train erae --no-embedding-reward"),
}


def _loaded(model: Any) -> Any:
    """``model``, loaded if it is a model folder (once, not at every release)."""
    if isinstance(model, (str, Path)):
        from authormask.models.erae import load_model  # PyTorch: loaded when asked for

        return load_model(model)
    return model


def mechanism_models(
    config: PanConfig, *, erae_model: Any = None, aedp_model: Any = None
) -> dict[str, Any]:
    """The trained model each mechanism of ``config`` is released with, by mechanism: for a
    mechanism whose registry spec requires a ``model`` (erae, ae-dp), the model of the kind
    its spec names (:data:`MODEL_OPTIONS`), unless ``config.parameters`` gives it one. As in
    bo2021, a model given for no mechanism of the run is accepted (and checked) but releases
    nothing.

    Parameters
    ----------
    config
        The run's config.
    erae_model
        ER-AE's trained model (with the embedding reward), or ``None``.
    aedp_model
        AE-DP's trained model (without it), or ``None``.

    Returns
    -------
    dict[str, Any]
        Mechanism -> the model it is released with (only mechanisms that take one).

    Raises
    ------
    InputError
        If a model was trained with the wrong reward for its parameter, or a mechanism that
        requires a model has none (naming the parameter that passes it).
    """
    given = {"reward": _loaded(erae_model), "plain": _loaded(aedp_model)}
    for kind, (name, reward, _) in MODEL_OPTIONS.items():
        model = given[kind]
        if model is not None and bool(model.config.uses_reward) != reward:
            raise InputError(
                f"`{name}` holds a model trained {'without' if reward else 'with'} the "
                "embedding reward"
            )
    out: dict[str, Any] = {}
    for m in config.mechanisms:
        spec = mechanism_spec(m)
        parameter = spec.resource_parameter("model")
        if parameter is None or not parameter.required:
            continue
        extra = config.parameters.get(m) or {}
        if extra.get(parameter.name) is not None:  # loaded once, keyed by its identity
            out[m] = _loaded(extra[parameter.name])
            continue
        model = given.get(spec.model_kind or "")
        if model is None:
            name, _, trainer = MODEL_OPTIONS.get(spec.model_kind or "", ("model", True, ""))
            source = f" (a model folder from `{trainer}`)" if trainer else ""
            raise InputError(f"mechanism {m} needs its trained model: give `{name}`{source}")
        out[m] = model
    return out


def check_pan(collection: PanCollection, config: PanConfig) -> None:
    """Refuse, before any work, what cannot run on ``collection`` (saying what is missing): an
    attacker that needs several known texts per candidate (``pan-baseline`` calibrates on 3
    folds) on a problem with fewer.

    Parameters
    ----------
    collection
        The PAN collection.
    config
        The run's config.

    Raises
    ------
    InputError
        If a candidate has fewer known texts than an attacker needs.
    """
    strictest = max(
        (attacker_measure(a) for a in config.attackers), key=lambda m: m.known_per_author
    )
    need = strictest.known_per_author
    if need <= 1:
        return
    for p in collection.problems:
        counts = {c: 0 for c in p.candidates}
        for t in p.known:
            counts[t.author] += 1
        fewest = min(p.candidates, key=lambda c: (counts[c], c))
        if counts[fewest] < need:
            raise InputError(
                f"{p.name}: candidate {fewest!r} has {counts[fewest]} known text(s); "
                f"{strictest.base_name} {strictest.needs_known_because} and needs at least "
                f"{need} per candidate (choose other `attackers`)"
            )


class _Runner:
    def __init__(
        self,
        collection: PanCollection,
        embeddings: Any,
        config: PanConfig,
        cache_dir: Path | None,
        models: Mapping[str, Any] | None = None,
    ) -> None:
        self.collection = collection
        self.embeddings = embeddings
        self.config = config
        # mechanism -> the trained model it is released with (mechanism_models)
        self.models = dict(models or {})
        self.cache = ResultsCache(cache_dir)
        self.attackers = {name: attacker_measure(name) for name in config.attackers}
        similarity = SentenceSimilarity()  # loads MiniLM on first use only
        self.similarity = similarity
        self._originals: dict[str, np.ndarray] = {}  # problem -> every original's vector
        # the release vectors of the last row measured (similarity and retrieval share them)
        self._row_vectors: tuple[tuple[Any, ...], np.ndarray] | None = None
        self._original_ppl: dict[str, np.ndarray] = {}  # problem -> the originals' perplexity
        self._judge: FluencyJudge | None = None
        self._xfit: CrossFittedJudges | None = None
        # the entity-stepped originals of the sampled unknown texts of the last row (their
        # vectors too), and each problem's fandom classifiers (None: no fandom-info.json)
        self._stepped: tuple[tuple[Any, ...], list[str], np.ndarray | None] | None = None
        self._fandoms: dict[str, FandomClassifiers | None] = {}
        # the sample sheet: the first problem's first sampled unknown texts, as each release
        # read or made them ((mechanism, epsilon, seed) -> texts)
        first = collection.problems[0] if collection.problems else None
        self.sample_problem = first
        self.sample_indices = (
            self.similarity_sample(first)[:SAMPLE_TEXTS] if first is not None else []
        )
        self._sample_texts: dict[tuple[str, float | None, int], list[str]] = {}
        self.settings = AttackerSettings(
            embeddings=embeddings,
            koppel_iterations=config.koppel_iterations,
            # float32: in bfloat16 a text's vector moves with the texts batched beside it, and
            # which texts a memo still has to embed depends on the order cells run in
            encoder=EmbeddingMemo(SentenceSimilarity(precision="float32")),
            similarity=similarity,
        )
        self.statements: dict[str, Any] = {}

    def parameters(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        extra = dict(self.config.parameters.get(mechanism) or {})
        model = mechanism_spec(mechanism).resource_parameter("model")
        if model is not None and mechanism in self.models:  # in every key by its identity
            extra[model.name] = self.models[mechanism]
        return mechanism_parameters(
            mechanism,
            epsilon,
            embeddings=self.embeddings,
            length=self.config.length,
            entities=self.config.entities,
            extra=extra or None,
        )

    def problem_key(self, problem: PanProblem) -> str:
        return cache_key(
            {
                "candidates": list(problem.candidates),
                "known": [[t.name, t.author, t.text] for t in problem.known],
                "unknown": [[t.name, t.author, t.text] for t in problem.unknown],
            }
        )

    def released(
        self, problem: PanProblem, mechanism: str, epsilon: float | None, seed: int
    ) -> tuple[list[Item], list[Item]]:
        """The problem's known and unknown texts released together at ``epsilon`` (``None``:
        noise off), as items; the release is cached."""
        params = self.parameters(mechanism, epsilon)
        key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "problem": self.problem_key(problem),
            "mechanism": mechanism,
            "parameters": public_parameters(with_defaults(mechanism, params)),
            "identity": mechanism_identity(mechanism, params),
            "entities": self.config.entities,
            "seed": seed,
        }
        cached = self.cache.get("pan-release", key)
        if cached is None:
            texts = [t.text for t in problem.known] + [t.text for t in problem.unknown]
            sources = [f"{problem.name}/{t.author}/{t.name}" for t in problem.known] + [
                f"{problem.name}/unknown/{t.name}" for t in problem.unknown
            ]
            try:
                rel = release(
                    texts,
                    build_mechanism(mechanism, params),
                    random_state=seed,
                    sources=sources,
                )
            except InputError as exc:
                raise InputError(f"{problem.name}, {mechanism}: {exc}") from None
            cached = {
                "texts": [d.text for d in rel.documents],
                "words": [list(d.words) for d in rel.documents],
                "statement": rel.statement.to_dict(),
            }
            self.cache.put("pan-release", key, cached)
        if epsilon is not None:
            self.statements.setdefault(f"{mechanism}/{epsilon:g}", cached["statement"])
        if self.sample_problem is not None and problem.name == self.sample_problem.name:
            self._sample_texts[(mechanism, epsilon, seed)] = [
                cached["texts"][len(problem.known) + i] for i in self.sample_indices
            ]
        items = [
            Item(f"{problem.name}/{i}", text, tuple(words), author)
            for i, (text, words, author) in enumerate(
                zip(
                    cached["texts"],
                    cached["words"],
                    [t.author for t in problem.known] + [t.author for t in problem.unknown],
                    strict=True,
                )
            )
        ]
        return items[: len(problem.known)], items[len(problem.known) :]

    def cell(
        self,
        problem: PanProblem,
        mechanism: str,
        epsilon: float | None,
        rep: int,
        attacker: str,
        base: tuple[list[Item], list[Item]],
    ) -> PanCell:
        text_seed, attacker_seed = _seeds(self.config.seed, problem.name, mechanism, epsilon, rep)
        key = {
            **self.cell_key(problem, mechanism, epsilon, rep),
            "attacker": attacker,
            "seeds": [text_seed, attacker_seed],
            "koppel_iterations": self.config.koppel_iterations,
        }
        cached = self.cache.get("pan-cell", key)
        if cached is not None:
            if epsilon is not None:  # the statement of the release
                self.released(problem, mechanism, epsilon, text_seed)
            return PanCell(**cached)
        start = time.perf_counter()
        known, unknown = (
            base if epsilon is None else self.released(problem, mechanism, epsilon, text_seed)
        )
        preds = self.attackers[attacker].predict(
            _PanInputs(
                mechanism=mechanism,
                epsilon=epsilon,
                seed=attacker_seed,
                run_seed=self.config.seed,
                settings=self.settings,
                texts=(known, unknown),
                base=base,
            )
        )
        names = [t.name for t in problem.unknown]
        answers = {
            n: (p if p is not None else UNKNOWN) for n, p in zip(names, preds.labels, strict=True)
        }
        score = pan_macro_f1(problem.truth, answers, problem.candidates)
        cell = PanCell(
            problem=problem.name,
            mechanism=mechanism,
            epsilon=epsilon,
            repetition=rep,
            attacker=attacker,
            macro_f1=score.macro_f1,
            macro_f1_with_unk=score.macro_f1_with_unk,
            accuracy=score.accuracy,
            correct=score.correct,
            total=score.total,
            abstained=preds.abstained,
            seed=text_seed,
            seconds=time.perf_counter() - start,
        )
        self.cache.put("pan-cell", key, asdict(cell))
        return cell

    def cell_key(
        self, problem: PanProblem, mechanism: str, epsilon: float | None, rep: int
    ) -> dict[str, Any]:
        """What every cached cell of (problem, mechanism, epsilon, repetition) is keyed by."""
        params = self.parameters(mechanism, epsilon)
        return {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "problem": self.problem_key(problem),
            "mechanism": mechanism,
            "parameters": public_parameters(with_defaults(mechanism, params)),
            "identity": mechanism_identity(mechanism, params),
            "entities": self.config.entities,
            "epsilon": epsilon,
            "rep": rep,
        }

    def similarity_sample(self, problem: PanProblem) -> list[int]:
        """The unknown texts of ``problem`` whose similarity is measured (module docstring):
        ``similarity_texts`` of them drawn without replacement, in order; all if fewer."""
        n = len(problem.unknown)
        k = self.config.similarity_texts
        if k is None or k >= n:
            return list(range(n))
        rng = np.random.default_rng(derive_seed(self.config.seed, problem_code(problem.name)))
        return sorted(int(i) for i in rng.choice(n, size=k, replace=False))

    @property
    def judge(self) -> FluencyJudge:
        """The fluency judge (trained once per process on first use)."""
        if self._judge is None:
            self._judge = fluency_model()
        return self._judge

    @property
    def xfit(self) -> CrossFittedJudges:
        """The cross-fitted judges of the collection (each trained on first use)."""
        if self._xfit is None:
            self._xfit = CrossFittedJudges(
                {
                    p.name: [t.text for t in (*p.known, *p.unknown)]
                    for p in self.collection.problems
                },
                collection=self.collection.name,
            )
        return self._xfit

    def fandoms(self, problem: PanProblem) -> FandomClassifiers | None:
        """The fandom classifiers of ``problem`` (``None`` without ``fandom-info.json``)."""
        if problem.name not in self._fandoms:
            found = read_fandoms(problem.source) if Path(problem.source).is_dir() else None
            classifiers = None
            if found is not None:
                missing = [t.name for t in problem.known if (t.author, t.name) not in found]
                if missing:
                    raise InputError(
                        f"{problem.name}: {FANDOM_FILE} names no fandom of {missing[0]}"
                    )
                classifiers = FandomClassifiers(
                    [t.author for t in problem.known],
                    [t.text for t in problem.known],
                    [found[(t.author, t.name)] for t in problem.known],
                )
            self._fandoms[problem.name] = classifiers
        return self._fandoms[problem.name]

    def measurable(self, problem: PanProblem, measure: str) -> bool:
        """Whether ``measure`` can be read on ``problem``: ``topic-holds`` needs the problem's
        fandoms and a known text whose fandom another candidate writes in, ``fluency-xfit``
        another problem to train its judge on; every other measure can."""
        if measure == "topic-holds":
            classifiers = self.fandoms(problem)
            return (
                classifiers is not None
                and classifiers.score([t.text for t in problem.known]).scorable > 0
            )
        if measure == "fluency-xfit":
            return len(self.collection.problems) > 1
        return True

    def measure_identity(self, measure: str, problem: PanProblem) -> dict[str, Any]:
        """What a utility ``measure`` reads on ``problem`` besides the texts (its part of a
        cache key)."""
        base = measure.removesuffix(STEPPED)
        stepped = (
            {"reference": "entity-stepped original", "entities": self.config.entities}
            if measure.endswith(STEPPED)
            else {}
        )
        if base == "similarity":
            return {"encoder": self.similarity.identity, **stepped}
        if base == "retrieval":
            return {"encoder": self.similarity.identity, "among": "every unknown text", **stepped}
        if base == "content-recall":
            return {"recall": recall_identity(), **stepped}
        if measure == "fluency":
            return {"judge": self.judge.identity.to_dict()}
        if measure == "fluency-xfit":
            return {"judge": self.xfit.judge(problem.name).identity.to_dict()}
        if measure == "sentences":
            return {"parser": sentences_identity()}
        if measure == "topic-holds":
            fandoms = read_fandoms(problem.source) or {}
            return {
                "classifier": CLASSIFIER,
                "fandoms": cache_key({"/".join(k): v for k, v in sorted(fandoms.items())}),
            }
        raise InvalidParameterError(f"unknown PAN utility measure {measure!r}")

    def stepped_originals(
        self, problem: PanProblem, mechanism: str, epsilon: float | None, seed: int
    ) -> tuple[list[str], np.ndarray]:
        """The sampled unknown texts of ``problem`` as the release of ``(mechanism, epsilon)``
        with ``seed`` gave them to the mechanism (after its entity step, with its surrogates:
        :func:`~authormask.evaluation.stepped.entity_stepped_texts`), and their MiniLM
        vectors; kept for the last row."""
        row = (problem.name, mechanism, epsilon, seed)
        if self._stepped is None or self._stepped[0] != row:
            texts = [t.text for t in problem.known] + [t.text for t in problem.unknown]
            at = [len(problem.known) + i for i in self.similarity_sample(problem)]
            stepped = entity_stepped_texts(
                texts,
                build_mechanism(mechanism, self.parameters(mechanism, epsilon)),
                random_state=seed,
                only=at,
            )
            self._stepped = (row, stepped, None)
        row_, stepped, vectors = self._stepped
        if vectors is None:
            vectors = self.similarity.embed(stepped)
            self._stepped = (row_, stepped, vectors)
        return stepped, vectors

    def original_vectors(self, problem: PanProblem) -> np.ndarray:
        """MiniLM vectors of every original unknown text of ``problem``, in order (once per
        process): retrieval searches among all of them, similarity reads the sampled rows."""
        originals = self._originals.get(problem.name)
        if originals is None:
            originals = self.similarity.embed([t.text for t in problem.unknown])
            self._originals[problem.name] = originals
        return originals

    def utility(
        self,
        problem: PanProblem,
        mechanism: str,
        epsilon: float | None,
        rep: int,
        base: tuple[list[Item], list[Item]],
        measure: str = "similarity",
    ) -> PanUtilityCell:
        """Utility ``measure`` of the sampled released unknown texts against the originals
        (cached): MiniLM similarity, content recall, retrieval among every original or
        the fluency ratio (module docstring of :mod:`authormask.evaluation.protocols.pan`)."""
        text_seed, _ = _seeds(self.config.seed, problem.name, mechanism, epsilon, rep)
        sample = self.similarity_sample(problem)
        key = {
            **self.cell_key(problem, mechanism, epsilon, rep),
            "seed": text_seed,
            "measure": measure,
            **self.measure_identity(measure, problem),
            "sample": sample,
        }
        cached = self.cache.get("pan-utility", key)
        if cached is not None:
            return PanUtilityCell(**cached)
        start = time.perf_counter()
        known, unknown = (
            base if epsilon is None else self.released(problem, mechanism, epsilon, text_seed)
        )
        released = [unknown[i].text for i in sample]
        scores, scale = self._utility_scores(
            problem,
            (mechanism, epsilon, rep, text_seed),
            measure,
            sample=sample,
            known=known,
            released=released,
        )
        mean = float(np.mean(scores))
        cell = PanUtilityCell(
            problem=problem.name,
            mechanism=mechanism,
            epsilon=epsilon,
            repetition=rep,
            measure=measure,
            mean=float(np.exp(mean)) if scale == "geometric" else mean,
            sd=float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0,
            texts=len(scores),
            seconds=time.perf_counter() - start,
            scale=scale,
        )
        self.cache.put("pan-utility", key, asdict(cell))
        return cell

    def _utility_scores(
        self,
        problem: PanProblem,
        setting: tuple[str, float | None, int, int],
        measure: str,
        *,
        sample: list[int],
        known: list[Item],
        released: list[str],
    ) -> tuple[np.ndarray, str]:
        """The per-text scores of utility ``measure`` (:meth:`utility`) at ``setting`` (mechanism,
        epsilon, repetition and the texts' seed) of the sampled released unknown texts
        ``released`` (``sample``: their indices; ``known``: the released known texts), and their
        scale (``arithmetic``, or ``geometric``: the cell holds their geometric mean)."""
        mechanism, epsilon, rep, text_seed = setting
        scale = "arithmetic"
        stepped = measure.endswith(STEPPED)
        kind = measure.removesuffix(STEPPED)
        if kind in ("similarity", "retrieval"):
            originals = self.original_vectors(problem)
            if stepped:  # the sampled originals as the release stepped them (module docstring)
                originals = originals.copy()
                originals[sample] = self.stepped_originals(problem, mechanism, epsilon, text_seed)[
                    1
                ]
            row = (problem.name, mechanism, epsilon, rep)
            if self._row_vectors is None or self._row_vectors[0] != row:
                self._row_vectors = (row, self.similarity.embed(released))
            vectors = self._row_vectors[1]
            if kind == "similarity":
                scores = np.sum(originals[sample] * vectors, axis=1)
            else:  # among every original of the problem, not the sample alone
                scores = retrieval_hits(originals, vectors, own=sample).astype(np.float64)
        elif kind == "content-recall":
            references = (
                self.stepped_originals(problem, mechanism, epsilon, text_seed)[0]
                if stepped
                else [problem.unknown[i].text for i in sample]
            )
            scores = content_recalls(references, released)
        elif measure == "sentences":
            scores = finite_verb_shares(released)
        elif measure == "topic-holds":  # the released known texts, every one of them
            classifiers = self.fandoms(problem)
            assert classifiers is not None  # measurable() said so
            holds = classifiers.score([k.text for k in known])
            scores = np.array([1.0] * holds.correct + [0.0] * (holds.scorable - holds.correct))
        else:  # fluency: per text the log ratio; the cell holds their geometric mean
            scale = "geometric"
            judge = self.judge if measure == "fluency" else self.xfit.judge(problem.name)
            scores = np.log(
                np.array([judge.text_perplexity(t) for t in released])
                / self.original_perplexities(problem, measure)
            )
        return scores, scale

    def original_perplexities(self, problem: PanProblem, measure: str = "fluency") -> np.ndarray:
        """The normalised perplexity of each sampled original unknown text of ``problem`` under
        the judge of ``measure`` (``fluency``: the packaged judge; ``fluency-xfit``: the
        problem's cross-fitted one)."""
        ppl = self._original_ppl.get(f"{measure}/{problem.name}")
        if ppl is None:
            judge = self.judge if measure == "fluency" else self.xfit.judge(problem.name)
            ppl = np.array(
                [
                    judge.text_perplexity(problem.unknown[i].text)
                    for i in self.similarity_sample(problem)
                ]
            )
            self._original_ppl[f"{measure}/{problem.name}"] = ppl
        return ppl

    def floor(self, problem: PanProblem, measure: str) -> PanFloor | None:
        """The floor of ``measure`` on ``problem`` (:class:`PanFloor`; cached): for similarity
        and content recall what two unrelated originals score (a ``-stepped`` form: the same
        floor), for retrieval a uniform guess; for a fluency ratio its *shuffled original*
        (each sampled original's words in a random order, its ratio to the original under the
        same judge: the geometric mean, ``sd`` of the logs); for ``sentences`` and
        ``topic-holds`` the originals' own value (``topic-holds``: ``texts`` = the scorable
        known texts). ``None`` where there is none (similarity and content recall with fewer
        than two sampled texts; a measure that cannot be read on the problem)."""
        sample = self.similarity_sample(problem)
        k = len(sample)
        if measure.endswith(STEPPED):
            floor = self.floor(problem, measure.removesuffix(STEPPED))
            return None if floor is None else replace(floor, measure=measure)
        if measure == "retrieval" and k > 0:  # a uniform guess among every original
            return PanFloor(problem.name, measure, 1.0 / len(problem.unknown), 0.0, k, 0, 0.0)
        if not self.measurable(problem, measure):
            return None
        if measure in ("similarity", "content-recall") and k < 2:
            return None
        if measure not in ("similarity", "content-recall", "sentences", "topic-holds") and (
            measure not in RATIO_UTILITIES or k < 1
        ):
            return None
        key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "problem": self.problem_key(problem),
            "measure": measure,
            **self.measure_identity(measure, problem),
            "sample": sample,
            "max_pairs": FLOOR_PAIRS,
        }
        cached = self.cache.get("pan-floor", key)
        if cached is not None:
            return PanFloor(**cached)
        start = time.perf_counter()
        texts = k
        if measure == "similarity":
            scores = similarity_floor(self.original_vectors(problem)[sample])
        elif measure in RATIO_UTILITIES:  # the shuffled original, on the log scale
            judge = self.judge if measure == "fluency" else self.xfit.judge(problem.name)
            rng = np.random.default_rng(
                derive_seed(self.config.seed, problem_code(problem.name), 2)
            )
            scores = np.log(
                np.array(
                    [judge.text_perplexity(shuffled(problem.unknown[i].text, rng)) for i in sample]
                )
                / self.original_perplexities(problem, measure)
            )
        elif measure == "sentences":
            scores = finite_verb_shares([problem.unknown[i].text for i in sample])
        elif measure == "topic-holds":
            classifiers = self.fandoms(problem)
            assert classifiers is not None  # measurable() said so
            holds = classifiers.score([t.text for t in problem.known])
            scores = np.array([1.0] * holds.correct + [0.0] * (holds.scorable - holds.correct))
            texts = holds.scorable
        else:  # ordered pairs (original b read as a release of original a)
            counts = [content_counts(problem.unknown[i].text) for i in sample]
            scores = np.array(
                [recall_of_counts(counts[a], counts[b]) for a, b in self.floor_pairs(problem)]
            )
        geometric = measure in RATIO_UTILITIES
        paired = measure in ("similarity", "content-recall")
        floor = PanFloor(
            problem=problem.name,
            measure=measure,
            mean=float(np.exp(np.mean(scores))) if geometric else float(np.mean(scores)),
            sd=float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0,
            texts=texts,
            pairs=len(scores) if paired else 0,
            seconds=time.perf_counter() - start,
        )
        self.cache.put("pan-floor", key, asdict(floor))
        return floor

    def floor_pairs(self, problem: PanProblem) -> list[tuple[int, int]]:
        """The ordered pairs ``(a, b)``, ``a != b``, of positions in the sample of ``problem``
        that its content-recall floor reads: all of them, or :data:`FLOOR_PAIRS` distinct
        pairs drawn once per problem from the base seed (in order)."""
        k = len(self.similarity_sample(problem))
        n = k * (k - 1)
        if n <= FLOOR_PAIRS:
            return [(a, b) for a in range(k) for b in range(k) if a != b]
        seed = derive_seed(self.config.seed, problem_code(problem.name), 1)
        picks = np.random.default_rng(seed).choice(n, size=FLOOR_PAIRS, replace=False)
        out = []
        for p in sorted(int(i) for i in picks):  # p = a * (k - 1) + (b without a)
            a, rest = divmod(p, k - 1)
            out.append((a, rest + (rest >= a)))
        return out

    def floors(self, problem: PanProblem) -> list[PanFloor]:
        """The floors of every utility of the run on ``problem`` (those that have one)."""
        out = []
        for measure in self.config.utilities:
            floor = self.floor(problem, measure)
            if floor is not None:
                out.append(floor)
        return out

    def measure(
        self,
        problem: PanProblem,
        mechanism: str,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[list[PanCell], list[PanUtilityCell]]:
        """Every cell and utility of ``mechanism`` on ``problem``, row by row, in the order of
        the result (``progress`` with 1 after each)."""
        cells: list[PanCell] = []
        utilities: list[PanUtilityCell] = []
        off_seed, _ = _seeds(self.config.seed, problem.name, mechanism, None, 0)
        base = self.released(problem, mechanism, None, off_seed)
        for epsilon, rep in self.config.rows(mechanism):
            for attacker in self.config.attackers:
                cell = self.cell(problem, mechanism, epsilon, rep, attacker, base)
                logger.info(
                    "%s %s eps=%s rep=%d %s: macro-F1 %.3f",
                    problem.name,
                    mechanism,
                    epsilon,
                    rep,
                    attacker,
                    cell.macro_f1,
                )
                cells.append(cell)
                if progress is not None:
                    progress(1)
            for measure in self.config.utilities:
                if not self.measurable(problem, measure):
                    if progress is not None:
                        progress(1)
                    continue
                utility = self.utility(problem, mechanism, epsilon, rep, base, measure)
                logger.info(
                    "%s %s eps=%s rep=%d %s: %.3f (%d texts)",
                    problem.name,
                    mechanism,
                    epsilon,
                    rep,
                    measure,
                    utility.mean,
                    utility.texts,
                )
                utilities.append(utility)
                if progress is not None:
                    progress(1)
        return cells, utilities

    def samples(self) -> list[PanExcerpt]:
        """The sample sheet's rows (:class:`PanExcerpt`): for each of the first
        :data:`SAMPLE_TEXTS` sampled unknown texts of the first problem, the original, then per
        mechanism its noise-off release and its release at every epsilon of repetition 0, as
        this run released them (kept by :meth:`released`; nothing is released again)."""
        problem = self.sample_problem
        if problem is None:
            return []
        measure_fluency = "fluency" in self.config.utilities
        out: list[PanExcerpt] = []
        for j, i in enumerate(self.sample_indices):
            original = problem.unknown[i]
            rows: list[tuple[str | None, float | None, str]] = [(None, None, original.text)]
            for m in self.config.mechanisms:
                points = [None] + [e for e, rep in self.config.rows(m) if rep == 0]
                for e in dict.fromkeys(points):
                    seed, _ = _seeds(self.config.seed, problem.name, m, e, 0)
                    texts = self._sample_texts.get((m, e, seed))
                    if texts is not None:
                        rows.append((m, e, texts[j]))
            ratios = (
                [
                    self.judge.text_perplexity(text) / self.judge.text_perplexity(original.text)
                    for _, _, text in rows
                ]
                if measure_fluency
                else [None] * len(rows)
            )
            recalls = content_recalls([original.text] * len(rows), [t for _, _, t in rows])
            for (mechanism, epsilon, text), recall, ratio in zip(
                rows, recalls, ratios, strict=True
            ):
                words = text.split()
                excerpt = " ".join(words[:EXCERPT_WORDS])
                if len(words) > EXCERPT_WORDS:
                    excerpt += " ..."
                out.append(
                    PanExcerpt(
                        problem=problem.name,
                        text=original.name,
                        mechanism=mechanism,
                        epsilon=epsilon,
                        excerpt=excerpt,
                        words=len(words),
                        content_recall=float(recall),
                        fluency=ratio,
                    )
                )
        return out


class _RecordingCache(ResultsCache):
    """A worker's cache: it writes to the run's folder (where it reaches it) and keeps every
    entry it wrote, which its task returns to the process that runs the protocol."""

    def __init__(self, folder: str | Path | None) -> None:
        super().__init__(folder)
        self.records: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    def put(self, kind: str, key: Mapping[str, Any], value: Mapping[str, Any]) -> None:
        try:
            super().put(kind, key, value)
        except OSError:  # a folder this worker cannot reach: the entry comes back anyway
            pass
        self.records.append((kind, dict(key), dict(value)))


@dataclass(frozen=True)
class _PanShared:
    """What every worker needs to measure any problem and mechanism: sent to each worker once."""

    collection: PanCollection
    embeddings: Any
    config: PanConfig
    cache_dir: str
    judge: tuple[Any, Any]  # the fluency judge in use here (fluency.judge_setting)
    key: str  # this run: a worker's runner is built once per run
    models: dict[str, Any]  # mechanism -> its trained model (mechanism_models)


def _pan_task(shared: _PanShared, item: tuple[int, str]) -> list[tuple[str, Any, Any]]:
    """A worker's task: the floors, cells and utilities of one problem and mechanism; returns
    the cache entries it wrote (the releases, cells, utilities and floors)."""
    index, mechanism = item

    def build() -> _Runner:
        runner = _Runner(
            shared.collection, shared.embeddings, shared.config, None, models=shared.models
        )
        runner.cache = _RecordingCache(shared.cache_dir)
        return runner

    runner = process_memo("pan-runner:" + shared.key, build)
    assert isinstance(runner.cache, _RecordingCache)
    problem = shared.collection.problems[index]
    config, where = shared.judge
    judged = bool(set(RATIO_UTILITIES) & set(shared.config.utilities))
    with use_judge(config, cache_dir=where) if judged else contextlib.nullcontext():
        runner.floors(problem)
        runner.measure(problem, mechanism)
    records, runner.cache.records = runner.cache.records, []
    return list(records)


def _measure_on(
    engine: Engine,
    collection: PanCollection,
    embeddings: Any,
    config: PanConfig,
    cache_dir: Path,
    progress: Callable[[int], None] | None,
    models: dict[str, Any],
) -> None:
    """Measure every problem and mechanism on ``engine``, one task each, into the cache in
    ``cache_dir`` (the workers write there where they reach it; every entry also comes back
    and is written here)."""
    cache = ResultsCache(cache_dir)
    per_task = {
        m: len(config.rows(m)) * (len(config.attackers) + len(config.utilities))
        for m in config.mechanisms
    }
    tasks = [(i, m) for m in config.mechanisms for i in range(len(collection.problems))]
    shared = _PanShared(
        collection,
        embeddings,
        config,
        str(cache_dir.absolute()),
        judge_setting(),
        uuid.uuid4().hex,
        models,
    )
    logger.info("measuring %d problem-mechanism tasks on %s", len(tasks), engine.describe())
    with open_executor(engine) as executor:
        for k, records in executor.map(_pan_task, tasks, shared=shared):
            for kind, key, value in records:
                if cache.get(kind, key) is None:
                    cache.put(kind, key, value)
            if progress is not None:
                progress(per_task[tasks[k][1]])


@dataclass(frozen=True)
class _PanInputs:
    """What PAN hands an attacker for one cell (:class:`~authormask.evaluation.measures.
    MeasureInputs`): the problem's unknown texts under test and its known texts to learn from,
    as released at the cell's epsilon (``texts``) and with the noise off (``base``)."""

    mechanism: str
    epsilon: float | None
    seed: int
    run_seed: int
    settings: AttackerSettings
    texts: tuple[list[Item], list[Item]]
    base: tuple[list[Item], list[Item]]

    def released(self) -> list[Item]:
        return self.texts[1]

    def noise_off(self) -> list[Item]:
        return self.base[1]

    def known(self, *, adaptive: bool) -> list[Item]:
        return self.texts[0] if adaptive else self.base[0]

    def training(self) -> list[Item]:
        return []


def run_pan(
    collection: PanCollection,
    *,
    config: PanConfig,
    embeddings: Any = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    engine: str | Engine | None = None,
    erae_model: Any = None,
    aedp_model: Any = None,
) -> PanResult:
    """Run the PAN protocol (module docstring) on every problem of ``collection``.

    ``embeddings`` are passed to the mechanisms that take them (one Embeddings object, so every
    epsilon shares its search index); ``erae_model`` and ``aedp_model`` (loaded models, or
    model folders) to erae and ae-dp (:func:`mechanism_models`: a mechanism that requires a
    model and has none is refused before anything runs), each part of the cache key of every
    release and cell made with it by its identity, and named in the provenance. erae and ae-dp
    have no noise-off form without their sampler: their ``none`` row is their release at
    :data:`~authormask.evaluation.releases.NOISE_OFF_EPSILON`.

    ``progress`` is called with 1 after each cell (on a cluster: with a task's count when it
    ends); ``on_total`` once, first, with the number of cells. ``engine``: where the cells are
    measured (default this process); on Dask, one task per problem and mechanism, whose results
    come back through the cache (``cache_dir``, or a temporary one) and are read back here in
    the order this process would measure them, so the result is the same on any engine.

    Parameters
    ----------
    collection
        The PAN collection.
    config
        The run's config.
    embeddings
        The embeddings passed to the mechanisms that take them, or ``None``.
    cache_dir
        The results cache's folder, or ``None``.
    progress
        Called with the number of cells finished, or ``None``.
    on_total
        Called once, first, with the number of cells, or ``None``.
    engine
        Where the cells are measured, or ``None`` for this process.
    erae_model
        ER-AE's trained model (with the embedding reward) or its folder, or ``None``.
    aedp_model
        AE-DP's trained model (without it) or its folder, or ``None``.

    Returns
    -------
    PanResult
        The result.

    Raises
    ------
    InputError
        If a mechanism needs a model it was not given, a model has the wrong kind, or a
        candidate has fewer known texts than an attacker needs (:func:`check_pan`).
    """
    erae_model, aedp_model = _loaded(erae_model), _loaded(aedp_model)
    models = mechanism_models(config, erae_model=erae_model, aedp_model=aedp_model)
    check_pan(collection, config)
    _announce(collection, config, on_total)
    start = time.perf_counter()
    measured = _measure_all(collection, config, embeddings, cache_dir, progress, engine, models)
    given = {"erae_model": erae_model, "aedp_model": aedp_model}
    provenance = _provenance(measured.runner, collection, config, embeddings, given, models)
    return PanResult(
        config=config,
        collection=collection.summary(),
        cells=measured.cells,
        utilities=measured.utilities,
        statements=measured.runner.statements,
        provenance=provenance,
        seconds=time.perf_counter() - start,
        floors=measured.floors,
        samples=tuple(measured.runner.samples()),
        chance=uniform_guess(collection, seed=config.seed),
    )


def _announce(
    collection: PanCollection, config: PanConfig, on_total: Callable[[int], None] | None
) -> None:
    """Warn of a problem not in English where a measure reads English, and announce the
    number of cells."""
    if set(RATIO_UTILITIES) & set(config.utilities):
        for p in collection.problems:
            if p.language not in (None, "en"):
                logger.warning(
                    "%s is in %r: the fluency judge, the stopwords of content recall and MiniLM "
                    "read English",
                    p.name,
                    p.language,
                )
    per_row = len(config.attackers) + len(config.utilities)
    rows = sum(len(config.rows(m)) for m in config.mechanisms)
    total = len(collection.problems) * rows * per_row
    if on_total is not None:
        on_total(total)


@dataclass(frozen=True)
class _Measured:
    """What a run measured: every cell, utility and floor, in the order this process measures
    them, and the runner that measured them (its statements, samples and judges)."""

    runner: _Runner
    cells: tuple[PanCell, ...]
    utilities: tuple[PanUtilityCell, ...]
    floors: tuple[PanFloor, ...]


def _measure_all(
    collection: PanCollection,
    config: PanConfig,
    embeddings: Any,
    cache_dir: str | Path | None,
    progress: Callable[[int], None] | None,
    engine: str | Engine | None,
    models: dict[str, Any],
) -> _Measured:
    """Measure every problem and mechanism: on another engine first into the cache (a
    temporary one without ``cache_dir``), then here, in order, where each cell is read back."""
    with contextlib.ExitStack() as stack:
        if check_engine(engine).kind != "local":
            if cache_dir is None:  # the workers' results come back through a cache
                cache_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="pan-"))
            _measure_on(
                check_engine(engine),
                collection,
                embeddings,
                config,
                Path(cache_dir),
                progress,
                models,
            )
            progress = None  # every cell is now in the cache: read back below, counted above
        runner = _Runner(
            collection,
            embeddings,
            config,
            Path(cache_dir) if cache_dir else None,
            models=models,
        )
        cells: list[PanCell] = []
        utilities: list[PanUtilityCell] = []
        floors: list[PanFloor] = []
        for problem in collection.problems:
            floors.extend(runner.floors(problem))
            for mechanism in config.mechanisms:
                more_cells, more_utilities = runner.measure(problem, mechanism, progress)
                cells.extend(more_cells)
                utilities.extend(more_utilities)
    return _Measured(runner, tuple(cells), tuple(utilities), tuple(floors))


def _provenance(
    runner: _Runner,
    collection: PanCollection,
    config: PanConfig,
    embeddings: Any,
    given: dict[str, Any],
    models: dict[str, Any],
) -> dict[str, Any]:
    """The provenance: the versions, the embeddings and models, the attackers, and what
    each measure reads (``given``: the models passed as ``erae_model`` and ``aedp_model``)."""
    judge = runner.judge.identity.to_dict() if "fluency" in config.utilities else None
    xfit = (
        {
            p.name: runner.xfit.judge(p.name).identity.to_dict()
            for p in collection.problems
            if runner.measurable(p, "fluency-xfit")
        }
        if "fluency-xfit" in config.utilities
        else None
    )
    return {
        "versions": package_versions(),
        "embeddings": None if embeddings is None else embeddings.identity.to_dict(),
        # the trained models given (as bo2021 names them), and the one each mechanism was
        # released with (every cache key of its releases and cells holds its identity)
        "erae_model": None if given["erae_model"] is None else identity_of(given["erae_model"]),
        "aedp_model": None if given["aedp_model"] is None else identity_of(given["aedp_model"]),
        "models": {
            m: identity_of(model) if isinstance(model, HasIdentity) else repr(model)
            for m, model in models.items()
        },
        "attackers": {m.base_name: m.description for m in runner.attackers.values()},
        "measure": "PAN macro-F1: F1 per true author of the problem's ground truth, averaged; "
        "<UNK> answers, rejections and non-candidates count as <UNK>, which is left out of the "
        "average (macro_f1_with_unk keeps it as a class when the truth has it)",
        "baseline_row": "epsilon none = the mechanism with its noise switched off: its own "
        "preparation and rendering with its samplers switched off (authormask.core.registry."
        "create_noise_off), every word released as itself (the text of its release at epsilon "
        "1e12)" + _limit_rows(config),
        **_closeness_described(runner, config),
        **_utilities_described(config, judge, xfit),
    }


def _closeness_described(runner: _Runner, config: PanConfig) -> dict[str, Any]:
    """The provenance of the measures of closeness: similarity (its encoder and floor),
    content recall and retrieval."""
    return {
        "similarity": "mean cosine of all-MiniLM-L6-v2 document vectors (mean of <=100-word "
        "chunks), released unknown text vs the original unknown text as read from the "
        "collection; over a fixed sample of similarity_texts unknown texts per problem (the "
        "same texts in every row and for every utility), drawn with "
        "SeedSequence(entropy=config.seed, spawn_key=(sha256(problem)[:4],)); interval: mean "
        "+- 1.96 standard errors",
        "similarity_encoder": (
            runner.similarity.identity
            if {"similarity", "retrieval"} & set(config.utilities)
            else None
        ),
        "similarity_floor": "per problem, the mean all-MiniLM-L6-v2 cosine of two different "
        "sampled original unknown texts, over every pair: what unrelated texts of the problem "
        "already score",
        "content_recall": "per sampled text, the share of the original's content words "
        "(authormask.text.tokenize word tokens, lower-cased, not in the stopword list: "
        f"{recall_identity()['stopwords']}) that the release keeps, as a multiset: sum over "
        "words of min(count in original, count in release) / content words of the original; "
        "mean over the sampled texts. Floor: the same between two different sampled originals "
        f"(every ordered pair, or {FLOOR_PAIRS} distinct ones drawn with "
        "SeedSequence(entropy=config.seed, spawn_key=(sha256(problem)[:4], 1)))",
        "retrieval": "the share of sampled releases whose all-MiniLM-L6-v2-nearest original "
        "(largest cosine) among every original unknown text of the problem is their own (a "
        "tie counts for it); a uniform guess scores 1 / the problem's unknown texts",
    }


def _utilities_described(
    config: PanConfig, judge: dict[str, Any] | None, xfit: dict[str, Any] | None
) -> dict[str, Any]:
    """The provenance of fluency (``judge``: the judge's identity; ``xfit``: each problem's
    cross-fitted judge's), the entities, the stepped utilities, sentences, topic and seeds."""
    return {
        "fluency": f"{FLUENCY_DESCRIPTION}; reported as the geometric mean of the ratios, its "
        "interval exp(mean log +- 1.96 standard errors); 1 = as fluent as the original",
        "fluency_judge": judge,
        "entities": f"every release with entities={config.entities!r} (names, places, "
        "organisations, numbers, dates, links before the mechanism runs; 'surrogate' is the "
        "user's default)",
        "stepped": "a '-stepped' utility reads each release against its entity-stepped "
        "original: the original as the mechanism was given it, with the surrogates the release "
        "drew (authormask.evaluation.stepped.entity_stepped_texts: the release's document "
        "generators rebuilt from its seed); retrieval-stepped searches every original of the "
        "problem with the sampled ones stepped as this row's release stepped them and the "
        "others as read (their surrogates would need a recogniser pass and MiniLM over every "
        "original at every row)",
        "fluency_xfit": f"{FLUENCY_DESCRIPTION}, under the problem's cross-fitted judge: the "
        "same network and training, on "
        f"{cross_fit_config().tokens_per_corpus} tokens of the collection's other problems' "
        "texts (whole texts in a seeded order), never the problem it scores nor a mechanism's "
        "training text; floor: the shuffled original (its words in a random order)",
        "fluency_xfit_judges": xfit,
        "sentences": SENTENCES_DESCRIPTION + "; floor: the sampled originals' own share",
        "topic_holds": f"{CLASSIFIER}; per candidate, applied to its released known texts; "
        "accuracy over the known texts whose fandom another candidate writes in (the "
        "scorable ones), pooled over candidates; floor: the originals' accuracy under the "
        "same classifiers; problems without fandom-info.json are not measured",
        "seeds": "SeedSequence(entropy=config.seed, spawn_key=(sha256(problem)[:4], mechanism "
        "code, repetition, epsilon_key(epsilon), role)), epsilon_key = (1, the epsilon's "
        "IEEE-754 double as two 32-bit words); role 0 = texts, 1 = attacker",
    }


def _limit_rows(config: PanConfig) -> str:
    """What the provenance adds about the ``none`` row of :func:`limit_mechanisms`."""
    limit = limit_mechanisms(config)
    if not limit:
        return ""
    return (
        f"; {', '.join(limit)} (no sampler to switch off): "
        f"{'its' if len(limit) == 1 else 'their'} release at epsilon "
        f"{NOISE_OFF_EPSILON:.0e}".replace("e+", "e")
        + " (NOISE_OFF_EPSILON), the limit"
    )


#: draws of the uniform guess whose macro-F1 is the chance line (:func:`uniform_guess`)
GUESS_DRAWS = 1000


def uniform_guess(
    collection: PanCollection, *, seed: int, draws: int = GUESS_DRAWS
) -> dict[str, Any]:
    """What a uniform guess scores: every unknown text of a problem answered with one of its
    candidates drawn uniformly (never <UNK>), scored by PAN's macro-F1, ``draws`` times with
    ``SeedSequence(entropy=seed, spawn_key=(sha256(problem)[:4],))``; the mean over problems of
    each draw gives the chance line's ``mean`` and its 95th percentile ``p95`` (a score below it
    is what guessing gives one run in twenty)."""
    per_problem: dict[str, list[float]] = {}
    for p in collection.problems:
        rng = np.random.default_rng(
            np.random.SeedSequence(entropy=seed, spawn_key=(problem_code(p.name), 7919))
        )
        names = [t.name for t in p.unknown]
        picks = rng.integers(0, len(p.candidates), size=(draws, len(names)))
        per_problem[p.name] = [
            pan_macro_f1(
                p.truth,
                {n: p.candidates[int(i)] for n, i in zip(names, row, strict=True)},
                p.candidates,
            ).macro_f1
            for row in picks
        ]
    means = np.mean(np.array(list(per_problem.values())), axis=0)
    return {
        "mean": float(np.mean(means)),
        "p95": float(np.quantile(means, 0.95)),
        "per_problem": {k: float(np.mean(v)) for k, v in per_problem.items()},
        "draws": draws,
        "how": "every unknown text answered with a candidate drawn uniformly (never <UNK>), "
        "PAN macro-F1 per problem, averaged over problems; mean and 95th percentile over draws",
    }
