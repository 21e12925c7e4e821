"""Evaluation: known texts and snippets (:mod:`~authormask.evaluation.study`); protocols, each a
data split, which releases and which measures, all of one shape (config, ``run``, result) and
exported here the same way (:mod:`~authormask.evaluation.protocols`: the epsilon sweep of
Fernandes et al. 2019, section 6, Table 1; the text-release comparison of Bo et al. 2021; PAN's
cross-domain attribution), each implementing one interface (:class:`EvaluationProtocol`: a
config, ``plan(options)``, ``run(config, inputs)``, a result of plain data); attackers and
utility measures registered by name (:mod:`~authormask.evaluation.measures`); the one results
cache every protocol resumes from (:mod:`~authormask.evaluation.cache`); the privacy-utility
frontier of a sweep and the epsilon it recommends for a target attacker accuracy
(:mod:`~authormask.evaluation.tradeoff`); the reports, which read any protocol's result
(:func:`write_reports`, :func:`markdown`: :mod:`~authormask.evaluation.reports`).
Every mechanism runs through the release layer (:func:`authormask.core.create_mechanism` and
:func:`authormask.core.release`) under its registry name."""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from authormask.evaluation.protocols import (
        PROTOCOLS,
        CollectionSweep,
        EvaluationProtocol,
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
    from authormask.evaluation.reports import markdown, write_reports
    from authormask.evaluation.reports.fernandes2019 import REPORT_FILES, to_csv, to_markdown
    from authormask.evaluation.study import (
        TASKS,
        Item,
        Study,
        build_author_study,
        build_study,
        build_topic_study,
    )
    from authormask.evaluation.tradeoff import FrontierPoint, Recommendation, frontier, recommend

# Imported on first use (PEP 562): importing one evaluation module (the calibration the page
# uses) does not load every protocol, attacker and report with it.
_LAZY = {
    "FrontierPoint": "authormask.evaluation.tradeoff",
    "Recommendation": "authormask.evaluation.tradeoff",
    "frontier": "authormask.evaluation.tradeoff",
    "recommend": "authormask.evaluation.tradeoff",
    "CollectionSweep": "authormask.evaluation.protocols",
    "EvaluationProtocol": "authormask.evaluation.protocols",
    "PROTOCOLS": "authormask.evaluation.protocols",
    "PanConfig": "authormask.evaluation.protocols",
    "PanResult": "authormask.evaluation.protocols",
    "ReleaseConfig": "authormask.evaluation.protocols",
    "ReleaseResult": "authormask.evaluation.protocols",
    "SweepConfig": "authormask.evaluation.protocols",
    "SweepResult": "authormask.evaluation.protocols",
    "run_collection_sweep": "authormask.evaluation.protocols",
    "run_pan": "authormask.evaluation.protocols",
    "run_release_evaluation": "authormask.evaluation.protocols",
    "run_sweep": "authormask.evaluation.protocols",
    "ATTACKERS": "authormask.evaluation.protocols.fernandes2019",
    "Cell": "authormask.evaluation.protocols.fernandes2019",
    "DEFAULT_SWEEP_MECHANISMS": "authormask.evaluation.protocols.fernandes2019",
    "SWEEP_MECHANISMS": "authormask.evaluation.protocols.fernandes2019",
    "UTILITIES": "authormask.evaluation.protocols.fernandes2019",
    "applicable_measures": "authormask.evaluation.protocols.fernandes2019",
    "check_applicable": "authormask.evaluation.protocols.fernandes2019",
    "mechanism_code": "authormask.evaluation.protocols.fernandes2019",
    "releases_bag": "authormask.evaluation.protocols.fernandes2019",
    "sweep_mechanisms": "authormask.evaluation.protocols.fernandes2019",
    "REPORT_FILES": "authormask.evaluation.reports.fernandes2019",
    "to_csv": "authormask.evaluation.reports.fernandes2019",
    "to_markdown": "authormask.evaluation.reports.fernandes2019",
    "markdown": "authormask.evaluation.reports",
    "write_reports": "authormask.evaluation.reports",
    "Item": "authormask.evaluation.study",
    "Study": "authormask.evaluation.study",
    "TASKS": "authormask.evaluation.study",
    "build_author_study": "authormask.evaluation.study",
    "build_study": "authormask.evaluation.study",
    "build_topic_study": "authormask.evaluation.study",
}

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
    "EvaluationProtocol",
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
    "markdown",
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

__getattr__, __dir__ = lazy_attributes("authormask.evaluation", _LAZY, globals(), __all__)
