"""The release layer: one protocol, one registry, one entry point (``release``).

Every front end (the CLI, the evaluation, the web page, the Dask engine) runs a mechanism through
:func:`release`, which returns the outputs, the public :class:`PrivacyStatement` (identical for
every input released with the same parameters) and the private :class:`RunReport`.
"""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from authormask.accounting.statement import PrivacyStatement
    from authormask.core.api import Release, ReleasedDocument, RunReport, release
    from authormask.core.executors import Engine
    from authormask.core.journal import PRIVATE_BANNER
    from authormask.core.registry import (
        LINEUPS,
        MECHANISMS,
        MechanismSpec,
        Parameter,
        create_mechanism,
        lineup,
        mechanism_names,
        mechanism_spec,
    )
    from authormask.core.sources import FileSource, Source, StdinSource, TextSource
    from authormask.core.stream import Done, Piece, ReleaseStream, release_stream
    from authormask.mechanisms._base import Mechanism, Output

# Imported on first use (PEP 562): the registry (names, parameters, line-ups) is read without the
# release machinery and numpy, so the command line can build its options from it at start.
_LAZY = {
    "PrivacyStatement": "authormask.accounting.statement",
    "Mechanism": "authormask.mechanisms._base",
    "Output": "authormask.mechanisms._base",
    "Release": "authormask.core.api",
    "ReleasedDocument": "authormask.core.api",
    "RunReport": "authormask.core.api",
    "release": "authormask.core.api",
    "Engine": "authormask.core.executors",
    "PRIVATE_BANNER": "authormask.core.journal",
    "LINEUPS": "authormask.core.registry",
    "MECHANISMS": "authormask.core.registry",
    "MechanismSpec": "authormask.core.registry",
    "Parameter": "authormask.core.registry",
    "create_mechanism": "authormask.core.registry",
    "lineup": "authormask.core.registry",
    "mechanism_names": "authormask.core.registry",
    "mechanism_spec": "authormask.core.registry",
    "FileSource": "authormask.core.sources",
    "Source": "authormask.core.sources",
    "StdinSource": "authormask.core.sources",
    "TextSource": "authormask.core.sources",
    "Done": "authormask.core.stream",
    "Piece": "authormask.core.stream",
    "ReleaseStream": "authormask.core.stream",
    "release_stream": "authormask.core.stream",
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

__getattr__, __dir__ = lazy_attributes("authormask.core", _LAZY, globals(), __all__)
