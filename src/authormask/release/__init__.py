"""The release layer: one protocol, one registry, one entry point (``release``).

Every front end (the CLI, the evaluation, the web page, the Dask engine) runs a mechanism through
:func:`release`, which returns the outputs, the public :class:`PrivacyStatement` (identical for
every input released with the same parameters) and the private :class:`RunReport`.
"""

from authormask.accounting.statement import PrivacyStatement
from authormask.release._base import Mechanism, Output
from authormask.release.api import (
    PRIVATE_BANNER,
    Release,
    ReleasedDocument,
    RunReport,
    release,
)
from authormask.release.registry import (
    MECHANISMS,
    MechanismSpec,
    Parameter,
    create_mechanism,
    mechanism_names,
    mechanism_spec,
)

__all__ = [
    "MECHANISMS",
    "PRIVATE_BANNER",
    "Mechanism",
    "MechanismSpec",
    "Output",
    "Parameter",
    "PrivacyStatement",
    "Release",
    "ReleasedDocument",
    "RunReport",
    "create_mechanism",
    "mechanism_names",
    "mechanism_spec",
    "release",
]
