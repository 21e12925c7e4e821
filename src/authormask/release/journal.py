"""The private run report of both writers (:mod:`~authormask.release.outputs` for texts,
:mod:`~authormask.release.partitioned` for datasets): its banner, its schemas, the journal it is
written as (and read back from to resume), the fingerprint that identifies a run, and what a run
that stops leaves behind (its stale temporary files, and nothing at all when nothing was
released)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from authormask._io import check_target, write_atomic
from authormask._version import __version__
from authormask.exceptions import InputError

__all__ = [
    "PRIVATE_BANNER",
    "RUN_REPORT_SCHEMA",
    "TABLE_REPORT_SCHEMA",
    "Journal",
    "cleanup_on_failure",
    "fingerprint",
    "json_line",
    "jsonl",
    "remove_stale_temps",
]

PRIVATE_BANNER = (
    "# PRIVATE run report of authormask: DO NOT PUBLISH. It holds the seed, source names and "
    "per-document counts, which identify the inputs; publish only the texts and the privacy "
    "statement."
)
#: the schema of a text release's report (:func:`~authormask.release.outputs.write_release`)
RUN_REPORT_SCHEMA = "authormask.run-report/3"
#: the schema of a dataset release's report
#: (:func:`~authormask.release.table_outputs.write_table_release`)
TABLE_REPORT_SCHEMA = "authormask.table-report/2"
_TMP = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")


def fingerprint(items: Iterable[bytes]) -> str:
    """What identifies a run, to resume it: the SHA-256 of its identifying ``items`` (the
    statement, the seed, the inputs and the output, as each writer lists them)."""
    h = hashlib.sha256()
    for item in items:
        h.update(item)
    return h.hexdigest()


def json_line(record: dict[str, Any]) -> str:
    """A report line: names as they are, except a name that is not valid Unicode (a file name
    with bytes that are not UTF-8, held as surrogate escapes), written as ``\\u`` escapes that
    read back to the same name."""
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
    value JSON has no type for, such as a Parquet timestamp, as its text)."""
    return json.dumps(value, ensure_ascii=False, default=str).translate(_LINE_BREAKS)


class Journal:
    """The private report, written line by line as the release goes (and fsynced), read back by
    a rerun that resumes: the banner, a JSON header (``report`` names its schema), one JSON line
    per finished document or partition, and a last ``{"complete": true, ...}`` line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: IO[str] | None = None

    @staticmethod
    def read(
        path: Path, schema: str = RUN_REPORT_SCHEMA
    ) -> tuple[dict[str, Any] | None, list[dict[str, Any]], bool]:
        """``(header, document lines, complete)``; header None if not one of our reports."""
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
        path: Path | None, *, fingerprint: str, force: bool, schema: str = RUN_REPORT_SCHEMA
    ) -> list[dict[str, Any]] | None:
        """The lines of an unfinished release of this very command (its ``fingerprint``) to
        resume, or None to start afresh. A finished release, or an unfinished one of another
        command, is refused unless ``force``; so is a report path taken by another file."""
        if path is None:
            return None
        header, records, complete = Journal.read(path, schema)
        unfinished = header is not None and not complete
        if complete and not force:
            raise InputError(
                f"a finished release is already there ({path} says so); use `force` to "
                "release again over it"
            )
        if not unfinished:
            check_target(path, force=force)
            return None
        if force:
            return None
        assert header is not None
        if header.get("fingerprint") != fingerprint:
            raise InputError(
                f"{path} records an unfinished release with other parameters, seed, inputs or "
                "output; run that command again to finish it, or add `force` to start over"
            )
        return records

    @staticmethod
    def header(
        schema: str, fingerprint: str, statement: Any, seed: Any, **extra: Any
    ) -> dict[str, Any]:
        """The report's parameters line: what identifies the run, and the (secret) seed."""
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
        text = PRIVATE_BANNER + "\n" + json.dumps(header) + "\n"
        text += "".join(json_line(rec) for rec in kept)
        write_atomic({self.path: text}, force=True, private=frozenset([self.path]))
        self._fh = open(self.path, "a", encoding="utf-8")

    def add(self, record: dict[str, Any]) -> None:
        assert self._fh is not None
        self._fh.write(json_line(record))
        self._fh.flush()

    def finish(self, record: dict[str, Any] | None) -> None:
        if self._fh is None:
            return
        if record is not None:
            self._fh.write(json_line(record))
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        self._fh = None


def remove_stale_temps(paths: Sequence[Path]) -> None:
    """Remove the temporary files a killed run left beside ``paths`` (``.<name>.XXXXXXXX.tmp``)."""
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
    goes. The first error is the one raised; cleaning up never hides it."""
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
