"""The audit cases of ``emp-event``: its argument kernel and its verb kernel (Theorem 2 on GloVe
vectors, then the posterior decoder over the released words) on two GloVe words each, its frame
kernel (k-ary randomized response) on two frames, and the whole mechanism end to end on two
one-event texts through its public preparation and release."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.case_spec import Context
from authormask.audit.cases_earth_movers import EMP_EPSILON_GLOVE, _word_labels
from authormask.audit.core import AuditCase

__all__ = ["AGENT_PAIR", "FRAME_PAIR", "TEXT_PAIR", "VERB_PAIR", "event_cases"]

#: two arguments (agents or themes), two verbs, two frames and two one-event texts
AGENT_PAIR = ("man", "woman")
VERB_PAIR = ("walk", "run")
FRAME_PAIR = ("direct", "with")
TEXT_PAIR = ("The man saw the dog.", "The woman saw the dog.")
#: epsilon per frame changed in the frame case (low enough that a kept frame is seen often)
FRAME_EPSILON = 3.0
#: epsilon of the end-to-end case (per unit of word distance)
TEXT_EPSILON = 3.0


def _mechanism(name: str, ctx: Context, epsilon: float) -> Any:
    from authormask.audit.case_spec import core_mechanism

    mech: Any = core_mechanism(name, epsilon=epsilon, embeddings=ctx.glove(), vocab_size=None)
    while hasattr(mech, "inner"):
        mech = mech.inner
    return mech


def _kernel_case(name: str, case: str, which: str, pair: tuple[str, str]) -> Any:
    def build(ctx: Context) -> AuditCase:
        mech = _mechanism(name, ctx, EMP_EPSILON_GLOVE)
        kernel = getattr(mech, which)
        emb = mech.embeddings
        a, b = pair
        d = float(np.linalg.norm(emb.lookup([a])[0].astype(np.float64) - emb.lookup([b])[0]))

        def sampler(x: Any, n: int, rng: np.random.Generator) -> NDArray[Any]:
            noisy = kernel.noisy_vectors([emb.index_of(str(x))] * n, random_state=rng)
            return np.asarray(kernel.snap(noisy), dtype=np.int64)

        return AuditCase(
            mechanism=name,
            case=case,
            description=f"{name}'s {which.replace('_', ' ')} and posterior decoder, "
            f"{emb.identity.name} ({len(emb.words)} words), {a} vs {b}, eps*d = "
            f"{EMP_EPSILON_GLOVE:g}*{d:.4f}",
            epsilon_stated=EMP_EPSILON_GLOVE * d,
            neighbours=pair,
            sampler=sampler,
            labels=_word_labels(emb, 1),
        )

    return build


def _frames(name: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        mech = _mechanism(name, ctx, FRAME_EPSILON)  # at the default frame weight, 1
        kernel = mech.frame_kernel
        if kernel.epsilon > FRAME_EPSILON:
            raise AssertionError(f"the frame kernel is at {kernel.epsilon}, above {FRAME_EPSILON}")
        alphabet = kernel.alphabet

        def sampler(x: Any, n: int, rng: np.random.Generator) -> NDArray[Any]:
            out = kernel.release([x] * n, rng)
            return np.array([kernel.index[w] for w in out], dtype=np.intp)

        return AuditCase(
            mechanism=name,
            case="frames-rr",
            description=f"{name}'s own frame kernel (k-ary randomized response on its "
            f"{len(alphabet)} frames), {FRAME_PAIR[0]} vs {FRAME_PAIR[1]}, eps = "
            f"{FRAME_EPSILON:g} per frame changed",
            epsilon_stated=FRAME_EPSILON,
            neighbours=FRAME_PAIR,
            sampler=sampler,
            labels=lambda code: alphabet[int(code)],
        )

    return build


def _texts(name: str) -> Callable[[Context], AuditCase]:
    """Two one-event texts that differ in the agent, end to end (parse, noise, decoders,
    writing); the released text is the output."""

    def build(ctx: Context) -> AuditCase:
        mech = _mechanism(name, ctx, TEXT_EPSILON)
        emb = mech.embeddings
        a, b = (mech.prepare(t) for t in TEXT_PAIR)
        if len(a.events) != 1 or len(b.events) != 1:
            raise AssertionError(f"{TEXT_PAIR} should be one event each")
        u, v = a.events[0].agent, b.events[0].agent
        d = float(np.linalg.norm(emb.lookup([u])[0].astype(np.float64) - emb.lookup([v])[0]))
        units = {TEXT_PAIR[0]: a, TEXT_PAIR[1]: b}
        codes: dict[str, int] = {}
        texts: list[str] = []

        def sampler(x: Any, n: int, rng: np.random.Generator) -> NDArray[Any]:
            unit = units[str(x)]
            seeds = rng.integers(0, 2**63, size=n)
            outs = mech.perturb([unit] * n, [np.random.default_rng(int(s)) for s in seeds])
            out = np.empty(n, dtype=np.int64)
            for i, o in enumerate(outs):
                if o.text not in codes:
                    codes[o.text] = len(texts)
                    texts.append(o.text)
                out[i] = codes[o.text]
            return out

        return AuditCase(
            mechanism=name,
            case="text-agent",
            description=f"{name} end to end on {TEXT_PAIR[0]!r} vs {TEXT_PAIR[1]!r} (one event "
            f"each, agents {u} vs {v}), eps*d = {TEXT_EPSILON:g}*{d:.4f}",
            epsilon_stated=TEXT_EPSILON * d,
            neighbours=TEXT_PAIR,
            sampler=sampler,
            labels=lambda code: texts[int(code)],
        )

    return build


def event_cases(name: str) -> tuple[tuple[str, Callable[[Context], AuditCase]], ...]:
    """The cases of emp-event registered as ``name``: (case name, builder).

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
        ("arguments-glove", _kernel_case(name, "arguments-glove", "argument_kernel", AGENT_PAIR)),
        ("verbs-glove", _kernel_case(name, "verbs-glove", "verb_kernel", VERB_PAIR)),
        ("frames-rr", _frames(name)),
        ("text-agent", _texts(name)),
    )
