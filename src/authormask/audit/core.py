"""Audit one mechanism between two neighbouring inputs through a sampler callable.

A *sampler* is any callable ``sampler(input, n, rng) -> array of n integer output codes`` that
runs the mechanism ``n`` times on ``input`` with the generator ``rng``. The auditor draws
``samples`` outputs under each of the two neighbouring inputs and computes a Clopper-Pearson lower
bound on epsilon (:func:`authormask.audit.stats.epsilon_lower_bound`), in the manner of Jagielski
et al. (2020) and DP-Auditorium (Kong et al. 2024). Because the sampler is a parameter, tests
can audit deliberately broken variants of a mechanism with exactly the code that audits the real
one.
"""

from __future__ import annotations

import logging
import math
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.stats import epsilon_lower_bound
from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState
from authormask.validation import check_positive_int

__all__ = [
    "DEFAULT_CONFIDENCE",
    "AuditCase",
    "AuditResult",
    "Sampler",
    "audit_case",
    "audit_sampler",
    "case_seed_sequence",
]

logger = logging.getLogger(__name__)

DEFAULT_CONFIDENCE = 0.95

#: ``sampler(input, n, rng)``: ``n`` output codes of the mechanism run on ``input``.
Sampler = Callable[[Any, int, np.random.Generator], NDArray[np.integer[Any]]]

#: Draws requested from a sampler at once (bounds memory: K=1000 ratings are 8 kB per draw).
CHUNK = 8192


@dataclass(frozen=True)
class AuditResult:
    """One audited pair of neighbouring inputs.

    ``epsilon_stated`` is what the mechanism's guarantee says between the two inputs (``eps * d``
    for metric DP); ``epsilon_lower_bound`` is the empirical lower bound, valid with probability
    ``confidence``; ``samples`` is the number of draws *per input* (half choose the event, half
    evaluate it). ``slack`` is the floating-point slack the implementation declares (its loss is
    at most ``epsilon_stated + slack``). ``passed`` is ``epsilon_lower_bound <= epsilon_stated +
    slack``. ``event`` describes the output event that gave the bound, ``count_likely`` and
    ``count_unlikely`` its held-out counts under the input it favours and the other one, and
    ``estimate`` the plain log ratio of those counts (not a bound).

    Attributes
    ----------
    mechanism
        The registered name of the mechanism audited.
    case
        The case's name.
    description
        What the case audits, in words.
    epsilon_stated
        The epsilon the guarantee states between the two inputs.
    epsilon_lower_bound
        The empirical lower bound on epsilon.
    confidence
        The probability with which the bound holds.
    samples
        The draws per input.
    passed
        Whether ``epsilon_lower_bound <= epsilon_stated + slack``.
    slack
        The floating-point slack the implementation declares.
    event
        The output event that gave the bound, in words.
    count_likely
        The event's held-out count under the input it favours.
    count_unlikely
        The event's held-out count under the other input.
    evaluation_samples
        The held-out draws per input the event was evaluated on.
    p_lower
        The Clopper-Pearson lower bound on the event's probability under the input it favours.
    p_upper
        The Clopper-Pearson upper bound on its probability under the other input.
    estimate
        The plain log ratio of the two counts (not a bound).
    """

    mechanism: str
    case: str
    description: str
    epsilon_stated: float
    epsilon_lower_bound: float
    confidence: float
    samples: int
    passed: bool
    slack: float
    event: str
    count_likely: int
    count_unlikely: int
    evaluation_samples: int
    p_lower: float
    p_upper: float
    estimate: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (an infinite estimate becomes ``None``).

        Returns
        -------
        dict[str, Any]
            The fields by name.
        """
        d = asdict(self)
        if not math.isfinite(d["estimate"]):
            d["estimate"] = None
        return d


@dataclass(frozen=True)
class AuditCase:
    """A mechanism configuration and two neighbouring inputs to audit it on.

    ``neighbours`` are passed to ``sampler`` as its first argument; ``labels`` maps output codes
    to readable names for the report (optional).

    Attributes
    ----------
    mechanism
        The registered name of the mechanism audited.
    case
        The case's name.
    description
        What the case audits, in words.
    epsilon_stated
        The epsilon the guarantee states between the two inputs.
    neighbours
        The two neighbouring inputs ``(x, x')``.
    sampler
        Runs the mechanism: ``sampler(input, n, rng)`` gives ``n`` integer output codes.
    slack
        The floating-point slack the implementation declares.
    labels
        Maps an output code to a readable name for the report, or ``None``.
    """

    mechanism: str
    case: str
    description: str
    epsilon_stated: float
    neighbours: tuple[Any, Any]
    sampler: Sampler
    slack: float = 0.0
    labels: Callable[[int], str] | None = None


def case_seed_sequence(
    random_state: RandomState, mechanism: str, case: str
) -> np.random.SeedSequence:
    """The seed of one case: a function of the root seed and the case's name only, so a
    ``--seed`` run gives the same result for a case whichever other cases run with it.

    Parameters
    ----------
    random_state
        The root seed: ``None`` (fresh entropy), an integer seed >= 0 or a numpy Generator.
    mechanism
        The registered name of the mechanism audited.
    case
        The case's name.

    Returns
    -------
    np.random.SeedSequence
        The case's seed sequence.

    Raises
    ------
    InvalidParameterError
        If ``random_state`` is none of those, or a negative seed.
    """
    key = zlib.crc32(f"{mechanism}/{case}".encode())
    if random_state is None:
        return np.random.SeedSequence(spawn_key=(key,))
    if isinstance(random_state, np.random.Generator):
        entropy = [int(v) for v in random_state.integers(0, 2**32, size=4, dtype=np.uint64)]
        return np.random.SeedSequence(entropy, spawn_key=(key,))
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise InvalidParameterError(
            f"random_state must be None, an integer seed or a numpy Generator, got {random_state!r}"
        )
    if int(random_state) < 0:
        raise InvalidParameterError(f"seed must be an integer >= 0, got {random_state!r}")
    return np.random.SeedSequence(int(random_state), spawn_key=(key,))


def _draw(
    sampler: Sampler,
    value: Any,
    n: int,
    rng: np.random.Generator,
    progress: Callable[[int], None] | None,
) -> NDArray[np.int64]:
    out = np.empty(n, dtype=np.int64)
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        got = np.asarray(sampler(value, m, rng)).reshape(-1)
        if got.shape != (m,):
            raise RuntimeError(f"the sampler returned {got.shape[0]} outputs for {m} draws")
        if got.dtype.kind not in "iu":
            raise RuntimeError(f"the sampler must return integer output codes, got {got.dtype}")
        out[done : done + m] = got
        done += m
        if progress is not None:
            progress(m)
    return out


def _describe_event(
    event: tuple[int, ...], direction: str, labels: Callable[[int], str] | None
) -> str:
    shown = [labels(c) if labels is not None else str(c) for c in event[:5]]
    more = f", ... ({len(event)} outputs)" if len(event) > 5 else ""
    return f"{{{', '.join(shown)}{more}}} likelier under {direction}"


def audit_sampler(
    sampler: Sampler,
    neighbours: tuple[Any, Any],
    *,
    epsilon_stated: float,
    samples: int,
    confidence: float = DEFAULT_CONFIDENCE,
    random_state: RandomState | np.random.SeedSequence = None,
    slack: float = 0.0,
    mechanism: str = "custom",
    case: str = "custom",
    description: str = "",
    labels: Callable[[int], str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> AuditResult:
    """Audit ``sampler`` between ``neighbours = (x, x')`` against ``epsilon_stated``.

    Draws ``samples`` outputs under each input (two independent generators spawned from
    ``random_state``), then bounds epsilon from below at ``confidence``
    (:func:`~authormask.audit.stats.epsilon_lower_bound`). ``progress`` is called with the number
    of draws made after each chunk (``2 * samples`` in all).

    Parameters
    ----------
    sampler
        Runs the mechanism: ``sampler(input, n, rng)`` gives ``n`` integer output codes.
    neighbours
        The two neighbouring inputs ``(x, x')``.
    epsilon_stated
        The epsilon the guarantee states between the two inputs (>= 0).
    samples
        The draws per input (at least 4).
    confidence
        The probability with which the bound holds, in (0, 1).
    random_state
        The root seed, or the case's seed sequence itself.
    slack
        The floating-point slack the implementation declares.
    mechanism
        The mechanism's name, for the result and the case's seed.
    case
        The case's name, for the result and the case's seed.
    description
        What the case audits, in words.
    labels
        Maps an output code to a readable name for the report, or ``None``.
    progress
        Called with the number of draws made after each chunk, or ``None``.

    Returns
    -------
    AuditResult
        The bound and whether the statement passed.

    Raises
    ------
    InvalidParameterError
        If ``samples`` is below 4 or ``epsilon_stated`` is negative or not finite.
    """
    samples = check_positive_int(samples, name="samples")
    if samples < 4:
        raise InvalidParameterError(f"samples must be at least 4, got {samples}")
    if not (math.isfinite(epsilon_stated) and epsilon_stated >= 0):
        raise InvalidParameterError(f"epsilon_stated must be >= 0, got {epsilon_stated!r}")
    root = (
        random_state
        if isinstance(random_state, np.random.SeedSequence)
        else case_seed_sequence(random_state, mechanism, case)
    )
    rng_x, rng_xp = (np.random.Generator(np.random.PCG64(s)) for s in root.spawn(2))
    x, xp = neighbours
    out_x = _draw(sampler, x, samples, rng_x, progress)
    out_xp = _draw(sampler, xp, samples, rng_xp, progress)
    bound = epsilon_lower_bound(out_x, out_xp, confidence=confidence)
    passed = bound.epsilon_lower_bound <= epsilon_stated + slack
    result = AuditResult(
        mechanism=mechanism,
        case=case,
        description=description,
        epsilon_stated=float(epsilon_stated),
        epsilon_lower_bound=bound.epsilon_lower_bound,
        confidence=confidence,
        samples=samples,
        passed=passed,
        slack=float(slack),
        event=_describe_event(bound.event, bound.direction, labels),
        count_likely=bound.count_likely,
        count_unlikely=bound.count_unlikely,
        evaluation_samples=bound.evaluation_samples,
        p_lower=bound.p_lower,
        p_upper=bound.p_upper,
        estimate=bound.estimate,
    )
    logger.info(
        "audit %s/%s: epsilon stated %.4g, lower bound %.4g (%s)",
        mechanism,
        case,
        epsilon_stated,
        bound.epsilon_lower_bound,
        "passed" if passed else "FAILED",
    )
    return result


def audit_case(
    case: AuditCase,
    *,
    samples: int,
    confidence: float = DEFAULT_CONFIDENCE,
    random_state: RandomState = None,
    progress: Callable[[int], None] | None = None,
) -> AuditResult:
    """:func:`audit_sampler` on an :class:`AuditCase`.

    Parameters
    ----------
    case
        The case to audit.
    samples
        The draws per input (at least 4).
    confidence
        The probability with which the bound holds, in (0, 1).
    random_state
        The root seed.
    progress
        Called with the number of draws made after each chunk, or ``None``.

    Returns
    -------
    AuditResult
        The bound and whether the statement passed.
    """
    return audit_sampler(
        case.sampler,
        case.neighbours,
        epsilon_stated=case.epsilon_stated,
        samples=samples,
        confidence=confidence,
        random_state=random_state,
        slack=case.slack,
        mechanism=case.mechanism,
        case=case.case,
        description=case.description,
        labels=case.labels,
        progress=progress,
    )
