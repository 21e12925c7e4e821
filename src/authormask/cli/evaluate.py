"""``authormask evaluate``: an evaluation protocol run on a corpus, as one command (a thin wrapper
over the protocol interface, :class:`~authormask.evaluation.protocols.EvaluationProtocol`:
``plan`` its config and inputs from the options, ``run`` it, and write its reports with
:func:`authormask.evaluation.reports.write_reports`; ``--protocol`` picks fernandes2019, bo2021
or pan from :data:`~authormask.evaluation.protocols.PROTOCOLS`).

Every protocol takes the same corpus, output, seed, embeddings and ``--quick`` options; its
defaults, ``--quick``'s and the options it reads are the protocol's own (its config:
:class:`~authormask.evaluation.protocols._common.ProtocolConfig`), and so is how it reads them
(its ``plan``). An option that the chosen protocol (or, for fernandes2019, the chosen study)
does not read is refused with one line naming the option and the protocol, never silently
ignored.

The command's options, with their help texts, are in :mod:`authormask.cli.evaluate_options`.
This module checks what every protocol checks the same way, hands the options to the chosen
protocol, shows its progress and prints what the run did; it never branches on a protocol.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from authormask.cli.evaluate_options import AUTO, PROTOCOLS, evaluate_options
from authormask.cli.options import engine_from_options
from authormask.cli.progress import Progress

__all__ = ["PROTOCOLS", "evaluate", "register"]


COLUMNS = ("text_column", "author_column", "topic_column", "split_column", "id_column")
TABLE_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv")

#: an option named by the library: its parameter name between backquotes
_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


class _Command:
    """The command's options as given: their values, which were given explicitly, and each
    one's flag."""

    def __init__(self, ctx: click.Context, opts: dict[str, Any]) -> None:
        self.ctx = ctx
        self.opts = opts
        self.protocol: str = opts["protocol"]
        self.params = {p.name: p for p in ctx.command.params if p.name}
        self.flags = {name: max(p.opts, key=len) for name, p in self.params.items()}
        self.given = frozenset(
            name
            for name in opts
            if ctx.get_parameter_source(name)
            not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)
        )

    def as_flags(self, message: str) -> str:
        """A library message with each option it names (`` `max_authors` ``) written as its
        flag (``--max-authors``)."""

        def flag(match: re.Match[str]) -> str:
            name = match.group(1)
            return self.flags.get(name, "--" + name.replace("_", "-"))

        return _NAMED.sub(flag, message)

    def refuse(self, names: Any, reason: str) -> None:
        given = [n for n in names if n in self.given]
        if given:
            flags = ", ".join(self.flags[n] for n in given)
            raise click.UsageError(f"{flags} {'does' if len(given) == 1 else 'do'} not {reason}")

    def check_output(self) -> None:
        """``-o`` is required: refused when missing, as click refuses a missing option (with
        ``default=None`` click takes the option as given)."""
        if self.opts.get("output") is None:
            raise click.MissingParameter(ctx=self.ctx, param=self.params["output"])

    def check(self, protocols: dict[str, Any]) -> None:
        """Refuse what the protocol or the dataset does not read (before any work): an option
        some protocols read (their ``Config.OPTIONS``) and this one does not."""
        groups: dict[tuple[str, ...], list[str]] = {}
        for name in self.flags:
            readers = tuple(p for p, m in protocols.items() if name in m.Config.OPTIONS)
            if readers and self.protocol not in readers:
                groups.setdefault(readers, []).append(name)
        for names_of, names in groups.items():
            only = " and ".join(f"--protocol {p}" for p in names_of)
            self.refuse(names, f"apply to --protocol {self.protocol} (only to {only})")
        if not str(self.opts["dataset"]).lower().endswith(TABLE_SUFFIXES):
            self.refuse(
                COLUMNS,
                f"apply to --dataset {self.opts['dataset']} (only to .jsonl and .csv files)",
            )

    def check_auto(self, protocols: dict[str, Any]) -> None:
        """``--epsilons auto``: refused by a protocol that does not calibrate its epsilons, for
        a mechanism that takes neither an epsilon nor a rate, and when every mechanism is a
        baseline swept over its rates (nothing to calibrate), in one line, before anything is
        written. A rate-swept baseline beside calibrated mechanisms keeps its ``--rates``."""
        from authormask.core import mechanism_names, mechanism_spec
        from authormask.evaluation.protocols._options import split_names
        from authormask.evaluation.releases import sweeps_rate

        if self.opts["epsilons"] != (AUTO,):
            return
        if not protocols[self.protocol].Config.AUTO_EPSILONS:
            calibrating = [p for p, m in protocols.items() if m.Config.AUTO_EPSILONS]
            raise click.UsageError(
                f"--epsilons auto applies to --protocol {' and '.join(calibrating)}; give "
                f"{self.protocol} numbers"
            )
        known = [m for m in split_names(self.opts["mechanisms"] or "") if m in mechanism_names()]
        for m in known:
            if not mechanism_spec(m).takes_epsilon and not sweeps_rate(m):
                raise click.UsageError(
                    f"--epsilons auto: mechanism {m} takes no epsilon; leave it out or list "
                    "epsilons"
                )
        if known and all(sweeps_rate(m) for m in known):
            raise click.UsageError(
                f"--epsilons auto: mechanism {', '.join(known)} takes no epsilon (it is swept "
                "over its rates: --rates); add a mechanism with an epsilon or leave auto out"
            )


@click.command()
@evaluate_options
def evaluate(**opts: Any) -> None:
    """Run an evaluation protocol on a corpus. fernandes2019 (the default): the
    privacy/utility sweep of Fernandes et al. (2019, Table 1): attackers try to identify
    each obfuscated snippet's author, utility measures check its topic and meaning, for
    each epsilon. bo2021: the text-release comparison of Bo et al. (2021, Table 1).
    Rerunning the same command resumes an interrupted run.

    fernandes2019 and pan run in this process, or with --engine dask on a Dask cluster
    (--workers N: a local cluster of N worker processes; --scheduler: an existing cluster),
    one task per mechanism, epsilon and repetition (pan: per problem and mechanism), with the
    same results; the resume cache in --output is shared by both engines (a run stopped under
    one resumes under the other). The workers write to that cache too where they reach it."""
    from authormask.evaluation.protocols import PROTOCOLS as registry
    from authormask.evaluation.protocols import OptionError, Options
    from authormask.evaluation.reports import check_output_dir, terminal, write_reports

    command = _Command(click.get_current_context(), opts)
    command.check_output()
    command.check(registry)
    protocol = registry[command.protocol]
    output: Path = opts["output"]
    target = opts["target_accuracy"]
    options = Options(
        values=opts,
        given=command.given,
        echo=lambda line: click.echo(command.as_flags(line), err=True),
    )
    try:
        options.rates()  # a bad rate: one line, before anything is written
        command.check_auto(registry)
        if target is not None and not 0.0 < target <= 1.0:  # NaN fails too
            raise click.UsageError(f"--target-accuracy must be in (0, 1], got {target:g}")
        engine = engine_from_options(opts["engine"], opts["workers"], opts["scheduler"])
        check_output_dir(output, force=opts["force"])
        t0 = time.perf_counter()
        plan = protocol.plan(replace(options, engine=engine))
    except OptionError as exc:  # the protocol's refusal of an option: a usage error
        raise click.UsageError(command.as_flags(str(exc))) from None
    with Progress(*protocol.progress_units) as bar:
        result = protocol.run(
            plan.config,
            plan.inputs,
            cache_dir=output / "cache",
            progress=bar.update,
            on_total=lambda total: setattr(bar, "total", total),
        )
    paths = write_reports(result, output, force=opts["force"], target_accuracy=target)
    click.echo(terminal(result, target_accuracy=target).rstrip("\n"))
    click.echo(
        f"wrote {', '.join(p.name for p in paths)} to {output} ({time.perf_counter() - t0:.0f} s)",
        err=True,
    )


def register(cli: click.Group) -> None:
    """Add :func:`evaluate` to ``cli``."""
    cli.add_command(evaluate)
