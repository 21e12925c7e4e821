"""Authorship identification with continuous character n-gram representations, in the spirit of
Sari, Vlachos & Stevenson (2017), the attacker of Bo et al. (2021, Table 1).

Sari et al. embed a document's character n-grams and classify the averaged embedding with a
softmax - the fastText supervised architecture. Here each text becomes a sequence of its
overlapping character ``n``-grams (case and punctuation kept, spaces shown as ``_``; n = 3 by
default, their best single order on CCAT50), and fastText is trained on them with bigrams of
n-grams, ``dim`` 100, one thread and a fixed seed (deterministic).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_positive_int

__all__ = ["FastTextAuthorship", "char_ngrams"]


def char_ngrams(text: str, n: int) -> list[str]:
    """Overlapping character n-grams with whitespace runs shown as ``_``.

    Parameters
    ----------
    text
        The text.
    n
        The n-gram order.

    Returns
    -------
    list[str]
        The n-grams, in order.

    Examples
    --------
    >>> char_ngrams("Hi, you", 3)
    ['Hi,', 'i,_', ',_y', '_yo', 'you']
    """
    s = "_".join(text.split())
    return [s[i : i + n] for i in range(len(s) - n + 1)]


class FastTextAuthorship:
    """fastText over character n-gram tokens (see module docstring).

    Parameters
    ----------
    n
        The character n-gram order of the tokens.
    epochs
        fastText's training epochs.
    lr
        fastText's learning rate (> 0).
    dim
        The dimension of the vectors.
    word_ngrams
        fastText's ``wordNgrams``: n-grams of tokens (2: bigrams of character n-grams).
    random_state
        The seed of fastText's training.

    Raises
    ------
    InvalidParameterError
        If ``lr`` is not above 0 or an integer setting is not positive.
    """

    def __init__(
        self,
        *,
        n: int = 3,
        epochs: int = 30,
        lr: float = 0.5,
        dim: int = 100,
        word_ngrams: int = 2,
        random_state: RandomState = None,
    ) -> None:
        if not lr > 0:
            raise InvalidParameterError(f"learning rate must be > 0, got {lr!r}")
        self.n = check_positive_int(n, name="n-gram order")
        self.epochs = check_positive_int(epochs, name="epochs")
        self.lr = float(lr)
        self.dim = check_positive_int(dim, name="dim")
        self.word_ngrams = check_positive_int(word_ngrams, name="word n-grams")
        self.random_state = random_state
        self.name = "fasttext-char"
        self._model: object | None = None
        self._labels: dict[str, str] = {}

    def _line(self, text: str) -> str:
        return " ".join(char_ngrams(text, self.n))

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> FastTextAuthorship:
        """Train fastText on the known texts' character n-gram tokens.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        FastTextAuthorship
            The model itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes.
        """
        import fasttext

        from authormask.evaluation.measures.utilities.fasttext_topic import write_training_file

        check_training(items, labels, "fastText authorship")
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        with tempfile.TemporaryDirectory(prefix="authormask-fasttext-") as tmp:
            train = Path(tmp) / "train.txt"
            self._labels = write_training_file(
                train, [self._line(item.text) for item in items], labels
            )
            self._model = fasttext.train_supervised(
                input=str(train),
                epoch=self.epochs,
                lr=self.lr,
                dim=self.dim,
                wordNgrams=self.word_ngrams,
                minCount=2,
                bucket=500_000,
                thread=1,
                seed=seed,
                verbose=0,
            )
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name fastText's most probable author of each text.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            The most probable author of each text and its probability.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if self._model is None:
            raise InvalidParameterError("fastText authorship: call fit before predict")
        from authormask.evaluation.measures.utilities.fasttext_topic import fasttext_predict

        return fasttext_predict(
            self._model, [self._line(item.text) for item in items], self._labels
        )
