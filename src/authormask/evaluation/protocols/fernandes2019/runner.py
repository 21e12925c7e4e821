"""How a fernandes2019 sweep measures one group of cells (one mechanism, epsilon and
repetition with all its measures): the seeds of each cell, the releases of the study's snippets
and known texts (noise off, or at the cell's epsilon; memoised and cached), and what each
measure is handed. Every group depends only on its seeds, never on the process or the order in
which groups run (:mod:`.sweep` runs them, here or on Dask)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from authormask._version import __version__
from authormask.core import Mechanism, create_mechanism, mechanism_spec, release
from authormask.core.resources import Resources, resource_parameters
from authormask.embeddings._base import Embeddings
from authormask.evaluation.cache import ResultsCache, cache_key
from authormask.evaluation.measures import AttackerSettings, measure
from authormask.evaluation.measures.attackers.typed import EmbeddingMemo
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.protocols._common import point_seeds
from authormask.evaluation.protocols.fernandes2019.config import STUDY_ENTITIES, SweepConfig
from authormask.evaluation.protocols.fernandes2019.results import Cell
from authormask.evaluation.releases import (
    NOISE_OFF_EPSILON,
    build_mechanism,
    mechanism_identity,
    mechanism_parameters,
    public_parameters,
    with_defaults,
)
from authormask.evaluation.study import Item, Study
from authormask.exceptions import InvalidParameterError
from authormask.text.prepare import TextPreparer
from authormask.text.stopwords import default_stopwords

__all__ = ["CACHE_FORMAT", "cell_seeds"]

#: 6: keys hold the mechanism's identity (:func:`~authormask.evaluation.releases.
#: mechanism_identity`: its packaged data too)
CACHE_FORMAT = 6


#: one unit of work: (mechanism, epsilon, repetition)
_GroupKey = tuple[str, float | None, int]


def _groups(config: SweepConfig) -> list[_GroupKey]:
    """The sweep's groups in the order of its report (the order of the local run)."""
    return [
        (mechanism, epsilon, rep)
        for mechanism in config.mechanisms
        for epsilon, rep in config.rows(mechanism)
    ]


@dataclass(frozen=True)
class _Group:
    """The cells of one group, in the order of ``config.measures``, and the public statement of
    its release (``None`` for the unmodified row)."""

    cells: tuple[Cell, ...]
    statement: dict[str, Any] | None


def cell_seeds(
    base: int, mechanism: str, epsilon: float | None, repetition: int
) -> tuple[int, int, int]:
    """The seeds of one (mechanism, epsilon, repetition) cell: snippets, known texts (adaptive
    attackers) and the attacker. They derive from the mechanism's fixed code
    (:func:`~authormask.evaluation.protocols._common.mechanism_code`), never from its position
    in the configuration, so listing the mechanisms in another order gives the same
    numbers.

    Parameters
    ----------
    base
        The sweep's base seed.
    mechanism
        The registered name of the mechanism.
    epsilon
        The epsilon (a baseline's rate), ``None`` for the unmodified row.
    repetition
        The repetition.

    Returns
    -------
    tuple[int, int, int]
        The seeds of the snippets, the known texts and the attacker.
    """
    q, k, a = point_seeds(base, mechanism, epsilon, repetition, roles=3)
    return q, k, a


def _oov_policy(policy: str, choices: tuple[str, ...] | None, mechanism: str) -> str:
    """The study's unknown-word ``policy`` if the mechanism's ``oov`` ``choices`` allow it,
    else ``"map"`` (every word-level mechanism can map: it perturbs a fixed word instead)."""
    if choices is None or policy in choices:
        return policy
    if "map" in choices:
        return "map"
    raise InvalidParameterError(  # pragma: no cover - no registered mechanism is like that
        f"{mechanism} takes oov {', '.join(choices)}: neither the study's {policy!r} nor map"
    )


class _Runner:
    def __init__(
        self,
        study: Study,
        embeddings: Embeddings,
        preparer: TextPreparer,
        config: SweepConfig,
        cache_dir: Path | None,
    ) -> None:
        self.study = study
        self.embeddings = embeddings
        self.preparer = preparer
        self.config = config
        self.cache = ResultsCache(cache_dir)
        # the measures of this run: each keeps what it computes once per run
        self.measures = {name: measure(name) for name in config.measures}
        self._similarity: SentenceSimilarity | None = None
        self._settings: AttackerSettings | None = None
        self._memo: dict[str, Any] = {}
        self._mechanisms: dict[tuple[str, float | None], Mechanism] = {}
        self._noise_off: dict[str, float | None] = {}
        self.statements: dict[str, Any] = {}
        self.base_key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "embeddings": embeddings.identity.to_dict(),
            "study": {
                "queries": [[i.item_id, i.text, list(i.words)] for i in study.queries],
                "known": [[i.item_id, i.text, list(i.words)] for i in study.known],
            },
            "preparer": {
                "oov": preparer.oov,
                "oov_map_to": preparer.oov_map_to,
                "stopwords": sorted(preparer.stopwords),
            },
        }
        self.base_hash = cache_key(self.base_key)

    def parameters(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        """The registry parameters of ``mechanism`` in this sweep (all but the embeddings, which
        are this sweep's Embeddings object as is, so every epsilon shares one search index);
        ``epsilon=None``: the noise switched off (:meth:`noise_off_epsilon`; no epsilon at all
        for a mechanism whose samplers are switched off).

        The study's preparation goes to the parameters the mechanism's registry spec takes and
        reads (:meth:`~authormask.core.specs.MechanismSpec.applicable`): its stopwords, its
        unknown-word policy and word (``oov``; ``oov_map_to`` under ``oov`` "map" only), its N
        (``length``). A mechanism whose ``oov`` choices exclude the study's policy (an in-place
        mechanism cannot drop unknown words: the gaps would show) maps them instead. Parameters
        of the mechanism's own (``regularization``, ``gamma``) keep their registry defaults."""
        registered = mechanism_spec(mechanism)
        spec = {p.name: p for p in registered.parameters}
        p = self.preparer
        study: dict[str, Any] = {
            "vocab_size": None,  # the sweep's Embeddings object as is
            "stopwords": "english" if p.stopwords == default_stopwords() else set(p.stopwords),
            # the study's fixed word for unknown words (its placeholder), as every evaluation
            # (evaluation.releases.mechanism_parameters)
            "oov_map_to": p.placeholder,
        }
        if "oov" in spec:
            study["oov"] = _oov_policy(p.oov, spec["oov"].choices, mechanism)
        if epsilon is None and not (registered.sweeps_rate or registered.has_noise_off):
            epsilon = self.noise_off_epsilon(mechanism)  # the limit epsilon
        return mechanism_parameters(
            mechanism,
            epsilon,
            length=self.study.length,
            # a study's snippets hold exactly N content words, which surrogates outside the
            # vocabulary would change: entities kept, and its tables say so (STUDY_ENTITIES)
            entities=STUDY_ENTITIES,
            extra=registered.applicable({k: v for k, v in study.items() if k in spec}),
        )

    def noise_off_epsilon(self, name: str) -> float | None:
        """The epsilon of ``name``'s noise-off release, as its registry spec declares its
        noise-off form: ``None`` when its samplers are switched off
        (:attr:`~authormask.core.specs.MechanismSpec.has_noise_off`: every word-level
        mechanism, no noise drawn), 0 (its rate) for a rate-swept baseline, else
        :data:`~authormask.evaluation.releases.NOISE_OFF_EPSILON`."""
        if (name, None) in self._mechanisms:
            return self._noise_off[name]
        spec = mechanism_spec(name)
        chosen: float | None = None
        if spec.sweeps_rate:  # a baseline: rate 0 is its noise-off form
            chosen = 0.0
            mech = create_mechanism(name, **self.built(name, self.parameters(name, 0.0)))
        elif spec.has_noise_off:
            mech = build_mechanism(name, self.built(name, self.parameters(name, None)))
        else:  # no sampler to switch off: the limit epsilon
            chosen = NOISE_OFF_EPSILON
            mech = create_mechanism(name, **self.built(name, self.parameters(name, chosen)))
        self._mechanisms[(name, None)] = mech
        self._noise_off[name] = chosen
        return chosen

    def mechanism(self, name: str, epsilon: float | None) -> Mechanism:
        if epsilon is None:
            self.noise_off_epsilon(name)  # builds it
        mech = self._mechanisms.get((name, epsilon))
        if mech is None:
            mech = build_mechanism(name, self.built(name, self.parameters(name, epsilon)))
            self._mechanisms[(name, epsilon)] = mech
        return mech

    def identity(self, mechanism: str, given: dict[str, Any]) -> str:
        """The identity (:func:`~authormask.evaluation.releases.mechanism_identity`) of
        ``mechanism`` built as :meth:`mechanism` builds it: with this sweep's embeddings."""
        return mechanism_identity(mechanism, self.built(mechanism, given))

    def built(self, mechanism: str, given: dict[str, Any]) -> dict[str, Any]:
        """``given`` with the resources ``mechanism``'s spec declares it needs, of this sweep's
        (:func:`~authormask.core.resources.resource_parameters`: its embeddings, as they are)."""
        resources = Resources(embeddings=self.embeddings)
        return {**resource_parameters(mechanism_spec(mechanism), resources, given=given), **given}

    def _release_key(
        self, role: str, mechanism: str, epsilon: float | None, seed: int
    ) -> dict[str, Any]:
        given = self.parameters(mechanism, epsilon)
        return {
            "base": self.base_hash,
            "role": role,
            "mechanism": mechanism,
            "parameters": public_parameters(with_defaults(mechanism, given)),
            "identity": self.identity(mechanism, given),
            "seed": seed,
        }

    def noise_off(self, role: str, mechanism: str) -> list[Item]:
        """The study's queries or known texts released by ``mechanism`` with the noise off."""
        items = self.study.queries if role == "queries" else self.study.known
        seed = cell_seeds(self.config.seed, mechanism, None, 0)[0 if role == "queries" else 1]
        return self.obfuscated(items, role, mechanism, None, seed)

    def obfuscated(
        self, items: Sequence[Item], role: str, mechanism: str, epsilon: float | None, seed: int
    ) -> list[Item]:
        """``items`` released by ``mechanism`` at ``epsilon`` (``None``: noise off), cached."""
        key = self._release_key(role, mechanism, epsilon, seed)
        digest = cache_key(key)
        cached = self._memo.get(digest)
        if cached is None:
            cached = self.cache.get("obf", key)
        if cached is None:
            rel = release(
                [i.text for i in items],
                self.mechanism(mechanism, epsilon),
                random_state=seed,
                sources=[i.item_id for i in items],
            )
            cached = {
                "texts": [d.text for d in rel.documents],
                "words": [list(d.words) for d in rel.documents],
                # the public statement: the same for every document of the release
                "statement": rel.statement.to_dict(),
            }
            self.cache.put("obf", key, cached)
        self._memo[digest] = cached  # every measure of a cell reads the same release
        # one statement per (mechanism, epsilon): it depends on the public parameters only
        if epsilon is not None:
            self.statements.setdefault(f"{mechanism}/{epsilon:g}", cached["statement"])
        return [
            Item(i.item_id, t, tuple(w), i.author, i.topic)
            for i, t, w in zip(items, cached["texts"], cached["words"], strict=True)
        ]

    @property
    def settings(self) -> AttackerSettings:
        """What the measures share: the embeddings, the settings, one MiniLM encoder (loaded
        on first use; ``minilm-lr`` reads it through a memo that embeds each distinct text
        once)."""
        if self._settings is None:
            similarity = self.similarity()
            self._settings = AttackerSettings(
                embeddings=self.embeddings,
                koppel_iterations=self.config.koppel_iterations,
                n_jobs=self.config.n_jobs,
                # float32: in bfloat16 a text's vector moves with the texts batched beside it,
                # and which texts a memo still has to embed depends on the order cells run in
                encoder=EmbeddingMemo(SentenceSimilarity(precision="float32")),
                similarity=similarity,
            )
        return self._settings

    def similarity(self) -> SentenceSimilarity:
        if self._similarity is None:
            self._similarity = SentenceSimilarity()
        return self._similarity

    def cell_key(
        self, name: str, mechanism: str, epsilon: float | None, rep: int
    ) -> dict[str, Any]:
        """What the cell of measure ``name`` depends on (its key in the cache)."""
        cfg = self.config
        given = self.parameters(mechanism, epsilon)
        return {
            "base": self.base_hash,
            "measure": name,
            "mechanism": mechanism,
            "epsilon": epsilon,
            "rep": rep,
            "seeds": list(cell_seeds(cfg.seed, mechanism, epsilon, rep)),
            "config": {"koppel_iterations": cfg.koppel_iterations, "N": self.study.length},
            "parameters": public_parameters(with_defaults(mechanism, given)),
            "identity": self.identity(mechanism, given),
            "encoder": self.similarity().identity,
        }

    def is_cached(self, group: _GroupKey) -> bool:
        """Whether every cell of ``group`` is in the cache."""
        return all(
            self.cache.get("cell", self.cell_key(name, *group)) is not None
            for name in self.config.measures
        )

    def group(self, group: _GroupKey, on_cell: Callable[[Cell], None] | None = None) -> _Group:
        """Every measure of ``group`` (``on_cell`` is called after each); the group's releases
        are then forgotten (no other group reads them)."""
        mechanism, epsilon, rep = group
        cells: list[Cell] = []
        try:
            for name in self.config.measures:
                cell = self.measure(name, mechanism, epsilon, rep)
                cells.append(cell)
                if on_cell is not None:
                    on_cell(cell)
        finally:
            if epsilon is not None:
                q_seed, k_seed, _ = cell_seeds(self.config.seed, mechanism, epsilon, rep)
                for role, seed in (("queries", q_seed), ("known", k_seed)):
                    self._memo.pop(
                        cache_key(self._release_key(role, mechanism, epsilon, seed)), None
                    )
        statement = None if epsilon is None else self.statements.get(f"{mechanism}/{epsilon:g}")
        return _Group(tuple(cells), statement)

    def measure(self, name: str, mechanism: str, epsilon: float | None, rep: int) -> Cell:
        """The cell of measure ``name`` (from the cache, or measured on the group's releases)."""
        q_seed = cell_seeds(self.config.seed, mechanism, epsilon, rep)[0]
        key = self.cell_key(name, mechanism, epsilon, rep)
        cached = self.cache.get("cell", key)
        if cached is not None:
            if epsilon is not None:  # make sure the statement is recorded
                self.obfuscated(self.study.queries, "queries", mechanism, epsilon, q_seed)
            return Cell(**cached)
        start = time.perf_counter()
        m = self.measures[name]
        score = m.score(_Inputs(self, mechanism, epsilon, rep))
        cell = Cell(
            mechanism=mechanism,
            epsilon=epsilon,
            repetition=rep,
            measure=name,
            kind=m.kind,
            correct=score.correct,
            total=score.total,
            value=score.value,
            abstained=score.abstained,
            seed=None if epsilon is None else q_seed,
            seconds=time.perf_counter() - start,
        )
        self.cache.put("cell", key, asdict(cell))
        return cell


class _Inputs:
    """What the sweep hands a measure for one cell (:class:`~authormask.evaluation.measures.
    MeasureInputs`): the study's snippets and known texts released by the cell's mechanism, on
    demand, through the runner's memo and cache."""

    def __init__(self, runner: _Runner, mechanism: str, epsilon: float | None, rep: int) -> None:
        self._runner = runner
        self.mechanism = mechanism
        self.epsilon = epsilon
        self._q_seed, self._k_seed, self.seed = cell_seeds(
            runner.config.seed, mechanism, epsilon, rep
        )
        self.run_seed = runner.config.seed
        self.settings = runner.settings

    def released(self) -> list[Item]:
        if self.epsilon is None:
            return self.noise_off()
        study = self._runner.study
        return self._runner.obfuscated(
            study.queries, "queries", self.mechanism, self.epsilon, self._q_seed
        )

    def noise_off(self) -> list[Item]:
        return self._runner.noise_off("queries", self.mechanism)

    def known(self, *, adaptive: bool) -> list[Item]:
        if adaptive and self.epsilon is not None:
            study = self._runner.study
            return self._runner.obfuscated(
                study.known, "known", self.mechanism, self.epsilon, self._k_seed
            )
        return self._runner.noise_off("known", self.mechanism)

    def training(self) -> Sequence[Item]:
        return self._runner.study.train
