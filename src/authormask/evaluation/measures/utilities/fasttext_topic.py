"""Different-representation topic classification with fastText (Joulin et al. 2017), as in
Fernandes et al. (2019, section 6 and appendix B.2): supervised fastText trained for 25 epochs
with learning rate 1.0 on normalised, topic-labelled training texts. One thread and a fixed seed
make training deterministic.

The paper starts from pretrained Wikipedia vectors (a download). Here pretrained vectors are
optional (``embeddings=``: the project's word vectors) and off by default: fastText initialises
only the words of its training dictionary from them, so they cannot help with the unseen words
the mechanism produces, and on BBC News (2,125 training stories, 50 snippets of N = 80) they
measured worse: 42/50 correct against 48/50 from scratch (dim 100).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from authormask.embeddings._base import Embeddings
from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_positive_int

__all__ = ["FastTextTopicClassifier", "fasttext_predict"]

_LABEL = "__label__"


def _clean(label: str) -> str:
    return label.replace(" ", "_")


class FastTextTopicClassifier:
    """fastText supervised classifier over the ``words`` view of items.

    Parameters
    ----------
    embeddings
        Pretrained word vectors to start from, or ``None``.
    epochs
        fastText's training epochs.
    lr
        fastText's learning rate (> 0).
    dim
        The dimension of the vectors (that of ``embeddings`` when given), or ``None`` for 100.
    random_state
        The seed of fastText's training.

    Raises
    ------
    InvalidParameterError
        If ``lr`` is not above 0, or ``dim`` differs from that of ``embeddings``.
    """

    def __init__(
        self,
        *,
        embeddings: Embeddings | None = None,
        epochs: int = 25,
        lr: float = 1.0,
        dim: int | None = None,
        random_state: RandomState = None,
    ) -> None:
        if not lr > 0:
            raise InvalidParameterError(f"learning rate must be > 0, got {lr!r}")
        self.embeddings = embeddings  # optional pretrained vectors
        self.epochs = check_positive_int(epochs, name="epochs")
        self.lr = float(lr)
        if embeddings is not None:
            self.dim = int(embeddings.vectors.shape[1])
            if dim is not None and dim != self.dim:
                raise InvalidParameterError(
                    f"dim {dim} differs from the pretrained vectors' {self.dim}"
                )
        else:
            self.dim = check_positive_int(dim or 100, name="dim")
        self.random_state = random_state
        self.name = "fasttext"
        self._model: object | None = None
        self._labels: dict[str, str] = {}

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> FastTextTopicClassifier:
        """Train fastText on the training texts' content words.

        Parameters
        ----------
        items
            The training texts.
        labels
            The topic of each training text.

        Returns
        -------
        FastTextTopicClassifier
            The classifier itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes.
        """
        import fasttext

        check_training(items, labels, "fastText")
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        with tempfile.TemporaryDirectory(prefix="authormask-fasttext-") as tmp:
            train = Path(tmp) / "train.txt"
            self._labels = write_training_file(
                train, [" ".join(item.words) for item in items], labels
            )
            options: dict[str, object] = {}
            if self.embeddings is not None:
                vocab = sorted({w for item in items for w in item.words if w in self.embeddings})
                vec = Path(tmp) / "pretrained.vec"
                rows = self.embeddings.lookup(vocab)
                with vec.open("w", encoding="utf-8") as fh:
                    fh.write(f"{len(vocab)} {self.dim}\n")
                    for w, row in zip(vocab, rows, strict=True):
                        fh.write(w + " " + " ".join(f"{x:.6g}" for x in row) + "\n")
                options["pretrainedVectors"] = str(vec)
            self._model = fasttext.train_supervised(
                input=str(train),
                epoch=self.epochs,
                lr=self.lr,
                dim=self.dim,
                thread=1,
                seed=seed,
                verbose=0,
                **options,
            )
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name fastText's most probable topic of each text.

        Parameters
        ----------
        items
            The texts to label.

        Returns
        -------
        Predictions
            The most probable topic of each text and its probability.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if self._model is None:
            raise InvalidParameterError("fastText: call fit before predict")
        return fasttext_predict(self._model, [" ".join(item.words) for item in items], self._labels)


def write_training_file(path: Path, lines: Sequence[str], labels: Sequence[str]) -> dict[str, str]:
    """Write fastText's supervised training file (one ``__label__<label> <line>`` per line;
    spaces in labels become ``_``) and return the map from fastText's label back to ours."""
    path.write_text(
        "".join(f"{_LABEL}{_clean(lab)} {line}\n" for line, lab in zip(lines, labels, strict=True)),
        encoding="utf-8",
    )
    return {_clean(lab): lab for lab in labels}


def fasttext_predict(model: object, lines: Sequence[str], labels: dict[str, str]) -> Predictions:
    """Top label and its probability for each line, mapped back through ``labels``.

    Parameters
    ----------
    model
        A trained fastText model.
    lines
        The lines to label, as fastText reads them.
    labels
        fastText's label -> ours (:func:`write_training_file`).

    Returns
    -------
    Predictions
        The label of each line (``None`` for a label fastText did not give) and its
        probability.
    """
    out: list[str | None] = []
    scores: list[float] = []
    for line in lines:
        got, prob = model.predict(line)  # type: ignore[attr-defined]
        out.append(labels.get(got[0][len(_LABEL) :]) if got else None)
        scores.append(float(np.asarray(prob)[0]) if len(prob) else 0.0)
    return Predictions(tuple(out), tuple(scores))
