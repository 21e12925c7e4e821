"""A local web page and JSON API over the release layer (``authormask serve``).

Importing it imports FastAPI: the CLI imports it only when ``serve`` runs.
"""

from authormask.serve.app import DEFAULT_MAX_CHARS, ServeSettings, create_app

__all__ = ["DEFAULT_MAX_CHARS", "ServeSettings", "create_app"]
