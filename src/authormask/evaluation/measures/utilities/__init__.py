"""What the utility measures read: fastText topic classification, MiniLM semantic similarity
and stylometric feature vectors (same-representation 5-NN topic classification is
:class:`~authormask.evaluation.measures.attackers.NearestNeighbourClassifier` with k=5)."""

from authormask.evaluation.measures.utilities.fasttext_topic import FastTextTopicClassifier
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity, encoder_path

__all__ = ["FastTextTopicClassifier", "SentenceSimilarity", "encoder_path"]
