"""Evaluation protocols: a data split, which releases, which measures. Each asks the release
layer for outputs by registry name and never dispatches on a mechanism's name; it hands the
releases to measures (:mod:`authormask.evaluation.measures`) by theirs, and returns its result
as plain data, which :mod:`authormask.evaluation.reports` reads (a protocol never imports the
reports).

Every protocol implements one interface
(:class:`~authormask.evaluation.protocols._interface.EvaluationProtocol`), so a front end runs
any of them the same way::

    protocol = PROTOCOLS[name]
    plan = protocol.plan(Options(values))        # its config and its inputs
    result = protocol.run(plan.config, plan.inputs, cache_dir=folder / "cache")
    write_reports(result, folder)                # authormask.evaluation.reports

Its ``Config`` is a frozen dataclass (the protocol's defaults, ``Config.quick()`` for
``--quick``, and ``Config.OPTIONS``, the options of ``authormask evaluate`` it reads); its
inputs are what it runs on besides the config (a study or a corpus or a PAN collection, the
embeddings, models, the engine); :data:`PROTOCOLS` holds the protocols by name.

* :mod:`~authormask.evaluation.protocols.fernandes2019`: the privacy/utility sweep of Fernandes
  et al. (2019, Table 1): word-level mechanisms against attackers and utility measures; on a PAN
  collection, one author study per problem, pooled.
* :mod:`~authormask.evaluation.protocols.bo2021`: the text-release comparison of Bo et al.
  (2021, Table 1 and Figure 2).
* :mod:`~authormask.evaluation.protocols.pan`: the PAN 2018-2019 cross-domain authorship
  attribution protocol, problem by problem, scored by PAN's macro-F1 beside the MiniLM
  similarity of the released texts.

The names below are imported on first use (PEP 562): importing one module of this package (the
release helpers the calibration reads, :mod:`authormask.evaluation.releases`) loads no protocol.
"""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from authormask.evaluation.protocols._interface import EvaluationProtocol, Plan
    from authormask.evaluation.protocols._options import OptionError, Options
    from authormask.evaluation.protocols._registry import PROTOCOLS
    from authormask.evaluation.protocols.bo2021 import (
        ReleaseConfig,
        ReleaseInputs,
        ReleaseResult,
        run_release_evaluation,
    )
    from authormask.evaluation.protocols.fernandes2019 import (
        CollectionSweep,
        SweepConfig,
        SweepInputs,
        SweepResult,
        run_collection_sweep,
        run_sweep,
    )
    from authormask.evaluation.protocols.pan import (
        PAN_ATTACKERS,
        PAN_UTILITIES,
        PanCell,
        PanConfig,
        PanInputs,
        PanResult,
        PanUtilityCell,
        check_pan,
        run_pan,
    )
    from authormask.evaluation.releases import NOISE_OFF_EPSILON, mechanism_parameters

_FERNANDES2019 = "authormask.evaluation.protocols.fernandes2019"
_BO2021 = "authormask.evaluation.protocols.bo2021"
_PAN = "authormask.evaluation.protocols.pan"
_LAZY = {
    "EvaluationProtocol": "authormask.evaluation.protocols._interface",
    "Plan": "authormask.evaluation.protocols._interface",
    "OptionError": "authormask.evaluation.protocols._options",
    "Options": "authormask.evaluation.protocols._options",
    "PROTOCOLS": "authormask.evaluation.protocols._registry",
    "NOISE_OFF_EPSILON": "authormask.evaluation.releases",
    "mechanism_parameters": "authormask.evaluation.releases",
    "ReleaseConfig": _BO2021,
    "ReleaseInputs": _BO2021,
    "ReleaseResult": _BO2021,
    "run_release_evaluation": _BO2021,
    "CollectionSweep": _FERNANDES2019,
    "SweepConfig": _FERNANDES2019,
    "SweepInputs": _FERNANDES2019,
    "SweepResult": _FERNANDES2019,
    "run_collection_sweep": _FERNANDES2019,
    "run_sweep": _FERNANDES2019,
    "PAN_ATTACKERS": _PAN,
    "PAN_UTILITIES": _PAN,
    "PanCell": _PAN,
    "PanConfig": _PAN,
    "PanInputs": _PAN,
    "PanResult": _PAN,
    "PanUtilityCell": _PAN,
    "check_pan": _PAN,
    "run_pan": _PAN,
}

__all__ = [
    "NOISE_OFF_EPSILON",
    "PAN_ATTACKERS",
    "PAN_UTILITIES",
    "PROTOCOLS",
    "CollectionSweep",
    "EvaluationProtocol",
    "OptionError",
    "Options",
    "PanCell",
    "PanConfig",
    "PanInputs",
    "PanResult",
    "PanUtilityCell",
    "Plan",
    "ReleaseConfig",
    "ReleaseInputs",
    "ReleaseResult",
    "SweepConfig",
    "SweepInputs",
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

__getattr__, __dir__ = lazy_attributes("authormask.evaluation.protocols", _LAZY, globals(), __all__)
