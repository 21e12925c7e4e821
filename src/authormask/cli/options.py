"""Options shared by the commands, so that every command spells, documents and validates them
the same way: epsilon (validated by :func:`authormask.validation.check_epsilon`), seed,
embeddings, vocabulary size, cache folder, output (+ ``--force``), format, report, and
``-q/--quiet``. Each ``*_option`` is a click decorator (the factories take the few things that
differ between commands: help text, default, whether it is required).

Importing this module imports click only; what an option needs to be used (the embeddings
loader, ...) is imported when the command runs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from authormask.cli.progress import QUIET_KEY

__all__ = [
    "EMB_HELP",
    "EPS_HELP",
    "SEED_HELP",
    "VOCAB_HELP",
    "EpsilonListType",
    "EpsilonType",
    "NumberType",
    "cache_option",
    "embeddings_option",
    "engine_from_options",
    "engine_options",
    "epsilon_option",
    "epsilons_option",
    "force_option",
    "format_option",
    "load_embeddings_from_options",
    "output_option",
    "quiet_option",
    "report_option",
    "seed_option",
    "vocab_option",
    "vocab_size_option",
]

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

EMB_HELP = (
    "Word vectors defining the distance the guarantee is stated in: a packaged name "
    "(see `authormask embeddings`) or a word2vec .bin, GloVe/word2vec text or fastText .vec file."
)
VOCAB_HELP = (
    "Keep only the K most frequent words of the embeddings (the paper used 30k and 100k). "
    "Replacements are drawn from these K words."
)
EPS_HELP = (
    "Privacy parameter (> 0). Smaller means more privacy. Per word for the word-vector "
    "mechanisms (emp-bag, emp-text, emp-doc, emp-write, mahalanobis, tem, santext: metric "
    "privacy in the distance between word vectors; emp-*: noise of mean length n/epsilon on "
    "each n-dimensional vector), whose scale depends on the embeddings (run `authormask "
    "calibrate` to see how often words change at each epsilon). Per output token for erae, "
    "ae-dp and syntf: each token is drawn by the exponential mechanism (pure epsilon-DP per "
    "token; no vector noise). random-r and random-sub take none."
)
SEED_HELP = (
    "Make the run reproducible. Keep the seed secret: anyone who has it can recompute the "
    "noise. Without it, randomness comes from the OS (recommended for real releases)."
)


class NumberType(click.ParamType):  # type: ignore[type-arg]
    """A real number (``1e-3``, ``nan`` and ``inf`` parse; checking the range is the caller's)."""

    name = "NUMBER"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        try:
            number = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number", param, ctx)
        # a number too large or too small for a float reads as inf or 0: said as written,
        # not as what it became (`--epsilon 1e400` said "got inf")
        text = str(value).strip().lower().lstrip("+-")
        if (math.isinf(number) and not text.startswith("inf")) or (
            number == 0 and any(c in "123456789" for c in text.split("e")[0])
        ):
            self.fail(f"{value!r} is out of range: it reads as {number:g}", param, ctx)
        return number


class EpsilonType(NumberType):
    """A privacy parameter: a finite number > 0 (:func:`authormask.validation.check_epsilon`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from authormask.exceptions import InvalidParameterError
        from authormask.validation import check_epsilon

        number = super().convert(value, param, ctx)
        try:
            return check_epsilon(number)
        except InvalidParameterError as exc:
            self.fail(str(exc), param, ctx)


class EpsilonListType(click.ParamType):  # type: ignore[type-arg]
    """Comma-separated epsilons, each checked as :class:`EpsilonType`; with ``allow_none``,
    ``none`` (or ``unmodified``) stands for the unmodified text. Converts to a tuple."""

    def __init__(self, *, allow_none: bool = False) -> None:
        self.allow_none = allow_none
        self.name = "NUMBER[,NUMBER...]" if not allow_none else "none|NUMBER[,...]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        out: list[float | None] = []
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            if self.allow_none and part.lower() in ("none", "unmodified"):
                out.append(None)
                continue
            try:
                float(part)
            except ValueError:
                alt = " or 'none'" if self.allow_none else ""
                self.fail(f"epsilon {part!r} is not a number{alt}", param, ctx)
            out.append(EpsilonType().convert(part, param, ctx))
        if not out:
            self.fail("give at least one epsilon", param, ctx)
        return tuple(out)


def epsilon_option(
    *, help: str = EPS_HELP, required: bool = False, default: float | None = None
) -> Decorator[Any]:
    """``--epsilon/-e NUMBER``: one privacy parameter, a finite number > 0."""
    return click.option(
        "--epsilon",
        "-e",
        type=EpsilonType(),
        default=default,
        required=required,
        show_default=default is not None,
        help=help,
    )


def epsilons_option(
    *,
    help: str,
    default: str | None = None,
    allow_none: bool = False,
    param_decls: Sequence[str] = ("--epsilons",),
) -> Decorator[Any]:
    """``--epsilons 2,5,10``: several privacy parameters, comma-separated or repeated (one
    tuple; ``None`` for 'none' when ``allow_none``; repeats refused)."""

    def merge(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if not value:
            return None
        out = tuple(e for part in value for e in part)
        if len(set(out)) != len(out):
            raise click.BadParameter("epsilons must not repeat", ctx, param)
        return out

    return click.option(
        *param_decls,
        type=EpsilonListType(allow_none=allow_none),
        multiple=True,
        default=(default,) if default is not None else (),
        callback=merge,
        help=help if default is None else f"{help}  [default: {default}]",
    )


def seed_option(*, default: int | None = None, help: str = SEED_HELP) -> Decorator[Any]:
    """``--seed N``: an integer >= 0; ``None`` (the default) means OS randomness."""
    return click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=default,
        show_default=default is not None,
        help=help,
    )


def vocab_size_option(
    *,
    default: int | None = 100_000,
    help: str = VOCAB_HELP,
    param_decls: Sequence[str] = ("--vocab-size",),
) -> Decorator[Any]:
    """``--vocab-size K``: the K most frequent words of the embeddings (an integer >= 1)."""
    return click.option(
        *param_decls,
        type=click.IntRange(min=1),
        default=default,
        show_default=default is not None,
        help=help,
    )


embeddings_option: Decorator[Any] = click.option(
    "--embeddings", "embeddings", default="glove-6b-50d", show_default=True, help=EMB_HELP
)
vocab_option: Decorator[Any] = vocab_size_option()


def _recogniser_cache(ctx: click.Context, param: click.Parameter, value: Path | None) -> Any:
    """The command's cache folder holds the entity recogniser's prepared file too; without
    ``--cache-dir``, the default folder (a folder an earlier command named is not kept)."""
    from authormask.text.entities import use_cache_dir

    use_cache_dir(value)
    return value


cache_option: Decorator[Any] = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    callback=_recogniser_cache,
    help=(
        "Where prepared files are cached: vocabularies (filtered words, vectors, search "
        "index), the noun lexicon, the writer and the entity recogniser "
        "(default: $AUTHORMASK_CACHE_DIR, else $XDG_CACHE_HOME/authormask or ~/.cache/authormask)."
    ),
)


class OutputPath(click.Path):
    """A ``click.Path`` that refuses the empty string (``Path("")`` would be the current
    folder) and remembers a final separator (``out/`` names a folder:
    :class:`authormask._io.FolderPath`), which ``Path`` drops."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("an empty path is not an output path", param, ctx)
        path = super().convert(value, param, ctx)
        if isinstance(value, str) and isinstance(path, Path) and value.endswith(("/", os.sep)):
            from authormask._io import FolderPath

            return FolderPath.given(path)
        return path


def output_option(
    *, help: str, required: bool = False, folder: bool = False, file: bool = True
) -> Decorator[Any]:
    """``--output/-o PATH`` (a ``Path``); ``folder`` allows a folder, ``file`` a file. A
    required one has no default (click treats an explicit ``default=None`` as given)."""
    extra: dict[str, Any] = {} if required else {"default": None}
    return click.option(
        "--output",
        "-o",
        type=OutputPath(file_okay=file, dir_okay=folder, path_type=Path),
        required=required,
        help=help,
        **extra,
    )


def force_option(*, help: str = "Overwrite existing output files.") -> Decorator[Any]:
    """``--force``: replace existing outputs (never a link, folder, FIFO or device)."""
    return click.option("--force", is_flag=True, help=help)


def format_option(*choices: str, default: str, help: str) -> Decorator[Any]:
    """``--format CHOICE`` (the parameter is named ``fmt``)."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help=help,
    )


def text_or_json_options(*, help: str) -> Decorator[Any]:
    """``--format text|json`` and its shorthand ``--json`` (parameters ``fmt`` and
    ``as_json``)."""
    as_format = format_option("text", "json", default="text", help=help)
    as_json = click.option(
        "--json", "as_json", is_flag=True, help="Print JSON (same as --format json)."
    )

    def decorate(f: F) -> F:
        decorated: F = as_format(as_json(f))
        return decorated

    return decorate


def report_option(*, help: str) -> Decorator[Any]:
    """``--report PATH`` (the parameter is named ``report_path``): a file written beside the
    output."""
    return click.option(
        "--report",
        "report_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help=help,
    )


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:  # never unset: `authormask -q CMD` stays quiet whatever CMD's own flag says
        ctx.meta[QUIET_KEY] = True
    return value


quiet_option: Decorator[Any] = click.option(
    "-q",
    "--quiet",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_set_quiet,
    help="No progress bar or progress lines; obfuscate prints nothing but errors and warnings "
    "(its statement is still written beside the output; with standard output, on stderr).",
)


def load_embeddings_from_options(
    embeddings: str, vocab_size: int | None, cache_dir: Path | None
) -> Any:
    """The :class:`~authormask.embeddings.Embeddings` that ``--embeddings``, ``--vocab-size``
    and ``--cache-dir`` name."""
    from authormask.embeddings import load_embeddings

    return load_embeddings(
        embeddings, vocab_size=vocab_size, cache_dir=cache_dir if cache_dir else "default"
    )


def engine_options(*, what: str) -> Decorator[Any]:
    """``--engine local|dask``, ``--workers N`` and ``--scheduler ADDRESS`` (see
    :func:`engine_from_options`). ``what`` names the work a task does, for the help."""

    def decorate(f: F) -> F:
        f = click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="--engine dask: the address of an existing Dask cluster's scheduler (e.g. "
            "tcp://10.0.0.5:8786 or tls://...). This process reads the input and writes the "
            "output; every worker needs the same authormask and embeddings (and an ER-AE model "
            "directory at the same path). See docs/dask.md.",
        )(f)
        f = click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=None,
            help="--engine dask: start a local cluster of N single-threaded worker processes "
            "for this run (default 1).",
        )(f)
        return click.option(
            "--engine",
            type=click.Choice(["local", "dask"]),
            default="local",
            show_default=True,
            help=f"Where {what} run: in this process (local), or on Dask (dask: a local "
            "cluster of --workers processes, or an existing cluster at --scheduler). The "
            "results are the same.",
        )(f)

    return decorate


def engine_from_options(engine: str, workers: int | None, scheduler: str | None) -> Any:
    """The :class:`~authormask.core.executors.Engine` of ``--engine/--workers/--scheduler``."""
    from authormask.core.executors import Engine

    if engine == "local" and (workers is not None or scheduler is not None):
        flag = "--workers" if workers is not None else "--scheduler"
        raise click.UsageError(f"{flag} applies to --engine dask")
    if workers is not None and scheduler is not None:
        raise click.UsageError(
            "give --workers (a local cluster) or --scheduler (an existing cluster), not both"
        )
    return Engine(engine, workers=workers, scheduler=scheduler)
