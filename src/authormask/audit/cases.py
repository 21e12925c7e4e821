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
read from the specs, :func:`auditors` (also :data:`AUDITORS`), and re-exports the names above
so that each keeps its import path.

Nothing here is imported with the module (PEP 562): the table is built, and the case modules
imported, the first time it (or a re-exported name) is used, so ``import authormask.audit``
never imports a mechanism's cases, and one mechanism whose cases fail to load (a plugin's
missing dependency) is refused by name when it is audited (:func:`audit_load_errors`) while
every other mechanism is audited as before.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from authormask._lazy import lazy_attributes
from authormask.audit.case_spec import GLOVE_VOCAB as GLOVE_VOCAB
from authormask.audit.case_spec import CaseSpec
from authormask.audit.case_spec import Context as Context
from authormask.core.specs import MechanismSpec

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
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

    #: the audit cases of every registered mechanism (:func:`auditors`)
    AUDITORS: dict[str, tuple[CaseSpec, ...]]

__all__ = [
    "AUDITORS",
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "EXP_EPSILON",
    "PEER_EPSILON_LINE",
    "CaseSpec",
    "audit_cases",
    "audit_load_errors",
    "auditors",
    "cluster_embeddings",
    "emp_bag_sampler",
    "emp_text_sampler",
    "extreme_ratings",
    "line_embeddings",
    "token_draw_sampler",
    "token_text_sampler",
]

_EARTH_MOVERS = "authormask.audit.cases_earth_movers"
_PEERS = "authormask.audit.cases_peers"
_TOKENS = "authormask.audit.cases_tokens"
#: the names re-exported from the case modules, imported on first use
_LAZY = {
    "EMP_EPSILON_GLOVE": _EARTH_MOVERS,
    "EMP_EPSILON_LINE": _EARTH_MOVERS,
    "GLOVE_PAIR": _EARTH_MOVERS,
    "LINE_FAR_FUNCTION": _EARTH_MOVERS,
    "LINE_WORDS": _EARTH_MOVERS,
    "emp_bag_sampler": _EARTH_MOVERS,
    "emp_doc_sampler": _EARTH_MOVERS,
    "emp_text_sampler": _EARTH_MOVERS,
    "line_embeddings": _EARTH_MOVERS,
    "CLUSTER_SIZE": _PEERS,
    "FAR_AT": _PEERS,
    "FAR_WORDS": _PEERS,
    "PEER_EPSILON_LINE": _PEERS,
    "PEER_GLOVE_VOCAB": _PEERS,
    "TEM_GAMMA_CLUSTER": _PEERS,
    "TEM_GAMMA_TRUNCATED": _PEERS,
    "cluster_embeddings": _PEERS,
    "DRAW_BLOCK": _TOKENS,
    "EXP_EPSILON": _TOKENS,
    "SYNTF_INPUTS": _TOKENS,
    "TOKEN_TEXT_LENGTH": _TOKENS,
    "extreme_ratings": _TOKENS,
    "token_draw_sampler": _TOKENS,
    "token_text_sampler": _TOKENS,
}


def audit_cases(spec: MechanismSpec) -> tuple[CaseSpec, ...]:
    """The audit cases ``spec`` declares (:attr:`~authormask.core.specs.MechanismSpec.audit`:
    the ``"module:function"`` called with its name); none where it declares none. Raises
    whatever importing the module or calling the function raises.

    Parameters
    ----------
    spec
        A mechanism's registry spec.

    Returns
    -------
    tuple[CaseSpec, ...]
        Its declared audit cases (empty when it declares none).
    """
    if spec.audit is None:
        return ()
    module, _, function = spec.audit.partition(":")
    cases: tuple[CaseSpec, ...] = tuple(
        getattr(importlib.import_module(module), function)(spec.name)
    )
    return cases


@functools.cache
def _table() -> tuple[dict[str, tuple[CaseSpec, ...]], dict[str, str]]:
    """The cases of every registered mechanism that declares some, and why each mechanism whose
    cases failed to load has none (one line: the exception's type and message)."""
    from authormask.core.registry import MECHANISMS

    table: dict[str, tuple[CaseSpec, ...]] = {}
    errors: dict[str, str] = {}
    for name, spec in MECHANISMS.items():
        if spec.audit is None:
            continue
        try:
            table[name] = audit_cases(spec)
        except Exception as exc:  # any error of the code that declares the cases
            errors[name] = " ".join(f"{type(exc).__name__}: {exc}".split())
    return table, errors


def auditors() -> dict[str, tuple[CaseSpec, ...]]:
    """The audit cases of every registered mechanism, as its registry spec declares them
    (:func:`audit_cases`), built (and the case modules imported) on first use and kept;
    :func:`authormask.audit.audit_mechanisms` refuses to run while a registered mechanism has
    none. A mechanism whose cases fail to load is left out (:func:`audit_load_errors`).

    Returns
    -------
    dict[str, tuple[CaseSpec, ...]]
        The cases of each mechanism that declares some, by name.
    """
    return _table()[0]


def audit_load_errors() -> dict[str, str]:
    """Why each registered mechanism whose audit cases failed to load (its spec's
    ``"module:function"`` raised: a plugin's missing dependency) has none, by name: one line,
    the exception's type and message; empty when every declared case loaded.

    Returns
    -------
    dict[str, str]
        The reason by mechanism name.
    """
    return _table()[1]


_lazy_getattr, _ = lazy_attributes("authormask.audit.cases", _LAZY, globals(), __all__)


def __getattr__(name: str) -> Any:
    """:data:`AUDITORS` (:func:`auditors`, built on first use) and the names re-exported from
    the case modules, imported on first use (PEP 562)."""
    if name == "AUDITORS":
        return auditors()
    return _lazy_getattr(name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "AUDITORS"})
