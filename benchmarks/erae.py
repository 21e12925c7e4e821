"""Benchmark: ER-AE training time per epoch (both configurations) and generation throughput.

Prints, in one run on this machine:

1. training seconds per epoch of the ``cpu`` and ``paper`` configurations, and of the ``cpu``
   configuration with the paper's full softmax as the reference for the adaptive softmax,
   measured on a seeded subset of the Reuters C50 training sentences (one reconstruction and one
   reward epoch each) and extrapolated to the whole training set by tokens; the ``cpu`` figure
   is read against the issue's budget of 30 minutes for a full training;
2. generation throughput (tokens/s) of batched ER-AE generation with the ``cpu`` configuration
   on C50 test documents with the exact exponential-mechanism sampler, against two references in
   the same run: the float64 inverse-CDF sampler it replaced (before) and the same generation one
   segment at a time (batch size 1); and the target of 2,000 tokens/s. Each line also gives the
   tokens per CPU second of all threads (the model runs on a worker thread beside the sampler):
   on a machine shared with other jobs, wall-clock rates say more about the other jobs.

Usage: python benchmarks/erae.py [--model MODEL_DIR] [--sentences 1500] [--dataset-path P]
                                 [--generation-only]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from authormask.core import create_mechanism, release
from authormask.datasets import load_reuters_c50
from authormask.embeddings import load_embeddings
from authormask.models.erae import get_config, load_model, train_erae
from authormask.models.erae.training import prepare_segments

sys.path.insert(0, str(Path(__file__).parent))

BUDGET_S = 30 * 60
TARGET_TOKENS_S = 2_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, default=None, help="A trained cpu-config model.")
    parser.add_argument("--sentences", type=int, default=1500)
    parser.add_argument("--docs", type=int, default=100, help="Test documents to generate.")
    parser.add_argument("--dataset-path", type=Path, default=None)
    parser.add_argument(
        "--generation-only",
        action="store_true",
        help="Skip the training timings (with no --model, train a cpu model on --sentences "
        "sentences for one epoch of each phase: generation speed depends on its size only).",
    )
    args = parser.parse_args()
    torch.set_num_threads(torch.get_num_threads())
    corpus = load_reuters_c50(args.dataset_path)
    train_texts = [d.text for d in corpus.select(split="train")]
    all_tokens = sum(len(s) for s in prepare_segments(train_texts, max_length=50))  # any length
    emb = load_embeddings("glove-6b-50d", vocab_size=100_000)
    print(f"C50 training set: {all_tokens} tokens; {torch.get_num_threads()} torch threads")
    with tempfile.TemporaryDirectory() as tmp:
        configs = {
            "cpu": get_config("cpu"),
            "cpu, full softmax": get_config("cpu").replace(output_layer="softmax"),
            "paper": get_config("paper"),
        }
        recon_s = {}
        if args.generation_only:
            configs = {} if args.model else {"cpu": get_config("cpu")}
        for name, full in configs.items():
            cfg = full.replace(max_sentences=args.sentences, pretrain_epochs=1, reward_epochs=1)
            res = train_erae(
                train_texts, output=Path(tmp) / name.replace(" ", ""), embeddings=emb, config=cfg
            )
            per_epoch = {r.phase: r.seconds * all_tokens / res.tokens for r in res.history}
            total = (
                full.pretrain_epochs * per_epoch["reconstruction"]
                + full.reward_epochs * per_epoch["reward"]
            )
            print(
                f"{name:>17}: {res.tokens} tokens timed; per full epoch "
                f"reconstruction {per_epoch['reconstruction']:.0f} s, reward "
                f"{per_epoch['reward']:.0f} s; default training ({full.pretrain_epochs}+"
                f"{full.reward_epochs} epochs) ~{total / 60:.1f} min = "
                f"{total / BUDGET_S:.2f} of the 30-minute budget"
            )
            recon_s[name] = per_epoch["reconstruction"]
        if len(recon_s) > 1:
            print(
                "adaptive softmax speed-up (reconstruction epoch): "
                f"{recon_s['cpu, full softmax'] / recon_s['cpu']:.1f}x"
            )
        model_dir = args.model or Path(tmp) / "cpu"
        model = load_model(model_dir, device="cpu")
        docs = [d.text for d in corpus.select(split="test")[: args.docs]]
        rates = {}
        for label, batch, sampler in (
            ("exact sampler, batch 256", 256, None),
            ("float sampler (before), batch 256", 256, _float_sampler),
            ("exact sampler, batch 1", 1, None),
        ):
            mech = create_mechanism("erae", model=model, epsilon=30.0, batch_size=batch)
            with _sampler(sampler):
                t0, c0 = time.perf_counter(), time.process_time()
                rel = release(docs, mech, random_state=0)
                seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            tokens = int(sum(d.figures["tokens"] for d in rel.documents))
            rates[label] = tokens / seconds
            print(
                f"generation, {label:>34}: {tokens} tokens in {seconds:.1f} s = "
                f"{rates[label]:.0f} tokens/s ({tokens / cpu:.0f} per CPU second, all threads)"
            )
        exact = rates["exact sampler, batch 256"]
        print(
            f"exact / float sampler: {exact / rates['float sampler (before), batch 256']:.2f}x; "
            f"batched / one-at-a-time: {exact / rates['exact sampler, batch 1']:.1f}x; "
            f"exact batched / target {TARGET_TOKENS_S}: {exact / TARGET_TOKENS_S:.2f}x"
        )


def _float_sampler(ratings: Any, **kw: Any) -> Any:
    """The float64 inverse-CDF sampler used before (benchmarks/exponential.py), as reference."""
    from exponential import old_float_sampler  # type: ignore[import-not-found]

    scale = kw["epsilon"] / kw["sensitivity"]  # old_float_sampler assumes sensitivity 1
    return old_float_sampler(np.atleast_2d(ratings), scale, kw["random_state"])


@contextlib.contextmanager
def _sampler(replacement: Any) -> Iterator[None]:
    """Swap the generation module's sampler for ``replacement`` (None: keep the exact one)."""
    import authormask.mechanisms.generation as generation

    original = generation.sample_exponential
    if replacement is not None:
        generation.sample_exponential = replacement
    try:
        yield
    finally:
        generation.sample_exponential = original


if __name__ == "__main__":
    main()
