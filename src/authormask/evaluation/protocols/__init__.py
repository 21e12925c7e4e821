"""Evaluation protocols: a data split, which releases, which measures. Each asks the release
layer for outputs by registry name and never dispatches on a mechanism's name; it hands the
releases to measures (:mod:`authormask.evaluation.measures`) by theirs, and its result writes
its reports through :mod:`authormask.evaluation.reports`.

Every protocol has one shape: a package whose ``Config`` (a frozen dataclass: the protocol's
defaults, ``Config.quick()`` for ``--quick``, and ``Config.OPTIONS``, the options of
``authormask evaluate`` it reads) goes to ``run(...)``, which returns a ``Result`` with
``result.write_reports(folder)`` and ``result.markdown()``. :data:`PROTOCOLS` holds them by
name.

* :mod:`~authormask.evaluation.protocols.fernandes2019`: the privacy/utility sweep of Fernandes
  et al. (2019, Table 1): word-level mechanisms against attackers and utility measures; on a PAN
  collection, one author study per problem, pooled.
* :mod:`~authormask.evaluation.protocols.bo2021`: the text-release comparison of Bo et al.
  (2021, Table 1 and Figure 2).
* :mod:`~authormask.evaluation.protocols.pan`: the PAN 2018-2019 cross-domain authorship
  attribution protocol, problem by problem, scored by PAN's macro-F1 beside the MiniLM
  similarity of the released texts.
"""

from types import ModuleType

from authormask.evaluation.protocols import bo2021, fernandes2019, pan
from authormask.evaluation.protocols._releases import NOISE_OFF_EPSILON, mechanism_parameters
from authormask.evaluation.protocols.bo2021 import (
    ReleaseConfig,
    ReleaseResult,
    run_release_evaluation,
)
from authormask.evaluation.protocols.fernandes2019 import (
    CollectionSweep,
    SweepConfig,
    SweepResult,
    run_collection_sweep,
    run_sweep,
)
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

#: every protocol by name, in the order of ``authormask evaluate --protocol``
PROTOCOLS: dict[str, ModuleType] = {
    "fernandes2019": fernandes2019,
    "bo2021": bo2021,
    "pan": pan,
}

__all__ = [
    "NOISE_OFF_EPSILON",
    "PAN_ATTACKERS",
    "PAN_UTILITIES",
    "PROTOCOLS",
    "CollectionSweep",
    "PanCell",
    "PanConfig",
    "PanResult",
    "PanUtilityCell",
    "ReleaseConfig",
    "ReleaseResult",
    "SweepConfig",
    "SweepResult",
    "bo2021",
    "check_pan",
    "fernandes2019",
    "mechanism_parameters",
    "pan",
    "run_collection_sweep",
    "run_pan",
    "run_release_evaluation",
    "run_sweep",
]
