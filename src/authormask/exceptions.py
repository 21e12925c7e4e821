"""Errors raised by authormask.

Every error the library raises on purpose derives from :class:`AuthormaskError`, so the CLI can
turn it into a one-line message without a traceback. Parameter errors are also ``ValueError``.

A message names a parameter of the library call between backquotes (``use `force` to
overwrite``); the command line shows each as its own option instead (``use --force to
overwrite``, :func:`authormask.cli.main.as_flags`), so the library never names a flag.
"""

from __future__ import annotations

__all__ = ["AuthormaskError", "EmbeddingsError", "InputError", "InvalidParameterError"]


class AuthormaskError(Exception):
    """Base class of every deliberate authormask error."""


class InvalidParameterError(AuthormaskError, ValueError):
    """A parameter is outside its allowed range (names the value and the range)."""


class InputError(AuthormaskError, ValueError):
    """A document or file cannot be used (missing, unreadable, binary, empty, ...)."""


class EmbeddingsError(AuthormaskError, ValueError):
    """Word vectors cannot be loaded (unknown name, malformed file, ...)."""
