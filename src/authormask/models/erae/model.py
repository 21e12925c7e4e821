"""A trained ER-AE model loaded from its directory, ready to rate tokens for generation."""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from authormask.exceptions import InputError, InvalidParameterError
from authormask.models.erae.checkpoint import (
    FORMAT,
    checkpoint_dir,
    read_json,
    read_tensors,
    segment_hash,
)
from authormask.models.erae.config import ERAEConfig
from authormask.models.erae.network import ERAENetwork
from authormask.models.erae.vocab import BOS, Vocabulary

__all__ = ["ERAEModel", "load_model"]

logger = logging.getLogger(__name__)


#: word tokens a segment needs before a verbatim match with training data is reported
MIN_OVERLAP_WORDS = 4


def resolve_device(device: str | torch.device | None) -> torch.device:
    """The torch device to use: ``None`` means cuda if present, else cpu. An unknown device or
    one this machine does not have is refused with one line (no torch traceback)."""
    if device is None:
        return default_device()
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise InvalidParameterError(
            f"unknown device {str(device)!r}; use cpu, cuda or cuda:N"
        ) from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise InvalidParameterError(
                f"device {str(device)!r} asked for, but this machine has no CUDA GPU; use cpu"
            )
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise InvalidParameterError(
                f"device {str(device)!r}: this machine has {torch.cuda.device_count()} GPU(s)"
            )
    elif dev.type != "cpu":
        raise InvalidParameterError(f"unsupported device {str(device)!r}; use cpu or cuda")
    return dev


def default_device() -> torch.device:
    """CUDA when present, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclass(eq=False)
class ERAEModel:
    """A network with its vocabulary, configuration and provenance (``config.json``)."""

    network: ERAENetwork
    vocab: Vocabulary
    config: ERAEConfig
    metadata: dict[str, Any]
    training_hashes: frozenset[int]
    path: Path | None = None

    @property
    def device(self) -> torch.device:
        return next(self.network.parameters()).device

    def __reduce__(self) -> Any:
        """A model loaded from a directory goes to another process (a Dask worker) as that
        directory: the worker loads it once (on its CPU) and checks the weights' hash."""
        if self.path is None:
            return super().__reduce__()
        return (_reload, (str(Path(self.path).resolve()), self.metadata.get("weights_sha256")))

    def identity(self) -> dict[str, Any]:
        """What a privacy statement needs to pin down the model."""
        m = self.metadata
        return {
            "path": str(self.path) if self.path else None,
            "config": self.config.name,
            "embedding_reward": self.config.uses_reward,
            "vocab_size": len(self.vocab.words),
            "vocab_sha256": self.vocab.sha256(),
            "weights_sha256": m.get("weights_sha256"),
            "embeddings": m.get("embeddings", {}).get("name"),
            "training_corpus": m.get("corpus", {}),
            "epochs_trained": m.get("epochs_done"),
        }

    def overlap(self, segments: Sequence[Sequence[str]]) -> int:
        """How many of ``segments`` occur verbatim among the training segments.

        Segments with fewer than :data:`MIN_OVERLAP_WORDS` word tokens (".", "thank you .") are
        not counted: every corpus has them, and finding one says nothing about whether the
        model was trained on the text.
        """
        return sum(
            1
            for s in segments
            if sum(any(ch.isalnum() for ch in t) for t in s) >= MIN_OVERLAP_WORDS
            and segment_hash(list(s)) in self.training_hashes
        )

    @torch.no_grad()
    def ratings(
        self, ids: Sequence[Sequence[int]], *, batch_size: int = 256
    ) -> Iterator[NDArray[np.float64]]:
        """The rating function rho_i (Eq. 5) of every token of every segment.

        Yields one float64 array per segment, shape (len(segment), number of output words): the
        model's softmax over the output words (the specials are never outputs), so every rating
        lies in [0, 1] and the sensitivity is 1 whatever the input.

        The model runs on one thread: float32 products summed in another order (more threads)
        differ in the last bits, which can change a draw, and a seeded release must give the same
        output on the local engine and on any number of single-threaded Dask workers.

        The network runs on batches of ``batch_size`` segments up front; the float64 softmax of
        a segment is taken when the segment is yielded, row by row as before (a row's softmax
        does not depend on the other rows), so the float64 ratings of a whole batch are never
        held at once and each segment's are still in the cache when its tokens are drawn.
        """
        self.network.eval()
        with _one_thread():
            logits = self._logits(ids, batch_size)
        empty = np.zeros((0, len(self.vocab.words)))
        for i in range(len(ids)):
            rows = logits.pop(i, None)
            if rows is None:
                yield empty
                continue
            with _one_thread():
                probs = torch.softmax(rows, dim=-1, dtype=torch.float64).cpu().numpy()
            yield probs

    @torch.no_grad()
    def _logits(self, ids: Sequence[Sequence[int]], batch_size: int) -> dict[int, torch.Tensor]:
        """Each non-empty segment's scores over the output words (float32 rows of its batch's
        network output, ``[:, first_word:]``), whose softmax is the model's distribution."""
        bos = self.vocab.index[BOS]
        first = self.vocab.first_word
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        results: dict[int, torch.Tensor] = {}
        for start in range(0, len(order), batch_size):
            chunk = [i for i in order[start : start + batch_size] if len(ids[i]) > 0]
            if not chunk:
                continue
            lengths = torch.tensor([len(ids[i]) for i in chunk])
            batch = torch.zeros(len(chunk), int(lengths.max()), dtype=torch.long)
            for row, i in enumerate(chunk):
                batch[row, : len(ids[i])] = torch.tensor(ids[i])
            states = self.network.states(batch.to(self.device), lengths, bos)
            logits = _output_scores(self.network, states, first)
            offset = 0
            for i in chunk:
                results[i] = logits[offset : offset + len(ids[i])]
                offset += len(ids[i])
        return results


#: rows of generator states sent through the output layer together (at least this many)
OUTPUT_ROWS = 64


def _output_scores(network: ERAENetwork, states: torch.Tensor, first: int) -> torch.Tensor:
    """``network.logits`` from the states, ``[:, first:]``, computed ``OUTPUT_ROWS`` to
    ``2 * OUTPUT_ROWS - 1`` rows at a time (all rows at once when there are fewer).

    The same scores as one pass over all rows: the output layer is row-wise (matrix products,
    log-softmax over each row), and MKL's float32 products give every row the same bits for any
    number of rows from 7 up (``tests/models/test_erae.py`` checks it against one pass). Done in
    chunks, the layer's temporaries (a batch of 3,000 tokens makes a dozen arrays of 20,000
    floats per token, 100-250 MB each) stay in the cache instead of being page-faulted in.
    """
    n = states.shape[0]
    adaptive = isinstance(network.output, torch.nn.AdaptiveLogSoftmaxWithLoss)
    classes = int(network.embedding.num_embeddings)
    out = torch.empty((n, classes - first), dtype=states.dtype, device=states.device)
    bounds = [i * OUTPUT_ROWS for i in range(max(1, n // OUTPUT_ROWS))] + [n]
    for a, b in itertools.pairwise(bounds):
        part = states[a:b]
        scores = network.log_probs(part) if adaptive else network.output(part)
        out[a:b] = scores[:, first:]
    return out


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """torch on one thread (see :meth:`ERAEModel.ratings`), restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def build_network(config: ERAEConfig, vocab_size: int, embedding_dim: int) -> ERAENetwork:
    return ERAENetwork(config, vocab_size=vocab_size, embedding_dim=embedding_dim)


def load_model(model_dir: str | Path, *, device: str | torch.device | None = None) -> ERAEModel:
    """Load a trained model directory (see :mod:`authormask.models.erae.checkpoint`)."""
    path = Path(model_dir)
    if not path.is_dir():
        raise InputError(f"model directory not found: {path}")
    meta = read_json(path / "config.json", "model config")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(
            f"{path} is not an authormask ER-AE model directory (config.json format "
            f"{meta.get('format') if isinstance(meta, dict) else None!r}, expected {FORMAT!r})"
        )
    try:
        config = ERAEConfig.from_dict(meta["config"])
        embedding_dim = int(meta["embedding_dim"])
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"model config in {path} is malformed: {exc}") from None
    tokens = read_json(path / "vocab.json", "model vocabulary")
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise InputError(f"model vocabulary in {path} is not a list of strings")
    vocab = Vocabulary(tokens)
    if vocab.sha256() != meta.get("vocab_sha256"):
        raise InputError(f"vocab.json in {path} does not match its config.json (mismatched files)")
    ckpt = checkpoint_dir(path)
    if ckpt is None:
        raise InputError(f"{path} has no finished training epoch (no checkpoint/ folder)")
    state = read_json(ckpt / "state.json", "checkpoint state")
    weights = read_tensors(ckpt / "model.safetensors", "model weights")
    network = build_network(config, len(vocab), embedding_dim)
    try:
        network.load_state_dict(weights)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()
        raise InputError(
            f"model weights in {path} do not match its config/vocabulary: "
            f"{first[1].strip() if len(first) > 1 else first[0]}"
        ) from None
    hashes = read_tensors(path / "training_hashes.safetensors", "training hashes")
    network.to(resolve_device(device))
    metadata = dict(meta)
    metadata["epochs_done"] = state.get("epochs_done")
    metadata["weights_sha256"] = state.get("weights_sha256")
    if state.get("epochs_done", 0) < config.epochs:
        logger.warning(
            "model %s finished %s of %s training epochs",
            path,
            state.get("epochs_done"),
            config.epochs,
        )
    return ERAEModel(
        network=network,
        vocab=vocab,
        config=config,
        metadata=metadata,
        training_hashes=frozenset(int(h) for h in hashes["segments"].tolist()),
        path=path,
    )


def _reload(path: str, weights_sha256: str | None) -> ERAEModel:
    from authormask._process import process_memo

    model = process_memo("erae-model:" + path, lambda: load_model(path, device="cpu"))
    if model.metadata.get("weights_sha256") != weights_sha256:
        raise InputError(
            f"the model at {path} is not the one the release was started with (its weights "
            "changed): use the same model directory on every worker"
        )
    return model
