"""Package version (single source: the installed distribution's metadata)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("authormask")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"
