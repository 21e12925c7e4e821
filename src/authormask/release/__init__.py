"""The release layer: one protocol, one registry, one entry point (``release``).

Every front end (the CLI, the evaluation, the web page, the Dask engine) runs a mechanism through
:func:`release`, which returns the outputs, the public :class:`PrivacyStatement` (identical for
every input released with the same parameters) and the private :class:`RunReport`.
"""

from authormask.accounting.statement import PrivacyStatement
from authormask.mechanisms._base import Mechanism, Output
from authormask.release.api import Release, ReleasedDocument, RunReport, release
from authormask.release.executors import Engine
from authormask.release.journal import PRIVATE_BANNER
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
from authormask.release.stream import Done, Piece, ReleaseStream, release_stream

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
