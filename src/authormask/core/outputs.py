"""Writing a release as it streams: to stdout, a file, a folder or a JSONL file, with a private
report that is also the manifest and the journal of the run.

* Public ids are assigned in a secret random order drawn from the release's root
  (:func:`~authormask.randomness.release_order`), never in the order of the inputs or of their
  (private) names, and the documents are released and written in that order. A folder output
  names its files by id (``1.txt``, ``2.txt``, ...); only ``layout="mirror"`` publishes the
  inputs' file and folder names, and then the statement's ``released_unchanged`` says so. Which
  input became which id is written in the private report only.
* No output (nor the statement or the report) is ever written over an input, even with
  ``force``: not the same file, not a link to it, not a folder that holds an input.
* Every finished output appears at once and complete (temporary file, fsync, rename); nothing is
  written over a file that is not a regular file; the user's umask gives the permissions.
* The public statement is written once: ``<output>.privacy.json`` beside a file output, or
  ``PRIVACY-STATEMENT.json`` inside an output folder.
* The private report (``<output>.DO-NOT-PUBLISH.report.txt`` by default, mode 0600) starts with a
  line saying it must not be published, then one JSON line with the run's parameters (and the
  seed), one JSON line per released document mapping its input to its output (the manifest),
  and a last line when the release is complete.
* A folder or JSONL release that is killed is completed by running the same command again: the
  report's first JSON line identifies the command (a fingerprint of the statement, the seed, the
  inputs and the output), finished documents are kept and not rewritten, the rest are released,
  and stale temporary files of the run are removed. A seeded release resumed this way is
  identical to one that was never interrupted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from authormask._io import (
    InputFile,
    check_file_output,
    check_not_inputs,
    check_outside_folders,
    check_report_apart,
    check_target,
    checked_stdout,
)
from authormask.core.journal import (
    RUN_REPORT_SCHEMA,
    Journal,
    append_complete,
    cleanup_on_failure,
    deferred_interrupt,
    fingerprint,
    output_lock,
    remove_stale_temps,
    write_text_atomic,
)
from authormask.core.sources import Source
from authormask.core.stream import Piece, ReleaseStream, release_stream, resolve_length
from authormask.core.targets import (
    FOLDER_STATEMENT,
    LAYOUTS,
    MIRRORED_NAMES,
    Target,
    Writer,
    file_sha256,
    output_paths,
    partial_path,
    resume_jsonl,
    where,
    write_error,
)
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism
from authormask.randomness import (
    RandomState,
    SeedInfo,
    describe_seed,
    mechanism_root,
    release_order,
)

__all__ = [
    "FOLDER_STATEMENT",
    "LAYOUTS",
    "MIRRORED_NAMES",
    "ReleaseSummary",
    "Target",
    "write_release",
]

#: 3: ids in a secret random order (kept in the header's "order"), layouts ids and mirror


@dataclass
class ReleaseSummary:
    """What the CLI prints after a release (never published).

    Attributes
    ----------
    statement
        The release's privacy statement.
    released
        The number of documents released by this run.
    resumed
        The number of documents a resumed run had already released.
    warnings
        The warnings of the run.
    report_path
        Where the private report was written, if anywhere.
    already_complete
        The same command had already finished this release: nothing was released or written.
    """

    statement: Any
    released: int = 0
    resumed: int = 0
    warnings: list[str] = field(default_factory=list)
    report_path: Path | None = None
    #: the same command had already finished this release: nothing was released or written
    already_complete: bool = False


def default_report_path(output: Path) -> Path:
    base = output.resolve()
    if not base.name:  # "/": there is no "beside" it
        raise InputError(f"no place beside {output} for the private run report: give `report_path`")
    return base.with_name(base.name + ".DO-NOT-PUBLISH.report.txt")


def _fingerprint(
    statement_json: str, seed: int | None, sources: Sequence[Source], target: Target
) -> str:
    """What identifies a run (to resume it): statement, seed, output, layout and the inputs in
    input order with their mirrored names or given ids (the drawn order is in the header)."""
    where = (target.kind, str(target.path.resolve()) if target.path else None)
    items = [
        statement_json.encode(),
        repr(("seed", seed)).encode(),
        repr(where).encode(),
        repr(("layout", target.layout if target.kind == "folder" else None)).encode(),
    ]
    for i, source in enumerate(sources):
        name = target.names[i] if target.mirrored else None
        id_ = target.ids[i] if target.ids else None
        items.append(repr((source.name, name, id_)).encode())
    return fingerprint(items)


def _identity(
    statement: Any, seed: int | None, sources: Sequence[Source], target: Target
) -> dict[str, Any]:
    """What the private report's header keeps to say which parameter differs when a rerun is
    not the same command (:func:`~authormask.core.journal.describe_change`), and to tell
    that the inputs of a finished release have not changed since (their sizes and modification
    times; standard input cannot be compared)."""
    inputs: list[list[Any]] = []
    for s in sources:
        path = getattr(s, "path", None)
        if s.name == "<stdin>":
            inputs.append([s.name, None, None])
        elif isinstance(path, Path):
            try:
                st = os.stat(path)
                inputs.append([s.name, st.st_size, st.st_mtime_ns])
            except OSError:
                inputs.append([s.name, None, None])
        else:  # a text given in memory: its name and length
            inputs.append([s.name, s.size, "in memory"])
    return {
        "mechanism": statement.mechanism,
        "seed": seed,
        "inputs": inputs,
        "output": str(target.path.resolve()) if target.path is not None else "<stdout>",
        "format": target.kind,
        "layout": target.layout if target.kind == "folder" else None,
        "statement": statement.to_dict(),
    }


def write_release(
    sources: Sequence[Source],
    mechanism: Mechanism,
    target: Target,
    *,
    random_state: RandomState = None,
    report_path: Path | None = None,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    input_folders: Sequence[Path] = (),
) -> ReleaseSummary:
    """Release ``sources`` into ``target`` in bounded memory (see the module docstring).

    ``input_folders``: the folders the sources were found in; no output, statement, report or
    partial file may be written inside one (a later release of the folder would read it).

    ``on_start(characters_to_read, documents_already_done)`` is called once the run knows what
    is left (for a progress bar). Returns a :class:`ReleaseSummary`. A failure to write (disk
    full, permission denied, a file-size limit, an output encoding that cannot take the text)
    raises :class:`~authormask.exceptions.InputError`, and so does standard output when it is
    closed or its reader stops before the release is complete
    (:func:`~authormask._io.checked_stdout`); a file or JSONL ``target`` whose path was written
    as a folder (``out/``, :class:`~authormask._io.FolderPath`) is refused before anything is
    read.

    Parameters
    ----------
    sources
        The inputs, one document each.
    mechanism
        The mechanism to release with.
    target
        Where the release goes.
    random_state
        The secret seed: None (fresh OS entropy), an int, or a numpy Generator.
    report_path
        Where to write the private report (the journal a rerun resumes from), or None.
    force
        Whether to release over a finished release or another command's unfinished one.
    progress
        Called with the number of characters read as documents are released.
    on_start
        Called once as ``on_start(characters_to_read, documents_already_done)``.
    input_folders
        The folders the sources were found in (nothing is written inside one).

    Returns
    -------
    ReleaseSummary
        What the CLI prints after the release.
    """
    if target.kind == "file":
        check_file_output(target.path, what="the release of one text")
    elif target.kind == "jsonl":
        check_file_output(
            target.path, what="a JSONL release", instead="a JSONL release is never a folder"
        )
    try:
        # standard output: every write whole or an error, never an exit 0 with part of it
        with checked_stdout() if target.path is None else contextlib.nullcontext():
            return _write_release(
                sources,
                mechanism,
                target,
                random_state=random_state,
                report_path=report_path,
                force=force,
                progress=progress,
                on_start=on_start,
                input_folders=input_folders,
            )
    except BrokenPipeError:
        raise
    except (OSError, UnicodeEncodeError) as exc:
        raise write_error(exc, target) from None


@dataclass(frozen=True)
class _Options:
    """What :func:`write_release` was asked besides the documents, the mechanism and the
    target (its parameters of the same names)."""

    random_state: RandomState
    report_path: Path | None
    force: bool
    progress: Callable[[int], None] | None
    on_start: Callable[[int, int], None] | None


@dataclass(frozen=True)
class _Plan:
    """What a release is, decided before its output's lock is taken: the mechanism (its N
    resolved), its statement (and its text as written), the command's fingerprint, the seed,
    the secret root of the order and every document, and the files the inputs are read from."""

    mechanism: Mechanism
    statement: Any
    statement_json: str
    run_id: str
    seed: SeedInfo
    root: np.random.SeedSequence
    inputs: list[InputFile]


def _write_release(
    sources: Sequence[Source],
    mechanism: Mechanism,
    target: Target,
    *,
    random_state: RandomState,
    report_path: Path | None,
    force: bool,
    progress: Callable[[int], None] | None,
    on_start: Callable[[int, int], None] | None,
    input_folders: Sequence[Path] = (),
) -> ReleaseSummary:
    """The release: its target checked, its plan, the checks of its paths, then the release
    itself holding the output's lock (one release at a time into one output)."""
    n = len(sources)
    if target.layout not in LAYOUTS:
        raise InvalidParameterError(
            f"layout must be one of {', '.join(LAYOUTS)}, got {target.layout!r}"
        )
    if (target.ids and len(target.ids) != n) or (target.mirrored and len(target.names) != n):
        raise InputError("one id and one name per document are needed")
    plan = _plan(sources, mechanism, target, random_state)
    _check_paths(plan.inputs, target, report_path, input_folders)
    options = _Options(random_state, report_path, force, progress, on_start)
    # one release at a time into one output
    with output_lock(target.path) if target.path is not None else contextlib.nullcontext():
        return _write_locked(sources, target, plan, options)


def _plan(
    sources: Sequence[Source], mechanism: Mechanism, target: Target, random_state: RandomState
) -> _Plan:
    """The release's plan (:class:`_Plan`): the statement first, as it depends on the
    parameters only (and N when it is 'shortest', resolved once here from every document)."""
    seed = describe_seed(random_state)
    mechanism = resolve_length(mechanism, sources, progress=None)
    statement = mechanism.statement(seeded=seed.seeded)
    # the secret root of the order and every document: the seed and the public parameters
    root = mechanism_root(random_state, mechanism)
    if target.mirrored:
        statement = dataclasses.replace(
            statement, released_unchanged=f"{statement.released_unchanged}; {MIRRORED_NAMES}"
        )
    statement_json = statement.to_json(indent=2) + "\n"
    run_id = _fingerprint(statement_json, seed.seed, sources, target)
    return _Plan(
        mechanism, statement, statement_json, run_id, seed, root, inputs=_input_files(sources)
    )


def _check_paths(
    inputs: list[InputFile],
    target: Target,
    report_path: Path | None,
    input_folders: Sequence[Path],
) -> None:
    """Nothing the user owns is replaced by its own release, not even with ``force``: no
    input, the report apart from what is published, nothing inside an input folder."""
    check_not_inputs(
        inputs,
        report=report_path,
        files=[
            report_path,
            target.statement_path(),
            *([target.path] if target.kind in ("file", "jsonl") else []),
            *([partial_path(target.path)] if target.kind == "jsonl" and target.path else []),
        ],
        folders=[target.path] if target.kind == "folder" and target.path is not None else [],
    )
    partial_file = (
        partial_path(target.path) if target.kind == "jsonl" and target.path is not None else None
    )
    check_report_apart(
        report_path,
        published=[target.statement_path(), *([target.path] if target.kind != "folder" else [])],
        folders=[target.path] if target.kind == "folder" else [],
    )
    check_outside_folders(
        input_folders,
        [
            ("the output", target.path),
            ("the privacy statement", target.statement_path()),
            ("the private report", report_path),
            ("the partial output", partial_file),
        ],
    )


@dataclass(frozen=True)
class _Ordered:
    """The documents in id order (position k: the document with the k-th id), the target with
    its ids and names in that order, where each document goes, where the statement goes, and
    the order (``order[k]``: the input position of the document with the k-th id, private)."""

    sources: list[Source]
    target: Target
    paths: list[Path]
    statement_path: Path | None
    order: list[int]


def _write_locked(
    sources: Sequence[Source], target: Target, plan: _Plan, options: _Options
) -> ReleaseSummary:
    """The release under its output's lock: nothing to do where the same command finished it;
    else the documents in their order, those an unfinished run finished kept, the report
    started and the others released."""
    n = len(sources)
    report_path = options.report_path
    resumable = target.kind in ("folder", "jsonl") and target.path is not None
    identity = _identity(plan.statement, plan.seed.seed, sources, target)
    prior = Journal.resumable(
        report_path, fingerprint=plan.run_id, force=options.force, identity=identity
    )
    if prior.complete:
        assert report_path is not None
        _check_complete(target, report_path, n)
        return ReleaseSummary(
            statement=plan.statement, report_path=report_path, already_complete=True
        )
    records = prior.records
    resuming = records is not None and resumable
    if resuming:
        assert report_path is not None and records is not None
    ordered = _ordered(sources, target, plan.root, report_path if resuming else None)
    check_not_inputs(plan.inputs, files=ordered.paths)
    if records and _ended_published(ordered, plan, report_path, records):
        return ReleaseSummary(
            statement=plan.statement, report_path=report_path, already_complete=True
        )
    done: set[int] = set()
    kept: list[dict[str, Any]] = []
    if resuming:
        assert records is not None
        done, kept = _kept(ordered, records, report_path)
    else:
        _fresh(ordered, force=options.force)
    summary = ReleaseSummary(statement=plan.statement, resumed=len(done), report_path=report_path)
    journal = _started_journal(ordered, plan, identity, kept, report_path)
    _stream(ordered, plan, options, done, summary, journal)
    return summary


def _ordered(
    sources: Sequence[Source],
    target: Target,
    root: np.random.SeedSequence,
    resumed_from: Path | None,
) -> _Ordered:
    """The documents in id order (:class:`_Ordered`): the order an unfinished release drew
    (its report ``resumed_from``), else the given ids' order or a secret random one."""
    n = len(sources)
    order: list[int] | None = None
    if resumed_from is not None:
        order = _resumed_order(resumed_from, n)
    if order is None:
        order = list(range(n)) if target.ids else release_order(root, n)
    # the documents in id order: position k is the document with the k-th id
    ordered = [sources[p] for p in order]
    ids = tuple(target.ids[p] for p in order) if target.ids else tuple(map(str, range(1, n + 1)))
    names: tuple[str, ...] = ()
    if target.mirrored:
        names = tuple(target.names[p] for p in order)
    elif target.kind == "folder":
        names = tuple(f"{i}.txt" for i in ids)
    target = dataclasses.replace(target, ids=ids, names=names)
    return _Ordered(ordered, target, output_paths(target), target.statement_path(), order)


def _ended_published(
    ordered: _Ordered, plan: _Plan, report_path: Path | None, records: list[dict[str, Any]]
) -> bool:
    """Whether the release was killed after its output appeared, before the report's last
    line (``records``: the report's lines): then the report is ended, and nothing released."""
    target, n = ordered.target, len(ordered.sources)
    if (
        report_path is not None
        and target.path is not None
        and _made_by(records, target, ordered.paths, ordered.statement_path, plan.statement_json, n)
    ):  # killed after the output appeared, before the report's last line: end the report
        if target.kind == "jsonl":
            partial_path(target.path).unlink(missing_ok=True)
        append_complete(
            report_path,
            {
                "complete": True,
                "released": 0,
                "resumed": n,
                "warnings": [w for r in records for w in r.get("warnings", [])],
            },
        )
        return True
    return False


def _kept(
    ordered: _Ordered, records: list[dict[str, Any]], report_path: Path | None
) -> tuple[set[int], list[dict[str, Any]]]:
    """What an unfinished run of this command finished (``records``: its report's lines): the
    positions whose output is there, and their report lines (a line for each one written
    after its last line); its stale temporary files go."""
    target, paths, sources = ordered.target, ordered.paths, ordered.sources
    assert target.path is not None
    remove_stale_temps([*paths, report_path] if report_path else paths)
    if target.kind == "folder":
        done = {i for i, p in enumerate(paths) if p.is_file() and not p.is_symlink()}
    else:
        partial = partial_path(target.path)
        done = resume_jsonl(partial, target.ids) if partial.is_file() else set()
    kept = [r for r in records if r.get("position") in done]
    known = {r.get("position") for r in kept}
    for pos in sorted(done - known):
        kept.append(
            {
                "position": pos,
                "id": target.ids[pos],
                "input": sources[pos].name,
                "output": where(target, paths, pos),
                "resumed": True,
            }
        )
    return done, kept


def _fresh(ordered: _Ordered, *, force: bool) -> None:
    """A release started afresh: stale temporary files go, every output (and the statement)
    may be written (:func:`~authormask._io.check_target`), a JSONL's partial file goes."""
    target = ordered.target
    remove_stale_temps(ordered.paths)
    for p in ordered.paths:
        check_target(p, force=force)
    if ordered.statement_path is not None:
        check_target(ordered.statement_path, force=force)
    if target.kind == "jsonl" and target.path is not None:
        partial_path(target.path).unlink(missing_ok=True)


def _started_journal(
    ordered: _Ordered,
    plan: _Plan,
    identity: dict[str, Any],
    kept: list[dict[str, Any]],
    report_path: Path | None,
) -> Journal | None:
    """The private report, started: its header, then the lines of the documents ``kept``."""
    target = ordered.target
    journal = Journal(report_path) if report_path is not None else None
    if journal is not None:
        journal.start(
            Journal.header(
                RUN_REPORT_SCHEMA,
                plan.run_id,
                plan.statement,
                plan.seed,
                output=str(target.path) if target.path is not None else "<stdout>",
                documents=len(ordered.sources),
                layout=target.layout if target.kind == "folder" else None,
                # order[k]: the input position of the document with the k-th id (private)
                order=ordered.order,
                identity=identity,
            ),
            sorted(kept, key=lambda r: int(r.get("position", 0))),
        )
    return journal


class _Writing:
    """A release as it is written, for its cleanup after a failure (:func:`~authormask.core.
    journal.cleanup_on_failure`): whether it made the output folder, its writer, and whether
    the report says it is complete (a Ctrl-C held back may follow)."""

    def __init__(self, target: Target, done: set[int], summary: ReleaseSummary) -> None:
        self.target = target
        self.done = done
        self.summary = summary
        #: the output folder, removed again if nothing is released into it
        self.created = False
        self.writer: Writer | None = None
        self.complete = False

    def released(self) -> bool:
        """Whether anything is out to keep a report of (a file output appears only at the
        end: until then nothing is)."""
        summary, target = self.summary, self.target
        return self.complete or bool(self.done) or (summary.released > 0 and target.kind != "file")

    def leave_nothing(self) -> None:
        """Remove the partial file, and the output folder if this run made it (only if empty)."""
        if self.writer is not None and self.writer.partial is not None:
            self.writer.partial.unlink(missing_ok=True)
        if self.created and self.target.path is not None:
            with contextlib.suppress(OSError):  # only if empty
                self.target.path.rmdir()


def _stream(
    ordered: _Ordered,
    plan: _Plan,
    options: _Options,
    done: set[int],
    summary: ReleaseSummary,
    journal: Journal | None,
) -> None:
    """Release the documents not ``done`` as they stream and write each, then publish the
    output; after a failure, nothing of this run is left where nothing was released."""
    target = ordered.target
    writing = _Writing(target, done, summary)
    with cleanup_on_failure(
        journal,
        options.report_path,
        released=writing.released,
        leave_nothing=writing.leave_nothing,
    ):
        try:
            if target.kind == "folder":
                assert target.path is not None
                writing.created = not target.path.exists()
                target.path.mkdir(parents=True, exist_ok=True)
            if options.on_start is not None:
                left = sum(s.size for i, s in enumerate(ordered.sources) if i not in done)
                options.on_start(left, len(done))
            stream = release_stream(
                ordered.sources,
                plan.mechanism,
                random_state=options.random_state,
                root=plan.root,
                skip=frozenset(done),
                progress=options.progress,
            )
            writing.writer = Writer(target, ordered.paths, plan.statement)
            _write_documents(stream, writing.writer, ordered, summary, journal)
            _publish(writing, ordered, plan.statement_json, journal)
        except BaseException:
            if writing.writer is not None:
                with contextlib.suppress(OSError):  # the first error is the one to report
                    writing.writer.abort()
            raise


def _write_documents(
    stream: ReleaseStream,
    writer: Writer,
    ordered: _Ordered,
    summary: ReleaseSummary,
    journal: Journal | None,
) -> None:
    """Write every piece and document of ``stream``; each finished document is counted and
    gets its line in the report."""
    target, paths, sources = ordered.target, ordered.paths, ordered.sources
    for event in stream:
        if isinstance(event, Piece):
            writer.piece(event.position, event.text)
            continue
        writer.done(event)
        summary.released += 1
        summary.warnings.extend(event.warnings)
        if journal is not None:
            journal.add(
                {
                    "position": event.position,
                    "id": target.ids[event.position],
                    "input": sources[event.position].name,
                    "output": where(target, paths, event.position),
                    **event.diagnostics,
                }
            )


def _publish(
    writing: _Writing, ordered: _Ordered, statement_json: str, journal: Journal | None
) -> None:
    """The last steps, never cut in two by Ctrl-C: the statement (a rerun writes it again),
    then the output appears, then the report says the release is complete."""
    writer, summary = writing.writer, writing.summary
    assert writer is not None
    with deferred_interrupt():
        if ordered.statement_path is not None:
            write_text_atomic(ordered.statement_path, statement_json)
        publishing = writer.pending_digest()
        if journal is not None and publishing is not None:
            journal.add({"publishing": publishing})  # a rerun after a kill checks it
        writer.close()
        if journal is not None:
            journal.finish(
                {
                    "complete": True,
                    "released": summary.released,
                    "resumed": summary.resumed,
                    "warnings": summary.warnings,
                }
            )
        writing.complete = True


def _made_by(
    records: list[dict[str, Any]],
    target: Target,
    paths: list[Path],
    statement_path: Path | None,
    statement_json: str,
    n: int,
) -> bool:
    """Whether the output is the complete output of the run whose report lines are
    ``records`` (the same command: the report's fingerprint matched): every document is
    recorded; the statement beside it is this run's, byte for byte; a folder's documents are
    there (each written before its line); a file or JSONL output has the SHA-256 the report
    recorded just before it appeared. Anything else (an older release's output, a statement of
    other parameters) is not accepted."""
    if sorted(int(r["position"]) for r in records if "position" in r) != list(range(n)):
        return False
    if statement_path is None or not statement_path.is_file() or statement_path.is_symlink():
        return False
    if statement_path.read_bytes() != statement_json.encode("utf-8"):
        return False
    if not paths or not all(p.is_file() and not p.is_symlink() for p in paths):
        return False
    if target.kind == "folder":
        return True
    published: list[str] = [str(r["publishing"]) for r in records if "publishing" in r]
    return bool(published) and file_sha256(paths[0]) == published[-1]


def _check_complete(target: Target, report_path: Path, n: int) -> None:
    """A finished release of the same command: its outputs and statement must still be there
    (nothing is written again); standard output cannot hold a finished release."""
    if target.path is None:
        raise InputError(
            f"a finished release is already there ({report_path} says so); use `force` to "
            "release again over it"
        )
    statement = target.statement_path()
    if target.kind == "folder":
        ids = target.ids or tuple(map(str, range(1, n + 1)))
        names = target.names if target.mirrored else tuple(f"{i}.txt" for i in ids)
        missing = next((target.path / m for m in names if not (target.path / m).is_file()), None)
    else:
        missing = target.path if not target.path.is_file() else None
    if missing is None and statement is not None and not statement.is_file():
        missing = statement
    if missing is not None:
        raise InputError(
            f"{report_path} records a finished release of this command, but {missing} is gone; "
            "use `force` to release again"
        )


def _input_files(sources: Sequence[Source]) -> list[InputFile]:
    """The files the sources are read from (for :func:`~authormask._io.check_not_inputs`)."""
    found = []
    for s in sources:
        ident = s.identity
        if ident is not None:
            path = getattr(s, "path", None)
            found.append(InputFile(s.name, ident, path if isinstance(path, Path) else None))
    return found


def _resumed_order(report_path: Path, n: int) -> list[int]:
    """The order an unfinished release drew (its report's header), to finish it the same way."""
    header, _, _ = Journal.read(report_path)
    order = header.get("order") if header is not None else None
    if not isinstance(order, list) or sorted(order) != list(range(n)):
        raise InputError(
            f"{report_path} records an unfinished release without a valid order of its "
            "documents; add `force` to start over"
        )
    return [int(i) for i in order]
