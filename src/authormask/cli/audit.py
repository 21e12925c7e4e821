"""``authormask audit``: empirical privacy audit of every registered mechanism (thin wrapper of
:func:`authormask.audit.audit_mechanisms`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from authormask.cli.options import cache_option, force_option, seed_option, text_or_json_options
from authormask.cli.progress import Progress
from authormask.exceptions import AuthormaskError

__all__ = ["AuditFailedError", "format_table", "register"]


class AuditFailedError(AuthormaskError):
    """At least one lower bound exceeds its stated epsilon (exit status 1)."""


COLUMNS = (
    ("mechanism", "mechanism", "<"),
    ("case", "case", "<"),
    ("epsilon_stated", "epsilon_stated", ">"),
    ("epsilon_lower_bound", "epsilon_lower_bound", ">"),
    ("confidence", "confidence", ">"),
    ("samples", "samples", ">"),
    ("passed", "passed", "<"),
)


def _cell(key: str, value: Any) -> str:
    if key in ("epsilon_stated", "epsilon_lower_bound"):
        return f"{value:.4f}"
    if key == "confidence":
        return f"{value:.4f}"
    if key == "samples":
        return f"{value:,}"
    if key == "passed":
        return "yes" if value else "NO"
    return str(value)


def format_table(rows: list[dict[str, Any]]) -> str:
    """The audit as an aligned plain-text table (one line per case)."""
    cells = [[_cell(key, row[key]) for key, _, _ in COLUMNS] for row in rows]
    widths = [
        max([len(title), *(len(c[i]) for c in cells)]) for i, (_, title, _) in enumerate(COLUMNS)
    ]
    lines = [
        "  ".join(
            f"{title:{align}{w}}" for (_, title, align), w in zip(COLUMNS, widths, strict=True)
        )
    ]
    for c in cells:
        lines.append(
            "  ".join(
                f"{v:{align}{w}}" for v, (_, _, align), w in zip(c, COLUMNS, widths, strict=True)
            )
        )
    return "\n".join(line.rstrip() for line in lines)


#: shown in --help without importing the audit (its modules load scipy); a test checks that it
#: is authormask.audit.DEFAULT_SAMPLES
SAMPLES_HELP_DEFAULT = "200,000"


@click.command()
@click.option(
    "--mechanism",
    "-m",
    "mechanisms",
    multiple=True,
    help="Audit only these mechanisms (repeat or comma-separate; default: every registered one).",
)
@click.option(
    "--samples",
    type=click.IntRange(min=100),
    default=None,
    help="Draws per input of each case (half choose the event, half evaluate it). More "
    f"draws give tighter lower bounds; time grows linearly. [default: {SAMPLES_HELP_DEFAULT}]",
)
@seed_option(help="Make the audit reproducible (a case's draws depend on the seed and its name).")
@click.option(
    "--confidence",
    type=click.FloatRange(min=0.5, max=1.0, min_open=False, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence of the lower bounds, for the whole run (Bonferroni across its cases).",
)
@text_or_json_options(help="A table, or a JSON list with one object a case.")
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also draw stated epsilon vs lower bound per case to this PNG file.",
)
@force_option(help="Overwrite an existing --plot file.")
@cache_option
def audit(
    mechanisms: tuple[str, ...],
    samples: int | None,
    seed: int | None,
    confidence: float,
    fmt: str,
    as_json: bool,
    plot_path: Path | None,
    force: bool,
    cache_dir: Path | None,
) -> None:
    """Empirically audit the privacy of every mechanism: for two neighbouring inputs of each,
    draw many outputs, search output events, and print a Clopper-Pearson lower bound on
    epsilon (Jagielski et al. 2020) beside the epsilon the statement gives. Exit status 1
    if any lower bound exceeds its statement (evidence of an implementation bug)."""
    from authormask._io import check_target
    from authormask.audit import DEFAULT_SAMPLES, audit_mechanisms, audit_plan

    if force and plot_path is None:
        raise click.UsageError("--force applies only with --plot")
    if plot_path is not None:
        check_target(plot_path, force=force)
    if samples is None:
        samples = DEFAULT_SAMPLES
    names = mechanisms if mechanisms else None
    plan = audit_plan(names)
    with Progress("auditing", "draw", total=2 * samples * len(plan)) as bar:
        results = audit_mechanisms(
            names,
            samples=samples,
            confidence=confidence,
            random_state=seed,
            progress=bar.update,
            cache_dir=cache_dir if cache_dir else "default",
        )
    rows = [r.to_dict() for r in results]
    if as_json or fmt == "json":
        click.echo(json.dumps(rows, indent=2))
    else:
        click.echo(format_table(rows))
        per_case = results[0].confidence if results else confidence
        click.echo(
            f"\nLower bounds hold together with {100 * confidence:g}% confidence (each case "
            f"at {100 * per_case:.3g}%, Bonferroni); {samples:,} draws per input, half to "
            "choose the event, half to bound it. A bound far below the statement is "
            "expected where the guarantee is loose (glove, K1000); it is a bound, not an "
            "estimate."
        )
    if plot_path is not None:
        from authormask.audit.plot import plot_audit

        plot_audit(results, plot_path, force=force)
        click.echo(f"wrote the plot to {plot_path}", err=True)
    failed = [r for r in results if not r.passed]
    if failed:
        worst = ", ".join(
            f"{r.mechanism}/{r.case} (lower bound {r.epsilon_lower_bound:.4g} > stated "
            f"{r.epsilon_stated:.4g})"
            for r in failed
        )
        raise AuditFailedError(f"privacy audit failed for {worst}")


def register(cli: click.Group) -> None:
    cli.add_command(audit)
