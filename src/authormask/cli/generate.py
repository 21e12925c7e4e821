"""``authormask obfuscate --mechanism erae|ae-dp|syntf|random``: token-by-token generation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from authormask.exceptions import InputError


def build_mechanism(
    mechanism: str,
    *,
    epsilon: float,
    model_dir: Path | None,
    output_vocab: int,
    embeddings: str,
    vocab_size: int | None,
    cache_dir: Path | None,
) -> Any:
    """The mechanism object for a ``--mechanism`` name."""
    from authormask.cli.main import _load
    from authormask.mechanisms.generation import (
        ERAEMechanism,
        RandomReplacement,
        SynTFMechanism,
    )
    from authormask.models.erae import load_model

    if mechanism in ("erae", "ae-dp"):
        assert model_dir is not None
        model = load_model(model_dir)
        built = ERAEMechanism(model, epsilon=epsilon)
        want = "ER-AE" if mechanism == "erae" else "AE-DP"
        if built.name != want:
            raise InputError(
                f"{model_dir} holds an {built.name} model (embedding reward "
                f"{'on' if built.name == 'ER-AE' else 'off'}); use --mechanism "
                f"{'erae' if built.name == 'ER-AE' else 'ae-dp'}"
            )
        return built
    if mechanism == "random":
        if model_dir is not None:
            model = load_model(model_dir)
            return RandomReplacement(model.vocab.words, max_length=model.config.max_length)
        emb = _load(embeddings, vocab_size, cache_dir)
        return RandomReplacement(emb.words[:output_vocab])
    emb = _load(embeddings, vocab_size, cache_dir)
    return SynTFMechanism(emb, epsilon=epsilon, output_size=output_vocab)


def generate(
    docs: list[Any],
    *,
    mechanism: str,
    epsilon: float,
    model_dir: Path | None,
    output_vocab: int,
    embeddings: str,
    vocab_size: int | None,
    cache_dir: Path | None,
    seed: int | None,
    output: Path | None,
    fmt: str,
    force: bool,
) -> None:
    from authormask.cli.main import _progress_bar, emit
    from authormask.mechanisms.generation import generate_texts

    mech = build_mechanism(
        mechanism,
        epsilon=epsilon,
        model_dir=model_dir,
        output_vocab=output_vocab,
        embeddings=embeddings,
        vocab_size=vocab_size,
        cache_dir=cache_dir,
    )
    with _progress_bar("generating", "token") as bar:
        results = generate_texts(
            [d.text for d in docs], mechanism=mech, random_state=seed, progress=bar.update
        )
    for d, r in zip(docs, results, strict=True):
        st = r.statement
        if st.training_overlap:
            click.echo(
                f"authormask: warning: {st.training_overlap} of {st.segments} sentences of "
                f"{d.name} occur in the model's training corpus; the guarantee does not hold "
                "for text the model was trained on",
                err=True,
            )
        if st.unknown_tokens:
            click.echo(
                f"authormask: note: {st.unknown_tokens} tokens of {d.name} are not in the "
                "model's vocabulary and were read as <unk>",
                err=True,
            )
    records = [
        {
            "source": d.name,
            "mechanism": r.statement.mechanism,
            "text": r.text,
            "privacy": r.statement.to_dict(),
        }
        for d, r in zip(docs, results, strict=True)
    ]
    emit(docs, results, records, output=output, fmt=fmt, force=force)
