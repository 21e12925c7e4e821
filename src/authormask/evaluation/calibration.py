"""Per-epsilon word statistics, to choose epsilon for a given set of embeddings.

The scale of epsilon depends on the embeddings (the noise radius has mean n / epsilon in the
units of the vectors), so the same epsilon means very different things for GloVe 50-d and
word2vec 300-d. For each epsilon these statistics are estimated by sampling the per-word
mechanism K that ``emp-bag`` and ``emp-text`` apply to every content word (this is a study of K
itself, word by word, not a release: nothing is published, so it samples K directly rather than
through :func:`authormask.core.release`, which would also tokenise and drop punctuation-like
vocabulary entries).

The change rate (:data:`CHANGE_RATE_RULE`, :func:`changed_share`) is the one measure of how much a
release rewrites, and :func:`expected_change` its one estimate for a mechanism: the mean change
rate of seeded releases of :data:`REFERENCE_TEXT` (a running text with its function words, as a
user's text is), or its exact value where the mechanism can compute its output distribution.
``authormask serve`` shows it beside epsilon ("about X% of words will change") and
``evaluate --epsilons auto`` aims at targets of it (:func:`auto_epsilons`), so the two read the
same figure at the same epsilon.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.earth_movers import EarthMoversMechanism
from authormask.randomness import RandomState, check_random_state
from authormask.text.stopwords import default_stopwords
from authormask.validation import check_epsilon, check_positive_int

logger = logging.getLogger(__name__)

__all__ = [
    "AUTO_TARGETS",
    "CHANGE_RATE_RULE",
    "ESTIMATE_SEEDS",
    "REFERENCE_TEXT",
    "CalibrationResult",
    "CalibrationRow",
    "EpsilonChoice",
    "auto_epsilons",
    "change_rate",
    "changed_share",
    "expected_change",
    "in_place_change_rate",
    "probe_words",
    "text_words",
    "word_statistics",
]


@dataclass(frozen=True)
class CalibrationRow:
    """Statistics of the per-word mechanism at one epsilon, averaged over the probe words.

    ``p_unchanged``: probability that a word comes back as itself. ``effective_outputs``:
    ``exp(entropy)`` of the output distribution (1 = always the same word). ``distinct_outputs``:
    distinct words seen in ``samples`` draws. ``mean_radius``: expected noise norm ``n / eps``.

    Attributes
    ----------
    epsilon
        The epsilon of the row.
    p_unchanged
        The probability that a word comes back as itself.
    p_unchanged_stderr
        The standard error of ``p_unchanged`` over the probe words.
    effective_outputs
        ``exp(entropy)`` of the output distribution.
    distinct_outputs
        The distinct words seen in the draws of one word.
    mean_radius
        The expected noise norm ``n / eps``.
    """

    epsilon: float
    p_unchanged: float
    p_unchanged_stderr: float
    effective_outputs: float
    distinct_outputs: float
    mean_radius: float


@dataclass(frozen=True)
class CalibrationResult:
    """The outcome of :func:`word_statistics`: the rows of every epsilon, and what they were
    measured on.

    Attributes
    ----------
    embeddings
        The identity of the embeddings (:meth:`~authormask.embeddings.Embeddings.identity`,
        as a dict).
    words
        The probe words.
    samples
        The draws per probe word at each epsilon.
    rows
        One row per epsilon, in the order given.
    """

    embeddings: dict[str, object]
    words: tuple[str, ...]
    samples: int
    rows: tuple[CalibrationRow, ...]


def word_statistics(
    embeddings: Embeddings,
    *,
    epsilons: Sequence[float],
    words: Sequence[str] | None = None,
    n_words: int = 100,
    samples: int = 100,
    pool: int = 2000,
    random_state: RandomState = None,
    progress: Callable[[int], None] | None = None,
) -> CalibrationResult:
    """Estimate, per epsilon, how often words survive and how many outputs they spread over.

    Probe words default to ``n_words`` drawn uniformly from the ``pool`` most frequent
    non-stopword words of the vocabulary.

    Parameters
    ----------
    embeddings
        The embeddings the per-word mechanism runs on.
    epsilons
        The epsilons to measure (at least one).
    words
        The probe words (each in the vocabulary), or ``None`` to draw them.
    n_words
        How many probe words to draw when ``words`` is ``None``.
    samples
        The draws per probe word at each epsilon.
    pool
        The most frequent words the probe words are drawn from.
    random_state
        The seed or generator of the draws.
    progress
        Called with 1 after each epsilon, or ``None``.

    Returns
    -------
    CalibrationResult
        One row per epsilon.

    Raises
    ------
    InvalidParameterError
        If ``epsilons`` is empty, no probe word is available, or a probe word given is not in
        the vocabulary.
    """
    if not epsilons:
        raise InvalidParameterError("at least one epsilon is needed")
    eps_list = [check_epsilon(e) for e in epsilons]
    samples = check_positive_int(samples, name="samples")
    rng = check_random_state(random_state)
    if words is None:
        n_words = check_positive_int(n_words, name="n_words")
        stop = default_stopwords()
        candidates = [w for w in embeddings.words[: max(pool, n_words)] if w not in stop]
        if not candidates:
            raise InvalidParameterError("no probe words available in the vocabulary")
        pick = rng.choice(len(candidates), size=min(n_words, len(candidates)), replace=False)
        probe = tuple(candidates[int(i)] for i in np.sort(pick))
    else:
        probe = tuple(words)
        missing = [w for w in probe if w not in embeddings]
        if missing:
            raise InvalidParameterError(f"probe words not in the vocabulary: {missing[:5]}")
    rows_in = np.repeat([embeddings.index_of(w) for w in probe], samples)
    out_rows: list[CalibrationRow] = []
    for eps in eps_list:
        # the search index is the shared one of these embeddings, built once for every epsilon
        # (and for every release with the same Embeddings object)
        mech = EarthMoversMechanism(embeddings, epsilon=eps)
        out = mech.perturb_indices(rows_in, random_state=rng).reshape(len(probe), samples)
        src = rows_in.reshape(len(probe), samples)
        same = (out == src).mean(axis=1)
        eff = []
        distinct = []
        for row in out:
            counts = np.array(list(Counter(row.tolist()).values()), dtype=np.float64)
            p = counts / counts.sum()
            eff.append(float(np.exp(-(p * np.log(p)).sum())))
            distinct.append(len(counts))
        out_rows.append(
            CalibrationRow(
                epsilon=eps,
                p_unchanged=float(same.mean()),
                p_unchanged_stderr=float(same.std(ddof=1) / np.sqrt(len(same)))
                if len(same) > 1
                else 0.0,
                effective_outputs=float(np.mean(eff)),
                distinct_outputs=float(np.mean(distinct)),
                mean_radius=embeddings.dimension / eps,
            )
        )
        if progress is not None:
            progress(1)
    return CalibrationResult(
        embeddings=embeddings.identity.to_dict(),
        words=probe,
        samples=samples,
        rows=tuple(out_rows),
    )


# --- the change rate: one definition, for the page and for --epsilons auto --------------------

#: what a change rate is, in words: the one definition the page's estimate ("about X% of words
#: will change") and ``--epsilons auto``'s targets share (both state it)
CHANGE_RATE_RULE = (
    "the share of all of a text's words, content and function words alike, that its release "
    "replaces: the words (runs of letters and digits, lower-cased) compared position by "
    "position where the release has as many, else along their longest common subsequence "
    "(words a release writes of its own are not counted); for a bag of words, the share of "
    "the bag's words that are not words of the text. A mechanism's rate at an epsilon is "
    "estimated on a public reference text of ordinary English (334 words, half of them "
    "function words): the mean over two seeded releases, or exact where the mechanism "
    "computes its output distribution"
)

#: a running text of ordinary English (334 words, no names), released to estimate the change
#: rate of a text like a user's: narrative and opinion, its function words half its words and
#: "the" 6% of them, as in everyday prose
REFERENCE_TEXT = """\
Last spring my sister and I finally walked the coast path from our home town to the lighthouse \
at the end of the point. We had talked about it for years, but there was always some reason to \
wait: work, bad weather, the children, a car that needed new brakes. In the end we simply \
picked a weekend, packed two small bags and told everyone we would be back on Monday.

Our first morning was cold and bright. We left before breakfast, bought bread and coffee at a \
bakery near the station and followed the river down to the sea. From there the path climbs \
quickly, and within an hour we could see the whole bay below us, with fishing boats moving \
slowly between the islands. My sister kept stopping to take pictures, and I kept telling her \
that the view would be even better at the top. It was.

By the afternoon the wind had changed, and dark clouds were coming in from the west. We found a \
farm that let rooms to walkers, and its owner, a quiet man with a friendly dog, showed us where \
to hang our wet coats. That evening he made soup for us and explained how his village had \
changed since its school closed and most young families moved to the city.

I think many people would enjoy a trip like ours, although it is not for everyone. You need \
decent boots, some patience and a little luck with the weather. Some parts of the path are \
muddy, and a few are steep enough to be a real problem for anyone with bad knees. Still, if you \
can manage it, I would recommend it without hesitation: it costs very little, it takes you away \
from screens and traffic, and it gives you time to talk.

Looking back, I am glad we went, and I hope we can do it again next year, perhaps with our \
children this time, if they are willing to carry their own bags.
"""

_WORD = re.compile(r"(?:[^\W_]|[\u0300-\u036f])+")
#: above this many cells the longest common subsequence gives way to a multiset match
_LCS_CELLS = 4_000_000


def text_words(text: str) -> list[str]:
    """The words of ``text`` as a change rate reads them: runs of letters (with their combining
    marks) and digits, lower-cased; an apostrophe or a hyphen parts words (``father's``: father,
    s), so a clitic a release writes of its own is not a change of its word.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    list[str]
        Its words, in order.
    """
    return [w.lower() for w in _WORD.findall(text)]


def changed_share(original: str, released: str, *, bag: bool = False) -> float:
    """The change rate (:data:`CHANGE_RATE_RULE`) of one release: the share of ``original``'s
    words that ``released`` does not keep. Position by position where both have as many words;
    else the words outside a longest common subsequence (a multiset match past
    4,000,000 cells, as the page's highlighting does); ``bag``: the share of the released
    words that are not words of ``original`` (as multisets).

    Parameters
    ----------
    original
        The text released.
    released
        The released text.
    bag
        Whether ``released`` is a bag of words.

    Returns
    -------
    float
        The change rate, in [0, 1].

    Examples
    --------
    >>> changed_share("The cat sat on the mat.", "The dog sat on the mat.")
    0.16666666666666666
    >>> changed_share("the cat sat", "cat the sat", bag=True)
    0.0
    """
    a, b = text_words(original), text_words(released)
    if bag:
        kept = sum((Counter(a) & Counter(b)).values())
        return (len(b) - kept) / len(b) if b else 0.0
    if not a:
        return 0.0
    if len(a) == len(b):
        kept = sum(x == y for x, y in zip(a, b, strict=True))
    elif len(a) * len(b) <= _LCS_CELLS:
        kept = _common_subsequence(a, b)
    else:
        kept = sum((Counter(a) & Counter(b)).values())
    return (len(a) - kept) / len(a)


def _common_subsequence(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of a longest common subsequence of ``a`` and ``b``."""
    below = [0] * (len(b) + 1)
    for x in reversed(a):
        row = [0] * (len(b) + 1)
        for j in range(len(b) - 1, -1, -1):
            row[j] = below[j + 1] + 1 if x == b[j] else max(below[j], row[j + 1])
        below = row
    return below[0]


def change_rate(mechanism: object, text: str | Sequence[str], *, seed: int = 0) -> float:
    """The change rate (:data:`CHANGE_RATE_RULE`) of one release of ``text`` (a text, or words
    joined by spaces: the probe of ``--epsilons auto``) by ``mechanism`` with ``seed``.

    Parameters
    ----------
    mechanism
        The mechanism (a :class:`~authormask.core.Mechanism`).
    text
        The text, or its words.
    seed
        The release's seed.

    Returns
    -------
    float
        The change rate of the release.
    """
    from authormask.core import Mechanism, release

    assert isinstance(mechanism, Mechanism)
    original = text if isinstance(text, str) else " ".join(text)
    doc = release([original], mechanism, random_state=seed).documents[0]
    return changed_share(original, doc.text, bag=doc.bag is not None)


def in_place_change_rate(mechanism: object, probe: str | Sequence[str], *, seed: int = 0) -> float:
    """The same as :func:`change_rate` (one definition; kept for its callers).

    Parameters
    ----------
    mechanism
        The mechanism (a :class:`~authormask.core.Mechanism`).
    probe
        The text, or its words.
    seed
        The release's seed.

    Returns
    -------
    float
        The change rate of the release.
    """
    return change_rate(mechanism, probe, seed=seed)


#: seeded releases of the reference text whose mean is a mechanism's expected change rate
ESTIMATE_SEEDS = 2


def expected_change(
    mechanism: object,
    *,
    example: str | None = None,
    seeds: int = ESTIMATE_SEEDS,
    seed: int = 0,
) -> float:
    """The expected change rate (:data:`CHANGE_RATE_RULE`) of ``mechanism``: the one estimate
    that ``authormask serve`` shows beside epsilon and ``evaluate --epsilons auto`` aims at
    (:func:`auto_epsilons`). On ``example`` (:data:`REFERENCE_TEXT` by default, a running text
    with its function words, as a user's is): from the exact output distribution of each token
    of its first segments where the mechanism can compute it
    (:meth:`~authormask.core.Mechanism.unchanged_probabilities`), else the mean
    :func:`change_rate` of ``seeds`` releases with seeds ``seed``, ``seed + 1``, ... A bag
    mechanism should be given with a length that takes every content word
    (``length="shortest"``).

    Parameters
    ----------
    mechanism
        The mechanism (a :class:`~authormask.core.Mechanism`).
    example
        The text to release, or ``None`` for :data:`REFERENCE_TEXT`.
    seeds
        How many seeded releases to average when the rate is not exact.
    seed
        The first seed.

    Returns
    -------
    float
        The expected change rate, in [0, 1].
    """
    from authormask.core import Mechanism

    assert isinstance(mechanism, Mechanism)
    text = REFERENCE_TEXT if example is None else example
    same = mechanism.unchanged_probabilities(text)
    if same is not None:
        return 1.0 - float(np.mean(same)) if same else 1.0
    seeds = check_positive_int(seeds, name="seeds")
    return float(np.mean([change_rate(mechanism, text, seed=seed + s) for s in range(seeds)]))


# --- --epsilons auto: epsilons calibrated on each mechanism's own scale -----------------------

#: where ``--epsilons auto`` aims, as shares of each mechanism's reach (the smallest to the
#: largest change rate it makes, :data:`CHANGE_RATE_RULE`: shares of all of a text's words, as
#: the page shows them; emp-text never replaces a function word, so it changes at most about
#: half of a running text's words): 7 points spread over what it can do (:func:`auto_epsilons`)
AUTO_TARGETS = (0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95)
#: frequent content words in a probe of :func:`probe_words`
AUTO_PROBE_WORDS = 200
#: the log-epsilon range the bisection searches
AUTO_RANGE = (1e-3, 1e6)


@dataclass(frozen=True)
class EpsilonChoice:
    """The epsilons :func:`auto_epsilons` chose for one mechanism, largest first, with the
    change rate (:func:`expected_change`) each was measured at and the target (ascending) each
    was chosen for (:data:`AUTO_TARGETS` read on the mechanism's reach). ``reach``: the
    smallest and largest change rates measured over :data:`AUTO_RANGE`.

    Attributes
    ----------
    mechanism
        The registered name of the mechanism.
    epsilons
        The epsilons chosen, largest first.
    targets
        The target change rate of each epsilon (ascending).
    change_rates
        The change rate measured at each epsilon.
    reference_words
        The words of the reference text the rates were measured on.
    seed
        The seed of the estimates.
    measured
        How many epsilons the search measured.
    reach
        The smallest and largest change rates measured over :data:`AUTO_RANGE`.
    """

    mechanism: str
    epsilons: tuple[float, ...]
    targets: tuple[float, ...]
    change_rates: tuple[float, ...]
    reference_words: int
    seed: int
    #: how many epsilons the search measured (each an estimate from :data:`ESTIMATE_SEEDS`
    #: releases of the reference text, or an exact one)
    measured: int = 0
    reach: tuple[float, float] = (0.0, 1.0)

    def to_dict(self) -> dict[str, object]:
        """The choice, JSON-ready, with the rule it followed and the change rate's definition.

        Returns
        -------
        dict[str, object]
            The fields by name, with ``rule`` and ``change_rate``.
        """
        return {
            "mechanism": self.mechanism,
            "epsilons": list(self.epsilons),
            "targets": [None if t != t else t for t in self.targets],
            "change_rates": [round(r, 4) for r in self.change_rates],
            "reach": [round(r, 4) for r in self.reach],
            "reference_words": self.reference_words,
            "seed": self.seed,
            "measured": self.measured,
            "rule": "the targets 5%, 20%, ..., 95% of the mechanism's reach (low + t * (high - "
            "low), the smallest and largest change rates of a scan by factors of 10 from 1 "
            "over 1e-3 to 1e6); per target, the largest measured epsilon (3 significant "
            "digits) whose expected change rate on the reference text (the page's estimate, "
            "from the seed and the next one) is within 0.02 of the target, else the nearest, "
            "found by a safeguarded regula falsi on log epsilon",
            "change_rate": CHANGE_RATE_RULE,
        }


def probe_words(embeddings: Embeddings, n: int = AUTO_PROBE_WORDS) -> tuple[str, ...]:
    """``n`` frequent content words spread over the 3,000 most frequent words of the
    vocabulary (alphabetic, not stopwords): a probe of a mechanism's content-word kernel.

    Parameters
    ----------
    embeddings
        The embeddings whose vocabulary is probed.
    n
        How many words.

    Returns
    -------
    tuple[str, ...]
        The probe words.

    Raises
    ------
    InvalidParameterError
        If the vocabulary has no such word.
    """
    stop = default_stopwords()
    words = [w for w in embeddings.words[:3000] if w.isalpha() and w not in stop]
    if not words:
        raise InvalidParameterError("no probe words available in the vocabulary")
    return tuple(words[:: max(1, len(words) // n)][:n])


def _round3(log_eps: float) -> float:
    """``log_eps`` moved to the log of its epsilon rounded to 3 significant digits (so every
    epsilon chosen is one that was measured)."""
    return float(np.log(float(f"{np.exp(log_eps):.3g}")))


def _nearest(memo: dict[float, float], target: float, rate_tolerance: float) -> float:
    """The log epsilon measured (in ``memo``, log epsilon -> rate) for ``target``: the largest
    whose rate is within ``rate_tolerance`` of it (on a plateau, the least noise that gives
    that change), else the one whose rate is nearest."""
    near = [k for k, r in memo.items() if abs(r - target) <= rate_tolerance]
    if near:
        return max(near)
    return min(memo, key=lambda k: (abs(memo[k] - target), k))


def auto_epsilons(
    name: str,
    embeddings: Embeddings,
    *,
    parameters: dict[str, object] | None = None,
    targets: Sequence[float] = AUTO_TARGETS,
    seed: int = 0,
    steps: int = 16,
    tolerance: float = 0.03,
    rate_tolerance: float = 0.02,
) -> EpsilonChoice:
    """Epsilons of mechanism ``name`` whose expected change rates hit ``targets``.

    The change rate is the page's estimate (:func:`expected_change` on :data:`REFERENCE_TEXT`:
    the share of all of a text's words that a release replaces, :data:`CHANGE_RATE_RULE`), of
    the mechanism built as an evaluation builds it (entities kept: the rate of its own noise,
    :func:`~authormask.evaluation.releases.mechanism_parameters`; a bag takes every content
    word). It falls as epsilon grows, so the search works on the mechanism's own scale (Earth
    Mover's noise, exponential mechanisms, any embeddings) without knowing the mechanism. First
    a scan by factors of 10 from epsilon 1, within :data:`AUTO_RANGE`, brackets every target;
    then, per target, a safeguarded interpolation on log epsilon (regula falsi between the
    tightest measured bracket, each step kept inside the middle 80% of the bracket; at most
    ``steps`` measurements) stops once a measured rate is within ``rate_tolerance`` of the
    target or the bracket is narrower than ``tolerance`` in log epsilon (about 3%). The epsilon
    chosen is the largest measured one whose rate is within ``rate_tolerance`` of the target (on
    a plateau, the least noise giving that change), else the one whose rate is nearest: every
    epsilon is rounded to 3 significant digits before it is measured, so the change rates
    reported are those measured at the epsilons returned. Every estimate uses ``seed`` (and the
    next seed), so the choice is deterministic.

    The targets are read on the mechanism's reach, the smallest and largest rates measured over
    :data:`AUTO_RANGE` (``low + t * (high - low)``): emp-text replaces content words only (about
    half of a running text's words at most) and emp-write writes function words anew even with
    little noise, so each gets as many points as targets, spread over what it can do. Repeats
    (a flat curve) are replaced by geometric midpoints, so there are as many epsilons as
    targets.

    Parameters
    ----------
    name
        The registered name of the mechanism.
    embeddings
        The embeddings the mechanism is built with (given here, not in ``parameters``).
    parameters
        Further registry parameters (the study's stopwords), or ``None``.
    targets
        The target change rates, as shares of the mechanism's reach, each in (0, 1).
    seed
        The seed of every estimate.
    steps
        The most measurements per target after the scan.
    tolerance
        The bracket width in log epsilon below which a target's search stops.
    rate_tolerance
        How near a measured rate must be to its target to stop the search.

    Returns
    -------
    EpsilonChoice
        The epsilons, their targets and their measured change rates.

    Raises
    ------
    InvalidParameterError
        If the mechanism takes no epsilon, a target is not in (0, 1), or its change rate does
        not move over :data:`AUTO_RANGE`.
    """
    from authormask.core import create_mechanism, mechanism_spec
    from authormask.evaluation.releases import mechanism_parameters, sweeps_rate

    spec = mechanism_spec(name)
    if not spec.takes_epsilon:
        how = " (it is swept over its rates: `rates`)" if sweeps_rate(name) else ""
        raise InvalidParameterError(
            f"`epsilons` auto: mechanism {name} takes no epsilon{how}; list its epsilons or "
            "leave it out"
        )
    if not targets or any(not 0.0 < t < 1.0 for t in targets):
        raise InvalidParameterError(f"target change rates must be in (0, 1), got {targets!r}")
    memo: dict[float, float] = {}

    def rate(log_eps: float) -> float:
        key = round(log_eps, 9)
        if key not in memo:
            # the epsilon as returned (3 significant digits), to the last bit: a release's
            # noise is keyed by its statement, which prints the epsilon exactly
            params = mechanism_parameters(
                name,
                float(f"{np.exp(log_eps):.3g}"),
                embeddings=embeddings,
                length="shortest",
                # the change rate of the mechanism's own noise on the reference text (which
                # holds no name): no recogniser run for it
                entities="keep",
                extra=parameters,
            )
            memo[key] = expected_change(create_mechanism(name, **params), seed=seed)
        return memo[key]

    lo0, hi0 = float(np.log(AUTO_RANGE[0])), float(np.log(AUTO_RANGE[1]))
    # the scan: from epsilon 1, by factors of 10, until the largest and the smallest target are
    # bracketed (or the range ends)
    x = 0.0
    if rate(x) > min(targets):
        while x < hi0 and rate(x) > min(targets):
            x = min(x + float(np.log(10.0)), hi0)
            rate(x)
    x = 0.0
    if rate(x) <= max(targets):
        while x > lo0 and rate(x) <= max(targets):
            x = max(x - float(np.log(10.0)), lo0)
            rate(x)
    low, high = min(memo.values()), max(memo.values())
    if high - low < rate_tolerance:
        raise InvalidParameterError(
            f"`epsilons` auto: mechanism {name} changes {low:.0%} to {high:.0%} of a text's "
            f"words at every epsilon from {AUTO_RANGE[0]:g} to {AUTO_RANGE[1]:g}; list its "
            "epsilons"
        )
    # the targets, read on the mechanism's own reach: emp-text never replaces a function word
    # (half of a running text's words at most), emp-write writes function words anew even
    # with little noise; its frontier spans what it can do, point for point
    reached = sorted(float(f"{low + t * (high - low):.4f}") for t in targets)
    chosen: list[float] = []
    for target in sorted(reached, reverse=True):
        for _ in range(steps):
            # the tightest bracket measured so far: rate(lo) > target >= rate(hi)
            lo = max([k for k, r in memo.items() if r > target], default=lo0)
            hi = min([k for k, r in memo.items() if r <= target and k > lo], default=hi0)
            best = min(memo, key=lambda k: (abs(memo[k] - target), k))
            if abs(memo[best] - target) <= rate_tolerance or hi - lo < tolerance:
                break
            r_lo = memo.get(round(lo, 9), 1.0)
            r_hi = memo.get(round(hi, 9), 0.0)
            share = (r_lo - target) / (r_lo - r_hi) if r_lo > r_hi else 0.5
            share = min(max(share, 0.1), 0.9)
            mid = _round3(lo + share * (hi - lo))
            if round(mid, 9) in memo:  # the rounding fell on a measured point
                mid = _round3(0.5 * (lo + hi))
                if round(mid, 9) in memo:
                    break
            rate(mid)
        chosen.append(float(f"{np.exp(_nearest(memo, target, rate_tolerance)):.3g}"))
    epsilons = sorted(set(chosen), reverse=True)
    while len(epsilons) < len(reached):  # a flat curve: fill the widest gap geometrically
        if len(epsilons) == 1:
            epsilons = [epsilons[0] * 2.0, epsilons[0]]
            continue
        gaps = [epsilons[i] / epsilons[i + 1] for i in range(len(epsilons) - 1)]
        i = int(np.argmax(gaps))
        epsilons.insert(i + 1, float(f"{np.sqrt(epsilons[i] * epsilons[i + 1]):.3g}"))
        epsilons = sorted(set(epsilons), reverse=True)
    # largest epsilon first, for the smallest target first
    aimed = list(zip(epsilons, reached, strict=True))
    epsilons = [e for e, _ in aimed]
    rates = tuple(rate(float(np.log(e))) for e in epsilons)
    logger.info("auto epsilons of %s: %d epsilons measured", name, len(memo))
    return EpsilonChoice(
        mechanism=name,
        epsilons=tuple(epsilons),
        targets=tuple(t for _, t in aimed),
        change_rates=rates,
        reference_words=len(text_words(REFERENCE_TEXT)),
        seed=seed,
        measured=len(memo),
        reach=(low, high),
    )
