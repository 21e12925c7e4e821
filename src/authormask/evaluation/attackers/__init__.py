"""Author-identification attackers: Koppel et al. 2011 (cosine, min-max), the PAN 2018 SVM
baseline, and same-representation 1-NN by Earth Mover's distance."""

from authormask.evaluation.attackers._base import Classifier, Predictions
from authormask.evaluation.attackers.koppel import SIMILARITIES, KoppelAttacker, word_ngrams
from authormask.evaluation.attackers.nearest import NearestNeighbourClassifier, bag_distances
from authormask.evaluation.attackers.svm import SVMAttacker

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
