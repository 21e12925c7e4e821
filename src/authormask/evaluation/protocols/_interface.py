"""The one interface every evaluation protocol implements (:class:`EvaluationProtocol`), so that
a front end runs any of them the same way::

    protocol = PROTOCOLS[name]
    plan = protocol.plan(options)                 # its config and inputs, from the options
    result = protocol.run(plan.config, plan.inputs, cache_dir=..., progress=...)
    write_reports(result, folder)                 # authormask.evaluation.reports

A protocol's ``Config`` is a frozen dataclass (:class:`~authormask.evaluation.protocols.
_common.ProtocolConfig`: its defaults, ``quick()``, the options it reads); its inputs are what
it runs on besides the config (the corpus or the collection read, the embeddings loaded, a
model, the engine); its result is plain data (one of ``results``), which
:mod:`authormask.evaluation.reports` reads and writes: a protocol never imports the reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar, runtime_checkable

from authormask.evaluation.protocols._common import ProtocolConfig
from authormask.evaluation.protocols._options import Options

__all__ = ["EvaluationProtocol", "Plan"]

ConfigT = TypeVar("ConfigT", bound=ProtocolConfig)
InputsT = TypeVar("InputsT")
ResultT_co = TypeVar("ResultT_co", covariant=True)


@dataclass(frozen=True)
class Plan(Generic[ConfigT, InputsT]):
    """What a protocol will run, as its :meth:`~EvaluationProtocol.plan` read it from the
    options: its config and its inputs.

    Attributes
    ----------
    config
        The protocol's config.
    inputs
        What it runs on besides the config.
    """

    config: ConfigT
    inputs: InputsT


@runtime_checkable
class EvaluationProtocol(Protocol[ConfigT, InputsT, ResultT_co]):
    """An evaluation protocol: a data split, which releases and which measures.

    ``name`` is its name (``authormask evaluate --protocol``); ``Config`` its config type;
    ``results`` the types of result its :meth:`run` returns (each written by
    :func:`authormask.evaluation.reports.write_reports`); ``progress_units`` what its progress
    counts, as ``(verb, unit)`` (``("measuring", "cell")``)."""

    @property
    def name(self) -> str: ...

    @property
    def Config(self) -> type[ConfigT]: ...

    @property
    def results(self) -> tuple[type, ...]: ...

    @property
    def progress_units(self) -> tuple[str, str]: ...

    def plan(self, options: Options) -> Plan[ConfigT, InputsT]:
        """The config and the inputs of ``options`` (the protocol's own reading of them: its
        defaults, what it refuses, the data it loads), checked before any release; the lines
        for the reader go to ``options.echo``. A bad option raises
        :class:`~authormask.evaluation.protocols._options.OptionError`.

        Parameters
        ----------
        options
            The options of the run.

        Returns
        -------
        Plan[ConfigT, InputsT]
            The config and the inputs.
        """
        ...

    def run(
        self,
        config: ConfigT,
        inputs: InputsT,
        *,
        cache_dir: str | Path | None = None,
        progress: Callable[[int], None] | None = None,
        on_total: Callable[[int], None] | None = None,
    ) -> ResultT_co:
        """Run ``config`` on ``inputs``: releases and measures cached in ``cache_dir`` (a rerun
        resumes), ``on_total`` called once, first, with the units of work
        (:attr:`progress_units`), ``progress`` with the units finished.

        Parameters
        ----------
        config
            The config.
        inputs
            The inputs.
        cache_dir
            The results cache's folder, or ``None`` for no cache.
        progress
            Called with the units of work finished, or ``None``.
        on_total
            Called once, first, with the units of work, or ``None``.

        Returns
        -------
        ResultT_co
            The result (one of :attr:`results`).
        """
        ...
