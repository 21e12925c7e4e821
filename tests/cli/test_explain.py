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
    code, _, err = invoke(["obfuscate", str(src), "-m", "emp-text", "--epsilon", "9"])
    assert code == 0 and "In plain words" not in err
