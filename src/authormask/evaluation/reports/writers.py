"""One way to report any protocol's result: :func:`write_reports` writes its files and
:func:`markdown` renders its table.md, whichever protocol ran (the result types of
:data:`RESULT_TYPES`). Each result type's own writers are in its protocol's report module
(:mod:`.fernandes2019`, :mod:`.bo2021`, :mod:`.pan`); the results never know them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask.evaluation.protocols.bo2021.results import ReleaseResult
from authormask.evaluation.protocols.fernandes2019.results import CollectionSweep, SweepResult
from authormask.evaluation.protocols.pan.results import PanResult
from authormask.evaluation.reports.bo2021 import release_markdown, write_release_reports
from authormask.evaluation.reports.fernandes2019 import (
    collection_markdown,
    collection_terminal,
    to_markdown,
    to_terminal,
    write_collection_reports,
)
from authormask.evaluation.reports.fernandes2019 import write_reports as write_sweep_reports
from authormask.evaluation.reports.pan import pan_markdown, write_pan_reports
from authormask.exceptions import InvalidParameterError

__all__ = ["RESULT_TYPES", "Result", "markdown", "terminal", "write_reports"]

#: a result of any protocol
Result = SweepResult | CollectionSweep | ReleaseResult | PanResult


@dataclass(frozen=True)
class _Writers:
    """How one result type is reported: its table.md, all its files and what ``evaluate``
    prints (``terminal``; None: table.md itself); ``frontier``: whether its reports read a
    target accuracy (a recommendation on the privacy-utility frontier)."""

    markdown: Callable[..., str]
    write: Callable[..., list[Path]]
    frontier: bool = True
    terminal: Callable[..., str] | None = None


_WRITERS: dict[type, _Writers] = {
    SweepResult: _Writers(to_markdown, write_sweep_reports, terminal=to_terminal),
    CollectionSweep: _Writers(
        collection_markdown, write_collection_reports, terminal=collection_terminal
    ),
    ReleaseResult: _Writers(release_markdown, write_release_reports, frontier=False),
    PanResult: _Writers(pan_markdown, write_pan_reports),
}

#: the result types that have reports: every type a protocol's ``run`` returns
RESULT_TYPES: tuple[type, ...] = tuple(_WRITERS)


def _writers(result: Any, target_accuracy: float | None) -> tuple[_Writers, dict[str, Any]]:
    """The writers of ``result``'s type and the keywords they read besides ``force``."""
    writers = _WRITERS.get(type(result))
    if writers is None:
        raise InvalidParameterError(
            f"no reports for a {type(result).__name__}; reported are "
            f"{', '.join(t.__name__ for t in RESULT_TYPES)}"
        )
    if not writers.frontier:
        if target_accuracy is not None:
            raise InvalidParameterError(
                f"`target_accuracy` does not apply to a {type(result).__name__} (it has no "
                "privacy-utility frontier)"
            )
        return writers, {}
    return writers, {"target_accuracy": target_accuracy}


def markdown(result: Result, *, target_accuracy: float | None = None) -> str:
    """table.md of ``result`` (any protocol's); with ``target_accuracy`` (a sweep or a PAN
    run) the recommended epsilon per mechanism is in it.

    Parameters
    ----------
    result
        Any protocol's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        The Markdown.
    """
    writers, keywords = _writers(result, target_accuracy)
    return writers.markdown(result, **keywords)


def terminal(result: Result, *, target_accuracy: float | None = None) -> str:
    """What ``evaluate`` prints of ``result`` (any protocol's): a table a terminal shows where
    table.md is wider (a sweep: the utilities and the strongest attacker), else table.md.

    Parameters
    ----------
    result
        Any protocol's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        The text.
    """
    writers, keywords = _writers(result, target_accuracy)
    return (writers.terminal or writers.markdown)(result, **keywords)


def write_reports(
    result: Result,
    folder: str | Path,
    *,
    force: bool = False,
    target_accuracy: float | None = None,
) -> list[Path]:
    """Write ``result``'s reports (any protocol's: results.json, table.md, table.csv, its
    plots and report.html, and what else its protocol reports) into ``folder``, atomically
    together, refusing existing reports unless ``force``; with ``target_accuracy`` (a sweep or
    a PAN run) the recommendation goes into table.md and results.json.

    Parameters
    ----------
    result
        Any protocol's result.
    folder
        The folder to write into (created if missing).
    force
        Whether existing reports may be replaced.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    list[Path]
        The paths written.
    """
    writers, keywords = _writers(result, target_accuracy)
    return writers.write(result, folder, force=force, **keywords)
