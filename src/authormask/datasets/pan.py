"""The PAN 2018-2019 cross-domain authorship attribution layout, read problem by problem.

A collection folder holds ``collection-info.json`` (a list of ``{"problem-name", "language",
"encoding"}``) and one folder per problem. A problem folder holds ``problem-info.json``
(``{"unknown-folder": "unknown", "candidate-authors": [{"author-name": "candidate00001"},
...]}``), one folder of known texts per candidate, the unknown folder, and the answers in
``ground-truth.json`` (``{"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author":
"candidate00003"}, ...]}``; PAN 2019's open-set problems name ``<UNK>`` for texts by none of the
candidates). PAN 2018 distributed the answers of a collection beside its problems too; a
problem's ground truth is looked for in the problem folder first, then as
``<collection>/<problem>/ground-truth.json`` under a ``truth/`` folder of the collection, then as
``<collection>/ground-truth-<problem>.json`` or ``<collection>/<problem>-ground-truth.json``.

Unlike :func:`authormask.datasets.load_pan`, which pools every problem into one corpus of
``problem/candidate`` authors, :func:`read_pan_collection` keeps problems apart: in PAN each
problem is its own attribution task, scored on its own (Kestemont et al. 2018, 2019).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask.datasets._base import Corpus, Document, make_corpus
from authormask.datasets.loaders import check_dir, read_text_file
from authormask.exceptions import InputError
from authormask.text.clean import join_line_breaks

__all__ = [
    "UNKNOWN_AUTHOR",
    "PanCollection",
    "PanProblem",
    "PanText",
    "is_pan_folder",
    "load_pan",
    "pan_problem_corpus",
    "pan_problem_from_corpus",
    "read_pan_collection",
    "write_pan_collection",
]

logger = logging.getLogger(__name__)

#: the answer (and the reject class) for an unknown text by none of the candidates
UNKNOWN_AUTHOR = "<UNK>"


@dataclass(frozen=True)
class PanText:
    """One text of a problem: its file name (as ``ground-truth.json`` names it), the text, and
    its author (the candidate for a known text; the true author, possibly ``<UNK>``, for an
    unknown one).

    Attributes
    ----------
    name
        The text's file name.
    text
        The text.
    author
        Its author: the candidate, or the true author (possibly ``<UNK>``).
    """

    name: str
    text: str
    author: str


@dataclass(frozen=True)
class PanProblem:
    """One attribution problem: candidates with their known texts, and the unknown texts.

    Attributes
    ----------
    name
        The problem's name.
    language
        Its language, or None.
    candidates
        The candidate authors.
    known
        The candidates' known texts.
    unknown
        The unknown texts.
    source
        Where it was read from.
    """

    name: str
    language: str | None
    candidates: tuple[str, ...]
    known: tuple[PanText, ...]
    unknown: tuple[PanText, ...]
    source: str

    @property
    def truth(self) -> dict[str, str]:
        """Unknown text name -> true author (``<UNK>`` when none of the candidates)."""
        return {t.name: t.author for t in self.unknown}

    @property
    def open_set(self) -> bool:
        """Whether some unknown text is by none of the candidates (PAN 2019)."""
        return any(t.author == UNKNOWN_AUTHOR for t in self.unknown)

    def summary(self) -> dict[str, Any]:
        """Counts of the problem, for reports.

        Returns
        -------
        dict[str, Any]
            ``name``, ``language``, ``candidates``, ``known_texts``, ``unknown_texts`` and
            ``unknown_by_no_candidate``.
        """
        return {
            "name": self.name,
            "language": self.language,
            "candidates": len(self.candidates),
            "known_texts": len(self.known),
            "unknown_texts": len(self.unknown),
            "unknown_by_no_candidate": sum(1 for t in self.unknown if t.author == UNKNOWN_AUTHOR),
        }


@dataclass(frozen=True)
class PanCollection:
    """The problems of a PAN collection, in the order of ``collection-info.json``.

    Attributes
    ----------
    name
        The collection's name.
    source
        Where it was read from.
    problems
        Its problems.
    """

    name: str
    source: str
    problems: tuple[PanProblem, ...]

    def summary(self) -> dict[str, Any]:
        """The collection's name, source and problems' summaries.

        Returns
        -------
        dict[str, Any]
            ``name``, ``source`` and ``problems``.
        """
        return {
            "name": self.name,
            "source": self.source,
            "problems": [p.summary() for p in self.problems],
        }


def is_pan_folder(path: str | Path) -> bool:
    """Whether ``path`` is a PAN collection or a single PAN problem folder.

    Parameters
    ----------
    path
        A path.

    Returns
    -------
    bool
        True for a PAN folder.
    """
    p = Path(path)
    return p.is_dir() and (
        (p / "collection-info.json").is_file() or (p / "problem-info.json").is_file()
    )


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InputError(f"PAN layout: missing file {path}")
    try:
        return json.loads(read_text_file(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"PAN layout: {path} is not valid JSON ({exc.msg})") from None


def _read_text(path: Path, encoding: str | None) -> str:
    if encoding is None:
        return read_text_file(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = raw.decode(
            "utf-8-sig" if encoding.lower().replace("_", "-") == "utf-8" else encoding
        )
    except LookupError:
        raise InputError(f"PAN layout: unknown encoding {encoding!r} for {path}") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"PAN layout: {path} is not {encoding} (byte {exc.start}); fix the file or the "
            "encoding in collection-info.json"
        ) from None
    return join_line_breaks(text)


def _texts(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix == ".txt" and p.name[0] != "."
    )


def _truth_file(problem_dir: Path, root: Path | None) -> Path:
    candidates = [problem_dir / "ground-truth.json"]
    if root is not None:
        name = problem_dir.name
        candidates += [
            root / "truth" / name / "ground-truth.json",
            root / f"ground-truth-{name}.json",
            root / f"{name}-ground-truth.json",
        ]
    for path in candidates:
        if path.is_file():
            return path
    raise InputError(
        f"PAN layout: no ground truth for {problem_dir.name} (looked for "
        f"{', '.join(str(p) for p in candidates)}); an evaluation needs the true authors"
    )


def read_pan_problem(
    problem_dir: str | Path,
    *,
    language: str | None = None,
    encoding: str | None = None,
    root: str | Path | None = None,
) -> PanProblem:
    """One problem folder (see the module docstring); ``root`` is its collection folder."""
    pdir = Path(problem_dir)
    info_path = pdir / "problem-info.json"
    info = _read_json(info_path)
    try:
        candidates = tuple(str(c["author-name"]) for c in info["candidate-authors"])
        unknown_folder = str(info.get("unknown-folder", "unknown"))
    except (KeyError, TypeError, AttributeError):
        raise InputError(f"PAN layout: {info_path} lacks candidate-authors") from None
    if len(candidates) < 2:
        raise InputError(
            f"PAN layout: {info_path} names {len(candidates)} candidate(s); a problem needs "
            "at least 2"
        )
    if len(set(candidates)) != len(candidates):
        raise InputError(f"PAN layout: {info_path} names a candidate twice")
    if UNKNOWN_AUTHOR in candidates:
        raise InputError(f"PAN layout: {info_path} names {UNKNOWN_AUTHOR} as a candidate")
    known: list[PanText] = []
    for cand in candidates:
        cdir = pdir / cand
        if not cdir.is_dir():
            raise InputError(f"PAN layout: missing candidate folder {cdir}")
        files = _texts(cdir)
        if not files:
            raise InputError(f"PAN layout: candidate folder {cdir} has no .txt texts")
        known.extend(PanText(f.name, _read_text(f, encoding), cand) for f in files)
    udir = pdir / unknown_folder
    if not udir.is_dir():
        raise InputError(f"PAN layout: missing unknown folder {udir}")
    files = _texts(udir)
    if not files:
        raise InputError(f"PAN layout: unknown folder {udir} has no .txt texts")
    truth_path = _truth_file(pdir, None if root is None else Path(root))
    data = _read_json(truth_path)
    truth: dict[str, str] = {}
    try:
        for entry in data["ground_truth"]:
            truth[str(entry["unknown-text"])] = str(entry["true-author"])
    except (KeyError, TypeError):
        raise InputError(
            f'PAN layout: {truth_path} must be {{"ground_truth": [{{"unknown-text": ..., '
            f'"true-author": ...}}, ...]}}'
        ) from None
    names = {f.name for f in files}
    missing = [f.name for f in files if f.name not in truth]
    if missing:
        raise InputError(f"PAN layout: {truth_path} has no true author for {missing[0]}")
    stray = sorted(set(truth) - names)
    if stray:
        raise InputError(f"PAN layout: {truth_path} names {stray[0]}, not in {udir}")
    foreign = sorted({a for a in truth.values() if a != UNKNOWN_AUTHOR and a not in candidates})
    if foreign:
        raise InputError(
            f"PAN layout: {truth_path} names {foreign[0]!r}, neither a candidate nor "
            f"{UNKNOWN_AUTHOR}"
        )
    unknown = tuple(PanText(f.name, _read_text(f, encoding), truth[f.name]) for f in files)
    for t in (*known, *unknown):
        if not t.text.strip():
            raise InputError(f"PAN layout: {pdir.name}: empty text {t.name}")
    logger.info(
        "PAN problem %s (%s): %d candidates, %d known, %d unknown texts",
        pdir.name,
        language or "?",
        len(candidates),
        len(known),
        len(unknown),
    )
    return PanProblem(
        name=pdir.name,
        language=language,
        candidates=candidates,
        known=tuple(known),
        unknown=unknown,
        source=str(pdir.resolve()),
    )


def read_pan_collection(path: str | Path, *, name: str | None = None) -> PanCollection:
    """A PAN 2018/2019 collection (``collection-info.json``) or one problem folder
    (``problem-info.json``), problem by problem; every problem must have its ground truth.

    Parameters
    ----------
    path
        The collection or problem folder.
    name
        The collection's name (default: the folder's).

    Returns
    -------
    PanCollection
        The collection.

    Raises
    ------
    InputError
        If the folder is missing or does not follow the PAN layout.
    """
    root = Path(path)
    if not root.exists():
        raise InputError(f"PAN folder not found: {root}")
    if not root.is_dir():
        raise InputError(f"PAN folder is not a folder: {root}")
    problems: tuple[PanProblem, ...]
    if (root / "problem-info.json").is_file():
        problems = (read_pan_problem(root),)
    elif (root / "collection-info.json").is_file():
        info_path = root / "collection-info.json"
        entries = _read_json(info_path)
        if not isinstance(entries, list) or not entries:
            raise InputError(f"PAN layout: {info_path} must be a non-empty list of problems")
        out = []
        for entry in entries:
            try:
                pname = str(entry["problem-name"])
            except (KeyError, TypeError):
                raise InputError(
                    f"PAN layout: an entry of {info_path} has no problem-name"
                ) from None
            pdir = root / pname
            if not pdir.is_dir():
                raise InputError(f"PAN layout: missing problem folder {pdir}")
            language = entry.get("language")
            encoding = entry.get("encoding")
            out.append(
                read_pan_problem(
                    pdir,
                    language=None if language is None else str(language),
                    encoding=None if encoding is None else str(encoding),
                    root=root,
                )
            )
        problems = tuple(out)
        if len({p.name for p in problems}) != len(problems):
            raise InputError(f"PAN layout: {info_path} lists a problem twice")
    else:
        raise InputError(
            f"{root} is not a PAN 2018/2019 folder: it has neither collection-info.json nor "
            "problem-info.json"
        )
    return PanCollection(name or root.resolve().name, str(root.resolve()), problems)


def pan_problem_corpus(problem: PanProblem) -> Corpus:
    """One problem as a closed-set author corpus: every known text of a candidate is a training
    document of that candidate, every unknown text whose true author is a candidate a test
    document; unknown texts by none of the candidates (``<UNK>``) are left out. Every candidate
    stays an author, with or without test documents, so the problem's candidate set is the set
    of answers (never pooled with another problem's). Document ids are ``<candidate>/<file>``
    and ``unknown/<file>``; the corpus is named after the problem.

    Parameters
    ----------
    problem
        The problem.

    Returns
    -------
    Corpus
        The corpus.

    Raises
    ------
    InputError
        If every unknown text is by none of the candidates.
    """
    docs = [
        Document(f"{t.author}/{t.name}", t.text, t.author, split="train") for t in problem.known
    ]
    docs += [
        Document(f"unknown/{t.name}", t.text, t.author, split="test")
        for t in problem.unknown
        if t.author != UNKNOWN_AUTHOR
    ]
    if not any(d.split == "test" for d in docs):
        raise InputError(
            f"PAN problem {problem.name}: every unknown text is by none of the candidates "
            f"({UNKNOWN_AUTHOR}); an author study needs some by a candidate"
        )
    return make_corpus(problem.name, problem.source, docs)


def pan_problem_from_corpus(
    corpus: Corpus,
    *,
    name: str,
    candidates: Sequence[str],
    unknown_authors: Sequence[str] | None = None,
    language: str = "en",
) -> PanProblem:
    """A PAN problem made from a corpus with train/test splits: each candidate's training
    documents are its known texts; the test documents of ``unknown_authors`` (default: the
    candidates) are the unknown texts, by ``<UNK>`` where their author is no candidate (an
    open-set problem, as in PAN 2019). Candidates are named ``candidate00001``... in the order
    given, texts ``known00001.txt``... and ``unknown00001.txt``...

    Parameters
    ----------
    corpus
        A corpus with train/test splits.
    name
        The problem's name.
    candidates
        The candidate authors, in order.
    unknown_authors
        The authors of the unknown texts (default: the candidates).
    language
        The problem's language.

    Returns
    -------
    PanProblem
        The problem.

    Raises
    ------
    InputError
        If the corpus has no splits, a candidate has no training document, or there is no
        unknown text.
    """
    if not corpus.has_splits:
        raise InputError(f"dataset {corpus.name!r} has no train/test splits")
    names = {a: f"candidate{i + 1:05d}" for i, a in enumerate(candidates)}
    known: list[PanText] = []
    for author, cand in names.items():
        docs = corpus.select(author=author, split="train")
        if not docs:
            raise InputError(f"author {author!r} has no training documents in {corpus.name!r}")
        known.extend(PanText(f"known{j + 1:05d}.txt", d.text, cand) for j, d in enumerate(docs))
    unknown: list[PanText] = []
    for author in candidates if unknown_authors is None else unknown_authors:
        for d in corpus.select(author=author, split="test"):
            unknown.append(
                PanText(
                    f"unknown{len(unknown) + 1:05d}.txt", d.text, names.get(author, UNKNOWN_AUTHOR)
                )
            )
    if not unknown:
        raise InputError(f"no test documents of the unknown authors in {corpus.name!r}")
    return PanProblem(name, language, tuple(names.values()), tuple(known), tuple(unknown), "")


def write_pan_collection(
    problems: Sequence[PanProblem],
    root: str | Path,
    *,
    truth_in_collection: Sequence[str] = (),
) -> Path:
    """Write ``problems`` in the PAN 2018/2019 layout under ``root`` (UTF-8; every file
    written atomically). The ground truth of a problem named in ``truth_in_collection`` goes to
    ``<root>/ground-truth-<problem>.json`` instead of the problem folder.

    Parameters
    ----------
    problems
        The problems.
    root
        The collection's folder.
    truth_in_collection
        The problems whose ground truth goes to the collection's folder.

    Returns
    -------
    Path
        ``root``.
    """
    from authormask._io import write_atomic

    out = Path(root)
    files: dict[Path, str] = {
        out / "collection-info.json": json.dumps(
            [
                {"problem-name": p.name, "language": p.language or "en", "encoding": "UTF-8"}
                for p in problems
            ],
            indent=2,
        )
    }
    for p in problems:
        pdir = out / p.name
        files[pdir / "problem-info.json"] = json.dumps(
            {
                "unknown-folder": "unknown",
                "candidate-authors": [{"author-name": c} for c in p.candidates],
            },
            indent=2,
        )
        for t in p.known:
            files[pdir / t.author / t.name] = t.text
        for t in p.unknown:
            files[pdir / "unknown" / t.name] = t.text
        truth = json.dumps(
            {
                "ground_truth": [
                    {"unknown-text": t.name, "true-author": t.author} for t in p.unknown
                ]
            },
            indent=2,
        )
        where = (
            out / f"ground-truth-{p.name}.json"
            if p.name in truth_in_collection
            else pdir / "ground-truth.json"
        )
        files[where] = truth
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(files, force=False)
    return out


def load_pan(path: str | Path, *, name: str | None = None) -> Corpus:
    """The PAN 2018-2019 authorship-attribution layout.

    ``collection-info.json`` lists problems; each ``problemXXXXX/`` has ``problem-info.json``,
    ``candidateXXXXX/`` folders of known texts (split ``train``), an ``unknown/`` folder (split
    ``test``) and ``ground-truth.json``. Unknown texts whose true author is ``<UNK>`` (open set)
    are skipped. A single problem folder (with ``problem-info.json``) is accepted too. Authors are
    named ``problem/candidate`` so problems never share an author.

    Parameters
    ----------
    path
        The collection or problem folder.
    name
        The corpus's name (default: the folder's).

    Returns
    -------
    Corpus
        The corpus.
    """
    root = check_dir(Path(path), "PAN folder")
    docs: list[Document] = []
    for problem in read_pan_collection(root).problems:
        prefix = problem.name
        for t in problem.known:
            author = f"{prefix}/{t.author}"
            docs.append(Document(f"{author}/{t.name}", t.text, author=author, split="train"))
        for t in problem.unknown:
            if t.author == UNKNOWN_AUTHOR:
                continue  # open-set texts by no candidate: not usable here
            author = f"{prefix}/{t.author}"
            docs.append(Document(f"{prefix}/unknown/{t.name}", t.text, author=author, split="test"))
    return make_corpus(name or root.name, str(root.resolve()), docs)
