"""Neighbouring inputs and samplers for every registered mechanism.

Each case runs the real mechanism object (built by
:func:`~authormask.core.registry.create_mechanism` wherever no trained model is needed) on two
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

Which cases a mechanism has is declared by its registry spec
(:attr:`~authormask.core.specs.MechanismSpec.audit`, a ``"module:function"`` of its name:
the built-in ones are :mod:`~authormask.audit.by_mechanism`'s); this module holds the table
read from the specs, :data:`AUDITORS`, and re-exports the names above so that each keeps its
import path.
"""

from __future__ import annotations

import importlib

from authormask.audit.case_spec import GLOVE_VOCAB as GLOVE_VOCAB
from authormask.audit.case_spec import CaseSpec
from authormask.audit.case_spec import Context as Context
from authormask.audit.cases_earth_movers import (
    EMP_EPSILON_GLOVE,
    EMP_EPSILON_LINE,
    emp_bag_sampler,
    emp_text_sampler,
    line_embeddings,
)
from authormask.audit.cases_earth_movers import GLOVE_PAIR as GLOVE_PAIR
from authormask.audit.cases_earth_movers import LINE_FAR_FUNCTION as LINE_FAR_FUNCTION
from authormask.audit.cases_earth_movers import LINE_WORDS as LINE_WORDS
from authormask.audit.cases_earth_movers import emp_doc_sampler as emp_doc_sampler
from authormask.audit.cases_peers import CLUSTER_SIZE as CLUSTER_SIZE
from authormask.audit.cases_peers import FAR_AT as FAR_AT
from authormask.audit.cases_peers import FAR_WORDS as FAR_WORDS
from authormask.audit.cases_peers import PEER_EPSILON_LINE, cluster_embeddings
from authormask.audit.cases_peers import PEER_GLOVE_VOCAB as PEER_GLOVE_VOCAB
from authormask.audit.cases_peers import TEM_GAMMA_CLUSTER as TEM_GAMMA_CLUSTER
from authormask.audit.cases_peers import TEM_GAMMA_TRUNCATED as TEM_GAMMA_TRUNCATED
from authormask.audit.cases_tokens import DRAW_BLOCK as DRAW_BLOCK
from authormask.audit.cases_tokens import (
    EXP_EPSILON,
    extreme_ratings,
    token_draw_sampler,
    token_text_sampler,
)
from authormask.audit.cases_tokens import SYNTF_INPUTS as SYNTF_INPUTS
from authormask.audit.cases_tokens import TOKEN_TEXT_LENGTH as TOKEN_TEXT_LENGTH
from authormask.core.registry import MECHANISMS
from authormask.core.specs import MechanismSpec

__all__ = [
    "AUDITORS",
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "EXP_EPSILON",
    "PEER_EPSILON_LINE",
    "CaseSpec",
    "audit_cases",
    "cluster_embeddings",
    "emp_bag_sampler",
    "emp_text_sampler",
    "extreme_ratings",
    "line_embeddings",
    "token_draw_sampler",
    "token_text_sampler",
]


def audit_cases(spec: MechanismSpec) -> tuple[CaseSpec, ...]:
    """The audit cases ``spec`` declares (:attr:`~authormask.core.specs.MechanismSpec.audit`:
    the ``"module:function"`` called with its name); none where it declares none."""
    if spec.audit is None:
        return ()
    module, _, function = spec.audit.partition(":")
    cases: tuple[CaseSpec, ...] = tuple(vars(importlib.import_module(module))[function](spec.name))
    return cases


#: The audit cases of every registered mechanism, as its registry spec declares them
#: (:func:`audit_cases`); :func:`authormask.audit.audit_mechanisms` refuses to run while a
#: registered mechanism has none.
AUDITORS: dict[str, tuple[CaseSpec, ...]] = {
    name: audit_cases(spec) for name, spec in MECHANISMS.items() if spec.audit is not None
}
