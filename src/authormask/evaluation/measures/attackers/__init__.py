"""The classifiers behind the author-identification attackers: Koppel et al. 2011 (cosine,
min-max), the PAN 2018 SVM baseline, and same-representation k-NN by Earth Mover's distance
(the others in their modules; the attackers by name in
:mod:`authormask.evaluation.measures.registry`)."""

from authormask.evaluation.measures._base import Classifier, Predictions
from authormask.evaluation.measures.attackers.koppel import (
    SIMILARITIES,
    KoppelAttacker,
    word_ngrams,
)
from authormask.evaluation.measures.attackers.nearest import (
    NearestNeighbourClassifier,
    bag_distances,
)
from authormask.evaluation.measures.attackers.svm import SVMAttacker

__all__ = [
    "SIMILARITIES",
    "Classifier",
    "KoppelAttacker",
    "NearestNeighbourClassifier",
    "Predictions",
    "SVMAttacker",
    "bag_distances",
    "word_ngrams",
]
