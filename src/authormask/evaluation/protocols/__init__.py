"""Evaluation protocols: a data split, which releases, which measures. Each asks the release
layer for outputs by registry name and never dispatches on a mechanism's name; it hands the
releases to measures (:mod:`authormask.evaluation.measures`) by theirs, and its reports are
written by :mod:`authormask.evaluation.reports`.

* :mod:`~authormask.evaluation.protocols.pan`: the PAN 2018-2019 cross-domain authorship
  attribution protocol, problem by problem, scored by PAN's macro-F1 beside the MiniLM
  similarity of the released texts.
* :mod:`~authormask.evaluation.protocols.fernandes2019`: the privacy/utility sweep of Fernandes
  et al. (2019, Table 1): word-level mechanisms against attackers and utility measures; on a PAN
  collection, one author study per problem, pooled.
* :mod:`~authormask.evaluation.protocols.bo2021`: the text-release comparison of Bo et al.
  (2021, Table 1 and Figure 2).
"""

from authormask.evaluation.protocols._releases import NOISE_OFF_EPSILON, mechanism_parameters
from authormask.evaluation.protocols.pan import (
    PAN_ATTACKERS,
    PAN_UTILITIES,
    PanCell,
    PanConfig,
    PanResult,
    PanUtilityCell,
    check_pan,
    run_pan,
)

__all__ = [
    "NOISE_OFF_EPSILON",
    "PAN_ATTACKERS",
    "PAN_UTILITIES",
    "PanCell",
    "PanConfig",
    "PanResult",
    "PanUtilityCell",
    "check_pan",
    "mechanism_parameters",
    "run_pan",
]
