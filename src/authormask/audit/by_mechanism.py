"""The audit cases of each built-in mechanism, as its registry spec names them
(:attr:`~authormask.core.specs.MechanismSpec.audit`, ``"authormask.audit.by_mechanism:
emp_bag"``): a function of the mechanism's registered name that returns its cases
(:class:`~authormask.audit.case_spec.CaseSpec`, each with a lazy builder). A mechanism
registered from another package names a function of its own the same way.

The builders live by mechanism family (:mod:`~authormask.audit.cases_earth_movers`,
:mod:`~authormask.audit.cases_tokens`, :mod:`~authormask.audit.cases_peers`,
:mod:`~authormask.audit.cases_composition`, :mod:`~authormask.audit.cases_integrity`); each
takes the name it audits, so no case branches on a mechanism's name.
"""

from __future__ import annotations

from authormask.audit.case_spec import CaseSpec
from authormask.audit.cases_composition import _twice, _two_texts
from authormask.audit.cases_earth_movers import (
    ENTITY_PAIRS,
    _emp_doc_glove,
    _emp_doc_line,
    _emp_glove,
    _emp_line,
    _emp_text_unknown,
    _emp_write,
    _emp_write_entities,
    _random_sub,
)
from authormask.audit.cases_events import event_cases
from authormask.audit.cases_integrity import INTEGRITY_CASES, forged_cache_case
from authormask.audit.cases_peers import _mahalanobis, _vocabulary_exponential
from authormask.audit.cases_sentences import sentence_cases
from authormask.audit.cases_tokens import _erae, _random_r, _syntf

__all__ = [
    "ae_dp",
    "emp_bag",
    "emp_doc",
    "emp_event",
    "emp_sentence",
    "emp_text",
    "emp_write",
    "erae",
    "mahalanobis",
    "random_r",
    "random_sub",
    "santext",
    "syntf",
    "tem",
]


def emp_bag(name: str) -> tuple[CaseSpec, ...]:
    """Earth Mover's privacy over bags: the 1-d line (N = 1 and 2, and the posterior decoder)
    and two GloVe words.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return (
        CaseSpec(name, "line-1d", _emp_line(name)),
        CaseSpec(name, "line-1d-N2", _emp_line(name, 2)),
        CaseSpec(name, "line-1d-posterior", _emp_line(name, 1, "posterior")),
        CaseSpec(name, "glove", _emp_glove(name)),
    )


def emp_text(name: str) -> tuple[CaseSpec, ...]:
    """Earth Mover's privacy in place: the 1-d line (and its posterior decoder), two GloVe
    words, one text released twice with one seed, two texts released with one seed, an
    unknown word, and a forged cache.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return (
        CaseSpec(name, "line-1d", _emp_line(name)),
        CaseSpec(name, "line-1d-posterior", _emp_line(name, 1, "posterior")),
        CaseSpec(name, "glove", _emp_glove(name)),
        CaseSpec(name, "line-1d-twice", _twice(name)),
        CaseSpec(name, "line-1d-two-texts", _two_texts(name)),
        CaseSpec(name, "line-1d-unknown", _emp_text_unknown(name)),
        *(CaseSpec(name, c, forged_cache_case(name, c)) for c in INTEGRITY_CASES),
    )


def emp_doc(name: str) -> tuple[CaseSpec, ...]:
    """The canonical skeleton: content and function words on the 1-d line, the posterior
    decoder, and two GloVe words.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return (
        *(
            CaseSpec(name, case, _emp_doc_line(name, case))
            for case in ("line-1d", "line-1d-function", "line-1d-posterior")
        ),
        CaseSpec(name, "glove", _emp_doc_glove(name)),
    )


def random_sub(name: str) -> tuple[CaseSpec, ...]:
    """The baseline at rate 1, the one rate with a guarantee (epsilon 0).

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's one case, with its lazy builder.
    """
    return (CaseSpec(name, "rate-1", _random_sub(name)),)


def emp_write(name: str) -> tuple[CaseSpec, ...]:
    """The kernel and its decoders on the 1-d line (one and two words) and on GloVe.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(
        CaseSpec(name, case, _emp_write(name, case))
        for case in ("line-1d", "line-1d-nearest", "line-1d-K2", "glove", "glove-nouns")
    ) + tuple(CaseSpec(name, case, _emp_write_entities(name, case)) for case in ENTITY_PAIRS)


def emp_sentence(name: str) -> tuple[CaseSpec, ...]:
    """The sentence kernel on the 1-d line and on two sentences of the bank; the noun kernel
    (emp-write's) on two GloVe nouns.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(CaseSpec(name, case, build) for case, build in sentence_cases(name))


def emp_event(name: str) -> tuple[CaseSpec, ...]:
    """The argument and verb kernels on two GloVe words each, the frame kernel on two frames,
    and the mechanism end to end on two one-event texts.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(CaseSpec(name, case, build) for case, build in event_cases(name))


def erae(name: str) -> tuple[CaseSpec, ...]:
    """The exponential mechanism with the worst-case ratings; rows of 2,048 outputs or more, as
    a trained model's, may take the sampler's sparse path.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(CaseSpec(name, f"extreme-K{k}", _erae(name, k)) for k in (10, 1000, 2048))


def ae_dp(name: str) -> tuple[CaseSpec, ...]:
    """The same as ER-AE's (AE-DP configures the sampler exactly as ER-AE does).

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(CaseSpec(name, f"extreme-K{k}", _erae(name, k)) for k in (10, 1000))


def syntf(name: str) -> tuple[CaseSpec, ...]:
    """End to end with the worst-case cosine ratings.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(CaseSpec(name, f"extreme-K{k}", _syntf(name, k)) for k in (10, 1000))


def random_r(name: str) -> tuple[CaseSpec, ...]:
    """End to end: the words of the output do not depend on the input (epsilon 0).

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's one case, with its lazy builder.
    """
    return (CaseSpec(name, "uniform-K1000", _random_r(name, 1000)),)


def mahalanobis(name: str) -> tuple[CaseSpec, ...]:
    """The 1-d line (attained) and two GloVe words.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(CaseSpec(name, case, _mahalanobis(name, case)) for case in ("line-1d", "glove"))


def tem(name: str) -> tuple[CaseSpec, ...]:
    """The truncated exponential mechanism: a cluster on the 1-d line (gamma above and below
    the distance) and two GloVe words.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(
        CaseSpec(name, case, _vocabulary_exponential(name, case, truncated=True))
        for case in ("cluster-1d", "truncated-1d", "glove")
    )


def santext(name: str) -> tuple[CaseSpec, ...]:
    """The exponential mechanism over distances: a cluster on the 1-d line and two GloVe
    words.

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[CaseSpec, ...]
        The mechanism's cases, each with its lazy builder.
    """
    return tuple(
        CaseSpec(name, case, _vocabulary_exponential(name, case))
        for case in ("cluster-1d", "glove")
    )
