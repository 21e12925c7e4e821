"""The default path, run the way a user runs it: ``authormask obfuscate INPUT -o OUTPUT``.

No flag but the input and the output, so every default is on: the mechanism (emp-write), its
epsilon, the entity step (surrogate), the embeddings (GloVe 50-d, 100k words) and the local
engine. Each run is a fresh ``authormask`` process; its wall time and its peak resident memory
(the command's processes together: the release runs its recogniser in a second process when
it has many documents; their resident memory summed every 20 ms, and at least the largest
one's ``ru_maxrss``) are measured. Four inputs:

* one sentence ("The ship sailed down the river.");
* a post of about 300 words (the opening of a Reuters C50 story, cut at a sentence end);
* a C50 corpus: the story folders of the first ``--c50-authors`` authors of ``C50train``
  (default 10: 500 stories, 1.45M characters), given to the command as they are (folders in,
  a folder out);
* a text of ``--large-chars`` characters (default 1,000,000), C50 test stories joined into one
  document, written at run time into a temporary folder (never into the repository), and its
  first tenth (the pair whose peaks say whether memory is flat in input length), released
  with the defaults and also with ``--mechanism emp-text --epsilon E`` (``--emp-text-epsilon``,
  default 10; the goal names emp-write and emp-text), each with and without the entity step.

Beside each default run, in the same round: ``python -c "import numpy"`` (the reference; ratios
are printed against its median) and the mechanism alone (``--entities keep``). One untimed
warm-up release comes first (it builds the prepared vocabulary if the cache lacks it). The
history of released texts goes to a temporary state folder (``AUTHORMASK_STATE_DIR``), so the
user's own is neither read nor extended; the cache is the user's (or ``--cache-dir``).

Goals (issue 50): a one-sentence release with the defaults at most 4x ``import numpy`` and at
most 250 MB peak; the entity step at most 30% of a C50 release (default minus keep, over
default: the median over rounds of each round's pair, which ran under the same load; the
ratio of the two medians is printed beside it); peak memory flat in input length (10x the
input at most 1.1x the memory).

    python benchmarks/default_path.py [--corpus /work/shared/data/reuters-c50]
        [--c50-authors 10] [--large-chars 1000000] [--repeat 3] [--repeat-large 1]
        [--skip-large]
        [--cache-dir DIR] [--json FILE]

On the 2-core machine the whole run took about 7 minutes with ``--repeat-large 2``
(2026-11-30, the recogniser without spaCy): each small release about 1 s, the C50 corpus 28 s
with the defaults, the 1M-character text 23 s and its tenth 4 s; ``--skip-large`` leaves out
both long texts, ``--c50-authors 0`` the corpus. The flatness line compares every pair of
inputs 10x apart or more (the sentence included, which loads no fused search kernel) and,
apart, the long text and its first tenth.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

EXE = str(Path(sys.executable).with_name("authormask"))
SENTENCE = "The ship sailed down the river.\n"
NUMPY = "python -c 'import numpy'"
MODES = ("default", "--entities keep")
#: emp-text's modes, for the long text and its tenth only ({e}: its epsilon)
TEXT_MODES = (
    "--mechanism emp-text --epsilon {e}",
    "--mechanism emp-text --epsilon {e} --entities keep",
)


@dataclass
class Input:
    """One input of the benchmark: its paths on the command line and its size."""

    name: str
    paths: list[Path]
    chars: int
    documents: int
    folder_out: bool
    repeat: int


@dataclass
class Runs:
    """The wall times (s) and peaks (MB) of one command's timed runs."""

    seconds: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)

    def add(self, seconds: float, peak_mb: float) -> None:
        self.seconds.append(seconds)
        self.peak_mb.append(peak_mb)

    @property
    def median_s(self) -> float:
        return statistics.median(self.seconds)

    @property
    def peak(self) -> float:
        return max(self.peak_mb)


def entity_share(default: Runs, keep: Runs) -> tuple[float, float, float]:
    """The entity step's share of a release, round by round: ``(d - k) / d`` of each default
    run and the ``--entities keep`` run that follows it in the same round (the commands take
    turns, so the pair saw the same load); the median, the least and the most."""
    shares = [(d - k) / d for d, k in zip(default.seconds, keep.seconds, strict=True)]
    return statistics.median(shares), min(shares), max(shares)


def _tree_rss(proc: psutil.Process) -> int:
    """The resident memory (bytes) of ``proc`` and every process under it, together."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak MB) of one command in a fresh process; stops on failure. The peak is
    that of the command's processes together (a release of many documents runs its recogniser
    in a second process): their resident memory summed every 20 ms, and at least the largest
    one's own peak (``ru_maxrss``, read by ``os.wait4``)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        sampled = [0]
        done = threading.Event()

        def sample() -> None:
            with contextlib.suppress(psutil.Error):
                tree = psutil.Process(proc.pid)
                while not done.wait(0.02):
                    sampled[0] = max(sampled[0], _tree_rss(tree))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-3000:]
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{tail}")
    return seconds, max(usage.ru_maxrss * 1024, sampled[0]) / 2**20  # Linux: kilobytes


def read_story(path: Path) -> str:
    """A C50 story (ASCII, CRLF line endings) with its lines as the file has them."""
    with open(path, encoding="latin-1", newline=None) as fh:
        return fh.read().strip()


def stories(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.txt") if p.is_file())


def make_post(corpus: Path, out: Path, words: int = 300) -> Path:
    """The opening of the first C50 training story, cut at the first sentence end at or after
    ``words`` words (the next stories are appended if one is shorter)."""
    text = " ".join(read_story(p) for p in stories(corpus / "C50train")[:5])
    tokens = text.split()
    cut = words
    while cut < len(tokens) and not tokens[cut - 1].endswith((".", "!", "?")):
        cut += 1
    out.write_text(" ".join(tokens[:cut]) + "\n", encoding="utf-8")
    return out


def make_large(corpus: Path, out: Path, chars: int) -> Path:
    """C50 test stories joined by blank lines into one document of ``chars`` characters
    (cut at a word boundary)."""
    parts: list[str] = []
    total = 0
    for p in stories(corpus / "C50test"):
        story = read_story(p)
        parts.append(story)
        total += len(story) + 2
        if total >= chars:
            break
    text = "\n\n".join(parts)[:chars]
    text = text[: text.rfind(" ")] if len(text) == chars else text
    out.write_text(text + "\n", encoding="utf-8")
    return out


def build_inputs(opts: argparse.Namespace, work: Path) -> list[Input]:
    corpus: Path = opts.corpus
    sentence = work / "sentence.txt"
    sentence.write_text(SENTENCE, encoding="utf-8")
    post = make_post(corpus, work / "post.txt")
    inputs = [
        Input("one sentence", [sentence], len(SENTENCE), 1, False, opts.repeat),
        Input("~300-word post", [post], len(post.read_text()), 1, False, opts.repeat),
    ]
    if opts.c50_authors > 0:
        authors = sorted(p for p in (corpus / "C50train").iterdir() if p.is_dir())
        chosen = authors[: opts.c50_authors]
        files = [f for a in chosen for f in stories(a)]
        chars = sum(len(read_story(f)) for f in files)
        label = f"C50 corpus ({len(chosen)} authors)"
        inputs.append(Input(label, chosen, chars, len(files), True, opts.repeat_large))
    if not opts.skip_large:
        # the large text and its first tenth: the pair that says whether memory is flat in
        # input length where both are long (the sentence loads less: no fused search kernel)
        for chars in (opts.large_chars // 10, opts.large_chars):
            large = make_large(corpus, work / f"large-{chars}.txt", chars)
            size = len(large.read_text(encoding="utf-8"))
            label = f"{chars:,}-character text"
            inputs.append(Input(label, [large], size, 1, False, opts.repeat_large))
    return inputs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path("/work/shared/data/reuters-c50"),
        help="the Reuters C50 folder (C50train/ and C50test/ of author folders); read only",
    )
    parser.add_argument(
        "--c50-authors", type=int, default=10, help="authors of C50train released (0: none)"
    )
    parser.add_argument("--large-chars", type=int, default=1_000_000)
    parser.add_argument("--skip-large", action="store_true", help="leave out the large text")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the small inputs")
    parser.add_argument("--repeat-large", type=int, default=1, help="timed runs of the others")
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="AUTHORMASK_CACHE_DIR (default: the user's)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the raw runs here")
    parser.add_argument(
        "--emp-text-epsilon", type=float, default=10.0, help="emp-text's epsilon (long texts)"
    )
    opts = parser.parse_args()
    if not (opts.corpus / "C50train").is_dir() or not (opts.corpus / "C50test").is_dir():
        parser.error(f"{opts.corpus} holds no C50train/ and C50test/ folders")

    with tempfile.TemporaryDirectory(prefix="authormask-default-path-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, AUTHORMASK_STATE_DIR=str(work / "state"))
        if opts.cache_dir is not None:
            env["AUTHORMASK_CACHE_DIR"] = str(opts.cache_dir)
        inputs = build_inputs(opts, work)
        counter = iter(range(1_000_000))
        load_before = os.getloadavg()

        def release(item: Input, mode: str) -> tuple[float, float]:
            n = next(counter)
            out = work / "out" / (f"{n:03d}" if item.folder_out else f"{n:03d}.txt")
            out.parent.mkdir(exist_ok=True)
            cmd = [EXE, "obfuscate", *(str(p) for p in item.paths), "-o", str(out)]
            if mode != "default":
                cmd += mode.split()
            return measure(cmd, env)

        numpy_cmd = [sys.executable, "-c", "import numpy"]
        t, m = release(inputs[0], "default")  # warm-up: the cache, the page cache, numba's
        measure(numpy_cmd, env)
        print(f"warm-up release of one sentence (untimed): {t:.2f} s, {m:.0f} MB", flush=True)

        reference = Runs()
        results: dict[str, dict[str, Runs]] = {}
        text_modes = [m.format(e=f"{opts.emp_text_epsilon:g}") for m in TEXT_MODES]
        for item in inputs:
            modes = [*MODES, *(text_modes if item.name.endswith("-character text") else [])]
            runs = results.setdefault(item.name, {mode: Runs() for mode in modes})
            for _ in range(item.repeat):  # the commands take turns: load changes hit all alike
                reference.add(*measure(numpy_cmd, env))
                for mode in modes:
                    runs[mode].add(*release(item, mode))
            print(
                f"{item.name}: "
                + ", ".join(f"{mode} {runs[mode].median_s:.2f} s" for mode in modes),
                flush=True,
            )

    report(inputs, results, reference, text_modes)
    before, after = (" / ".join(f"{x:.1f}" for x in t) for t in (load_before, os.getloadavg()))
    print(f"load average (1 / 5 / 15 min) before: {before}, after: {after}")
    if opts.json is not None:
        raw = {
            "load_before": load_before,
            "load_after": os.getloadavg(),
            "reference": asdict(reference),
            "inputs": [
                {
                    "name": item.name,
                    "chars": item.chars,
                    "documents": item.documents,
                    "runs": {mode: asdict(r) for mode, r in results[item.name].items()},
                }
                for item in inputs
            ],
        }
        opts.json.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")


def report(
    inputs: list[Input],
    results: dict[str, dict[str, Runs]],
    reference: Runs,
    text_modes: list[str],
) -> None:
    """The markdown table and the goals, on standard output."""
    ref = reference.median_s
    print()
    print(
        f"Reference: {NUMPY} median {ref:.3f} s "
        f"(min {min(reference.seconds):.3f}, max {max(reference.seconds):.3f}, "
        f"{len(reference.seconds)} runs), peak {reference.peak:.0f} MB"
    )
    print()
    print("| input | size | mode | wall (median) | x import numpy | peak MB |")
    print("|---|---|---|---|---|---|")
    for item in inputs:
        docs = f", {item.documents} documents" if item.documents > 1 else ""
        size = f"{item.chars:,} chars{docs}"
        for mode in results[item.name]:
            r = results[item.name][mode]
            spread = (
                f" ({min(r.seconds):.2f}-{max(r.seconds):.2f}, {len(r.seconds)} runs)"
                if len(r.seconds) > 1
                else ""
            )
            label = "default" if mode == "default" else f"`{mode}`"
            print(
                f"| {item.name} | {size} | {label} | {r.median_s:.2f} s{spread} | "
                f"{r.median_s / ref:.1f}x | {r.peak:.0f} |"
            )
    print()
    print("Entity step (default minus `--entities keep`, over default):")
    for item in inputs:
        d, k = results[item.name]["default"].median_s, results[item.name][MODES[1]].median_s
        mid, low, high = entity_share(results[item.name]["default"], results[item.name][MODES[1]])
        print(
            f"  {item.name}: {d - k:.2f} s of {d:.2f} s = {(d - k) / d:.0%} (medians); "
            f"round by round {mid:.0%} ({low:.0%}-{high:.0%})"
        )
    first = results[inputs[0].name]
    start = first["default"].median_s - first[MODES[1]].median_s
    for item in inputs:
        if item.name.startswith("C50 corpus"):
            d, k = results[item.name]["default"].median_s, results[item.name][MODES[1]].median_s
            print(
                f"  {item.name}, without the one-sentence release's entity cost (loading the "
                f"recogniser, {start:.2f} s): {(d - k - start) / d:.0%} of the release"
            )
    print()
    print("Goals (issue 50):")
    s = first["default"]
    ok = "met" if s.median_s / ref <= 4 else "NOT met"
    print(f"  one sentence, defaults, at most 4x import numpy: {s.median_s / ref:.1f}x, {ok}")
    ok = "met" if s.peak <= 250 else "NOT met"
    print(f"  one sentence, defaults, at most 250 MB peak: {s.peak:.0f} MB, {ok}")
    corpus = [item for item in inputs if item.name.startswith("C50 corpus")]
    if corpus:
        c50 = results[corpus[0].name]
        share, low, high = entity_share(c50["default"], c50[MODES[1]])
        ok = "met" if share <= 0.30 else "NOT met"
        print(
            f"  entity step at most 30% of a C50 release: {share:.0%} round by round "
            f"({low:.0%}-{high:.0%}), {ok}"
        )
    for mode in MODES:
        small = results[inputs[0].name][mode].peak
        worst = 0.0
        for a in inputs:
            for b in inputs:
                if b.chars >= 10 * a.chars:
                    ratio = results[b.name][mode].peak / results[a.name][mode].peak
                    worst = max(worst, ratio)
        ok = "met" if worst <= 1.1 else "NOT met"
        peaks = ", ".join(f"{results[i.name][mode].peak / small:.2f}" for i in inputs)
        print(
            f"  {mode}: peak flat in input length (10x input at most 1.1x memory): largest "
            f"ratio between inputs 10x apart or more {worst:.2f}, {ok}; peaks / the "
            f"sentence's: {peaks}"
        )
    texts = [i for i in inputs if i.name.endswith("-character text")]
    if len(texts) == 2:
        for mode in [*MODES, *text_modes]:
            ratio = results[texts[1].name][mode].peak / results[texts[0].name][mode].peak
            ok = "met" if ratio <= 1.1 else "NOT met"
            print(
                f"  {mode}: the {texts[1].name} against its first tenth (both long: the "
                f"same parts load): {ratio:.2f}x the memory, {ok}"
            )


if __name__ == "__main__":
    main()
