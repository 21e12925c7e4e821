"""ER-AE (Bo et al. 2021): an embedding-reward auto-encoder whose generator samples every token
with the exponential mechanism."""

from authormask.models.erae.config import CONFIGS, ERAEConfig, get_config
from authormask.models.erae.model import ERAEModel, load_model
from authormask.models.erae.training import EpochRecord, TrainingResult, train_erae
from authormask.models.erae.vocab import Vocabulary

__all__ = [
    "CONFIGS",
    "ERAEConfig",
    "ERAEModel",
    "EpochRecord",
    "TrainingResult",
    "Vocabulary",
    "get_config",
    "load_model",
    "train_erae",
]
