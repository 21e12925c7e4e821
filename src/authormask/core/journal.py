"""The private run report of both writers (:mod:`~authormask.core.outputs` for texts,
:mod:`~authormask.core.partitioned` for datasets): its banner, its schemas, the journal it is
written as (and read back from to resume), the fingerprint that identifies a run, and what a run
that stops leaves behind (its stale temporary files, and nothing at all when nothing was
released)."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any

from authormask._io import AtomicTextFile, check_target
from authormask._version import __version__
from authormask.exceptions import InputError

__all__ = [
    "PRIVATE_BANNER",
    "RUN_REPORT_SCHEMA",
    "TABLE_REPORT_SCHEMA",
    "Journal",
    "OutputBusyError",
    "Prior",
    "cleanup_on_failure",
    "deferred_interrupt",
    "describe_change",
    "fingerprint",
    "json_line",
    "jsonl",
    "lock_path",
    "output_lock",
    "remove_stale_temps",
    "write_text_atomic",
]

PRIVATE_BANNER = (
    "# PRIVATE run report of authormask: DO NOT PUBLISH. It holds the seed, source names and "
    "per-document counts, which identify the inputs; publish only the texts and the privacy "
    "statement."
)
#: the schema of a text release's report (:func:`~authormask.core.outputs.write_release`)
RUN_REPORT_SCHEMA = "authormask.run-report/3"
#: the schema of a dataset release's report
#: (:func:`~authormask.core.table_outputs.write_table_release`)
TABLE_REPORT_SCHEMA = "authormask.table-report/2"
_TMP = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")


def fingerprint(items: Iterable[bytes]) -> str:
    """What identifies a run, to resume it: the SHA-256 of its identifying ``items`` (the
    statement, the seed, the inputs and the output, as each writer lists them).

    Parameters
    ----------
    items
        The identifying items, as bytes.

    Returns
    -------
    str
        The SHA-256 of their concatenation, in hex.
    """
    h = hashlib.sha256()
    for item in items:
        h.update(item)
    return h.hexdigest()


def json_line(record: dict[str, Any]) -> str:
    """A report line: names as they are, except a name that is not valid Unicode (a file name
    with bytes that are not UTF-8, held as surrogate escapes), written as ``\\u`` escapes that
    read back to the same name.

    Parameters
    ----------
    record
        The line's JSON object.

    Returns
    -------
    str
        The JSON, ending in a newline.
    """
    line = json.dumps(record, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(record)
    return line + "\n"


#: characters that JSON leaves raw but that ``str.splitlines`` (and some JSONL readers) take as
#: line ends: escaped in JSONL output, so that every record stays on one line for any reader
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def jsonl(value: Any) -> str:
    """``value`` as JSON for a JSONL line (non-ASCII kept, line-break characters escaped; a
    value JSON has no type for, such as a Parquet timestamp, as its text).

    Parameters
    ----------
    value
        The value.

    Returns
    -------
    str
        Its JSON, on one line.
    """
    return json.dumps(value, ensure_ascii=False, default=str).translate(_LINE_BREAKS)


@dataclass(frozen=True)
class Prior:
    """What the private report already at a run's report path says about the run
    (:meth:`Journal.resumable`): ``records``, the lines of an unfinished release of this very
    command to resume (None: start afresh); ``complete``, a finished release of this very
    command (the same parameters, seed, inputs and output) is already there, so there is
    nothing to do; ``header``, the report's parameters line.

    Attributes
    ----------
    records
        The lines of an unfinished release to resume, or None.
    complete
        Whether a finished release of this very command is already there.
    header
        The report's parameters line, or None.
    """

    records: list[dict[str, Any]] | None = None
    complete: bool = False
    header: dict[str, Any] | None = None


class Journal:
    """The private report, written line by line as the release goes (and fsynced), read back by
    a rerun that resumes: the banner, a JSON header (``report`` names its schema), one JSON line
    per finished document or partition, and a last ``{"complete": true, ...}`` line.

    Parameters
    ----------
    path
        The report's path.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: IO[str] | None = None

    @staticmethod
    def read(
        path: Path, schema: str = RUN_REPORT_SCHEMA
    ) -> tuple[dict[str, Any] | None, list[dict[str, Any]], bool]:
        """``(header, document lines, complete)``; header None if not one of our reports.

        Parameters
        ----------
        path
            The report's path.
        schema
            The report schema expected in the header.

        Returns
        -------
        tuple[dict[str, Any] | None, list[dict[str, Any]], bool]
            The header, the document lines and whether the last line says complete.
        """
        try:
            with open(path, encoding="utf-8") as fh:
                first = fh.readline()
                if first.rstrip("\n") != PRIVATE_BANNER:
                    return None, [], False
                header = json.loads(fh.readline())
                if header.get("report") != schema:
                    return None, [], False
                docs: list[dict[str, Any]] = []
                complete = False
                for line in fh:
                    if not line.endswith("\n"):
                        break
                    rec = json.loads(line)
                    if rec.get("complete"):
                        complete = True
                    else:
                        docs.append(rec)
                return header, docs, complete
        except (OSError, ValueError, AttributeError):
            return None, [], False

    @staticmethod
    def resumable(
        path: Path | None,
        *,
        fingerprint: str,
        force: bool,
        schema: str = RUN_REPORT_SCHEMA,
        identity: dict[str, Any] | None = None,
    ) -> Prior:
        """What the report at ``path`` says about this run (see :class:`Prior`): the lines of an
        unfinished release of this very command (its ``fingerprint``) to resume, a finished
        release of this very command (nothing to do), or nothing (start afresh). A finished
        release, or an unfinished one, of another command is refused unless ``force``, with
        what differs (:func:`describe_change` of the header's ``identity`` and ``identity``);
        so is a report path taken by another file.

        Parameters
        ----------
        path
            The report's path (None: no report, start afresh).
        fingerprint
            What identifies this run (:func:`fingerprint`).
        force
            Whether to start afresh over a finished release or another command's unfinished one.
        schema
            The report schema expected.
        identity
            This run's identity, to say what differs from the report's.

        Returns
        -------
        Prior
            What to do: resume, nothing, or start afresh.

        Raises
        ------
        InputError
            If the report holds a release of another command (or a finished one) and not ``force``.
        """
        if path is None:
            return Prior()
        header, records, complete = Journal.read(path, schema)
        unfinished = header is not None and not complete
        if complete and not force:
            assert header is not None
            change = describe_change(header.get("identity"), identity)
            if header.get("fingerprint") == fingerprint and change is None:
                return Prior(complete=True, header=header)
            raise InputError(
                f"a finished release is already there ({path} says so), made with "
                f"{change or 'other parameters, seed, inputs or output'}; use `force` to "
                "release again over it"
            )
        if not unfinished:
            check_target(path, force=force)
            return Prior()
        if force:
            return Prior()
        assert header is not None
        if header.get("fingerprint") != fingerprint:
            change = describe_change(header.get("identity"), identity, unverifiable=False)
            raise InputError(
                f"{path} records an unfinished release with other parameters, seed, inputs or "
                f"output{f' ({change})' if change else ''}; run that command again to finish "
                "it, or add `force` to start over"
            )
        return Prior(records=records, header=header)

    @staticmethod
    def header(
        schema: str, fingerprint: str, statement: Any, seed: Any, **extra: Any
    ) -> dict[str, Any]:
        """The report's parameters line: what identifies the run, and the (secret) seed.

        Parameters
        ----------
        schema
            The report schema.
        fingerprint
            What identifies the run.
        statement
            The release's privacy statement.
        seed
            The :class:`~authormask.randomness.SeedInfo` of the run.
        **extra
            More fields of the line.

        Returns
        -------
        dict[str, Any]
            The header line's JSON object.
        """
        return {
            "report": schema,
            "private": True,
            "fingerprint": fingerprint,
            "mechanism": statement.mechanism,
            "seeded": seed.seeded,
            "seed": seed.seed,
            "version": __version__,
            **extra,
        }

    def start(self, header: dict[str, Any], kept: list[dict[str, Any]]) -> None:
        """Write the report afresh: the banner, ``header`` and the ``kept`` lines.

        Parameters
        ----------
        header
            The parameters line (:meth:`header`).
        kept
            The lines of a resumed run to keep.
        """
        text = PRIVATE_BANNER + "\n" + json.dumps(header) + "\n"
        text += "".join(json_line(rec) for rec in kept)
        write_text_atomic(self.path, text, private=True)
        self._fh = open(self.path, "a", encoding="utf-8")

    def add(self, record: dict[str, Any]) -> None:
        """Append one line (a finished document or partition), flushed.

        Parameters
        ----------
        record
            The line's JSON object.
        """
        assert self._fh is not None
        self._fh.write(json_line(record))
        self._fh.flush()

    def finish(self, record: dict[str, Any] | None) -> None:
        """Append the last line (if any), fsync and close the report.

        Parameters
        ----------
        record
            The last line (``{"complete": true, ...}``), or None to end the report where it is.
        """
        if self._fh is None:
            return
        if record is not None:
            self._fh.write(json_line(record))
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        self._fh = None


def append_complete(path: Path, record: dict[str, Any]) -> None:
    """Append the last line of a report whose run was killed after its output appeared and
    before that line (fsynced): a rerun that finds its own complete output ends the report.

    Parameters
    ----------
    path
        The report.
    record
        The last line (``{"complete": true, ...}``).
    """
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json_line(record))
        fh.flush()
        os.fsync(fh.fileno())


def write_text_atomic(path: Path, text: str, *, private: bool = False) -> None:
    """Write ``text`` to ``path`` atomically (temporary file, fsync, rename; see
    :class:`~authormask._io.AtomicTextFile`), over a regular file only. A failure (disk full,
    file too large) raises the ``OSError`` itself and leaves no temporary file behind.

    Parameters
    ----------
    path
        The file to write.
    text
        Its new text.
    private
        Whether the file is private (readable by its owner only).
    """
    check_target(path, force=True)
    f = AtomicTextFile(path, private=private)
    try:
        f.write(text)
        f.commit()
    except BaseException:
        with contextlib.suppress(OSError):  # closing flushes, and may fail again
            f.fh.close()
        f.tmp.unlink(missing_ok=True)
        raise


def remove_stale_temps(paths: Sequence[Path]) -> None:
    """Remove the temporary files a killed run left beside ``paths`` (``.<name>.XXXXXXXX.tmp``).

    Parameters
    ----------
    paths
        The files whose temporary siblings to remove.
    """
    by_dir: dict[Path, set[str]] = {}
    for p in paths:
        by_dir.setdefault(p.parent, set()).add(p.name)
    for folder, names in by_dir.items():
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            m = _TMP.match(entry.name)
            if m and m.group("name") in names and entry.is_file(follow_symlinks=False):
                Path(entry.path).unlink(missing_ok=True)


@contextlib.contextmanager
def cleanup_on_failure(
    journal: Journal | None,
    report_path: Path | None,
    *,
    released: Callable[[], bool],
    leave_nothing: Callable[[], None],
) -> Iterator[None]:
    """On any exit by an exception (an error, Ctrl-C, a kill the interpreter sees): end the
    journal where it is (a rerun resumes from it) and, when nothing was ``released`` (nothing to
    resume), leave nothing behind: ``leave_nothing()`` removes what the run made and the report
    goes. The first error is the one raised; cleaning up never hides it.

    Parameters
    ----------
    journal
        The run's journal, or None.
    report_path
        The run's report, removed when nothing was released.
    released
        Whether anything was released (a rerun can resume).
    leave_nothing
        Removes what the run made.

    Yields
    ------
    None
        Control, for the block to run.
    """
    try:
        yield
    except BaseException:
        if journal is not None:
            with contextlib.suppress(OSError):
                journal.finish(None)
        if not released():
            leave_nothing()
            if report_path is not None:
                report_path.unlink(missing_ok=True)
        raise


# --- what changed since a release -------------------------------------------------------------

#: the statement's members compared first (the public parameters a user sets), in this order
_STATEMENT_FIRST = ("mechanism", "epsilon", "embeddings", "model", "parameters", "randomness")
#: the parameter of the library call behind a member of the statement's ``embeddings``
_EMBEDDINGS_PARAMETERS = {"name": "embeddings", "vocab_size": "vocab_size"}
#: a value is shown in a message when it is a number or a string at most this long
_SHOWN = 40
#: how a column of a dataset release is named in a message (its parameter)
_COLUMN_PARAMETERS = {
    "text_column": "another `text_column`",
    "id_column": "another `id_column`",
    "keep_columns": "other `keep_columns`",
    "secret_ids": "another naming of the records (ids given or secret)",
}


def _shown(old: Any, new: Any) -> str:
    """`` (A then, B now)`` when both values are short enough to show, else nothing."""

    def short(v: Any) -> bool:
        return (
            v is None
            or isinstance(v, (int, float, bool))
            or (isinstance(v, str) and len(v) <= _SHOWN)
        )

    if short(old) and short(new):
        return f" ({json.dumps(old)} then, {json.dumps(new)} now)"
    return ""


def _statement_change(old: Any, new: Any) -> str:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return "another privacy statement"
    keys = [k for k in _STATEMENT_FIRST if k in new] + [k for k in new if k not in _STATEMENT_FIRST]
    for key in keys:
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key in ("mechanism", "epsilon"):
            return f"another `{key}`{_shown(a, b)}"
        if key == "embeddings" and isinstance(a, dict) and isinstance(b, dict):
            for sub, parameter in _EMBEDDINGS_PARAMETERS.items():
                if a.get(sub) != b.get(sub):
                    return f"another `{parameter}`{_shown(a.get(sub), b.get(sub))}"
            return "other embeddings (their words or vectors differ)"
        if key == "randomness":
            return f"other randomness{_shown(a, b)}"
        if isinstance(a, dict) and isinstance(b, dict):
            sub = next(k for k in {**a, **b} if a.get(k) != b.get(k))
            return f"another {key} in its statement ({sub!r}{_shown(a.get(sub), b.get(sub))})"
        return f"another {key!r} in its statement{_shown(a, b)}"
    return "another privacy statement"


def _inputs_change(old: Any, new: Any, *, unverifiable: bool) -> str | None:
    """What differs between two lists of inputs ``[name, size, modified]`` (size and
    modification time None where they cannot be known, e.g. standard input)."""
    if not isinstance(old, list) or not isinstance(new, list):
        return None if old == new else "other inputs"
    for a, b in zip(old, new, strict=False):
        if not isinstance(a, list) or not isinstance(b, list) or len(a) != 3 or len(b) != 3:
            return None if a == b else "other inputs"
        if a[0] != b[0]:
            return f"other inputs (the release recorded read {a[0]}, this one reads {b[0]})"
        if unverifiable and (b[1] is None or b[2] is None):
            return f"an input that cannot be compared with the one it read: {b[0]}"
        if a[1:] != b[1:]:
            return f"another version of the input {b[0]} (it changed since)"
    if len(old) != len(new):
        return f"other inputs ({len(old)} then, {len(new)} now)"
    return None


def describe_change(
    old: Any, new: dict[str, Any] | None, *, unverifiable: bool = True
) -> str | None:
    """What differs between the ``identity`` a report's header holds (``old``) and this run's
    (``new``), as a phrase that names the parameter (between backquotes, as the library names
    it) and, where they are public and short, the two values (never the seed's); None when
    nothing differs, or when either is unknown (a report without one). ``unverifiable``: an
    input that cannot be compared (standard input) counts as a change.

    An identity is a dict of ``mechanism``, ``seed``, ``inputs`` (``[name, size, modified]``
    per input), ``columns``, ``output``, ``format``, ``layout``, ``partition_records`` and
    ``statement`` (its JSON object), each where it applies.

    Parameters
    ----------
    old
        The identity the report's header holds.
    new
        This run's identity.
    unverifiable
        Whether an input that cannot be compared counts as a change.

    Returns
    -------
    str | None
        The first difference as a phrase, or None.
    """
    if not isinstance(old, dict) or new is None:
        return None
    new = json.loads(json.dumps(new, default=str))  # as the header holds it, read back
    assert isinstance(new, dict)
    for key, value in new.items():
        if key not in old:
            continue
        before = old[key]
        if key == "inputs":
            found = _inputs_change(before, value, unverifiable=unverifiable)
            if found is not None:
                return found
            continue
        if before == value:
            continue
        if key == "seed":  # never its value
            if before is not None and value is not None:
                return "another seed"
            return (
                "a seed (this run has none)"
                if before is not None
                else ("no seed (this run has one)")
            )
        if key == "mechanism":
            return f"another `mechanism`{_shown(before, value)}"
        if key == "columns" and isinstance(before, dict) and isinstance(value, dict):
            for column, phrase in _COLUMN_PARAMETERS.items():
                if before.get(column) != value.get(column):
                    return phrase + _shown(before.get(column), value.get(column))
            return "other columns"
        if key == "output":
            return f"another output{_shown(before, value)}"
        if key == "format":
            return f"another output format (`fmt`){_shown(before, value)}"
        if key == "layout":
            return f"another `layout`{_shown(before, value)}"
        if key == "partition_records":
            return f"another partition size (records per partition){_shown(before, value)}"
        if key == "statement":
            return _statement_change(before, value)
        return f"another {key}"
    return None


# --- one release at a time into one output --------------------------------------------------


class OutputBusyError(InputError):
    """Another release is writing into the same output (it holds its lock)."""


def lock_path(output: Path) -> Path:
    """The lock file of the releases into ``output``: ``.<name>.lock`` beside it.

    Parameters
    ----------
    output
        The release's output path.

    Returns
    -------
    Path
        The lock file's path.
    """
    return output.with_name(f".{output.name}.lock")


@contextlib.contextmanager
def output_lock(output: Path) -> Iterator[None]:
    """Hold the lock of ``output`` (:func:`lock_path`, an exclusive ``flock``) for the run, or
    raise :class:`OutputBusyError` at once when another release holds it: two releases into one
    output would replace each other's journal and partial files. The lock file is removed on
    the way out (a run that finds the lock file replaced while it waited takes the new one).

    Parameters
    ----------
    output
        The release's output path.

    Yields
    ------
    None
        Control, with the lock held.

    Raises
    ------
    InputError
        If ``output`` has no name, or the lock file cannot be opened, is not a regular file or
        cannot be locked.
    OutputBusyError
        If another release holds the lock.
    """
    import fcntl

    if not output.name:
        raise InputError(f"output path {output} has no name")
    path = lock_path(output)
    with contextlib.suppress(OSError):  # a parent that cannot be made: the open below says why
        path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            raise InputError(
                f"cannot use the lock file {path} of output {output}: {exc.strerror or exc}"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InputError(f"the lock file {path} of output {output} is not a regular file")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise OutputBusyError(
                        f"another release is writing to {output} (it holds {path}); wait for "
                        "it to end, or release to another output"
                    ) from None
                raise InputError(f"cannot lock {path}: {exc.strerror or exc}") from None
            try:  # the file we locked must still be the one at the path
                same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)


# --- finishing without being cut in two -----------------------------------------------------


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) while the block runs (the last steps of a release: its output
    appears, its statement is written, its report says it is complete), so that an interrupt
    never leaves a complete output beside a report that says otherwise; an interrupt that came
    in the meantime is raised (``KeyboardInterrupt``) as the block ends. Outside the main
    thread (where signal handlers cannot be set), or when SIGINT is not handled by Python, the
    block runs as it is.

    Yields
    ------
    None
        Control, with Ctrl-C held back.

    Raises
    ------
    KeyboardInterrupt
        As the block ends, if Ctrl-C came while it ran.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        yield
        return
    received: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)

    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt
