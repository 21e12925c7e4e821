"""Measures of a release, registered by name (:mod:`~authormask.evaluation.measures.registry`):
attackers that name the author of each released text (:mod:`.attackers`: Koppel et al. 2011, the
PAN baselines, typed character n-grams, MiniLM, 1-NN by Earth Mover's distance, and each one's
``adaptive-`` variant) and utilities that say what a release still carries (:mod:`.utilities`:
fastText and 5-NN topic accuracy, MiniLM similarity; stylometric change). Each is a small class
with one interface (:class:`Measure`): a protocol hands it a cell's releases
(:class:`MeasureInputs`) and gets a :class:`Score`."""

from authormask.evaluation.measures._base import (
    Adaptive,
    Attacker,
    AttackerSettings,
    Classifier,
    ClassifierMeasure,
    Measure,
    MeasureInputs,
    Predictions,
    Score,
)
from authormask.evaluation.measures.registry import (
    BASE_ATTACKERS,
    attacker,
    attacker_names,
    make_attacker,
    measure,
    measure_names,
    utility_names,
)

__all__ = [
    "BASE_ATTACKERS",
    "Adaptive",
    "Attacker",
    "AttackerSettings",
    "Classifier",
    "ClassifierMeasure",
    "Measure",
    "MeasureInputs",
    "Predictions",
    "Score",
    "attacker",
    "attacker_names",
    "make_attacker",
    "measure",
    "measure_names",
    "utility_names",
]
