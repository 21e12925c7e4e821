"""The release layer: one protocol, one registry, one entry point (``release``).

Every front end (the CLI, the evaluation, the web page, the Dask engine) runs a mechanism through
:func:`release`, which returns the outputs, the public :class:`PrivacyStatement` (identical for
every input released with the same parameters) and the private :class:`RunReport`.
"""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
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

# Imported on first use (PEP 562): the registry (names, parameters, line-ups) is read without the
# release machinery and numpy, so the command line can build its options from it at start.
_LAZY = {
    "PrivacyStatement": "authormask.accounting.statement",
    "Mechanism": "authormask.mechanisms._base",
    "Output": "authormask.mechanisms._base",
    "Release": "authormask.release.api",
    "ReleasedDocument": "authormask.release.api",
    "RunReport": "authormask.release.api",
    "release": "authormask.release.api",
    "Engine": "authormask.release.executors",
    "PRIVATE_BANNER": "authormask.release.journal",
    "LINEUPS": "authormask.release.registry",
    "MECHANISMS": "authormask.release.registry",
    "MechanismSpec": "authormask.release.registry",
    "Parameter": "authormask.release.registry",
    "create_mechanism": "authormask.release.registry",
    "lineup": "authormask.release.registry",
    "mechanism_names": "authormask.release.registry",
    "mechanism_spec": "authormask.release.registry",
    "FileSource": "authormask.release.sources",
    "Source": "authormask.release.sources",
    "StdinSource": "authormask.release.sources",
    "TextSource": "authormask.release.sources",
    "Done": "authormask.release.stream",
    "Piece": "authormask.release.stream",
    "ReleaseStream": "authormask.release.stream",
    "release_stream": "authormask.release.stream",
}


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

__getattr__, __dir__ = lazy_attributes("authormask.release", _LAZY, globals(), __all__)
