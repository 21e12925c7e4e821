"""The local release history: a private record, on this machine, of which texts were released
with which public parameters, so that releasing a text again is warned about.

Releasing one text twice composes: the two outputs together are (at most) as private as one
release at the sum of the two epsilons. A release is an independent draw when its public
parameters differ from the earlier one's (the noise is keyed by them), or when either run was
unseeded; a seeded rerun with the same parameters is taken to be the same release (the same seed
gives the same output), as the seed itself is never recorded.

**What it holds.** A random 256-bit key (``history.key``, made once) and, per release, one JSON
line: the public parameters (the mechanism, epsilon and its unit, whether seeded, and a SHA-256
of the statement's parameters) and, for each text released, ``HMAC-SHA256(key, text)`` cut to
128 bits, of the text as the mechanisms read it: cleaned (:func:`~authormask.text.clean.
clean_text`: invisible characters removed, NFKC), its words joined by single spaces (so a copy
that differs only in a zero-width space, a fullwidth letter, a double space or a final line
break is the same text). Never a text, a name, a path, a count or a seed: without the key a
digest says nothing about a text, and with it only whether a given text was released.

**Where.** A folder of the user's (the command line's default is :func:`default_history_dir`:
``$AUTHORMASK_STATE_DIR``, else ``$XDG_STATE_HOME/authormask``, else
``~/.local/state/authormask``), created 0700; its files are created 0600. A folder or file that
is a link, is not the user's, or that another user can write (or, for the files, read) is refused
with :class:`HistoryError`, and the command line then releases without the history, saying so.
The history's first line is a marker (:data:`~authormask.core.markers.HISTORY_BANNER`), so a
copy that lands in an input folder is never released as a document.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import json
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from authormask.core.journal import json_line
from authormask.core.markers import HISTORY_BANNER
from authormask.core.sources import Source, digest_words
from authormask.exceptions import AuthormaskError

__all__ = [
    "HISTORY_ENV",
    "Composition",
    "Digests",
    "HistoryError",
    "ReleaseHistory",
    "default_history_dir",
    "parameters_key",
]

#: environment variable naming the folder of the local release history
HISTORY_ENV = "AUTHORMASK_STATE_DIR"
#: the history's file names inside its folder
KEY_FILE = "history.key"
HISTORY_FILE = "releases.jsonl"
#: what a dataset release adds to a statement's policies (not parameters of the noise)
_DECLARED = ("ids", "kept columns", "record order")


class HistoryError(AuthormaskError):
    """The history cannot be used safely (its folder or a file is a link, another user's, or
    open to other users) or cannot be read or written."""


def default_history_dir() -> Path:
    """``$AUTHORMASK_STATE_DIR``, else ``$XDG_STATE_HOME/authormask``, else
    ``~/.local/state/authormask`` (for the command line; the library takes a folder).

    Returns
    -------
    Path
        The default folder of the history (not made here).
    """
    explicit = os.environ.get(HISTORY_ENV, "").strip()
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "authormask"


def parameters_key(statement: Any) -> str:
    """What identifies a release's public parameters: the SHA-256 of its statement's mechanism,
    epsilon, parameters, embeddings, model and policies (not the seeding, the version or what a
    dataset release declares beside the texts).

    Parameters
    ----------
    statement
        The release's privacy statement (anything with a ``to_dict()`` of its fields).

    Returns
    -------
    str
        The hex SHA-256 of those parameters.
    """
    d = statement.to_dict()
    policies = {k: v for k, v in d.get("policies", {}).items() if k not in _DECLARED}
    items = {
        "mechanism": d.get("mechanism"),
        "epsilon": d.get("epsilon"),
        "epsilon_unit": d.get("epsilon_unit"),
        "parameters": d.get("parameters"),
        "embeddings": d.get("embeddings"),
        "model": d.get("model"),
        "policies": policies,
        "per_output": d.get("per_output"),
    }
    raw = json.dumps(items, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()


class Digests:
    """Keyed digests of the texts a release reads (by input position, or in reading order).

    Parameters
    ----------
    key
        The history's secret key (HMAC-SHA-256).
    """

    def __init__(self, key: bytes) -> None:
        self._key = key
        self.by_position: dict[int, str] = {}
        self.read: list[str] = []

    def of(self, parts: Iterable[str]) -> str:
        """The digest of the text ``parts`` make up (the same however the text is cut).

        Parameters
        ----------
        parts
            The text, in pieces.

        Returns
        -------
        str
            The keyed digest (32 hex digits).
        """
        h = hmac.new(self._key, digestmod=hashlib.sha256)
        digest_words(h, "".join(parts))  # cut anywhere: the whole text, cleaned once
        return h.hexdigest()[:32]

    def add_text(self, text: str) -> None:
        """Record a whole text as read (a dataset's records).

        Parameters
        ----------
        text
            The text read.
        """
        self.read.append(self.of([text]))

    def sources(self, sources: Sequence[Source]) -> list[Source]:
        """``sources`` that record the digest of their text once it has been read whole.

        Parameters
        ----------
        sources
            The release's inputs.

        Returns
        -------
        list[Source]
            The same sources, each recording its digest by input position once read.
        """
        return [_Digested(s.name, s.relpath, s.size, s, self, i) for i, s in enumerate(sources)]

    def all(self) -> list[str]:
        """Every digest recorded, each once, in a fixed order.

        Returns
        -------
        list[str]
            The digests, sorted.
        """
        return sorted({*self.by_position.values(), *self.read})

    def _hasher(self) -> Any:
        return hmac.new(self._key, digestmod=hashlib.sha256)


@dataclass(frozen=True)
class _Digested(Source):
    """A source whose text is digested as the release reads it."""

    inner: Source | None = None
    sink: Digests | None = field(default=None, repr=False, compare=False)
    index: int = 0

    def parts(self) -> Iterator[str]:
        assert self.inner is not None and self.sink is not None
        h = self.sink._hasher()
        for part in self.inner.parts():
            digest_words(h, part)
            yield part
        self.sink.by_position[self.index] = h.hexdigest()[:32]

    @property
    def rereadable(self) -> bool:
        assert self.inner is not None
        return self.inner.rereadable

    @property
    def identity(self) -> tuple[int, int] | None:
        assert self.inner is not None
        return self.inner.identity

    @property
    def path(self) -> Path | None:
        found = getattr(self.inner, "path", None)
        return found if isinstance(found, Path) else None


@dataclass(frozen=True)
class Composition:
    """Texts of this release that were released before with other public parameters (or with
    fresh randomness): how many, of how many, and the epsilons that add for the worst one.

    Attributes
    ----------
    repeated
        How many texts of this release were released before.
    texts
        How many texts this release has.
    epsilons
        The epsilons of the worst text's releases, earlier ones first and this one last.
    mechanisms
        The mechanisms of those releases.
    unit
        The unit every one of those epsilons is in (``per word``, ...), or None where they
        differ.
    """

    repeated: int
    texts: int
    #: the epsilons of the worst text's releases, earlier ones first and this one last
    epsilons: tuple[float, ...]
    #: the mechanisms of those releases
    mechanisms: tuple[str, ...]
    #: the unit every one of those epsilons is in (``per word``, ...), or None where they differ
    unit: str | None

    def describe(self) -> str:
        """One stderr line.

        Returns
        -------
        str
            What was released before and how the epsilons add, in one line.
        """
        from authormask.accounting.statement import exact

        def runs(items: list[tuple[str, float]], say: str) -> str:
            # the same release run again and again is said once, with its count (a text
            # released fourteen times listed "emp-write epsilon 7" fourteen times)
            grouped = [(k, len(list(g))) for k, g in itertools.groupby(items)]
            return ", ".join(
                say.format(m=m, e=exact(e)) + (f" ({n} releases)" if n > 1 else "")
                for (m, e), n in grouped
            )

        earlier = list(zip(self.mechanisms[:-1], self.epsilons[:-1], strict=True))
        pairs = runs(earlier, "{m} epsilon {e}")
        were = "was" if self.repeated == 1 else "were"
        if self.unit is not None:
            terms = [
                exact(e) if n == 1 else f"{n} x {exact(e)}"
                for e, n in ((e, len(list(g))) for e, g in itertools.groupby(self.epsilons))
            ]
            total = f"{' + '.join(terms)} = {exact(sum(self.epsilons))}" + (
                f" {self.unit}" if self.unit else ""
            )
            adds = f"the epsilons add (for such a text at least {total})"
        else:  # per word and per token: no sum; each release's guarantee is spent
            each = runs(list(zip(self.mechanisms, self.epsilons, strict=True)), "{m} {e}")
            adds = f"each release spends its own guarantee, in units that do not add ({each})"
        # "other public parameters or fresh randomness" read as wrong to a newcomer who had
        # changed no parameter: the new noise of an unseeded release is said first, as it is
        return (
            f"{self.repeated} of the {self.texts} text(s) of this release {were} released "
            f"before on this machine ({pairs}); released again with new noise (every unseeded "
            f"release draws its own) or other public parameters, a text's releases compose: "
            f"{adds}"
        )


class ReleaseHistory:
    """The history in ``folder`` (see the module docstring). :meth:`open` makes the folder and
    the key where they are missing and checks them.

    Parameters
    ----------
    folder
        The history's folder.
    key
        Its secret key (see :class:`Digests`).
    """

    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        self.key = key

    @property
    def path(self) -> Path:
        return self.folder / HISTORY_FILE

    @classmethod
    def open(cls, folder: Path) -> ReleaseHistory:
        """The history in ``folder``, making the folder and its key where they are missing.

        Parameters
        ----------
        folder
            The history's folder (made private, mode 700, where missing).

        Returns
        -------
        ReleaseHistory
            The history, with its key read or made.

        Raises
        ------
        HistoryError
            If the folder cannot be made, or it or the key is a link, another user's or open
            to other users.
        """
        folder = Path(folder)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise HistoryError(f"cannot make {folder}: {exc.strerror or exc}") from None
        _check_private(folder, folder=True)
        return cls(folder, _key(folder / KEY_FILE))

    def digests(self) -> Digests:
        """A fresh record of the digests of a release's texts, under this history's key.

        Returns
        -------
        Digests
            An empty record.
        """
        return Digests(self.key)

    def entries(self) -> Iterator[dict[str, Any]]:
        """The releases recorded, oldest first (a line cut off by a kill is skipped).

        Yields
        ------
        dict[str, Any]
            Each recorded release; none where the history has no file yet.

        Raises
        ------
        HistoryError
            If the file cannot be read, or it is a link, another user's or open to other users.
        """
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise HistoryError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        with os.fdopen(fd, encoding="utf-8", errors="replace") as fh:
            _check_private(self.path, fd=fh.fileno())
            for line in fh:
                if not line.endswith("\n") or not line.startswith("{"):
                    continue
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if isinstance(entry, dict):
                        yield entry

    def check(self, digests: Sequence[str], statement: Any) -> Composition | None:
        """The texts of ``digests`` released before with other public parameters than
        ``statement``'s (or with the same ones where either run was unseeded), or None.

        Parameters
        ----------
        digests
            The digests of this release's texts.
        statement
            This release's privacy statement.

        Returns
        -------
        Composition | None
            The texts released before and how the epsilons of the worst one add; None where
            no text was released before (or this release has no epsilon).
        """
        wanted = set(digests)
        if not wanted or statement.epsilon is None:
            return None
        key = parameters_key(statement)
        seeded = _seeded(statement)
        # per text, its earlier releases: one per parameters for seeded ones (a seeded rerun
        # gives the same output), one per run for unseeded ones (each a fresh draw)
        earlier: dict[str, dict[str, tuple[str, float, str]]] = {}
        for number, entry in enumerate(self.entries()):
            texts = entry.get("texts")
            params = entry.get("parameters")
            if not isinstance(texts, list) or not isinstance(params, str):
                continue
            if params == key and seeded and entry.get("seeded") is True:
                continue  # a seeded rerun: the same output
            epsilon = entry.get("epsilon")
            if not isinstance(epsilon, (int, float)) or isinstance(epsilon, bool):
                continue  # a baseline without epsilon composes nothing
            release = (str(entry.get("mechanism")), float(epsilon), str(entry.get("unit")))
            label = params if entry.get("seeded") is True else f"{params}#{number}"
            for digest in wanted.intersection(texts):
                earlier.setdefault(digest, {})[label] = release
        if not earlier:
            return None
        worst = max(earlier.values(), key=lambda r: sum(e for _, e, _ in r.values()))
        now = (statement.mechanism, float(statement.epsilon), _unit(statement))
        releases = [*worst.values(), now]
        return Composition(
            repeated=len(earlier),
            texts=len(wanted),
            epsilons=tuple(e for _, e, _ in releases),
            mechanisms=tuple(m for m, _, _ in releases),
            unit=releases[0][2] if len({u for _, _, u in releases}) == 1 else None,
        )

    def record(self, digests: Sequence[str], statement: Any) -> None:
        """Append this release: its public parameters and its texts' digests.

        Parameters
        ----------
        digests
            The digests of this release's texts (nothing is recorded when empty).
        statement
            This release's privacy statement.

        Raises
        ------
        HistoryError
            If the file cannot be written, or it is a link, another user's or open to other
            users.
        """
        if not digests:
            return
        entry = {
            "parameters": parameters_key(statement),
            "mechanism": statement.mechanism,
            "epsilon": statement.epsilon,
            "unit": _unit(statement),
            "seeded": _seeded(statement),
            "texts": sorted(set(digests)),
        }
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            raise HistoryError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        try:
            _check_private(self.path, fd=fd)
            with _locked(fd):
                if os.fstat(fd).st_size == 0:
                    os.write(fd, (HISTORY_BANNER + "\n").encode("utf-8"))
                os.write(fd, json_line(entry).encode("utf-8"))
                os.fsync(fd)
        except OSError as exc:
            raise HistoryError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)


def _unit(statement: Any) -> str:
    # the scale epsilon is on: the unit's words up to the first parenthesis (per word, per token)
    return str(statement.epsilon_unit).split("(", 1)[0].strip()


def _seeded(statement: Any) -> bool:
    return not str(statement.randomness).startswith("unseeded")


def _key(path: Path) -> bytes:
    """The history's key: read, or made once (written whole, then linked into place, so two
    runs that start together agree on one key)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_bytes(32))
            os.fsync(fd)
            os.close(fd)
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return _key(path)
    except OSError as exc:
        raise HistoryError(f"cannot read {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        _check_private(path, fd=fh.fileno())
        key = fh.read(64)
    if len(key) != 32:
        raise HistoryError(f"{path} is not a history key (32 bytes); remove it to make a new one")
    return key


def _check_private(path: Path, *, folder: bool = False, fd: int | None = None) -> None:
    """Refuse a folder or file that is a link, not the user's, or open to other users."""
    st = os.fstat(fd) if fd is not None else os.lstat(path)
    kind_ok = stat.S_ISDIR(st.st_mode) if folder else stat.S_ISREG(st.st_mode)
    if not kind_ok:
        what = "a folder" if folder else "a regular file"
        raise HistoryError(f"{path} is not {what}")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise HistoryError(f"{path} belongs to another user")
    open_to_others = st.st_mode & (0o022 if folder else 0o077)
    if open_to_others:
        raise HistoryError(
            f"{path} is open to other users (mode {stat.S_IMODE(st.st_mode):o}); make it private "
            f"(chmod {'700' if folder else '600'})"
        )


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: appends are not serialised
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
