"""Audit cases of the peer word-level mechanisms (:mod:`authormask.mechanisms.peers`), all end
to end through ``prepare`` and ``perturb``
(:func:`~authormask.audit.cases_earth_movers.emp_text_sampler`):

- ``mahalanobis`` (Xu et al. 2020): ``line-1d`` (in one dimension ``Sigma_lambda = 1``, so
  ``d_R = d`` and the bound ``eps * d`` is attained by the output ``right``, as for
  ``emp-text``) and ``glove`` (``man``/``woman``, stated ``eps * d_R``; loose).
- ``santext`` (Yue et al. 2021) and ``tem`` (Carvalho et al. 2021): an exponential mechanism
  attains its bound only when the two inputs' normalisers differ as much as they can, so the
  ``cluster-1d`` vocabulary puts ``zero`` at 0, ``one`` and 100 more words at 1, and 10 far
  words at 4: ``P[zero | zero] / P[zero | one]`` is ``e^{eps/2} Z(one) / Z(zero)``, within 3%
  of ``e^eps`` at eps = 2 (stated ``eps * d = 2``; for TEM gamma = 1.5, and the far words
  beyond gamma are reached through the bottom element). ``tem`` also has ``truncated-1d``
  (gamma = 0.5 < d = 1: the stated bound is ``eps * gamma = 1``, TEM's own, stronger than
  ``eps * d``, and attained the same way) and both have ``glove`` (1,000 GloVe words,
  ``man``/``woman``, stated ``eps * d``; loose). Their declared slack is the sampler's and the
  certified distances' (:meth:`~authormask.mechanisms.peers.SanTextMechanism.slack`).

The table of every mechanism's cases is :data:`authormask.audit.cases.AUDITORS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from authormask.audit.case_spec import Context
from authormask.audit.cases_earth_movers import (
    EMP_EPSILON_GLOVE,
    GLOVE_PAIR,
    _word_labels,
    emp_text_sampler,
    line_embeddings,
)
from authormask.audit.core import AuditCase
from authormask.embeddings._base import Embeddings

__all__ = ["PEER_EPSILON_LINE", "cluster_embeddings"]

# --- peer word-level mechanisms ---------------------------------------------------------------

#: eps of the peer mechanisms' 1-d cases (stated eps * d = 2 between zero and one)
PEER_EPSILON_LINE = 2.0
#: the ``cluster-1d`` vocabulary: words piled at ``one`` and far words beyond TEM's gamma
CLUSTER_SIZE = 100
FAR_WORDS = 10
FAR_AT = 4.0
#: TEM's gamma in ``cluster-1d`` (>= d = 1) and ``truncated-1d`` (< d)
TEM_GAMMA_CLUSTER = 1.5
TEM_GAMMA_TRUNCATED = 0.5
#: GloVe words of the peer exponential mechanisms' ``glove`` case (K draws cost K each)
PEER_GLOVE_VOCAB = 1_000


def _letters(i: int) -> str:
    """``i`` written in the letters a-z (``aa``, ``ab``, ...): alphabetic words for any index."""
    return chr(97 + i // 26) + chr(97 + i % 26)


def cluster_embeddings() -> Embeddings:
    """``zero`` = 0, ``one`` = 1, ``CLUSTER_SIZE`` words ``c..`` at 1 and ``FAR_WORDS`` words
    ``f..`` at ``FAR_AT`` (1-d).

    Returns
    -------
    Embeddings
        The 1-d vectors.
    """
    words = (
        "zero",
        "one",
        *(f"c{_letters(i)}" for i in range(CLUSTER_SIZE)),
        *(f"f{_letters(i)}" for i in range(FAR_WORDS)),
    )
    vectors = np.ones((len(words), 1), dtype=np.float32)
    vectors[0, 0] = 0.0
    vectors[2 + CLUSTER_SIZE :, 0] = FAR_AT
    return Embeddings(
        name="audit-cluster-1d", source="authormask.audit", words=words, vectors=vectors
    )


def _peer_params(emb: Embeddings, epsilon: float, **own: Any) -> dict[str, Any]:
    return {
        "epsilon": epsilon,
        "embeddings": emb,
        "vocab_size": None,
        "stopwords": "none",
        "oov_map_to": emb.words[0],  # never used: every input word is in the vocabulary
        **own,
    }


def _mahalanobis(name: str, case: str) -> Callable[[Context], AuditCase]:
    """``mahalanobis`` (registered as ``name``): ``line-1d`` or ``glove``."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        if case == "line-1d":
            emb, epsilon, (w, w2) = line_embeddings(), PEER_EPSILON_LINE, ("zero", "one")
            where = "1-d vocabulary {left=-0.2, zero=0, one=1, right=1.2} (Sigma_lambda = 1)"
        else:
            emb, epsilon, (w, w2) = ctx.glove(), EMP_EPSILON_GLOVE, GLOVE_PAIR
            where = f"{emb.identity.name} ({len(emb.words)} words, {emb.dimension}-d)"
        mech: Any = core_mechanism(name, **_peer_params(emb, epsilon))
        d = mech.kernel.distance(w, w2)
        return AuditCase(
            mechanism=name,
            case=case,
            description=f"{where}, lambda={mech.regularization:g}, {w} vs {w2}, eps*d_R = "
            f"{mech.epsilon:g}*{d:.4f}"
            + (" (attained by the output right)" if case == "line-1d" else " (loose)"),
            epsilon_stated=mech.epsilon * d,
            neighbours=(w, w2),
            sampler=emp_text_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def _vocabulary_exponential(
    kind: str, case: str, *, truncated: bool = False
) -> Callable[[Context], AuditCase]:
    """A peer exponential mechanism over the vocabulary (registered as ``kind``), end to end:
    ``cluster-1d``, ``truncated-1d`` or ``glove``; ``truncated``: TEM's, whose guarantee is
    ``eps * min(d, gamma)`` for its threshold ``gamma`` (SanText's: ``eps * d``)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        own: dict[str, Any] = {}
        if case == "glove":
            emb, epsilon, (w, w2) = (
                ctx.glove().restrict(PEER_GLOVE_VOCAB),
                EMP_EPSILON_GLOVE,
                GLOVE_PAIR,
            )
            where = f"{emb.identity.name} ({len(emb.words)} words, {emb.dimension}-d)"
        else:
            emb, epsilon, (w, w2) = cluster_embeddings(), PEER_EPSILON_LINE, ("zero", "one")
            where = (
                f"1-d vocabulary zero=0, one and {CLUSTER_SIZE} words at 1, {FAR_WORDS} at "
                f"{FAR_AT:g}"
            )
            if truncated:
                own["gamma"] = TEM_GAMMA_CLUSTER if case == "cluster-1d" else TEM_GAMMA_TRUNCATED
        mech: Any = core_mechanism(kind, **_peer_params(emb, epsilon, **own))
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        if truncated:
            unit = f"min(d, gamma) = min({d:.4f}, {mech.gamma:g})"
            stated = mech.epsilon * min(d, mech.gamma)
        else:
            unit, stated = f"d = {d:.4f}", mech.epsilon * d
        return AuditCase(
            mechanism=kind,
            case=case,
            description=f"{kind} end to end, {where}, {w} vs {w2}, eps*{unit}, eps = "
            f"{mech.epsilon:g}" + (" (loose)" if case == "glove" else " (nearly attained)"),
            epsilon_stated=stated,
            neighbours=(w, w2),
            sampler=emp_text_sampler(mech),
            slack=mech.kernel.slack(),
            labels=_word_labels(emb),
        )

    return build
