"""The audit cases of ``emp-sentence``: its sentence kernel (Theorem 2 on sentence points, then
the nearest bank sentence) on a 1-d line and on two real sentences of its public bank, its
noun kernel (emp-write's, content nouns) on two GloVe nouns, and its name kernel (k-ary
randomized response) on two names of its public alphabet."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.case_spec import Context
from authormask.audit.cases_earth_movers import (
    EMP_EPSILON_GLOVE,
    EMP_EPSILON_LINE,
    GLOVE_PAIR,
    _word_labels,
    emp_write_sampler,
)
from authormask.audit.core import AuditCase

__all__ = ["NAME_PAIR", "SENTENCE_PAIR", "sentence_cases"]

#: two sentences of the bank's own prose, neighbours for the real-space case
SENTENCE_PAIR = ("The old man walked slowly home.", "The old woman walked slowly home.")
#: epsilon per unit of sentence distance of the real-space case
SENTENCE_EPSILON_BANK = 20.0
#: two names of the public alphabet, and the epsilon per name changed of the name case (low
#: enough that a name released as itself is seen often in a few thousand draws)
NAME_PAIR = ("anna", "james")
NAME_EPSILON = 3.0


def _sentence_sampler(kernel: Any) -> Callable[[Any, int, np.random.Generator], NDArray[Any]]:
    def sampler(x: Any, n: int, rng: np.random.Generator) -> NDArray[Any]:
        points = np.repeat(np.asarray(x, dtype=np.float64)[None, :], n, axis=0)
        return np.asarray(kernel.nearest(kernel.noisy(points, rng), k=1)[:, 0])

    return sampler


def _line(name: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.mechanisms.sentences import SentenceKernel

        bank = np.array([[-0.2], [0.0], [1.0], [1.2]])
        kernel = SentenceKernel(bank, EMP_EPSILON_LINE)
        names = ("left", "zero", "one", "right")
        return AuditCase(
            mechanism=name,
            case="sentence-line-1d",
            description=f"{name}'s sentence kernel on a 1-d bank {{-0.2, 0, 1, 1.2}}, the "
            f"points 0 vs 1, eps*d = {EMP_EPSILON_LINE:g}*1",
            epsilon_stated=EMP_EPSILON_LINE,
            neighbours=(np.array([0.0]), np.array([1.0])),
            sampler=_sentence_sampler(kernel),
            labels=lambda code: names[int(code)],
        )

    return build


def _bank(name: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.mechanisms.sentences import SentenceKernel
        from authormask.models.sentence_bank import load_sentence_bank

        bank = load_sentence_bank(cache_dir=ctx.cache_dir)
        kernel = SentenceKernel(bank.points, SENTENCE_EPSILON_BANK)
        a, b = bank.encoder.points(list(SENTENCE_PAIR))
        d = float(np.linalg.norm(a - b))
        return AuditCase(
            mechanism=name,
            case="sentence-bank",
            description=f"{name}'s sentence kernel on its bank ({len(bank.sentences)} "
            f"sentences), {SENTENCE_PAIR[0]!r} vs {SENTENCE_PAIR[1]!r}, eps*d = "
            f"{SENTENCE_EPSILON_BANK:g}*{d:.4f}",
            epsilon_stated=SENTENCE_EPSILON_BANK * d,
            neighbours=(a, b),
            sampler=_sentence_sampler(kernel),
            labels=lambda code: bank.sentences[int(code)][:40],
        )

    return build


def _nouns(name: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        emb = ctx.glove()
        mech: Any = core_mechanism(name, epsilon=EMP_EPSILON_GLOVE, embeddings=emb, vocab_size=None)
        w, w2 = GLOVE_PAIR
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        return AuditCase(
            mechanism=name,
            case="nouns-glove",
            description=f"{name}'s noun kernel and context decoder (the lexicon's nouns), "
            f"{emb.identity.name} ({len(emb.words)} words), {w} vs {w2}, eps*d = "
            f"{EMP_EPSILON_GLOVE:g}*{d:.4f}",
            epsilon_stated=EMP_EPSILON_GLOVE * d,
            neighbours=(w, w2),
            sampler=emp_write_sampler(mech),
            labels=_word_labels(emb, 1),
        )

    return build


def _names(name: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism
        from authormask.mechanisms.names import NameKernel

        mech: Any = core_mechanism(name, epsilon=NAME_EPSILON, embeddings=ctx.glove())
        while hasattr(mech, "inner"):
            mech = mech.inner
        alphabet = mech.name_kernel.alphabet
        kernel = NameKernel(alphabet, NAME_EPSILON)  # the name weight set to 1
        a, b = NAME_PAIR

        def sampler(x: Any, n: int, rng: np.random.Generator) -> NDArray[Any]:
            out = kernel.release([x] * n, rng)
            return np.array([kernel.index[w] for w in out], dtype=np.intp)

        return AuditCase(
            mechanism=name,
            case="names-rr",
            description=f"{name}'s name kernel (k-ary randomized response on its {len(alphabet)} "
            f"public names), {a} vs {b}, eps = {NAME_EPSILON:g} per name changed",
            epsilon_stated=NAME_EPSILON,
            neighbours=(a, b),
            sampler=sampler,
            labels=lambda code: alphabet[int(code)],
        )

    return build


def sentence_cases(name: str) -> tuple[tuple[str, Callable[[Context], AuditCase]], ...]:
    """The cases of emp-sentence registered as ``name``: (case name, builder).

    Parameters
    ----------
    name
        The name the mechanism is registered under.

    Returns
    -------
    tuple[tuple[str, Callable[[Context], AuditCase]], ...]
        The cases.
    """
    return (
        ("sentence-line-1d", _line(name)),
        ("nouns-glove", _nouns(name)),
        ("sentence-bank", _bank(name)),
        ("names-rr", _names(name)),
    )
