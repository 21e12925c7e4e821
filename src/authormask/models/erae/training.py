"""Training ER-AE: reconstruction pre-training (Eq. 8), then the REINFORCE embedding reward
(Eq. 9-10), with per-epoch validation, checkpoints and resume."""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from authormask._version import __version__
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.models.erae.checkpoint import (
    FORMAT,
    checkpoint_dir,
    read_json,
    read_tensors,
    segment_hash,
    write_checkpoint,
    write_json,
    write_tensors,
)
from authormask.models.erae.config import ERAEConfig
from authormask.models.erae.model import build_network, resolve_device
from authormask.models.erae.network import ERAENetwork
from authormask.models.erae.vocab import BOS, Vocabulary
from authormask.text.sentences import segment_text

__all__ = ["EpochRecord", "TrainingResult", "prepare_segments", "train_erae"]

logger = logging.getLogger(__name__)

MIN_SEGMENTS = 10
_MODEL_FILES = ("config.json", "vocab.json", "training_hashes.safetensors")
_MODEL_DIRS = ("checkpoint", "checkpoint.old", "checkpoint.new")


@dataclass(frozen=True)
class EpochRecord:
    """One finished epoch: its phase (``reconstruction`` or ``reward``), mean training losses
    per token, the validation reconstruction loss per token and the wall time.

    Attributes
    ----------
    epoch
        The epoch's number, from 1.
    phase
        ``"reconstruction"`` or ``"reward"``.
    train_loss
        The mean training loss per token.
    train_recon
        Its reconstruction part.
    train_embed
        Its embedding-reward part.
    valid_recon
        The validation reconstruction loss per token.
    valid_accuracy
        The share of validation tokens whose most probable token is the original.
    seconds
        The epoch's wall time.
    """

    epoch: int
    phase: str
    train_loss: float
    train_recon: float
    train_embed: float
    valid_recon: float
    valid_accuracy: float
    seconds: float


@dataclass(frozen=True)
class TrainingResult:
    """What :func:`train_erae` trained and where it saved it.

    Attributes
    ----------
    model_dir
        The model's folder.
    config
        The configuration it was trained with.
    segments
        The training segments.
    tokens
        Their tokens.
    vocab_size
        The size of the vocabulary, specials included.
    history
        One record per epoch, including those of an earlier run it resumed.
    resumed_at_epoch
        The epochs already finished when this run started (0: a fresh start).
    """

    model_dir: Path
    config: ERAEConfig
    segments: int
    tokens: int
    vocab_size: int
    history: tuple[EpochRecord, ...]
    resumed_at_epoch: int


def prepare_segments(texts: Sequence[str], *, max_length: int) -> list[tuple[str, ...]]:
    """Sentences of every text, cut into segments of at most ``max_length`` tokens.

    Parameters
    ----------
    texts
        The texts.
    max_length
        The longest segment, in tokens.

    Returns
    -------
    list[tuple[str, ...]]
        The segments' tokens, text by text.
    """
    out: list[tuple[str, ...]] = []
    for text in texts:
        out.extend(segment_text(text, max_length=max_length).segments)
    return out


def _corpus_sha(segments: Sequence[tuple[str, ...]]) -> str:
    h = hashlib.sha256()
    for s in segments:
        h.update("\x1f".join(s).encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()[:16]


def _init_embeddings(
    network: ERAENetwork, vocab: Vocabulary, emb: Embeddings, gen: torch.Generator
) -> torch.Tensor:
    """Initialise the embedding layer from ``emb``; return unit vectors for the reward (rows of
    tokens without a pretrained vector are zero, so their reward is 0)."""
    dim = emb.vectors.shape[1]
    std = float(np.std(emb.vectors))
    weight = torch.randn(len(vocab), dim, generator=gen) * std
    unit = torch.zeros(len(vocab), dim)
    for i, tok in enumerate(vocab.tokens):
        if i < vocab.first_word or tok not in emb:
            continue
        vec = torch.from_numpy(np.asarray(emb.vectors[emb.index_of(tok)], dtype=np.float32))
        weight[i] = vec
        norm = float(vec.norm())
        if norm > 0:
            unit[i] = vec / norm
    weight[0] = 0.0
    with torch.no_grad():
        network.embedding.weight.copy_(weight)
    return unit


def _batches(
    lengths: np.ndarray, idx: np.ndarray, batch_size: int, rng: np.random.Generator | None
) -> list[np.ndarray]:
    """Batches of similar lengths (less padding): shuffle, sort within pools of 50 batches,
    shuffle the batches."""
    order = rng.permutation(idx) if rng is not None else np.asarray(idx)
    pool = batch_size * 50
    out: list[np.ndarray] = []
    for start in range(0, len(order), pool):
        chunk = order[start : start + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        out.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    if rng is not None:
        out = [out[i] for i in rng.permutation(len(out))]
    return out


def _pad(ids: Sequence[tuple[int, ...]], rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(ids[r]) for r in rows])
    batch = torch.zeros(len(rows), int(lengths.max()), dtype=torch.long)
    for j, r in enumerate(rows):
        batch[j, : len(ids[r])] = torch.tensor(ids[r])
    return batch, lengths


def embedding_reward_loss(
    logits: torch.Tensor,
    targets: torch.Tensor,
    unit: torch.Tensor,
    *,
    top_k: int,
    random_candidates: int,
    cap: float,
    first_word: int,
    generator: torch.Generator,
) -> torch.Tensor:
    """L_embed of Bo et al. (2021), per token (mean over tokens).

    For each position: the model's top-k tokens E_k plus ``random_candidates`` tokens drawn
    uniformly from the output words (V_k), each weighted by the reward
    gamma(x_i, v) = min(cosine(Em(x_i), Em(v)), cap) (Eq. 9) computed with the fixed pretrained
    vectors; the loss is -sum_v log Pr[v] * gamma(x_i, v). One departure from Eq. 9: the reward
    is floored at 0. With a negative reward the loss falls without bound as that candidate's
    probability goes to 0; a trained C50 model went from 84.5% to 7.5% token accuracy in one such
    epoch (loss -57).
    """
    logp = F.log_softmax(logits, dim=-1)
    return embedding_reward_from_logp(
        logp,
        targets,
        unit,
        top_k=top_k,
        random_candidates=random_candidates,
        cap=cap,
        first_word=first_word,
        generator=generator,
    )


def embedding_reward_from_logp(
    logp: torch.Tensor,
    targets: torch.Tensor,
    unit: torch.Tensor,
    *,
    top_k: int,
    random_candidates: int,
    cap: float,
    first_word: int,
    generator: torch.Generator,
) -> torch.Tensor:
    """:func:`embedding_reward_loss` from log-probabilities already computed."""
    cands = [logp.detach().topk(top_k, dim=-1).indices]
    if random_candidates > 0:
        cands.append(
            torch.randint(
                first_word, logp.shape[1], (logp.shape[0], random_candidates), generator=generator
            ).to(logp.device)
        )
    cand = torch.cat(cands, dim=1)
    # floored at 0: a negative cosine (common with GloVe, rare with the paper's BERT vectors)
    # would reward pushing a candidate's log-probability to -inf, and Eq. 10 has no lower bound
    gamma = torch.einsum("nd,ncd->nc", unit[targets], unit[cand]).clamp(min=0.0, max=cap)
    return -(logp.gather(1, cand) * gamma).sum(dim=1).mean()


def _evaluate(
    network: ERAENetwork,
    ids: Sequence[tuple[int, ...]],
    rows: np.ndarray,
    lengths: np.ndarray,
    batch_size: int,
    bos: int,
    device: torch.device,
) -> tuple[float, float]:
    network.eval()
    total, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for b in _batches(lengths, rows, batch_size, None):
            batch, lens = _pad(ids, b)
            batch = batch.to(device)
            logp = network.log_probs(network.states(batch, lens, bos))
            mask = torch.arange(batch.shape[1], device=device)[None, :] < lens[:, None].to(device)
            targets = batch[mask]
            total += float(F.nll_loss(logp, targets, reduction="sum"))
            correct += int((logp.argmax(-1) == targets).sum())
            count += int(targets.numel())
    network.train()
    return total / max(count, 1), correct / max(count, 1)


def _optimizer_tensors(opt: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    out: dict[str, torch.Tensor] = {}
    for pid, st in opt.state_dict()["state"].items():
        for name, value in st.items():
            out[f"{pid}.{name}"] = torch.as_tensor(value)
    return out


def _load_optimizer(opt: torch.optim.Optimizer, tensors: dict[str, torch.Tensor]) -> None:
    sd = opt.state_dict()
    state: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        if key.startswith("__"):
            continue
        pid, name = key.split(".", 1)
        state.setdefault(int(pid), {})[name] = value
    sd["state"] = state
    opt.load_state_dict(sd)


def _check_output(model_dir: Path, meta: dict[str, Any], force: bool) -> int:
    """Prepare ``model_dir``; return the epoch to resume from (0 for a fresh start)."""
    if model_dir.exists() and not model_dir.is_dir():
        raise InputError(f"output exists and is not a directory: {model_dir}")
    if not model_dir.exists():
        model_dir.mkdir(parents=True)
        return 0
    ours = [p for p in (*_MODEL_FILES, *_MODEL_DIRS) if (model_dir / p).exists()]
    others = [
        p.name
        for p in model_dir.iterdir()
        if p.name not in (*_MODEL_FILES, *_MODEL_DIRS) and not p.name.startswith(".")
    ]
    if others:
        raise InputError(
            f"output directory {model_dir} holds other files ({', '.join(sorted(others)[:3])}); "
            "give an empty or new directory"
        )
    if not ours:
        return 0
    if force:
        for p in ours:
            target = model_dir / p
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        return 0
    old = read_json(model_dir / "config.json", "model config")
    same = isinstance(old, dict) and all(
        old.get(k) == meta[k] for k in ("format", "config", "corpus", "embeddings", "seed")
    )
    if not same:
        raise InputError(
            f"{model_dir} holds a model trained with other settings or data; "
            "use `force` to start over"
        )
    ckpt = checkpoint_dir(model_dir)
    if ckpt is None:
        return 0
    state = read_json(ckpt / "state.json", "checkpoint state")
    return int(state.get("epochs_done", 0))


def train_erae(
    texts: Sequence[str],
    *,
    output: str | Path,
    embeddings: Embeddings,
    config: ERAEConfig,
    seed: int = 0,
    corpus_name: str = "corpus",
    force: bool = False,
    device: str | torch.device | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    on_epoch: Callable[[EpochRecord], None] | None = None,
) -> TrainingResult:
    """Train an ER-AE model on ``texts`` and save it in ``output`` (resumable).

    Rerunning with the same texts, configuration, embeddings and seed resumes after the last
    finished epoch; with other settings it refuses unless ``force`` (which deletes only the
    model's own files). ``on_total(batches)`` is called once, before the first batch, with
    the number of batches left to train (epochs left x batches per epoch); ``progress(1)``
    after every batch; ``on_epoch(record)`` after every epoch.

    Parameters
    ----------
    texts
        The training texts.
    output
        The model's folder.
    embeddings
        The word vectors the embedding layer starts from and the reward reads.
    config
        The model's configuration.
    seed
        The seed (an integer >= 0).
    corpus_name
        The training corpus's name, for the model's metadata.
    force
        Replace a model trained with other settings.
    device
        The torch device, or ``None`` for the default one.
    progress
        Called with 1 after every batch, or ``None``.
    on_total
        Called once, first, with the batches left to train, or ``None``.
    on_epoch
        Called with each finished epoch's record, or ``None``.

    Returns
    -------
    TrainingResult
        What was trained and where.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is not an integer >= 0.
    InputError
        If the corpus is too small.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be an integer >= 0, got {seed!r}")
    model_dir = Path(output)
    segments = prepare_segments(texts, max_length=config.max_length)
    # the vocabulary comes from the whole corpus, also when training on a subset (max_sentences)
    vocab = Vocabulary.build(
        segments, size=config.vocab_size, min_words=2 * config.top_k + config.random_candidates
    )
    if config.max_sentences is not None and len(segments) > config.max_sentences:
        pick = np.random.default_rng(seed).choice(
            len(segments), config.max_sentences, replace=False
        )
        segments = [segments[i] for i in sorted(pick)]
    if len(segments) < MIN_SEGMENTS:
        raise InputError(
            f"corpus too small: {len(segments)} sentences, need at least {MIN_SEGMENTS}"
        )
    encoded = vocab.encode(segments)
    ids = encoded.ids
    meta: dict[str, Any] = {
        "format": FORMAT,
        "config": config.to_dict(),
        "embedding_dim": int(embeddings.vectors.shape[1]),
        "embeddings": embeddings.identity.to_dict(),
        "vocab_sha256": vocab.sha256(),
        "corpus": {
            "name": corpus_name,
            "segments": len(segments),
            "tokens": sum(len(s) for s in segments),
            "unknown_tokens": encoded.unknown,
            "sha256": _corpus_sha(segments),
        },
        "seed": seed,
        "authormask_version": __version__,
    }
    start_epoch = _check_output(model_dir, meta, force)
    dev = resolve_device(device)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    network = build_network(config, len(vocab), int(embeddings.vectors.shape[1]))
    unit = _init_embeddings(network, vocab, embeddings, gen).to(dev)
    network.to(dev)
    opt = torch.optim.Adam(network.parameters(), lr=config.learning_rate)
    rng = np.random.default_rng(seed)
    lengths = np.array([len(s) for s in ids])
    n_valid = max(1, round(config.validation_fraction * len(ids)))
    perm = rng.permutation(len(ids))
    valid_rows, train_rows = np.sort(perm[:n_valid]), np.sort(perm[n_valid:])
    history: list[EpochRecord] = []
    if start_epoch == 0:
        write_json(model_dir / "config.json", meta)
        write_json(model_dir / "vocab.json", list(vocab.tokens))
        hashes = sorted({segment_hash(list(s)) for s in segments})
        write_tensors(
            model_dir / "training_hashes.safetensors",
            {"segments": torch.tensor(hashes, dtype=torch.int64)},
        )
    else:
        ckpt = checkpoint_dir(model_dir)
        assert ckpt is not None
        state = read_json(ckpt / "state.json", "checkpoint state")
        network.load_state_dict(read_tensors(ckpt / "model.safetensors", "model weights"))
        opt_tensors = read_tensors(ckpt / "optimizer.safetensors", "optimizer state")
        _load_optimizer(opt, {k: v.to(dev) for k, v in opt_tensors.items()})
        gen.set_state(opt_tensors["__generator"])
        rng.bit_generator.state = state["numpy_rng"]
        history = [EpochRecord(**h) for h in state["history"]]
        logger.info("resuming %s after epoch %d", model_dir, start_epoch)
    bos = vocab.index[BOS]
    network.train()
    if on_total is not None:
        per_epoch = len(_batches(lengths, train_rows, config.batch_size, None))
        on_total(per_epoch * (config.epochs - start_epoch))
    for epoch in range(start_epoch, config.epochs):
        # AE-DP (lambda_embed = 0) trains its "reward" epochs on the reconstruction loss alone
        use_reward = epoch >= config.pretrain_epochs and config.lambda_embed > 0
        phase = "reward" if use_reward else "reconstruction"
        t0 = time.perf_counter()
        batches = _batches(lengths, train_rows, config.batch_size, rng)
        sums = np.zeros(3)
        n_tok = 0
        for rows in batches:
            batch, lens = _pad(ids, rows)
            batch = batch.to(dev)
            states = network.states(batch, lens, bos)
            mask = torch.arange(batch.shape[1], device=dev)[None, :] < lens[:, None].to(dev)
            targets = batch[mask]
            embed = torch.zeros(())
            if not use_reward:
                recon = network.reconstruction_loss(states, targets)
                loss = config.lambda_recon * recon
            else:
                logp = network.log_probs(states)
                recon = F.nll_loss(logp, targets)
                loss = config.lambda_recon * recon
                embed = embedding_reward_from_logp(
                    logp,
                    targets,
                    unit,
                    top_k=config.top_k,
                    random_candidates=config.random_candidates,
                    cap=config.reward_cap,
                    first_word=vocab.first_word,
                    generator=gen,
                )
                loss = loss + config.lambda_embed * embed
            opt.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            if config.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(network.parameters(), config.clip_norm)
            opt.step()
            k = int(targets.numel())
            sums += k * np.array([loss.item(), recon.item(), embed.item()])
            n_tok += k
            if progress is not None:
                progress(1)
        valid_recon, valid_acc = _evaluate(
            network, ids, valid_rows, lengths, config.batch_size, bos, dev
        )
        record = EpochRecord(
            epoch=epoch + 1,
            phase=phase,
            train_loss=sums[0] / n_tok,
            train_recon=sums[1] / n_tok,
            train_embed=sums[2] / n_tok,
            valid_recon=valid_recon,
            valid_accuracy=valid_acc,
            seconds=time.perf_counter() - t0,
        )
        history.append(record)
        weights = {k: v for k, v in network.state_dict().items()}
        weights_sha = hashlib.sha256(
            b"".join(v.detach().cpu().numpy().tobytes() for v in weights.values())
        ).hexdigest()[:16]
        opt_tensors = _optimizer_tensors(opt)
        opt_tensors["__generator"] = gen.get_state()
        write_checkpoint(
            model_dir,
            model=weights,
            optimizer=opt_tensors,
            state={
                "epochs_done": epoch + 1,
                "history": [vars(h) for h in history],
                "numpy_rng": rng.bit_generator.state,
                "weights_sha256": weights_sha,
            },
        )
        logger.info("epoch %d (%s): valid recon %.4f", epoch + 1, phase, valid_recon)
        if on_epoch is not None:
            on_epoch(record)
    return TrainingResult(
        model_dir=model_dir,
        config=config,
        segments=len(segments),
        tokens=sum(len(s) for s in segments),
        vocab_size=len(vocab.words),
        history=tuple(history),
        resumed_at_epoch=start_epoch,
    )
