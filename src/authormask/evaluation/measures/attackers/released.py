"""``released-words``: an attacker that knows the mechanism and reads only the words it released.

A release is two things: the words the mechanism drew from the writer's words (its statement's
*released* part: each word through the noise) and whatever is put around them, which for some
mechanisms is not the writer's at all. ``emp-write`` writes every word outside its released
class from public data and the released words alone (its statement: post-processing), so its
text holds the writer's nouns and a public writer's prose; ``emp-text`` and ``emp-doc`` put their
released content words back into the writer's skeleton; ``random-sub`` keeps each token or
replaces it. An attacker who knows the mechanism need not read the public part: whatever it
adds carries nothing of the writer beyond the released words, and to a classifier it is
noise that can only dilute them.

What it reads: each text's released words as the mechanism gave them (the release's
``words``, before any writer or rendering), joined by spaces. What they are is the mechanism's:
``emp-write``'s released nouns in order, exactly what its statement says is released (with the
count of those words); ``emp-text``'s content words in order; every word token of ``emp-doc``
and ``random-sub`` in order, function words included (their skeleton without its marks); the
sorted bag of ``emp-bag``.
``released-vocabulary`` reads the same words, each once (in order of first use): which words a
writer uses, not how often. A story's own names and things come back tens of times and fill a
text's character n-grams even with sublinear term frequencies; read once each, they weigh as
much as any other word, and the rest of a writer's choices show. On the four problems of
``pan19-en`` with the noise off (typed character 3-grams, SVM and logistic regression, each
trained both ways, the strongest of the four; ``benchmarks/which_words.py``), reading each word
once named writers from emp-write's lexicon nouns at a mean macro-F1 of 0.29 where reading every
occurrence reached 0.23, and from every content word at 0.43 against 0.38.

How it decides: typed character 3-grams (Sapkota et al. 2015;
:class:`~authormask.evaluation.measures.attackers.typed.TypedNgramAttacker`) and a linear
SVM, the attacker that was strongest on fan fiction. ``class-seq`` reads the other half of a
declared release where it is the writer's (the skeleton of ``emp-text`` and ``emp-doc``), so the
two together read everything those mechanisms' statements say remains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from authormask.evaluation.measures._base import Predictions
from authormask.evaluation.measures.attackers.typed import TypedNgramAttacker
from authormask.evaluation.study import Item
from authormask.exceptions import InputError
from authormask.randomness import RandomState

__all__ = ["ReleasedWordsAttacker", "released_words"]


def released_words(item: Item, *, once: bool = False) -> Item:
    """``item`` with its text replaced by its released words, in order, joined by spaces.

    Parameters
    ----------
    item
        A released text (its ``words``: the words the mechanism released).
    once
        Each word once, where it is first used.

    Returns
    -------
    Item
        The same item reading only those words.

    Examples
    --------
    >>> released_words(Item("a", "The cat, it said, sat.", ("cat", "sat"))).text
    'cat sat'
    >>> released_words(Item("a", "", ("cat", "sat", "cat")), once=True).text
    'cat sat'
    """
    words = tuple(dict.fromkeys(item.words)) if once else item.words
    return replace(item, text=" ".join(words))


class ReleasedWordsAttacker:
    """Typed character n-grams of the released words only (module docstring).

    Parameters
    ----------
    classifier
        ``"svm"`` or ``"lr"``.
    random_state
        The classifier's seed.
    once
        Read each word once (``released-vocabulary``, module docstring).
    """

    def __init__(
        self, *, classifier: str = "svm", random_state: RandomState = None, once: bool = False
    ) -> None:
        self.inner = TypedNgramAttacker(classifier=classifier, random_state=random_state)
        self.once = once
        self.name = f"released-{'vocabulary' if once else 'words'}-{classifier}"

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> ReleasedWordsAttacker:
        """Train on the known texts' released words.

        Parameters
        ----------
        items
            The known texts (released: their ``words`` are read).
        labels
            The author of each.

        Returns
        -------
        ReleasedWordsAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If no known text carries released words, or as the typed n-gram attacker does.
        """
        if items and not any(i.words for i in items):
            raise InputError(
                f"{self.name.rsplit('-', 1)[0]} attacker: the known texts carry no released "
                "words (the pan and fernandes2019 protocols keep them; bo2021 does not)"
            )
        self.inner.fit([released_words(i, once=self.once) for i in items], labels)
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the author of each text from its released words.

        Parameters
        ----------
        items
            The released texts.

        Returns
        -------
        Predictions
            The author of each text and its decision value.
        """
        return self.inner.predict([released_words(i, once=self.once) for i in items])
