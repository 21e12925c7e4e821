"""obfuscate --explain: the statement in plain words after the statement itself."""

from __future__ import annotations


def test_explain_prints_the_statement_in_plain_words(invoke, tmp_path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("The committee met on Monday to discuss the budget of the hospital.\n")
    code, _out, err = invoke(
        ["obfuscate", str(src), "-m", "emp-text", "--epsilon", "9", "--explain", "--no-history"]
    )
    assert code == 0, err
    assert "Privacy statement" in err
    plain = err.split("In plain words:", 1)[1]
    assert "What is protected" in plain and "epsilon 9" in plain
    assert "times likelier" in plain  # the worked example from the mechanism's vectors
    assert "replaced by random ones" in plain  # the default entity step
    # and what of them remains, as the statement's policy says (it said less: a newcomer's)
    for remains in ("its number of words", "length and separators", "the same entity"):
        assert remains in plain
    code, _, err = invoke(["obfuscate", str(src), "-m", "emp-text", "--epsilon", "9"])
    assert code == 0 and "In plain words" not in err


def test_explain_reads_a_published_statement_back_without_releasing_again(invoke, tmp_path) -> None:
    """issue 49, item 6: `--explain` on a finished release printed nothing; `authormask explain
    FILE` reads the statement that was published and prints its plain words."""
    import json

    src = tmp_path / "a.txt"
    src.write_text("The committee met on Monday to discuss the budget of the hospital.\n")
    out = tmp_path / "out.txt"
    code, _, err = invoke(
        ["obfuscate", str(src), "-m", "emp-text", "-e", "9", "-o", str(out), "--explain"]
    )
    assert code == 0, err
    then = err.split("In plain words:", 1)[1].strip()
    released = out.read_text()
    for target in (out, tmp_path / "out.txt.privacy.json"):
        code, printed, err = invoke(["explain", str(target)])
        assert code == 0, err
        assert printed.split("In plain words:", 1)[1].strip() == then
    assert out.read_text() == released  # nothing released or written again
    code, printed, _ = invoke(["explain", "--full", str(out)])
    assert code == 0 and printed.startswith("Privacy statement (authormask")
    # a JSON Lines record that carries its statement
    record = tmp_path / "rec.json"
    data = json.loads((tmp_path / "out.txt.privacy.json").read_text())
    record.write_text(json.dumps({"text": released, "privacy": data}) + "\n")
    code, printed, _ = invoke(["explain", str(record)])
    assert code == 0 and printed.split("In plain words:", 1)[1].strip() == then
    folder = tmp_path / "released"  # a release into a folder keeps its statement inside
    folder.mkdir()
    (folder / "PRIVACY-STATEMENT.json").write_text(json.dumps(data))
    code, printed, _ = invoke(["explain", str(folder)])
    assert code == 0 and printed.split("In plain words:", 1)[1].strip() == then


def test_explain_refuses_what_is_no_statement_in_one_line(invoke, tmp_path, one_line_error) -> None:
    import json

    cases = {
        "nosuch.txt": None,
        "plain.txt": "Just a text.",
        "other.json": json.dumps({"schema": "authormask.privacy-statement/1"}),
        "half.json": json.dumps({"schema": "authormask.privacy-statement/3", "mechanism": "x"}),
        "deep.json": "[" * 100_000,
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_text(content)
        code, _, err = invoke(["explain", str(path)])
        one_line_error(code, err)
