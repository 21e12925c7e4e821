"""``authormask calibrate``: per-epsilon word statistics for choosing epsilon (thin wrapper
over :func:`authormask.evaluation.calibration.word_statistics`)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from authormask.cli.options import (
    cache_option,
    embeddings_option,
    epsilons_option,
    load_embeddings_from_options,
    seed_option,
    text_or_json_options,
    vocab_option,
)
from authormask.cli.progress import Progress

__all__ = ["register"]


@click.command()
@embeddings_option
@vocab_option
@epsilons_option(default="1,5,10,20,30", help="Epsilons to examine (comma-separated or repeated).")
@click.option(
    "--words",
    "n_words",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Number of probe words (drawn from the 2,000 most frequent non-stopwords).",
)
@click.option(
    "--samples",
    type=click.IntRange(min=2),
    default=100,
    show_default=True,
    help="Mechanism draws per probe word.",
)
@seed_option(help="Make the estimate reproducible.")
@text_or_json_options(help="How to print the table.")
@cache_option
def calibrate(
    embeddings: str,
    vocab_size: int,
    epsilons: tuple[float, ...],
    n_words: int,
    samples: int,
    seed: int | None,
    fmt: str,
    as_json: bool,
    cache_dir: Path | None,
) -> None:
    """Per-epsilon word statistics for choosing epsilon: how often a word comes back
    unchanged and how many different words it is replaced by."""
    from dataclasses import asdict

    from authormask.evaluation.calibration import word_statistics

    emb = load_embeddings_from_options(embeddings, vocab_size, cache_dir)
    with Progress("calibrating", "epsilon", total=len(epsilons)) as bar:
        res = word_statistics(
            emb,
            epsilons=list(epsilons),
            n_words=n_words,
            samples=samples,
            random_state=seed,
            progress=bar.update,
        )
    if as_json or fmt == "json":
        click.echo(
            json.dumps(
                {
                    "embeddings": res.embeddings,
                    "samples": res.samples,
                    "words": list(res.words),
                    "rows": [asdict(r) for r in res.rows],
                },
                indent=2,
            )
        )
        return
    click.echo(f"embeddings: {emb.identity.describe()}")
    click.echo(f"{len(res.words)} probe words x {res.samples} draws each")
    click.echo(
        f"{'epsilon':>8} {'P(unchanged)':>14} {'effective outputs':>18} "
        f"{'distinct outputs':>17} {'mean noise':>11}"
    )
    for r in res.rows:
        click.echo(
            f"{r.epsilon:8g} {r.p_unchanged:9.3f}±{r.p_unchanged_stderr:.3f} "
            f"{r.effective_outputs:18.2f} {r.distinct_outputs:17.1f} {r.mean_radius:11.3f}"
        )


def register(cli: click.Group) -> None:
    cli.add_command(calibrate)
