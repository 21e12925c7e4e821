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
    ReleaseStream,
    RunReport,
    release,
    release_stream,
)
from authormask.release.engine import Done, Piece
from authormask.release.engines import Engine
from authormask.release.registry import (
    LINEUPS,
    MECHANISMS,
    MechanismSpec,
    Parameter,
    create_mechanism,
    lineup,
    mechanism_names,
    mechanism_spec,
)
from authormask.release.sources import FileSource, Source, StdinSource, TextSource

__all__ = [
    "LINEUPS",
    "MECHANISMS",
    "PRIVATE_BANNER",
    "Done",
    "Engine",
    "FileSource",
    "Mechanism",
    "MechanismSpec",
    "Output",
    "Parameter",
    "Piece",
    "PrivacyStatement",
    "Release",
    "ReleaseStream",
    "ReleasedDocument",
    "RunReport",
    "Source",
    "StdinSource",
    "TextSource",
    "create_mechanism",
    "lineup",
    "mechanism_names",
    "mechanism_spec",
    "release",
    "release_stream",
]
