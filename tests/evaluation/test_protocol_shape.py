"""Every protocol has one shape (issue 21 C): a config with its own defaults and quick(), a run
and a result that writes its reports, exported the same way."""

from __future__ import annotations

import pytest

import authormask.evaluation as evaluation
from authormask.evaluation.protocols import PROTOCOLS
from authormask.release import lineup


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_every_protocol_has_config_run_and_result(name: str) -> None:
    module = PROTOCOLS[name]
    assert {"Config", "Result", "run"} <= set(module.__all__)
    assert module.Config().mechanisms == lineup(name)  # the default line-up of the registry
    quick = module.Config.quick()
    assert isinstance(quick, module.Config) and quick != module.Config()
    assert len(quick.epsilons) < len(module.Config().epsilons)
    assert callable(module.Result.write_reports) and callable(module.Result.markdown)
    for exported in (module.Config, module.Result, module.run):
        assert getattr(evaluation, exported.__name__) is exported


def test_defaults_come_from_the_config_and_its_settings() -> None:
    sweep = PROTOCOLS["fernandes2019"].Config
    assert sweep.default("koppel_iterations") == 100
    assert sweep.default("koppel_iterations", quick=True) == 20
    assert sweep.default("known_words") == 2000 and sweep.default("length") is None
    assert sweep.default("known_words", quick=True) == 600
    for module in PROTOCOLS.values():
        assert module.Config.default("vocab_size") == 100_000
        assert module.Config.default("vocab_size", quick=True) == 20_000
        assert module.Config.default("no_such_option") is None
