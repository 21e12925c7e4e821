"""The sweep on real corpora: cells, seeds (independent of the order of the mechanisms), the
adaptive attacker, the resume cache and the reports; and the shape of the paper's finding on BBC
News topics."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from authormask.core import mechanism_names
from authormask.embeddings import Embeddings
from authormask.evaluation import (
    REPORT_FILES,
    Study,
    SweepConfig,
    run_sweep,
    to_csv,
    to_markdown,
    write_reports,
)
from authormask.evaluation.protocols.fernandes2019 import cell_seeds, mechanism_code
from authormask.evaluation.protocols.fernandes2019 import runner as sweep_module
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text import TextPreparer

CONFIG = SweepConfig(
    epsilons=(None, 5.0),
    mechanisms=("emp-bag", "emp-text"),
    attackers=("svm", "adaptive-svm", "1nn-emd"),
    utilities=(),
    repetitions=2,
    seed=3,
)


@pytest.fixture(scope="module")
def small_study(aaac_study: Study, cut_study: Callable[[Study, int], Study]) -> Study:
    return cut_study(aaac_study, 60)


def test_cells_seeds_and_statements(
    small_study: Study, glove_20k: Embeddings, preparer: TextPreparer, tmp_path: Path
) -> None:
    result = run_sweep(
        small_study, embeddings=glove_20k, preparer=preparer, config=CONFIG, cache_dir=tmp_path
    )
    # none: 1 repetition, 5.0: 2 repetitions; 3 measures; 2 mechanisms
    assert len(result.cells) == 2 * (1 + 2) * 3
    noisy = [c for c in result.cells if c.epsilon is not None]
    assert len({(c.mechanism, c.repetition, c.seed) for c in noisy}) == 4
    assert len({c.seed for c in noisy}) == 4
    assert all(c.seed is None for c in result.cells if c.epsilon is None)
    # the unmodified rows of emp-bag: the adaptive attacker is the plain one
    plain = result.cell("emp-bag", None, "svm")[0]
    adaptive = result.cell("emp-bag", None, "adaptive-svm")[0]
    assert plain.correct == adaptive.correct
    # one public statement per (mechanism, epsilon), with N = the study's length
    assert set(result.statements) == {"emp-bag/5", "emp-text/5"}
    bag = result.statements["emp-bag/5"]
    assert bag["mechanism"] == "emp-bag" and bag["parameters"]["N"] == 60
    assert "N=60" in bag["guarantee"] and "300 * E(b, b')" in bag["document_bound"]
    assert result.statements["emp-text/5"]["mechanism"] == "emp-text"
    assert "map" in result.statements["emp-text/5"]["policies"]["unknown words"]
    assert "seeded" in bag["randomness"]
    assert result.baselines == {"author": pytest.approx(13 / 13)}
    assert result.provenance["embeddings"]["vocab_size"] == 20_000


def test_resume_uses_the_cache(
    small_study: Study,
    glove_20k: Embeddings,
    preparer: TextPreparer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = run_sweep(
        small_study, embeddings=glove_20k, preparer=preparer, config=CONFIG, cache_dir=tmp_path
    )

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("obfuscation ran again despite the cache")

    monkeypatch.setattr(sweep_module, "release", refuse)
    again = run_sweep(
        small_study, embeddings=glove_20k, preparer=preparer, config=CONFIG, cache_dir=tmp_path
    )
    assert [c.correct for c in again.cells] == [c.correct for c in first.cells]
    assert again.statements == first.statements
    # a corrupted cell is recomputed from the cached obfuscations, not trusted
    cell = next(tmp_path.glob("cell-*.json"))
    cell.write_text("{not json")
    third = run_sweep(
        small_study, embeddings=glove_20k, preparer=preparer, config=CONFIG, cache_dir=tmp_path
    )
    assert [c.correct for c in third.cells] == [c.correct for c in first.cells]
    # another seed is another experiment: the cache must not answer for it
    other = SweepConfig(**{**CONFIG.__dict__, "seed": 4})
    with pytest.raises(AssertionError, match="obfuscation ran again"):
        run_sweep(
            small_study, embeddings=glove_20k, preparer=preparer, config=other, cache_dir=tmp_path
        )


def test_reports(
    small_study: Study, glove_20k: Embeddings, preparer: TextPreparer, tmp_path: Path
) -> None:
    result = run_sweep(small_study, embeddings=glove_20k, preparer=preparer, config=CONFIG)
    md = to_markdown(result)
    assert "## emp-bag" in md and "## emp-text" in md
    assert "| random guess |" in md
    assert "- emp-bag, epsilon 5 per word: epsilon_doc(b, b') = 300 * E(b, b')" in md
    assert "- emp-text, epsilon 5 per word: epsilon_doc(v, v')" in md
    rows = list(csv.DictReader(io.StringIO(to_csv(result))))
    assert len(rows) == len(result.cells)
    assert {r["mechanism"] for r in rows} == {"emp-bag", "emp-text"}
    out = tmp_path / "report"
    paths = write_reports(result, out)
    assert [p.name for p in paths] == list(REPORT_FILES)
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["seed"] == 3 and len(data["cells"]) == len(result.cells)
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    with pytest.raises(InputError, match=r"already holds results.json.*`force`"):
        write_reports(result, out)
    write_reports(result, out, force=True)


def test_bad_configurations(
    bbc_study: Study, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    with pytest.raises(InvalidParameterError, match="epsilon must be a finite number > 0"):
        SweepConfig(epsilons=(None, -1.0))
    with pytest.raises(InvalidParameterError, match="unknown attacker 'koppel'"):
        SweepConfig(attackers=("koppel",))
    with pytest.raises(InvalidParameterError, match="mechanism must be one of"):
        SweepConfig(mechanisms=("words",))
    with pytest.raises(InvalidParameterError, match="must not repeat"):
        SweepConfig(mechanisms=("emp-bag", "emp-bag"))
    with pytest.raises(InvalidParameterError, match="need an author study"):
        run_sweep(
            bbc_study,
            embeddings=glove_20k,
            preparer=preparer,
            config=SweepConfig(attackers=("svm",)),
        )


def test_topic_holds_while_same_representation_falls(
    bbc_study: Study, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    """The shape of Table 1 on real data: at epsilon 10 (a third of the words replaced) fastText
    still finds the topic; at epsilon 1 (nearly every word replaced) the same-representation
    5-NN falls to chance (0.2) while unmodified snippets are far above it."""
    config = SweepConfig(
        epsilons=(None, 10.0, 1.0),
        mechanisms=("emp-bag",),
        attackers=(),
        utilities=("fasttext", "5nn-emd"),
        seed=0,
    )
    result = run_sweep(bbc_study, embeddings=glove_20k, preparer=preparer, config=config)
    assert result.cell("emp-bag", None, "fasttext")[0].value >= 0.8
    assert result.cell("emp-bag", 10.0, "fasttext")[0].value >= 0.7
    assert result.cell("emp-bag", None, "5nn-emd")[0].value >= 0.6
    assert result.cell("emp-bag", 1.0, "5nn-emd")[0].value <= 0.4


def test_similarity_falls_with_noise(
    small_study: Study, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    config = SweepConfig(
        epsilons=(None, 30.0, 1.0),
        mechanisms=("emp-text",),
        attackers=(),
        utilities=("similarity",),
        seed=0,
    )
    result = run_sweep(small_study, embeddings=glove_20k, preparer=preparer, config=config)
    values = {e: result.cell("emp-text", e, "similarity")[0].value for e in (None, 30.0, 1.0)}
    assert values[None] == 1.0
    assert values[30.0] >= 0.9  # almost every word unchanged
    assert values[1.0] < values[30.0] - 0.3  # almost every word replaced


def test_each_release_is_computed_once_without_a_cache(
    small_study: Study,
    glove_20k: Embeddings,
    preparer: TextPreparer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = sweep_module.release

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep_module, "release", counting)
    run_sweep(small_study, embeddings=glove_20k, preparer=preparer, config=CONFIG)
    # 2 mechanisms x 2 repetitions at epsilon 5: the snippets once each, the adaptive known
    # texts once; and per mechanism the noise-off snippets and known texts once
    assert len(calls) == 2 * 2 * 2 + 2 * 2


def test_seeds_do_not_depend_on_the_order_of_the_mechanisms(
    small_study: Study, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    """The same cell gives the same seed and the same numbers whichever order the mechanisms are
    listed in (the seeds once derived from the position in the list)."""
    base = SweepConfig(
        epsilons=(None, 5.0),
        mechanisms=("emp-bag", "emp-text"),
        attackers=("svm", "adaptive-svm"),
        utilities=(),
        seed=3,
    )
    swapped = SweepConfig(**{**base.__dict__, "mechanisms": ("emp-text", "emp-bag")})
    first = run_sweep(small_study, embeddings=glove_20k, preparer=preparer, config=base)
    second = run_sweep(small_study, embeddings=glove_20k, preparer=preparer, config=swapped)

    def cells(result: object) -> dict[tuple[object, ...], tuple[object, ...]]:
        return {
            (c.mechanism, c.epsilon, c.repetition, c.measure): (c.seed, c.correct, c.abstained)
            for c in result.cells  # type: ignore[attr-defined]
        }

    assert cells(first) == cells(second)
    assert first.statements == second.statements
    # emp-text is listed first in one run and second in the other: same seed either way
    text_seed = first.cell("emp-text", 5.0, "svm")[0].seed
    assert text_seed is not None
    assert text_seed == second.cell("emp-text", 5.0, "svm")[0].seed
    assert text_seed == cell_seeds(3, "emp-text", 5.0, 0)[0]
    assert text_seed != first.cell("emp-bag", 5.0, "svm")[0].seed


def test_mechanism_codes_are_fixed() -> None:
    """Seeds derive from these codes: a change would silently change every published number."""
    assert [mechanism_code(m) for m in mechanism_names()] == list(range(len(mechanism_names())))
    assert mechanism_names()[:6] == ("emp-bag", "emp-text", "erae", "ae-dp", "syntf", "random-r")
    assert {m: mechanism_code(m) for m in ("emp-bag", "emp-text", "erae", "random-r")} == {
        "emp-bag": 0,
        "emp-text": 1,
        "erae": 2,
        "random-r": 5,
    }
    with pytest.raises(InvalidParameterError, match="unknown mechanism 'bag'"):
        mechanism_code("bag")
