"""Neighbouring inputs and samplers for every registered mechanism.

Each case runs the real mechanism object (built by
:func:`~authormask.release.registry.create_mechanism` wherever no trained model is needed) on two
neighbouring inputs, and states the epsilon its guarantee gives between them:

* **Earth Mover's privacy** (``emp-bag``, ``emp-text``, ``emp-doc``, ``emp-write``) and
  ``random-sub``:
  :mod:`~authormask.audit.cases_earth_movers` (its docstring says why each case attains or
  does not attain its bound);
* **the exponential mechanism** (``erae``, ``ae-dp``, ``syntf``) and ``random-r``:
  :mod:`~authormask.audit.cases_tokens`;
* **one text released twice with one seed** (``emp-text`` at two epsilons, basic composition):
  :mod:`~authormask.audit.cases_composition`;
* **a forged cache of prepared vectors** (``emp-text``: refused, rebuilt or named):
  :mod:`~authormask.audit.cases_integrity`;
* **the peer word-level mechanisms** (``mahalanobis``, ``tem``, ``santext``):
  :mod:`~authormask.audit.cases_peers`;
* :class:`CaseSpec` and :class:`Context`: :mod:`~authormask.audit.case_spec`.

This module holds the table, :data:`AUDITORS`, and re-exports the names above so that each keeps
its import path.
"""

from __future__ import annotations

from authormask.audit.case_spec import GLOVE_VOCAB as GLOVE_VOCAB
from authormask.audit.case_spec import CaseSpec
from authormask.audit.case_spec import Context as Context
from authormask.audit.cases_composition import _twice
from authormask.audit.cases_earth_movers import (
    EMP_EPSILON_GLOVE,
    EMP_EPSILON_LINE,
    _emp_doc_glove,
    _emp_doc_line,
    _emp_glove,
    _emp_line,
    _emp_text_unknown,
    _emp_write,
    _random_sub,
    emp_bag_sampler,
    emp_text_sampler,
    line_embeddings,
)
from authormask.audit.cases_earth_movers import GLOVE_PAIR as GLOVE_PAIR
from authormask.audit.cases_earth_movers import LINE_FAR_FUNCTION as LINE_FAR_FUNCTION
from authormask.audit.cases_earth_movers import LINE_WORDS as LINE_WORDS
from authormask.audit.cases_earth_movers import emp_doc_sampler as emp_doc_sampler
from authormask.audit.cases_integrity import INTEGRITY_CASES, forged_cache_case
from authormask.audit.cases_peers import CLUSTER_SIZE as CLUSTER_SIZE
from authormask.audit.cases_peers import FAR_AT as FAR_AT
from authormask.audit.cases_peers import FAR_WORDS as FAR_WORDS
from authormask.audit.cases_peers import (
    PEER_EPSILON_LINE,
    _mahalanobis,
    _vocabulary_exponential,
    cluster_embeddings,
)
from authormask.audit.cases_peers import PEER_GLOVE_VOCAB as PEER_GLOVE_VOCAB
from authormask.audit.cases_peers import TEM_GAMMA_CLUSTER as TEM_GAMMA_CLUSTER
from authormask.audit.cases_peers import TEM_GAMMA_TRUNCATED as TEM_GAMMA_TRUNCATED
from authormask.audit.cases_tokens import DRAW_BLOCK as DRAW_BLOCK
from authormask.audit.cases_tokens import (
    EXP_EPSILON,
    _erae,
    _random_r,
    _syntf,
    extreme_ratings,
    token_draw_sampler,
    token_text_sampler,
)
from authormask.audit.cases_tokens import SYNTF_INPUTS as SYNTF_INPUTS
from authormask.audit.cases_tokens import TOKEN_TEXT_LENGTH as TOKEN_TEXT_LENGTH

__all__ = [
    "AUDITORS",
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "EXP_EPSILON",
    "PEER_EPSILON_LINE",
    "CaseSpec",
    "cluster_embeddings",
    "emp_bag_sampler",
    "emp_text_sampler",
    "extreme_ratings",
    "line_embeddings",
    "token_draw_sampler",
    "token_text_sampler",
]


def _specs() -> dict[str, tuple[CaseSpec, ...]]:
    out: dict[str, tuple[CaseSpec, ...]] = {
        "emp-bag": (
            CaseSpec("emp-bag", "line-1d", _emp_line("emp-bag")),
            CaseSpec("emp-bag", "line-1d-N2", _emp_line("emp-bag", 2)),
            CaseSpec("emp-bag", "line-1d-posterior", _emp_line("emp-bag", 1, "posterior")),
            CaseSpec("emp-bag", "glove", _emp_glove("emp-bag")),
        ),
        "emp-text": (
            CaseSpec("emp-text", "line-1d", _emp_line("emp-text")),
            CaseSpec("emp-text", "line-1d-posterior", _emp_line("emp-text", 1, "posterior")),
            CaseSpec("emp-text", "glove", _emp_glove("emp-text")),
            CaseSpec("emp-text", "line-1d-twice", _twice),
            CaseSpec("emp-text", "line-1d-unknown", _emp_text_unknown),
            *(CaseSpec("emp-text", c, forged_cache_case(c)) for c in INTEGRITY_CASES),
        ),
        "emp-doc": (
            *(
                CaseSpec("emp-doc", case, _emp_doc_line(case))
                for case in ("line-1d", "line-1d-function", "line-1d-posterior")
            ),
            CaseSpec("emp-doc", "glove", _emp_doc_glove),
        ),
        "random-sub": (CaseSpec("random-sub", "rate-1", _random_sub),),
        "emp-write": tuple(
            CaseSpec("emp-write", case, _emp_write(case))
            for case in ("line-1d", "line-1d-nearest", "line-1d-K2", "glove")
        ),
    }
    for kind in ("erae", "ae-dp"):
        out[kind] = tuple(CaseSpec(kind, f"extreme-K{k}", _erae(kind, k)) for k in (10, 1000))
    # rows of 2,048 outputs or more, as a trained model's, may take the sampler's sparse path
    # (ae-dp configures the sampler exactly as erae does)
    out["erae"] += (CaseSpec("erae", "extreme-K2048", _erae("erae", 2048)),)
    out["syntf"] = tuple(CaseSpec("syntf", f"extreme-K{k}", _syntf(k)) for k in (10, 1000))
    out["random-r"] = (CaseSpec("random-r", "uniform-K1000", _random_r(1000)),)
    out["mahalanobis"] = tuple(
        CaseSpec("mahalanobis", case, _mahalanobis(case)) for case in ("line-1d", "glove")
    )
    out["tem"] = tuple(
        CaseSpec("tem", case, _vocabulary_exponential("tem", case))
        for case in ("cluster-1d", "truncated-1d", "glove")
    )
    out["santext"] = tuple(
        CaseSpec("santext", case, _vocabulary_exponential("santext", case))
        for case in ("cluster-1d", "glove")
    )
    return out


#: The audit cases of every mechanism name (each must be a registered name, and every
#: registered name must have at least one case: :func:`authormask.audit.audit_mechanisms`
#: refuses to run otherwise).
AUDITORS: dict[str, tuple[CaseSpec, ...]] = _specs()
