"""Audit cases of the token mechanisms: the exponential mechanism (``erae``, ``ae-dp``, ``syntf``)
and ``random-r``.

* **Exponential mechanism** (``erae``, ``ae-dp``, ``syntf``; Bo et al. 2021, Eq. 6 and
  Algorithm 1; Weggenmann & Kerschbaum 2018): each token is one exponential-mechanism draw,
  ``epsilon``-DP per token. The cases use K outputs and the two rating vectors at the extreme of
  the allowed change, ``r = [hi, lo, ..., lo]`` and ``r' = [lo, hi, ..., hi]`` (every rating
  moves by the full sensitivity), whose privacy loss tends to ``epsilon`` as K grows: the worst
  case over *all* models. ``erae`` and ``ae-dp`` need no trained model: the ratings are fed to
  :class:`~authormask.mechanisms.generation.ERAEMechanism`'s own ``draw`` (its clip to [0, 1]
  and sensitivity 1), exactly as it configures the exponential mechanism for any model.
  ``syntf`` runs end to end (``prepare`` and ``perturb``) on a 2-d embedding whose cosine
  ratings are exactly +-1 (sensitivity 2). ``K10`` has the most power; ``K1000`` gives
  token 0 probability 3.7e-4 under ``r'`` (below 2^-10) and 2.7e-3 under ``r``, where a sampler
  that cannot reach small-probability outputs (Ilvento 2020; Mironov 2012) would show.
  ``erae``'s ``K2048`` is drawn as a trained model's rows are: ``r`` (one output above a low
  band of 2,047) on the sampler's sparse path, ``r'`` on its dense path.

* **Random-R** (``random-r``): stated epsilon 0 (the words of the output do not depend on the
  input), run end to end on two different input texts.

The table of every mechanism's cases is :data:`authormask.audit.cases.AUDITORS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.case_spec import Context
from authormask.audit.core import AuditCase, Sampler
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError

__all__ = ["EXP_EPSILON", "extreme_ratings", "token_draw_sampler", "token_text_sampler"]

#: Per-token epsilon of the exponential-mechanism cases.
EXP_EPSILON = 2.0
SYNTF_INPUTS = ("alpha", "omega")
DRAW_BLOCK = 50_000  # ratings per draw() call of token_draw_sampler
TOKEN_TEXT_LENGTH = 50  # segment length of the stand-in ER-AE configuration


# --- exponential mechanism ----------------------------------------------------------------------


def extreme_ratings(
    n_outputs: int, *, low: float, high: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``r = [high, low, ..., low]`` and ``r' = [low, high, ..., high]``: every rating moves by
    ``high - low`` (the full sensitivity), the worst case of the exponential mechanism.

    Parameters
    ----------
    n_outputs
        The number of outputs ``K`` (at least 2).
    low
        The lowest rating.
    high
        The highest rating.

    Returns
    -------
    tuple[NDArray[np.float64], NDArray[np.float64]]
        The two rating vectors ``r`` and ``r'``.

    Raises
    ------
    InvalidParameterError
        If ``n_outputs`` is below 2.
    """
    if n_outputs < 2:
        raise InvalidParameterError(f"need at least 2 outputs, got {n_outputs}")
    r = np.full(n_outputs, low, dtype=np.float64)
    r[0] = high
    rp = np.full(n_outputs, high, dtype=np.float64)
    rp[0] = low
    return r, rp


def token_draw_sampler(mechanism: Any) -> Sampler:
    """Sampler of a token mechanism's ``draw(rating, rng)``: input = one rating vector over the
    K outputs; ``n`` draws = ``draw`` on ``n`` copies of it; output = the token index.

    Parameters
    ----------
    mechanism
        The token mechanism (its ``draw``).

    Returns
    -------
    Sampler
        The sampler.
    """

    def sample(rating: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        row = np.asarray(rating, dtype=np.float64)
        block = max(1, DRAW_BLOCK // row.size)  # rows per call: keeps the matrices in cache
        parts = [
            np.asarray(mechanism.draw(np.broadcast_to(row, (min(block, n - i), row.size)), rng))
            for i in range(0, n, block)
        ]
        return np.concatenate(parts).astype(np.int64, copy=False)

    return sample


def token_text_sampler(mechanism: Any) -> Sampler:
    """Sampler of a token mechanism end to end: input = a word; ``n`` draws = a text of the word
    repeated ``n`` times (cut into segments), prepared and perturbed; output = the index of
    each released token in the output vocabulary.

    Parameters
    ----------
    mechanism
        The token mechanism (its ``prepare``, ``perturb`` and ``output_words``).

    Returns
    -------
    Sampler
        The sampler; it raises :class:`~authormask.exceptions.InvalidParameterError` for a word
        that is not a single token.
    """
    index = {w: i for i, w in enumerate(mechanism.output_words)}

    @functools.lru_cache(maxsize=8)
    def prepared(word: str, n: int) -> Any:
        seg = mechanism.prepare(" ".join([word] * n))  # cut into segments of max_length tokens
        if seg.tokens != n:
            raise InvalidParameterError(f"{word!r} is not a single token")
        return seg

    def sample(word: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        out = mechanism.perturb([prepared(str(word), n)], [rng])[0]
        return np.array([index[w] for w in out.words], dtype=np.int64)

    return sample


@dataclass(frozen=True)
class _StandInIdentity:
    """The stand-in model's identity (it names no weights, vocabulary or corpus)."""

    def to_dict(self) -> dict[str, Any]:
        return {"model": "audit stand-in (ratings fed directly)"}


class _RatingsOnlyModel:
    """Stands in for a trained ER-AE model in :class:`ERAEMechanism`: it only supplies the output
    vocabulary size and the configuration (reward or not); the audit hands the ratings to
    ``draw`` itself, so no model is ever evaluated."""

    def __init__(self, n_outputs: int, *, reward: bool) -> None:
        self.vocab = SimpleNamespace(words=tuple(f"t{i}" for i in range(n_outputs)))
        self.config = SimpleNamespace(max_length=TOKEN_TEXT_LENGTH, uses_reward=reward)

    def ratings(self, ids: Any, *, batch_size: int = 256) -> Any:
        raise NotImplementedError("the audit feeds ratings to draw() directly")

    def overlap(self, segments: Any) -> int:
        return 0

    @property
    def identity(self) -> _StandInIdentity:
        return _StandInIdentity()


def _token_labels(prefix: str) -> Callable[[int], str]:
    return lambda code: f"{prefix}{code}"


def _erae(kind: str, n_outputs: int) -> Callable[[Context], AuditCase]:
    """The exponential mechanism as ER-AE or AE-DP (registered as ``kind``) configures it, with
    a stand-in model of the kind its registry spec requires (``model_kind``)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.core import mechanism_spec
        from authormask.mechanisms.generation import ERAEMechanism

        reward = mechanism_spec(kind).model_kind == "reward"
        mech = ERAEMechanism(_RatingsOnlyModel(n_outputs, reward=reward), epsilon=EXP_EPSILON)
        if mech.name != kind:  # pragma: no cover - guards the stand-in
            raise RuntimeError(f"built {mech.name}, wanted {kind}")
        low = mech.rating_low
        r, rp = extreme_ratings(n_outputs, low=low, high=low + mech.rating_range)
        return AuditCase(
            mechanism=kind,
            case=f"extreme-K{n_outputs}",
            description=f"exponential mechanism as {kind} configures it (sensitivity "
            f"{mech.sensitivity:g}, ratings in [{low:g}, {low + mech.rating_range:g}]), "
            f"K={n_outputs}, ratings [1,0,...,0] vs [0,1,...,1] (worst case over all models), "
            f"per-token epsilon {mech.epsilon:g}",
            epsilon_stated=mech.epsilon,
            neighbours=(r, rp),
            sampler=token_draw_sampler(mech),
            slack=2.0 * mech.slack(),
            labels=_token_labels("token "),
        )

    return build


def _token_embeddings(n_outputs: int) -> Embeddings:
    """``n_outputs`` output words (``o0`` at (1, 0), the others at (-1, 0)) and two input words
    ``alpha`` = (1, 0) and ``omega`` = (-1, 0): cosine ratings exactly [1,-1,...] / [-1,1,...]."""
    words = (*(f"o{i}" for i in range(n_outputs)), *SYNTF_INPUTS)
    vectors = np.zeros((len(words), 2), dtype=np.float32)
    vectors[:, 0] = -1.0
    vectors[0, 0] = 1.0
    vectors[n_outputs, 0] = 1.0
    return Embeddings(
        name=f"audit-tokens-{n_outputs}", source="authormask.audit", words=words, vectors=vectors
    )


def _syntf(name: str, n_outputs: int) -> Callable[[Context], AuditCase]:
    """``syntf`` (registered as ``name``) end to end, ``n_outputs`` output words."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        mech: Any = core_mechanism(
            name,
            epsilon=EXP_EPSILON,
            embeddings=_token_embeddings(n_outputs),
            vocab_size=None,
            output_size=n_outputs,
        )
        return AuditCase(
            mechanism=name,
            case=f"extreme-K{n_outputs}",
            description=f"{name} end to end (sensitivity {mech.sensitivity:g}, cosine ratings "
            f"in [-1, 1]), K={n_outputs}, inputs alpha vs omega rated exactly [1,-1,...,-1] vs "
            f"[-1,1,...,1] (the worst case), per-token epsilon {mech.epsilon:g}",
            epsilon_stated=mech.epsilon,
            neighbours=SYNTF_INPUTS,
            sampler=token_text_sampler(mech),
            slack=2.0 * mech.slack(),
            labels=_token_labels("o"),
        )

    return build


def _random_r(name: str, n_outputs: int) -> Callable[[Context], AuditCase]:
    """``random-r`` (registered as ``name``) end to end, ``n_outputs`` output words."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        mech: Any = core_mechanism(
            name,
            embeddings=_token_embeddings(n_outputs),
            vocab_size=None,
            output_size=n_outputs,
        )
        return AuditCase(
            mechanism=name,
            case=f"uniform-K{n_outputs}",
            description=f"{name} end to end, K={n_outputs}, input texts alpha vs omega; the "
            "words of the output do not depend on the input (epsilon 0)",
            epsilon_stated=0.0,
            neighbours=SYNTF_INPUTS,
            sampler=token_text_sampler(mech),
            slack=2.0 * mech.slack(),
            labels=_token_labels("o"),
        )

    return build
