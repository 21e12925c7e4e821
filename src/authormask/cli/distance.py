"""``authormask distance``: the Earth Mover's distance between two documents and, at a given
epsilon, how much more likely an output is from one than from the other (thin wrapper over
:func:`authormask.accounting.word_movers_distance` and
:func:`authormask.accounting.privacy_multiplier`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from authormask.cli.options import (
    cache_option,
    embeddings_option,
    epsilon_option,
    load_embeddings_from_options,
    text_or_json_options,
    vocab_option,
)

__all__ = ["multiplier_text", "register"]


def multiplier_text(multiplier: float, document_epsilon: float) -> str:
    """The multiplier ``exp(epsilon*N*E)`` as a number, or, past the float range (it is then
    ``inf``), as ``exp(1234) ~ 10^535.9``."""
    if math.isfinite(multiplier):
        return f"{multiplier:.4g}"
    return f"exp({document_epsilon:.4g}) ~ 10^{document_epsilon / math.log(10):.1f}"


@click.command()
@click.argument("a", type=str)
@click.argument("b", type=str)
@epsilon_option(
    help="Also report the privacy multiplier exp(epsilon*N*E) between the two documents."
)
@click.option(
    "--length",
    "-N",
    type=click.IntRange(min=1),
    default=None,
    help="N for the multiplier (with --epsilon): both bags are truncated to N words "
    "(default: the shorter bag).",
)
@embeddings_option
@vocab_option
@text_or_json_options(help="How to print the result.")
@cache_option
def distance(
    a: str,
    b: str,
    epsilon: float | None,
    length: int | None,
    embeddings: str,
    vocab_size: int,
    fmt: str,
    as_json: bool,
    cache_dir: Path | None,
) -> None:
    """Earth Mover's distance between the prepared bags of documents A and B, and how
    distinguishable their obfuscated outputs may be at a given epsilon."""
    from authormask.accounting import privacy_multiplier, word_movers_distance
    from authormask.cli.io import read_inputs
    from authormask.text import TextPreparer, fixed_length_bag

    if length is not None and epsilon is None:
        raise click.UsageError("--length applies only with --epsilon (it sets N for the bound)")
    doc_a, doc_b = read_inputs((a,))[0], read_inputs((b,))[0]
    emb = load_embeddings_from_options(embeddings, vocab_size, cache_dir)
    prep = TextPreparer(emb)
    pa, pb = prep.prepare(doc_a.text), prep.prepare(doc_b.text)
    full = word_movers_distance(pa.content_words, pb.content_words, emb)
    result: dict[str, Any] = {
        "a": doc_a.name,
        "b": doc_b.name,
        "embeddings": emb.identity.to_dict(),
        "words_a": full.size_a,
        "words_b": full.size_b,
        "emd": full.distance,
        "method": full.method,
    }
    if epsilon is not None:
        n = length if length is not None else min(full.size_a, full.size_b)
        ba = fixed_length_bag(pa.content_words, length=n)
        bb = fixed_length_bag(pb.content_words, length=n)
        fixed = word_movers_distance(ba.words, bb.words, emb)
        doc_eps = epsilon * n * fixed.distance
        mult = privacy_multiplier(epsilon=epsilon, length=n, distance=fixed.distance)
        result.update(
            {
                "epsilon": epsilon,
                "length": n,
                "emd_at_length": fixed.distance,
                "document_epsilon": doc_eps,
                "multiplier": mult if math.isfinite(mult) else None,
                "log10_multiplier": doc_eps / math.log(10),
            }
        )
    if as_json or fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(f"Earth Mover's distance E(A, B) = {full.distance:.4f}")
    click.echo(f"  A: {doc_a.name} ({full.size_a} words), B: {doc_b.name} ({full.size_b} words)")
    click.echo(f"  solved by {full.method}; embeddings {emb.identity.describe()}")
    if epsilon is not None:
        n = result["length"]
        click.echo(
            f"At epsilon={epsilon:g} per word and N={n} (first {n} words of each): "
            f"E = {result['emd_at_length']:.4f}, "
            f"epsilon*N*E = {result['document_epsilon']:.4f}"
        )
        click.echo(
            f"  any output is at most {multiplier_text(mult, doc_eps)} times "
            "more likely from one document than the other"
        )


def register(cli: click.Group) -> None:
    cli.add_command(distance)
