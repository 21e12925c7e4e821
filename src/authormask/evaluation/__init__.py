"""Evaluation: known texts and snippets (:mod:`~authormask.evaluation.study`); protocols, each a
data split, which releases and which measures, all of one shape (config, ``run``, result) and
exported here the same way (:mod:`~authormask.evaluation.protocols`: the epsilon sweep of
Fernandes et al. 2019, section 6, Table 1; the text-release comparison of Bo et al. 2021; PAN's
cross-domain attribution); attackers and utility measures registered by name
(:mod:`~authormask.evaluation.measures`); the reports and the one results cache
(:mod:`~authormask.evaluation.reports`); the privacy-utility frontier of a sweep and the
epsilon it recommends for a target attacker accuracy (:mod:`~authormask.evaluation.frontier`).
Every mechanism runs through the release layer (:func:`authormask.release.create_mechanism` and
:func:`authormask.release.release`) under its registry name."""

from authormask.evaluation.frontier import FrontierPoint, Recommendation, frontier, recommend
from authormask.evaluation.protocols import (
    PROTOCOLS,
    CollectionSweep,
    PanConfig,
    PanResult,
    ReleaseConfig,
    ReleaseResult,
    SweepConfig,
    SweepResult,
    run_collection_sweep,
    run_pan,
    run_release_evaluation,
    run_sweep,
)
from authormask.evaluation.protocols.fernandes2019 import (
    ATTACKERS,
    DEFAULT_SWEEP_MECHANISMS,
    SWEEP_MECHANISMS,
    UTILITIES,
    Cell,
    applicable_measures,
    check_applicable,
    mechanism_code,
    releases_bag,
    sweep_mechanisms,
)
from authormask.evaluation.reports.fernandes2019 import (
    REPORT_FILES,
    to_csv,
    to_markdown,
    write_reports,
)
from authormask.evaluation.study import (
    TASKS,
    Item,
    Study,
    build_author_study,
    build_study,
    build_topic_study,
)

__all__ = [
    "ATTACKERS",
    "DEFAULT_SWEEP_MECHANISMS",
    "PROTOCOLS",
    "REPORT_FILES",
    "SWEEP_MECHANISMS",
    "TASKS",
    "UTILITIES",
    "Cell",
    "CollectionSweep",
    "FrontierPoint",
    "Item",
    "PanConfig",
    "PanResult",
    "Recommendation",
    "ReleaseConfig",
    "ReleaseResult",
    "Study",
    "SweepConfig",
    "SweepResult",
    "applicable_measures",
    "build_author_study",
    "build_study",
    "build_topic_study",
    "check_applicable",
    "frontier",
    "mechanism_code",
    "recommend",
    "releases_bag",
    "run_collection_sweep",
    "run_pan",
    "run_release_evaluation",
    "run_sweep",
    "sweep_mechanisms",
    "to_csv",
    "to_markdown",
    "write_reports",
]
