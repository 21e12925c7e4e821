"""Package version: the one place it is written (``pyproject.toml`` reads it from here).

A literal rather than the installed distribution's metadata: ``importlib.metadata`` costs every
command 0.03 s to import (issue 50), and a literal is what setuptools reads without importing
the package.
"""

from __future__ import annotations

__version__ = "0.1.0"
