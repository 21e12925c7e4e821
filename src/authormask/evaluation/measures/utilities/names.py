"""Name survival: the share of an original text's named-entity occurrences found in its release.

The occurrences are those of the recogniser that replaces entities before a release
(:class:`~authormask.text.entities.Recogniser`: spaCy ``en_core_web_md`` 3.7.1's people, places
and organisations, each name also wherever its text stands elsewhere in the text; with
``kinds``, the pattern entities too). An occurrence *survives* when its words, lower-cased,
stand as a run of consecutive words of the release (:func:`~authormask.text.tokens.tokenize`
word tokens, lower-cased, punctuation skipped), anywhere in it: ``John Smith`` survives in
``... told john smith, ...``, not in ``John met Smith``. Case is ignored because some
mechanisms write their own casing (``emp-doc``'s canonical skeleton).

So it counts what a reader of the release could find of the names, whether the mechanism kept
them or drew them back by chance; under ``entities="surrogate"`` no recognised name reaches the
mechanism, and a name survives only when the noise happens to write it. Lower is better.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from authormask.exceptions import InvalidParameterError
from authormask.text.entities import KINDS, NAMED_KINDS, Recogniser, load_recogniser
from authormask.text.tokens import tokenize

__all__ = ["NameSurvival", "name_survival", "survives", "word_runs"]


@dataclass(frozen=True)
class NameSurvival:
    """Occurrences ``found`` in the originals and how many ``survived`` in the releases, in all
    and by kind (``{kind: (found, survived)}``).

    Attributes
    ----------
    found
        The occurrences found in the originals.
    survived
        The occurrences that survived in the releases.
    by_kind
        Per kind, ``(found, survived)``.
    """

    found: int
    survived: int
    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def share(self) -> float:
        """``survived / found`` (0 when nothing was found)."""
        return self.survived / self.found if self.found else 0.0


def _words(text: str) -> tuple[str, ...]:
    return tuple(t.lower for t in tokenize(text) if t.is_word)


def word_runs(text: str, longest: int) -> set[tuple[str, ...]]:
    """Every run of 1 to ``longest`` consecutive words of ``text`` (lower-cased).

    Parameters
    ----------
    text
        The text.
    longest
        The longest run, in words.

    Returns
    -------
    set[tuple[str, ...]]
        The runs.

    Examples
    --------
    >>> sorted(word_runs("Told John, Smith.", 2))[:3]
    [('john',), ('john', 'smith'), ('smith',)]
    """
    words = _words(text)
    return {words[i : i + n] for n in range(1, longest + 1) for i in range(len(words) - n + 1)}


def survives(form: str, release: str) -> bool:
    """Whether the words of ``form`` stand as a run of consecutive words of ``release``.

    Parameters
    ----------
    form
        The name as the original writes it.
    release
        The released text.

    Returns
    -------
    bool
        Whether it survives.

    Examples
    --------
    >>> survives("John Smith", "I told john smith."), survives("John Smith", "John met Smith")
    (True, False)
    """
    words = _words(form)
    return bool(words) and words in word_runs(release, len(words))


def name_survival(
    originals: Sequence[str],
    releases: Sequence[str],
    *,
    kinds: Iterable[str] = NAMED_KINDS,
    recogniser: Recogniser | None = None,
) -> NameSurvival:
    """The occurrences of ``kinds`` found in each original and how many survive in its release
    (module docstring). ``originals[i]`` is compared with ``releases[i]`` only.

    Parameters
    ----------
    originals
        The original texts.
    releases
        Their releases, in the same order.
    kinds
        The entity kinds counted (of :data:`~authormask.text.entities.KINDS`).
    recogniser
        The recogniser, or ``None`` for the default one.

    Returns
    -------
    NameSurvival
        The counts, in all and by kind.

    Raises
    ------
    InvalidParameterError
        If the two sequences differ in length or a kind is unknown.
    """
    if len(originals) != len(releases):
        raise InvalidParameterError(f"{len(originals)} originals for {len(releases)} releases")
    wanted = tuple(kinds)
    unknown = [k for k in wanted if k not in KINDS]
    if unknown:
        raise InvalidParameterError(f"unknown entity kinds {unknown}; choose from {KINDS}")
    recogniser = recogniser or load_recogniser()
    counts = {k: [0, 0] for k in wanted}
    for entities, release in zip(recogniser.find_all(originals), releases, strict=True):
        mine = [e for e in entities if e.kind in counts]
        if not mine:
            continue
        runs = word_runs(release, max(len(_words(e.text)) for e in mine))
        for e in mine:
            words = _words(e.text)
            if not words:
                continue
            counts[e.kind][0] += 1
            counts[e.kind][1] += words in runs
    return NameSurvival(
        found=sum(f for f, _ in counts.values()),
        survived=sum(s for _, s in counts.values()),
        by_kind={k: (f, s) for k, (f, s) in counts.items()},
    )
