"""A trained ER-AE model loaded from its directory, ready to rate tokens for generation."""

from __future__ import annotations

import contextlib
import copy
import logging
import queue
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
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

__all__ = ["ERAEModel", "ModelIdentity", "load_model"]

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


@dataclass(frozen=True)
class ModelIdentity:
    """What a privacy statement needs to pin down a trained ER-AE model: its local ``path``
    (None when not loaded from a folder; never published), configuration name, whether it was
    trained with the embedding reward, the vocabulary's size and SHA-256, the weights' SHA-256,
    the name of the embeddings it was trained with, the training corpus as its ``config.json``
    records it and the epochs trained. :meth:`to_dict` is the JSON form, keys in this order
    (cache keys and statements read it).

    Attributes
    ----------
    path
        The model's local folder, or None (never published).
    config
        The configuration's name.
    embedding_reward
        Whether the model was trained with the embedding reward.
    vocab_size
        The size of its vocabulary.
    vocab_sha256
        The vocabulary's SHA-256.
    weights_sha256
        The weights' SHA-256, or None.
    embeddings
        The name of the embeddings it was trained with, or None.
    training_corpus
        The training corpus as ``config.json`` records it.
    epochs_trained
        The epochs trained, or None.
    """

    path: str | None
    config: str
    embedding_reward: bool
    vocab_size: int
    vocab_sha256: str
    weights_sha256: str | None
    embeddings: str | None
    training_corpus: dict[str, Any] = field(hash=False)
    epochs_trained: int | None

    def to_dict(self) -> dict[str, Any]:
        """The identity as a JSON-ready mapping, keys in the order of the fields.

        Returns
        -------
        dict[str, Any]
            Every field, by name (the training corpus copied).
        """
        return {
            "path": self.path,
            "config": self.config,
            "embedding_reward": self.embedding_reward,
            "vocab_size": self.vocab_size,
            "vocab_sha256": self.vocab_sha256,
            "weights_sha256": self.weights_sha256,
            "embeddings": self.embeddings,
            "training_corpus": copy.deepcopy(self.training_corpus),
            "epochs_trained": self.epochs_trained,
        }


@dataclass(eq=False)
class ERAEModel:
    """A network with its vocabulary, configuration and provenance (``config.json``).

    Attributes
    ----------
    network
        The trained network.
    vocab
        Its vocabulary (input and output words).
    config
        Its configuration.
    metadata
        Its provenance, as ``config.json`` records it, with the epochs done and the weights'
        hash.
    training_hashes
        The hashes of its training segments (:meth:`overlap`).
    path
        The folder it was loaded from, or None.
    """

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

    @property
    def identity(self) -> ModelIdentity:
        """What a privacy statement needs to pin down the model (read when asked: the path
        and metadata as they are now)."""
        m = self.metadata
        return ModelIdentity(
            path=str(self.path) if self.path else None,
            config=self.config.name,
            embedding_reward=self.config.uses_reward,
            vocab_size=len(self.vocab.words),
            vocab_sha256=self.vocab.sha256(),
            weights_sha256=m.get("weights_sha256"),
            embeddings=m.get("embeddings", {}).get("name"),
            training_corpus=copy.deepcopy(m.get("corpus", {})),
            epochs_trained=m.get("epochs_done"),
        )

    def overlap(self, segments: Sequence[Sequence[str]]) -> int:
        """How many of ``segments`` occur verbatim among the training segments.

        Segments with fewer than :data:`MIN_OVERLAP_WORDS` word tokens (".", "thank you .") are
        not counted: every corpus has them, and finding one says nothing about whether the
        model was trained on the text.

        Parameters
        ----------
        segments
            Tokenised segments.

        Returns
        -------
        int
            The number of them (of enough words) that are training segments.
        """
        return sum(
            1
            for s in segments
            if sum(any(ch.isalnum() for ch in t) for t in s) >= MIN_OVERLAP_WORDS
            and segment_hash(list(s)) in self.training_hashes
        )

    def ratings(
        self, ids: Sequence[Sequence[int]], *, batch_size: int = 256
    ) -> Iterator[NDArray[np.float64]]:
        """The rating function rho_i (Eq. 5) of every token of every segment.

        The model runs on one thread: float32 products summed in another order (more threads)
        differ in the last bits, which can change a draw, and a seeded release must give the same
        output on the local engine and on any number of single-threaded Dask workers.

        How (the ratings are those of one network pass over each batch, bit for bit): the
        generator states of each batch of ``batch_size`` segments are computed first; the output
        layer then runs on :data:`OUTPUT_ROWS` or more rows at a time, in the order the segments
        are yielded (:class:`_OutputPlan`), and the float64 softmax of a segment is taken just
        before it is yielded. All of that runs on a worker thread, a few segments ahead of the
        caller, who draws the tokens of the previous segments meanwhile (the two use both
        cores; what is computed, and in which order, is the same as on one thread).

        Parameters
        ----------
        ids
            The segments, as token ids of the model's vocabulary.
        batch_size
            The segments whose generator states are computed together.

        Yields
        ------
        NDArray[np.float64]
            One float64 array per segment, shape (len(segment), number of output words): the
            model's softmax over the output words (the specials are never outputs), so every
            rating lies in [0, 1] and the sensitivity is 1 whatever the input.
        """
        self.network.eval()
        empty = np.zeros((0, len(self.vocab.words)))
        if not any(len(s) for s in ids):
            for _ in ids:
                yield empty
            return
        ahead: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=_AHEAD)
        stop = threading.Event()

        def hand(item: tuple[str, Any]) -> bool:
            """Queue ``item`` for the caller; False once the caller has stopped reading."""
            while not stop.is_set():
                try:
                    ahead.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def produce() -> None:
            try:
                with torch.no_grad(), _one_thread():
                    plan = self._plan(ids, batch_size)
                    for i in range(len(ids)):
                        rows = plan.rows(i)
                        if rows is None:
                            probs = empty
                        else:
                            probs = torch.softmax(rows, dim=-1, dtype=torch.float64).cpu().numpy()
                        if not hand(("ok", probs)):
                            return
            except BaseException as exc:  # raised again in the caller's thread
                hand(("error", exc))

        worker = threading.Thread(target=produce, name="erae-ratings", daemon=True)
        worker.start()
        try:
            for _ in range(len(ids)):
                kind, value = ahead.get()
                if kind == "error":
                    raise value
                yield value
        finally:
            stop.set()
            worker.join()

    def _plan(self, ids: Sequence[Sequence[int]], batch_size: int) -> _OutputPlan:
        """Generator states of every batch (shortest segments first, as always) and the plan
        for their output layer."""
        bos = self.vocab.index[BOS]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        plan = _OutputPlan(self.network, self.vocab.first_word)
        for start in range(0, len(order), batch_size):
            chunk = [i for i in order[start : start + batch_size] if len(ids[i]) > 0]
            if not chunk:
                continue
            lengths = torch.tensor([len(ids[i]) for i in chunk])
            batch = torch.zeros(len(chunk), int(lengths.max()), dtype=torch.long)
            for row, i in enumerate(chunk):
                batch[row, : len(ids[i])] = torch.tensor(ids[i])
            states = self.network.states(batch.to(self.device), lengths, bos)
            plan.add_batch(chunk, [len(ids[i]) for i in chunk], states)
        return plan


#: rows of generator states sent through the output layer together (at least this many)
OUTPUT_ROWS = 64
#: segments whose ratings the worker thread of :meth:`ERAEModel.ratings` computes ahead
_AHEAD = 4


class _OutputPlan:
    """The output layer over the generator states of a document's batches, computed lazily.

    A batch of fewer than ``2 * OUTPUT_ROWS`` tokens goes through the output layer in one pass,
    in its own row order (exactly as it always did). A larger batch goes through it in groups of
    its segments taken in the order they are yielded, each of ``OUTPUT_ROWS`` to
    ``2 * OUTPUT_ROWS - 1`` rows: the layer is row-wise (matrix products, a log-softmax per
    row) and MKL's float32 products give a row the same bits for any number of rows from 7 up,
    so every row's scores are those of one pass over the whole batch (``tests/models`` checks
    it bit for bit). In small groups, the layer's temporaries stay in the cache: one pass over a
    batch of 3,000 tokens makes a dozen arrays of 100-250 MB.
    """

    def __init__(self, network: ERAENetwork, first: int) -> None:
        self.network = network
        self.first = first
        self.adaptive = isinstance(network.output, torch.nn.AdaptiveLogSoftmaxWithLoss)
        self.states: dict[int, torch.Tensor] = {}  # segment -> its rows of generator states
        self.group: dict[int, list[int]] = {}  # segment -> the segments computed with it
        self.ready: dict[int, torch.Tensor] = {}  # segment -> its scores, until yielded

    def scores(self, states: torch.Tensor) -> torch.Tensor:
        out = self.network.log_probs(states) if self.adaptive else self.network.output(states)
        return torch.as_tensor(out)[:, self.first :]

    def add_batch(self, segments: list[int], lengths: list[int], states: torch.Tensor) -> None:
        """The generator states of one batch: ``segments`` in the batch's row order, their
        token counts, and the states of their tokens, one row each, in that order."""
        offset = 0
        for i, length in zip(segments, lengths, strict=True):
            self.states[i] = states[offset : offset + length]
            offset += length
        if offset < 2 * OUTPUT_ROWS:  # one pass, in the batch's order
            scores = self.scores(states)
            offset = 0
            for i, length in zip(segments, lengths, strict=True):
                self.ready[i] = scores[offset : offset + length]
                offset += length
            return
        groups: list[list[int]] = [[]]
        rows = 0
        for i in sorted(segments):
            if rows >= OUTPUT_ROWS:
                groups.append([])
                rows = 0
            groups[-1].append(i)
            rows += int(self.states[i].shape[0])
        if rows < OUTPUT_ROWS and len(groups) > 1:  # the remainder joins the group before
            groups[-2].extend(groups.pop())
        for g in groups:
            for i in g:
                self.group[i] = g

    def rows(self, i: int) -> torch.Tensor | None:
        """Segment ``i``'s scores over the output words (float32), None for an empty one."""
        if i not in self.ready:
            g = self.group.get(i)
            if g is None:
                return None
            scores = self.scores(torch.cat([self.states[j] for j in g]))
            offset = 0
            for j in g:
                length = int(self.states[j].shape[0])
                self.ready[j] = scores[offset : offset + length]
                offset += length
        self.states.pop(i, None)
        return self.ready.pop(i)


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
    """Load a trained model directory (see :mod:`authormask.models.erae.checkpoint`).

    Parameters
    ----------
    model_dir
        The model's folder.
    device
        The torch device to load it on (``None``: cuda if present, else cpu).

    Returns
    -------
    ERAEModel
        The model, with its last finished epoch's weights.

    Raises
    ------
    InputError
        If the folder is missing, or its config, vocabulary, checkpoint or weights are missing,
        malformed or do not match each other.
    """
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
