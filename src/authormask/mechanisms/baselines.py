"""``random-sub``: the simple thing every mechanism must beat, with **no** privacy guarantee.

Each word of the canonical skeleton (:mod:`authormask.text.canonical`, the same preparation as
``emp-doc``) is replaced, independently with probability ``rate``, by a word drawn uniformly:
a content word by any vocabulary word, a function word by any word of the function-word class.
The words that are not replaced are released as they are, so there is no epsilon for which the
release is differentially private (for ``rate < 1`` a word that is kept is more likely under
the input that holds it, with no bound on the ratio). At ``rate = 0`` it is the noise-off
canonical form: the text as ``emp-doc`` prepares it, every word released unchanged.

A word without a vector is fed as ``emp-doc`` feeds it (a word drawn by the unknown-word
policy, :mod:`authormask.mechanisms.unknown`), except a number
(:func:`~authormask.text.canonical.is_number`: ``12.4%``, ``1,000``, ``3189``), which has no
vector as most numbers do and is kept as written where it is not replaced: a number stays a
number (issue 47). At ``rate = 0``, ``Sales rose 12.4% in 2023.`` is released as it is with
``entities="keep"``, and with surrogates as the random numbers of the same form that the entity
step wrote.

It is drawn on every frontier (``docs/emp-doc.md``): a mechanism is only worth its name if it
keeps more utility than ``random-sub`` at the same attacker accuracy.

Its spec (random-sub) and factory, as the registry offers it:
:mod:`~authormask.mechanisms.baselines_spec`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import Output
from authormask.mechanisms.document import (
    CanonicalMechanism,
    _in_order,
    function_word_embeddings,
    function_words_policy,
    marks_policy,
)
from authormask.mechanisms.exponential import sample_uniform_index
from authormask.mechanisms.unknown import describe_unknown_policy
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.canonical import (
    CanonicalPreparer,
    CanonicalUnit,
    is_number,
    render_canonical,
)
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY

__all__ = ["RandomSubstitution", "check_rate"]


def check_rate(value: Any) -> float:
    """A probability in [0, 1].

    Parameters
    ----------
    value
        The rate given.

    Returns
    -------
    float
        The rate.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a number in [0, 1].
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"`rate` must be a number in [0, 1], got {value!r}")
    rate = float(value)
    if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
        raise InvalidParameterError(f"`rate` must be in [0, 1], got {value!r}")
    return rate


class RandomSubstitution(CanonicalMechanism):
    """``random-sub`` (module notes).

    Parameters
    ----------
    embeddings
        The vocabulary a replaced content word is drawn from.
    rate
        The probability that a word is replaced, in [0, 1].
    preparer
        The canonical preparer (its function words are the other class).
    function_words_description
        The public description of the function-word list.
    """

    name = "random-sub"
    title = (
        "Random substitution baseline: each word of the canonical skeleton replaced with "
        "probability rate by a uniformly random word of its class; NO differential privacy"
    )
    reference = "authormask baseline (issue 20): no paper, no guarantee"

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        rate: float,
        preparer: CanonicalPreparer,
        function_words_description: str,
    ) -> None:
        self.embeddings = embeddings
        self.rate = check_rate(rate)
        self.preparer = preparer
        self.function_words_description = function_words_description
        self.function_embeddings = function_word_embeddings(embeddings, preparer.function_words)

    def _substitute(
        self, words: Sequence[str], vocabulary: tuple[str, ...], rng: np.random.Generator
    ) -> tuple[str, ...]:
        replace = rng.random(len(words)) < self.rate
        picks = sample_uniform_index(int(replace.sum()), len(vocabulary), random_state=rng)
        it = iter(picks)
        return tuple(
            vocabulary[int(next(it))] if r else w for w, r in zip(words, replace, strict=True)
        )

    def perturb(
        self,
        documents: Sequence[CanonicalUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Release each canonical unit: every word replaced with probability ``rate``.

        Parameters
        ----------
        documents
            The canonical units.
        rngs
            One generator per unit.
        progress
            Called with the words released.

        Returns
        -------
        list[Output]
            One output per unit.
        """
        out: list[Output] = []
        for unit, rng in zip(documents, rngs, strict=True):
            fed = list(self._content(unit, rng))
            for i, word in zip(unit.mapped, unit.unknown, strict=True):
                if is_number(word):  # a number without a vector stays itself where it is kept
                    fed[i] = word
            content = self._substitute(fed, self.embeddings.words, rng)
            function = self._substitute(unit.function_words, self.function_embeddings.words, rng)
            out.append(
                Output(
                    render_canonical(unit, content, function), _in_order(unit, content, function)
                )
            )
            if progress is not None:
                progress(unit.words)
        return out

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement: no differential-privacy guarantee.

        Parameters
        ----------
        seeded
            Whether the release is seeded.

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        e = self.embeddings.identity
        return PrivacyStatement(
            randomness=SEEDED if seeded else UNSEEDED,
            mechanism=self.name,
            title=self.title,
            reference=self.reference,
            epsilon=None,
            epsilon_unit="NO differential-privacy guarantee: a baseline for comparison only",
            embeddings=e.to_dict(),
            model=None,
            floating_point="not applicable: there is no guarantee to hold",
            version=__version__,
            guarantee=(
                "NONE. This is not a differentially private mechanism: every word that is not "
                f"replaced (each with probability {exact(1 - self.rate)}) is released as "
                "written, so no bound on P[out | v] / P[out | v'] holds"
            ),
            document_bound="none (no differential-privacy guarantee)",
            released_unchanged=(
                "the canonical skeleton (the number of tokens, which positions hold a content "
                "word, a function word or a mark, the marks) and every word not replaced"
            ),
            parameters={"rate": self.rate},
            policies={
                "invisible characters": INVISIBLE_CHARACTERS_POLICY,
                "function words": function_words_policy(
                    self.function_words_description,
                    self.preparer,
                    "is replaced with probability rate by a uniformly random word of the class",
                ),
                "content words": f"a replaced content word becomes a uniformly random word of "
                f"the {len(self.embeddings)} vocabulary words",
                "unknown words": describe_unknown_policy(self.preparer.oov_map_to).replace(
                    ", then perturbed like any other", ", then replaced or not like any other"
                )
                + "; except a number (digits, with . , : only between two digits, and a "
                "trailing %: 12.4%, 1,000), which is released as written where it is not "
                "replaced",
                "skeleton": "canonical, as emp-doc's",
                "marks": marks_policy(self.preparer.marks),
            },
            caveats=(
                "no differential-privacy guarantee: use it to judge mechanisms, never to "
                "protect a text",
            ),
        )
