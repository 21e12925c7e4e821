"""``obfuscate`` with emp-doc, the posterior decoder and the random-sub baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TEXT = "\u201cWell\u2026\u201d she said.  The DRAGON\u2019s flight!!!\n\nThey watched it go."
SAME = '"well..." She said. the dragon\'s FLIGHT! they watched it go.'


@pytest.fixture()
def run(cache_dir: Path, invoke):
    def _run(*args: str) -> tuple[int, str, str]:
        return invoke([*args, "--cache-dir", str(cache_dir), "--vocab-size", "20000"])

    return _run


def test_emp_doc_gives_one_release_for_two_spellings_of_a_text(
    run, tmp_path: Path, same_noise
) -> None:
    """With the same noise (the seeded key of each text's words held fixed), two spellings of
    one text give one release: the canonical form is all emp-doc reads."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(SAME, encoding="utf-8")
    outs = []
    for path in (a, b):
        code, out, err = run(
            "obfuscate",
            str(path),
            "-m",
            "emp-doc",
            "-e",
            "12",
            "--decoder",
            "posterior",
            "--function-epsilon",
            "30",
            "--seed",
            "5",
        )
        assert code == 0, err
        assert "function_epsilon = 30" in err and "posterior" in err
        outs.append(out)
    assert outs[0] == outs[1]
    assert "\n\n" not in outs[0].strip() and "!!" not in outs[0]


def test_random_sub_warns_that_it_protects_nothing(run, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text(TEXT, encoding="utf-8")
    code, out, err = run(
        "obfuscate", str(path), "-m", "random-sub", "--rate", "0.5", "--format", "jsonl"
    )
    assert code == 0, err
    assert "NO privacy guarantee" in err
    record = json.loads(out.splitlines()[0])
    assert record["privacy"]["epsilon"] is None
    assert record["privacy"]["guarantee"].startswith("NONE")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-m", "emp-text", "-e", "5", "--decoder", "greedy"), "--decoder"),
        (("-m", "random-sub", "--rate", "1.5"), "--rate"),
        (("-m", "random-sub", "--rate", "-0.1"), "--rate"),
        (("-m", "emp-text", "-e", "5", "--rate", "0.5"), "--rate does not apply"),
        (("-m", "emp-text", "-e", "5", "--function-epsilon", "3"), "--function-epsilon"),
        (
            (
                "-m",
                "random-sub",
            ),
            "--rate",
        ),
        (("-m", "emp-doc", "-e", "5", "--stopwords", "none"), "function-word list"),
    ],
)
def test_bad_values_are_one_line_errors(run, tmp_path: Path, args, message) -> None:
    path = tmp_path / "a.txt"
    path.write_text(TEXT, encoding="utf-8")
    out_path = tmp_path / "out.txt"
    code, _out, err = run("obfuscate", str(path), *args, "-o", str(out_path))
    assert code != 0
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out_path.exists()
