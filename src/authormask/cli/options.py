"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

EMB_HELP = (
    "Word vectors defining the distance the guarantee is stated in: a packaged name "
    "(see `authormask embeddings`) or a word2vec .bin, GloVe/word2vec text or fastText .vec file."
)
VOCAB_HELP = (
    "Keep only the K most frequent words of the embeddings (the paper used 30k and 100k). "
    "Replacements are drawn from these K words."
)

embeddings_option = click.option(
    "--embeddings", "embeddings", default="glove-6b-50d", show_default=True, help=EMB_HELP
)
vocab_option = click.option(
    "--vocab-size", type=click.IntRange(min=1), default=100_000, show_default=True, help=VOCAB_HELP
)
cache_option = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where parsed vector files are cached (default: ~/.cache/authormask).",
)

EPS_HELP = (
    "Privacy parameter per word (> 0). Smaller means more privacy: noise of mean length "
    "n/epsilon is added to each n-dimensional word vector. Its scale depends on the embeddings; "
    "run `authormask calibrate` to see how often words change at each epsilon."
)


class NumberType(click.ParamType):  # type: ignore[type-arg]
    name = "NUMBER"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        try:
            return float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number", param, ctx)
