"""Scores of the evaluations: the Wilson interval of an accuracy, and PAN's macro-F1.

* :func:`wilson_interval`: the Wilson score interval of a binomial proportion (Wilson 1927;
  Brown, Cai & DasGupta 2001 recommend it over the normal approximation for small n).
* :func:`pan_macro_f1`: the measure of the PAN 2018-2019 cross-domain authorship attribution
  tasks (Kestemont et al. 2018, 2019): F1 per author, averaged over the authors of the ground
  truth. An unanswered text, an answer of ``<UNK>`` (the reject class) and an answer that is no
  candidate all count as ``<UNK>``; the ``<UNK>`` class itself is left out of the average, as
  the tasks' rules say.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from authormask.exceptions import InvalidParameterError

__all__ = ["UNKNOWN", "Interval", "PanScore", "pan_macro_f1", "wilson_interval"]

#: PAN's reject class
UNKNOWN = "<UNK>"

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class Interval:
    """A proportion ``k/n`` and its two-sided confidence interval.

    Attributes
    ----------
    successes
        The successes ``k``.
    total
        The trials ``n``.
    low
        The interval's lower end.
    high
        The interval's upper end.
    """

    successes: int
    total: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.successes / self.total

    def to_dict(self) -> dict[str, float | int]:
        """The proportion and its interval, JSON-ready.

        Returns
        -------
        dict[str, float | int]
            ``successes``, ``total``, ``value``, ``low`` and ``high``.
        """
        return {
            "successes": self.successes,
            "total": self.total,
            "value": self.value,
            "low": self.low,
            "high": self.high,
        }


def wilson_interval(successes: int, total: int, *, z: float = _Z95) -> Interval:
    """Wilson score interval of ``successes`` out of ``total`` (default 95%, z = 1.96).

    Parameters
    ----------
    successes
        The successes, in [0, ``total``].
    total
        The trials (at least 1).
    z
        The normal quantile of the confidence level.

    Returns
    -------
    Interval
        The proportion and its interval.

    Raises
    ------
    InvalidParameterError
        If ``total`` is below 1 or ``successes`` is not in [0, ``total``].

    Examples
    --------
    >>> i = wilson_interval(25, 50)
    >>> round(i.low, 3), round(i.high, 3)
    (0.366, 0.634)
    >>> wilson_interval(0, 10).low
    0.0
    """
    if total < 1:
        raise InvalidParameterError(f"an interval needs at least one trial, got {total}")
    if not 0 <= successes <= total:
        raise InvalidParameterError(f"successes must be in [0, {total}], got {successes}")
    p = successes / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    return Interval(successes, total, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class PanScore:
    """PAN's scores of one problem's answers.

    Attributes
    ----------
    macro_f1
        The mean F1 over the ground truth's authors, ``<UNK>`` left out (the tasks' rule).
    macro_f1_with_unk
        The same mean with ``<UNK>`` counted as a class when it is in the truth.
    accuracy
        The share of answers equal to the truth, ``<UNK>`` included.
    correct
        The answers equal to the truth.
    total
        The texts of the ground truth.
    per_author
        The F1 of each class of the ground truth.
    """

    macro_f1: float  # over the ground truth's authors, <UNK> left out (the tasks' rule)
    macro_f1_with_unk: float  # the same average with <UNK> counted as a class when in the truth
    accuracy: float  # micro: answers equal to the truth, <UNK> included
    correct: int
    total: int
    per_author: dict[str, float]

    def to_dict(self) -> dict[str, object]:
        """The scores, JSON-ready.

        Returns
        -------
        dict[str, object]
            The fields by name.
        """
        return {
            "macro_f1": self.macro_f1,
            "macro_f1_with_unk": self.macro_f1_with_unk,
            "accuracy": self.accuracy,
            "correct": self.correct,
            "total": self.total,
            "per_author": self.per_author,
        }


def pan_macro_f1(
    truth: Mapping[str, str], answers: Mapping[str, str | None], candidates: Sequence[str]
) -> PanScore:
    """PAN's macro-F1 of ``answers`` (text name -> candidate, ``<UNK>`` or ``None``) against
    ``truth`` (text name -> candidate or ``<UNK>``).

    Parameters
    ----------
    truth
        Text name -> its author among ``candidates``, or ``<UNK>``.
    answers
        Text name -> the answer (a candidate, ``<UNK>`` or ``None``).
    candidates
        The candidate authors; any other answer counts as ``<UNK>``.

    Returns
    -------
    PanScore
        The scores.

    Raises
    ------
    InvalidParameterError
        If ``truth`` is empty.

    Examples
    --------
    >>> truth = {"u1": "a", "u2": "a", "u3": "b", "u4": "<UNK>"}
    >>> s = pan_macro_f1(truth, {"u1": "a", "u2": "b", "u3": "b", "u4": None}, ["a", "b"])
    >>> round(s.macro_f1, 4), s.correct
    (0.6667, 3)
    """
    allowed = set(candidates)
    gold: list[str] = []
    silver: list[str] = []
    for name in sorted(truth):
        gold.append(truth[name])
        answer = answers.get(name)
        silver.append(answer if answer is not None and answer in allowed else UNKNOWN)
    if not gold:
        raise InvalidParameterError("PAN macro-F1 needs at least one unknown text")

    def f1(label: str) -> float:
        tp = sum(1 for g, s in zip(gold, silver, strict=True) if g == label and s == label)
        fp = sum(1 for g, s in zip(gold, silver, strict=True) if g != label and s == label)
        fn = sum(1 for g, s in zip(gold, silver, strict=True) if g == label and s != label)
        return 2 * tp / (2 * tp + fp + fn) if tp else 0.0

    classes = sorted(set(gold))
    per_author = {c: f1(c) for c in classes}
    authors = [c for c in classes if c != UNKNOWN]
    macro = sum(per_author[c] for c in authors) / len(authors) if authors else 0.0
    correct = sum(1 for g, s in zip(gold, silver, strict=True) if g == s)
    return PanScore(
        macro_f1=macro,
        macro_f1_with_unk=sum(per_author.values()) / len(classes),
        accuracy=correct / len(gold),
        correct=correct,
        total=len(gold),
        per_author=per_author,
    )
