"""Audit every registered mechanism: :func:`audit_mechanisms`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from authormask.audit.cases import CaseSpec, Context, audit_load_errors, auditors
from authormask.audit.core import DEFAULT_CONFIDENCE, AuditResult, audit_case
from authormask.exceptions import AuthormaskError, InvalidParameterError
from authormask.randomness import RandomState

__all__ = [
    "DEFAULT_SAMPLES",
    "AuditError",
    "audit_mechanisms",
    "audit_plan",
    "case_confidence",
]

logger = logging.getLogger(__name__)

#: Draws per input of each case in a default run (19 cases, 84 s on two busy CPU cores).
DEFAULT_SAMPLES = 200_000


class AuditError(AuthormaskError):
    """The audit cannot run (a registered mechanism has no auditor)."""


def _check_coverage() -> None:
    from authormask.core import mechanism_names

    registered = mechanism_names()
    table, broken = auditors(), audit_load_errors()
    missing = [n for n in registered if not table.get(n) and n not in broken]
    if missing:
        raise AuditError(
            f"no auditor for registered mechanism(s) {', '.join(missing)}: declare its audit "
            "cases (its neighbouring inputs) in its registry spec, audit='module:function'"
        )


def _names(names: str | Iterable[str] | None) -> list[str]:
    from authormask.core import mechanism_names

    registered = mechanism_names()
    if names is None:
        return list(registered)
    parts = [names] if isinstance(names, str) else list(names)
    wanted = [p.strip() for part in parts for p in str(part).split(",") if p.strip()]
    if not wanted:
        raise InvalidParameterError("give at least one mechanism name")
    unknown = [n for n in wanted if n not in registered]
    if unknown:
        raise InvalidParameterError(
            f"unknown mechanism {', '.join(repr(n) for n in unknown)}; choose from "
            f"{', '.join(registered)}"
        )
    return [n for n in registered if n in wanted]  # registry order, no duplicates


def _check_loaded(names: list[str]) -> None:
    """Refuse, in one line, to audit a mechanism whose declared audit cases failed to load
    (:func:`~authormask.audit.cases.audit_load_errors`), naming it and the reason."""
    from authormask.core import mechanism_spec

    broken = audit_load_errors()
    for name in names:
        if name in broken:
            raise InvalidParameterError(
                f"cannot audit mechanism {name!r}: its audit cases "
                f"({mechanism_spec(name).audit}) failed to load: {broken[name]}"
            )


def audit_plan(names: str | Iterable[str] | None = None) -> list[CaseSpec]:
    """The cases :func:`audit_mechanisms` runs for ``names`` (all registered names by default),
    in order.

    Parameters
    ----------
    names
        The mechanisms to audit: one name, comma-separated names or an iterable of names;
        ``None`` (default) for every registered mechanism.

    Returns
    -------
    list[CaseSpec]
        The cases of the wanted mechanisms, in registry order.

    Raises
    ------
    AuditError
        If a registered mechanism has no auditor.
    InvalidParameterError
        For an unknown name or one whose audit cases failed to load (the others are audited
        as before).
    """
    _check_coverage()
    wanted = _names(names)
    _check_loaded(wanted)
    table = auditors()
    return [spec for name in wanted for spec in table[name]]


def case_confidence(confidence: float, cases: int) -> float:
    """The confidence of each of ``cases`` audits that together hold at ``confidence``
    (Bonferroni).

    Parameters
    ----------
    confidence
        The confidence the audits hold at together.
    cases
        How many audits (at least one is assumed).

    Returns
    -------
    float
        ``1 - (1 - confidence) / cases``.

    Examples
    --------
    >>> round(case_confidence(0.95, 10), 6)
    0.995
    """
    return 1.0 - (1.0 - confidence) / max(int(cases), 1)


def audit_mechanisms(
    names: str | Iterable[str] | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    random_state: RandomState = None,
    progress: Callable[[int], None] | None = None,
    cache_dir: Path | str | None = "default",
) -> list[AuditResult]:
    """Empirically audit the privacy of registered mechanisms (all of them by default).

    For every case of :func:`authormask.audit.cases.auditors` (two neighbouring inputs of one
    mechanism, with the epsilon its statement gives between them), ``samples`` outputs are drawn
    under each input and a Clopper-Pearson lower bound on epsilon is computed at ``confidence``
    (Jagielski, Ullman & Oprea 2020; the split-sample, Bonferroni-corrected test of
    :func:`authormask.audit.stats.epsilon_lower_bound`). A case passes when the lower bound does
    not exceed the stated epsilon plus the implementation's declared floating-point slack. The
    guarantees audited are those of Fernandes, Dras & McIver (2019, Theorems 2 and 4) and Bo et
    al. (2021, Eq. 6 and Theorem 1).

    ``confidence`` holds for the whole run (Bonferroni across its m cases): each case is audited
    at ``1 - (1 - confidence) / m`` (:func:`case_confidence`, the ``confidence`` of its result),
    so the chance that *any* correct mechanism fails the run is at most ``1 - confidence``. A
    case's randomness depends on ``random_state`` and its name only.

    Parameters
    ----------
    names
        The mechanisms to audit (see :func:`audit_plan`); ``None`` (default) for all of them.
    samples
        Outputs drawn under each of a case's two inputs.
    confidence
        The confidence of the whole run, in (0, 1).
    random_state
        The root of the cases' randomness.
    progress
        Called with the number of draws made (``2 * samples`` per case in all).
    cache_dir
        Where the GloVe vectors of the ``glove`` cases are cached.

    Returns
    -------
    list[AuditResult]
        One result per case, in the order of :func:`audit_plan`.

    Raises
    ------
    InvalidParameterError
        If ``confidence`` is not in (0, 1), or as :func:`audit_plan` raises.
    """
    if not 0.0 < confidence < 1.0:
        raise InvalidParameterError(f"confidence must be in (0, 1), got {confidence!r}")
    plan = audit_plan(names)
    per_case = case_confidence(confidence, len(plan))
    ctx = Context(cache_dir=cache_dir)
    results: list[AuditResult] = []
    for spec in plan:
        case = spec.build(ctx)
        results.append(
            audit_case(
                case,
                samples=samples,
                confidence=per_case,
                random_state=random_state,
                progress=progress,
            )
        )
    failed = [f"{r.mechanism}/{r.case}" for r in results if not r.passed]
    if failed:
        logger.warning("audit failed for %s", ", ".join(failed))
    return results
