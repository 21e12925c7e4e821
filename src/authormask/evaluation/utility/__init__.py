"""Utility measures: fastText topic classification, same-representation 5-NN topic
classification (:class:`~authormask.evaluation.attackers.NearestNeighbourClassifier` with k=5),
and MiniLM semantic similarity."""

from authormask.evaluation.utility.fasttext_topic import FastTextTopicClassifier
from authormask.evaluation.utility.similarity import SentenceSimilarity, encoder_path

__all__ = ["FastTextTopicClassifier", "SentenceSimilarity", "encoder_path"]
