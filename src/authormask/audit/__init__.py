"""Empirical privacy auditing of the registered mechanisms.

For every mechanism name of :func:`authormask.core.mechanism_names` the audit picks two
neighbouring inputs with a known stated epsilon between them (``eps * d`` for the metric
guarantees of Earth Mover's privacy, Fernandes, Dras & McIver 2019; the per-token epsilon of the
exponential mechanism of ER-AE, AE-DP and SynTF, Bo et al. 2021; ``eps * d_R``, ``eps * min(d,
gamma)`` and ``eps * d`` for the peer word-level mechanisms Mahalanobis, TEM and SanText),
draws many outputs under each, searches a family of output events and reports a
Clopper-Pearson lower bound on epsilon at 95% confidence (for the whole run) beside the stated
epsilon, in the manner of Jagielski, Ullman & Oprea (2020), DP-Auditorium (Kong et al. 2024)
and the likelihood-ratio events of Steinke, Nasr & Jagielski (2023). A lower bound above the
stated epsilon is evidence of an implementation bug.

* :func:`audit_mechanisms` runs every case (:func:`auditors`, also :data:`AUDITORS`: built,
  and the case modules imported, on first use, PEP 562);
* :func:`audit_sampler` audits any ``sampler(input, n, rng)`` callable between two inputs, so
  broken variants of a mechanism can be audited with the same code;
* :func:`epsilon_lower_bound` is the statistical test on two arrays of output codes.
"""

from typing import TYPE_CHECKING, Any

from authormask.audit.api import (
    DEFAULT_SAMPLES,
    AuditError,
    audit_mechanisms,
    audit_plan,
    case_confidence,
)
from authormask.audit.cases import CaseSpec, audit_load_errors, auditors
from authormask.audit.core import (
    DEFAULT_CONFIDENCE,
    AuditCase,
    AuditResult,
    Sampler,
    audit_case,
    audit_sampler,
)
from authormask.audit.stats import (
    EpsilonBound,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from authormask.audit.cases import (
        AUDITORS,
        EMP_EPSILON_GLOVE,
        EMP_EPSILON_LINE,
        EXP_EPSILON,
        emp_bag_sampler,
        emp_text_sampler,
        extreme_ratings,
        line_embeddings,
        token_draw_sampler,
        token_text_sampler,
    )

#: the names of :mod:`~authormask.audit.cases` that import a case module (or build the table
#: of cases) when first used
_LAZY = (
    "AUDITORS",
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "EXP_EPSILON",
    "emp_bag_sampler",
    "emp_text_sampler",
    "extreme_ratings",
    "line_embeddings",
    "token_draw_sampler",
    "token_text_sampler",
)

__all__ = [
    "AUDITORS",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_SAMPLES",
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "EXP_EPSILON",
    "AuditCase",
    "AuditError",
    "AuditResult",
    "CaseSpec",
    "EpsilonBound",
    "Sampler",
    "audit_case",
    "audit_load_errors",
    "audit_mechanisms",
    "audit_plan",
    "audit_sampler",
    "auditors",
    "case_confidence",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "emp_bag_sampler",
    "emp_text_sampler",
    "epsilon_lower_bound",
    "extreme_ratings",
    "line_embeddings",
    "token_draw_sampler",
    "token_text_sampler",
]


def __getattr__(name: str) -> Any:
    """:data:`AUDITORS` and the names :mod:`~authormask.audit.cases` re-exports from the case
    modules, looked up there on first use (PEP 562), so that importing the audit imports no
    mechanism's cases."""
    if name in _LAZY:
        from authormask.audit import cases

        return getattr(cases, name)
    raise AttributeError(f"module 'authormask.audit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
