"""Token-by-token text release with the exponential mechanism: ER-AE and its baselines.

Every mechanism here rewrites a text segment by segment (sentences, long ones cut at the model's
maximum length) and draws each output token independently from a *fixed* output vocabulary with
the exponential mechanism (:mod:`authormask.mechanisms.exponential`):

* **ER-AE** (Bo et al. 2021, Algorithm 1): rating = the trained model's softmax probability of the
  token given the latent vector of the input and the previous *original* token (Eq. 5), in [0, 1],
  sensitivity 1.
* **AE-DP** (their baseline): the same, with a model trained without the embedding reward.
* **SynTF** (Weggenmann & Kerschbaum 2018, as used by Bo et al.): rating = cosine similarity of
  the word vectors of the input token and the candidate, in [-1, 1], so sensitivity 2; the output
  vocabulary is the embeddings' K most frequent words (independent of the input).
* **Random-R**: every token uniformly from the output vocabulary; the output does not depend on
  the input's words at all (0-DP apart from the released lengths).

Sequential composition over the ``l`` tokens of a text gives ``epsilon * l`` (Theorem 1 of Bo et
al.) between texts that are segmented alike: the number of segments and their lengths are released.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from authormask._version import __version__
from authormask.accounting.statement import SequenceStatement
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms.exponential import exponential_probabilities, sample_rows
from authormask.randomness import RandomState, check_random_state, describe_seed
from authormask.text.sentences import Segmentation, detokenize, segment_text
from authormask.validation import check_epsilon, check_positive_int

__all__ = [
    "ERAEMechanism",
    "GenerationResult",
    "RandomReplacement",
    "SynTFMechanism",
    "TokenMechanism",
    "generate_texts",
    "output_probabilities",
]

logger = logging.getLogger(__name__)

BO2021 = "Bo, Ding, Fung & Iqbal (2021), ER-AE, Algorithm 1, Eq. 5-7, Theorem 1"


class TokenMechanism(Protocol):
    """What :func:`generate_texts` needs from a mechanism."""

    name: str
    reference: str
    rating: str
    epsilon: float
    sensitivity: float
    max_length: int

    @property
    def output_words(self) -> tuple[str, ...]: ...

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        """One (len(segment), len(output_words)) array per segment."""
        ...

    def unknown_tokens(self, segments: Sequence[tuple[str, ...]]) -> int: ...

    def training_overlap(self, segments: Sequence[tuple[str, ...]]) -> int | None: ...

    def identity(self) -> dict[str, Any]: ...

    def caveats(self) -> tuple[str, ...]: ...


def output_probabilities(
    mechanism: TokenMechanism, segments: Sequence[tuple[str, ...]]
) -> Iterator[NDArray[np.float64]]:
    """The exact output distribution of every token of every segment (rows sum to 1)."""
    for rating in mechanism.ratings(segments):
        if rating.shape[0] == 0:
            yield rating
            continue
        yield _probabilities(mechanism, rating)


class ERAEMechanism:
    """ER-AE generation (Algorithm 1): per-token exponential mechanism over a trained model's
    softmax. ``AE-DP`` when the model was trained without the embedding reward."""

    sensitivity = 1.0
    rating = "model softmax probability Pr[x~_i = v] (Eq. 5), in [0, 1]"
    reference = BO2021

    def __init__(self, model: Any, *, epsilon: float, batch_size: int = 256) -> None:
        from authormask.models.erae import ERAEModel

        if not isinstance(model, ERAEModel):
            raise InvalidParameterError("model must be a loaded ERAEModel (see load_model)")
        self.model = model
        self.epsilon = check_epsilon(epsilon)
        self.batch_size = check_positive_int(batch_size, name="batch size")
        self.max_length = model.config.max_length
        self.name = "ER-AE" if model.config.uses_reward else "AE-DP"

    @property
    def output_words(self) -> tuple[str, ...]:
        return self.model.vocab.words

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        ids = self.model.vocab.encode(segments).ids
        return self.model.ratings(ids, batch_size=self.batch_size)

    def unknown_tokens(self, segments: Sequence[tuple[str, ...]]) -> int:
        return self.model.vocab.encode(segments).unknown

    def training_overlap(self, segments: Sequence[tuple[str, ...]]) -> int | None:
        return int(self.model.overlap(segments))

    def identity(self) -> dict[str, Any]:
        return dict(self.model.identity())

    def caveats(self) -> tuple[str, ...]:
        return (
            "holds only if the model was not trained on the text being released: train on public "
            "or disjoint data (segments seen in training are counted above)",
            "the model is deterministic given the input; all randomness is in the token draws",
        )


class SynTFMechanism:
    """SynTF token sampling (Weggenmann & Kerschbaum 2018), as Bo et al. use it: each output
    token is drawn with the exponential mechanism over the ``output_size`` most frequent words of
    ``embeddings``, rated by the cosine similarity of word vectors (sensitivity 2)."""

    name = "SynTF"
    sensitivity = 2.0
    rating = "cosine(Vec(x_i), Vec(v)) of the word vectors, in [-1, 1]"
    reference = (
        "Weggenmann & Kerschbaum (2018), SynTF, exponential mechanism over a fixed vocabulary; "
        "token-level variant of Bo et al. (2021)"
    )

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        output_size: int = 20_000,
        max_length: int = 50,
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        self.max_length = check_positive_int(max_length, name="max length")
        size = min(
            check_positive_int(output_size, name="output vocabulary size"), len(embeddings.words)
        )
        self._words = tuple(embeddings.words[:size])
        vec = np.asarray(embeddings.vectors, dtype=np.float64)
        norms = np.linalg.norm(vec, axis=1, keepdims=True)
        self._unit = vec / np.where(norms > 0, norms, 1.0)
        self._out = self._unit[:size]

    @property
    def output_words(self) -> tuple[str, ...]:
        return self._words

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        dim = self._unit.shape[1]
        for seg in segments:
            rows = np.zeros((len(seg), dim))
            for j, tok in enumerate(seg):
                if tok in self.embeddings:
                    rows[j] = self._unit[self.embeddings.index_of(tok)]
            # unknown tokens get rating 0 for every output: a uniform draw
            yield np.clip(rows @ self._out.T, -1.0, 1.0)

    def unknown_tokens(self, segments: Sequence[tuple[str, ...]]) -> int:
        return sum(1 for s in segments for t in s if t not in self.embeddings)

    def training_overlap(self, segments: Sequence[tuple[str, ...]]) -> int | None:
        return None

    def identity(self) -> dict[str, Any]:
        e = self.embeddings.identity.to_dict()
        return {
            "embeddings": e["name"],
            "vocab_size": e["vocab_size"],
            "words_sha256": e["words_sha256"],
            "vectors_sha256": e["vectors_sha256"],
        }

    def caveats(self) -> tuple[str, ...]:
        return ("unknown input tokens are rated 0 against every output (a uniform draw)",)


class RandomReplacement:
    """Random-R (Bo et al. 2021, baseline): every token uniformly from the output vocabulary."""

    name = "Random-R"
    sensitivity = 1.0
    rating = "constant (uniform draw)"
    reference = "Bo et al. (2021), Random-R baseline"
    epsilon = 0.0

    def __init__(self, words: Sequence[str], *, max_length: int = 50) -> None:
        if not words:
            raise InvalidParameterError("Random-R needs a non-empty output vocabulary")
        self._words = tuple(words)
        self.max_length = check_positive_int(max_length, name="max length")

    @property
    def output_words(self) -> tuple[str, ...]:
        return self._words

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        for seg in segments:
            yield np.zeros((len(seg), len(self._words)))

    def unknown_tokens(self, segments: Sequence[tuple[str, ...]]) -> int:
        return 0

    def training_overlap(self, segments: Sequence[tuple[str, ...]]) -> int | None:
        return None

    def identity(self) -> dict[str, Any]:
        import hashlib

        sha = hashlib.sha256("\n".join(self._words).encode("utf-8")).hexdigest()[:16]
        return {"output_words_sha256": sha}

    def caveats(self) -> tuple[str, ...]:
        return ("the words of the output do not depend on the input; only the lengths do",)


def _probabilities(mechanism: TokenMechanism, rating: NDArray[np.float64]) -> NDArray[np.float64]:
    if mechanism.epsilon == 0.0:  # Random-R
        return np.full(rating.shape, 1.0 / rating.shape[1])
    return exponential_probabilities(
        rating, epsilon=mechanism.epsilon, sensitivity=mechanism.sensitivity
    )


@dataclass(frozen=True)
class GenerationResult:
    """One released text, its tokens and its privacy statement."""

    text: str
    segments: tuple[tuple[str, ...], ...]
    statement: SequenceStatement


def _statement(
    mechanism: TokenMechanism, seg: Segmentation, unknown: int, overlap: int | None, seed: str
) -> SequenceStatement:
    eps = mechanism.epsilon
    total = eps * seg.tokens
    if eps == 0.0:
        guarantee = (
            "0-DP in the words: the output is uniform whatever the input; only the segment "
            "lengths depend on it"
        )
    else:
        guarantee = (
            f"{eps:g} * l = {total:g}-DP (Theorem 1, sequential composition): for any two "
            f"texts segmented into the same {len(seg.segments)} segments of the same lengths, "
            f"every output is at most exp({total:g}) times likelier under one than the other"
        )
    caveats = list(mechanism.caveats())
    if overlap:
        caveats.append(
            f"{overlap} segment(s) of this text occur in the model's training corpus: the "
            "guarantee does not cover them"
        )
    if eps > 0 and total > 50:
        caveats.append(
            f"a total epsilon of {total:g} bounds nothing in practice (exp({total:g})); read the "
            "per-token epsilon as the operative protection"
        )
    return SequenceStatement(
        mechanism=mechanism.name,
        reference=mechanism.reference,
        epsilon=eps,
        epsilon_unit="per output token",
        sensitivity=mechanism.sensitivity,
        rating=mechanism.rating,
        tokens=seg.tokens,
        segments=len(seg.segments),
        split_sentences=seg.split_sentences,
        total_epsilon=total,
        guarantee=guarantee,
        released_unchanged=(
            "no token is copied without a draw; the number of segments and each segment's token "
            "length are released (sentence boundaries are kept)"
        ),
        output_vocabulary=len(mechanism.output_words),
        model=mechanism.identity(),
        unknown_tokens=unknown,
        training_overlap=overlap,
        seed=seed,
        version=__version__,
        caveats=tuple(caveats),
    )


def generate_texts(
    texts: Sequence[str],
    *,
    mechanism: TokenMechanism,
    random_state: RandomState = None,
    progress: Callable[[int], None] | None = None,
) -> list[GenerationResult]:
    """Release every text with ``mechanism``, token by token (see the module docstring).

    Texts are split into sentences, a sentence longer than the mechanism's maximum length into
    consecutive segments (never truncated); the released segments (lower-cased, like the
    models' vocabulary) are joined with spaces.
    ``progress(n)`` is called with the number of tokens generated after each text.
    """
    if isinstance(texts, str):
        raise InputError("texts must be a sequence of strings, not one string")
    rng = check_random_state(random_state)
    seed = describe_seed(random_state).describe()
    words = np.asarray(mechanism.output_words, dtype=object)
    out: list[GenerationResult] = []
    for text in texts:
        seg = segment_text(text, max_length=mechanism.max_length)
        if not seg.segments:
            raise InputError("a text has no tokens to release (empty or whitespace only)")
        released: list[tuple[str, ...]] = []
        for rating in mechanism.ratings(seg.segments):
            idx = sample_rows(_probabilities(mechanism, rating), random_state=rng)
            released.append(tuple(str(w) for w in words[idx]))
        statement = _statement(
            mechanism,
            seg,
            mechanism.unknown_tokens(seg.segments),
            mechanism.training_overlap(seg.segments),
            seed,
        )
        out.append(
            GenerationResult(" ".join(detokenize(s) for s in released), tuple(released), statement)
        )
        if progress is not None:
            progress(seg.tokens)
    return out
