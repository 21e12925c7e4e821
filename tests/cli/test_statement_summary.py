"""The terminal shows a statement a person can read (issue 47, item 6): an emp-write release
of one sentence printed a 2,000-word statement (12.8 kB) that described the noun lexicon five
times and the writer four times."""

from __future__ import annotations

import json
from pathlib import Path


def test_the_terminal_shows_twelve_lines_and_the_file_holds_the_rest(
    invoke, tmp_path: Path
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("The dog ran to the old house by the river. Mary said it was late.\n")
    out = tmp_path / "out.txt"
    code, _, err = invoke(["obfuscate", str(src), "-o", str(out)])
    assert code == 0, err
    start = err.index("Privacy statement")
    block = err[start:].split("\nwrote ", 1)[0].splitlines()
    assert len(block) <= 12, block
    statement_path = Path(f"{out}.privacy.json")
    assert f"authormask explain {statement_path}" in err
    record = json.loads(statement_path.read_text())
    record = record.get("privacy", record)
    text = json.dumps(record)
    # each artefact described once: the lexicon's rule and the writer's training text
    assert text.count("tagged NOUN or PROPN") == 1
    assert text.count("class trigram writer trained") <= 1
    # the bound the terminal shows is the file's, whole
    assert record["document_bound"] in err
    # the file keeps every field (the JSON stays complete)
    for key in ("guarantee", "policies", "caveats", "floating_point", "composition", "model"):
        assert record[key], key


def test_standard_output_prints_the_whole_statement(invoke, tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("The dog ran to the old house by the river.\n")
    code, _, err = invoke(["obfuscate", str(src)])
    assert code == 0, err
    assert "  guarantee   :" in err and "  composition :" in err  # no file holds it


def test_an_empty_file_is_refused_before_any_model_loads(
    invoke, tmp_path: Path, monkeypatch
) -> None:
    """Issue 50: an empty file loaded 885 MB of models (and took seconds) before it was
    refused. Its first text is read before the mechanism is built."""
    import authormask.core

    def no_model(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the mechanism was built for an input that is refused")

    monkeypatch.setattr(authormask.core, "create_mechanism", no_model)
    for content in ("", "   \n\t\n"):
        empty = tmp_path / "empty.txt"
        empty.write_text(content)
        code, _, err = invoke(["obfuscate", str(empty), "-o", str(tmp_path / "out.txt")])
        assert code != 0 and "empty or whitespace only" in err, err
        assert "AssertionError" not in err and not (tmp_path / "out.txt").exists()
