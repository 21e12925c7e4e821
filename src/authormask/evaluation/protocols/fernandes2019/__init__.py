"""The privacy/utility sweep of Fernandes et al. (2019), Table 1, on any corpus.

For every mechanism, every epsilon (``None`` = unmodified snippets) and every repetition, the
study's query snippets are released through :func:`authormask.core.release` with their own
seed; attackers trained on the known texts (or, for ``adaptive-*`` attackers, on known texts
released with the same mechanism and epsilon) then try to name each snippet's author, and utility
measures check what the released snippets still say.

Which mechanisms: every registered mechanism that perturbs the study's content words through word
vectors, as a bag of N words (``emp-bag``: Algorithm 2) or in place (``emp-text``, and the peers
``mahalanobis``, ``tem``, ``santext``, ``emp-doc``): those whose registry spec takes
``epsilon``, ``embeddings`` and ``stopwords`` (:func:`sweep_mechanisms`). Their parameters are
read from the spec, never from the name: the study's stopwords, unknown-word policy and N go to
the mechanisms whose spec takes them, and a mechanism whose ``oov`` choices exclude the study's
policy (an in-place mechanism cannot drop unknown words: the gaps would show) maps them instead.

What an attacker sees: the mechanism's outputs, and texts in the same form to learn from. The
unmodified row (``epsilon=None``) is the mechanism with its noise switched off (its own
deterministic preparation and rendering, every word released as itself:
:mod:`authormask.evaluation.releases`), so at a very large epsilon every measure
converges to it, and a measure compares noise with no noise, never preparation with none.
Attackers are trained on the known texts in that noise-off form (``adaptive-*`` attackers: as
released at the cell's epsilon), so they are always trained on texts in the form of the texts
they are tested on: for a bag mechanism (its spec releases a bag: :func:`releases_bag`)
sorted bags of N words, for an in-place mechanism prepared text (unknown words mapped,
contractions split). 1-NN and 5-NN read the released words; fastText
the released words; similarity compares each released snippet with its noise-off release.

Seeds never depend on the order in which mechanisms are listed: each cell's seed derives from
the base seed, the mechanism's fixed code (the seed code its registry spec declares,
:attr:`authormask.core.MechanismSpec.seed_code`), the repetition, epsilon and the role.

A PAN collection (:func:`run_collection_sweep`) is one author study per problem
(:func:`~authormask.evaluation.study.build_pan_study`: the problem's known texts are the known
material, each unknown text by a candidate a query), swept on its own with a seed of its own;
the problems are then pooled by summing each measure's counts (correct and total) over problems,
never by merging their candidate sets into one task.

Obfuscated snippets and measurement results are cached (one JSON file each, written atomically,
keyed by everything they depend on), so an interrupted sweep resumes where it stopped.

The sweep runs in this process or on a Dask cluster (``engine``,
:class:`authormask.core.executors.Engine`). Its unit of work is a *group*: one (mechanism,
epsilon, repetition) with all its measures, which read the same release of the snippets (the
unmodified row is one group per mechanism). Groups are independent: a cell depends only on its
seeds, never on the process or the order in which groups run, so the cells are the same
whichever engine measured them, and the cache written under one engine resumes under the other.

The protocol in modules: :mod:`.config` (what to sweep, its defaults and ``--quick``'s),
:mod:`.results` (cells and results: plain data, which :mod:`authormask.evaluation.reports`
reads), :mod:`.runner` (one group of cells: seeds, releases, measures), :mod:`.sweep`
(:func:`run_sweep` and :func:`run_collection_sweep`) and :mod:`.protocol` (:data:`PROTOCOL`, the
protocol as every protocol is run: its inputs, its reading of the options, its run).
"""

from authormask.evaluation.protocols._common import mechanism_code
from authormask.evaluation.protocols.fernandes2019.config import (
    ATTACKERS,
    DEFAULT_SWEEP_MECHANISMS,
    SWEEP_MECHANISMS,
    UTILITIES,
    SweepConfig,
    applicable_measures,
    check_applicable,
    releases_bag,
    sweep_cells,
    sweep_mechanisms,
)
from authormask.evaluation.protocols.fernandes2019.protocol import (
    PROTOCOL,
    Fernandes2019,
    SweepInputs,
)
from authormask.evaluation.protocols.fernandes2019.results import (
    Cell,
    CollectionSweep,
    SweepResult,
    pool_sweeps,
)
from authormask.evaluation.protocols.fernandes2019.runner import cell_seeds
from authormask.evaluation.protocols.fernandes2019.sweep import (
    problem_seed,
    run_collection_sweep,
    run_sweep,
)

__all__ = [
    "ATTACKERS",
    "DEFAULT_SWEEP_MECHANISMS",
    "PROTOCOL",
    "SWEEP_MECHANISMS",
    "UTILITIES",
    "Cell",
    "CollectionSweep",
    "Fernandes2019",
    "SweepConfig",
    "SweepInputs",
    "SweepResult",
    "applicable_measures",
    "cell_seeds",
    "check_applicable",
    "mechanism_code",
    "pool_sweeps",
    "problem_seed",
    "releases_bag",
    "run_collection_sweep",
    "run_sweep",
    "sweep_cells",
    "sweep_mechanisms",
]
