"""The audit's table of cases is built on first use: ``import authormask.audit`` imports no
mechanism's case module, ``AUDITORS`` is still every registered mechanism's cases, and a
mechanism (a plugin) whose audit cases fail to load is refused by name, in one line, while the
others are audited as before."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

from authormask.core import mechanism_names

CASE_MODULES = (
    "authormask.audit.by_mechanism",
    "authormask.audit.cases_composition",
    "authormask.audit.cases_earth_movers",
    "authormask.audit.cases_integrity",
    "authormask.audit.cases_peers",
    "authormask.audit.cases_tokens",
)


def _plugin_helpers() -> ModuleType:
    """tests/plugins/test_plugin.py, for its ``_install`` (a plugin package "installed" in a
    folder) and ``_run`` (a process with that folder on ``PYTHONPATH``)."""
    path = Path(__file__).parents[1] / "plugins" / "test_plugin.py"
    spec = importlib.util.spec_from_file_location("_authormask_plugin_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _python(code: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    if path is not None:
        result: subprocess.CompletedProcess[str] = _plugin_helpers()._run(
            ["-c", code], path, python=True
        )
        return result
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_importing_the_audit_imports_no_case_module() -> None:
    code = textwrap.dedent(
        f"""\
        import json, sys
        import authormask.audit
        from authormask.audit import audit_mechanisms, audit_plan, CaseSpec
        before = [m for m in {CASE_MODULES!r} if m in sys.modules]
        from authormask.audit import AUDITORS
        after = [m for m in {CASE_MODULES!r} if m in sys.modules]
        print(json.dumps({{"before": before, "after": after, "n": len(AUDITORS)}}))
        """
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["before"] == []
    assert "authormask.audit.by_mechanism" in out["after"]  # read: the table is built
    assert out["n"] == len(mechanism_names())


def test_auditors_is_every_registered_mechanisms_cases() -> None:
    import authormask.audit
    from authormask.audit import AUDITORS, audit_load_errors, auditors
    from authormask.audit import cases as cases_module

    assert set(AUDITORS) == set(mechanism_names())
    assert AUDITORS is auditors() is cases_module.AUDITORS  # one table, built once
    assert all(AUDITORS[n] and {c.mechanism for c in AUDITORS[n]} == {n} for n in AUDITORS)
    assert audit_load_errors() == {}
    # the re-exported names of the case modules keep their import paths
    from authormask.audit.cases import GLOVE_PAIR, line_embeddings
    from authormask.audit.cases_earth_movers import GLOVE_PAIR as pair
    from authormask.audit.cases_earth_movers import line_embeddings as line

    assert (GLOVE_PAIR, line_embeddings) == (pair, line)
    assert authormask.audit.EXP_EPSILON == cases_module.EXP_EPSILON
    assert "AUDITORS" in dir(authormask.audit) and "token_text_sampler" in dir(cases_module)


BROKEN = '''\
"""A plugin whose audit cases need a package that is not installed."""

from authormask.mechanisms.earth_movers_spec import emp_text
from authormask.core.specs import DECODER, TEXT_PARAMETERS, MechanismSpec


def audit(name):
    """Its audit cases, from a package that is not installed."""
    import amplugin_missing_dependency  # noqa: F401

    return ()


def build(params):
    mechanism = emp_text(params)
    mechanism.name = "brokenaudit"
    return mechanism


SPEC = MechanismSpec(
    "brokenaudit",
    "A plugin whose audit cases cannot be imported",
    (*TEXT_PARAMETERS, DECODER),
    build,
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    samplers=("kernel",),
    audit="amplugin_brokenaudit:audit",
)
'''

AUDIT_BOTH = """
import json
from authormask.audit import AUDITORS, audit_case, audit_plan
from authormask.audit.case_spec import Context
from authormask.exceptions import InvalidParameterError

out = {"tabled": sorted(AUDITORS)}
try:
    audit_plan(["brokenaudit"])
except InvalidParameterError as exc:
    out["error"] = str(exc)
plan = audit_plan(["emp-text"])
(line,) = [c for c in plan if c.case == "line-1d"]
result = audit_case(line.build(Context(cache_dir=None)), samples=1000, random_state=0)
out["others"] = [sorted({c.mechanism for c in plan}), result.passed]
print(json.dumps(out))
"""


def test_a_mechanism_whose_cases_fail_to_load_is_refused_by_name(tmp_path: Path) -> None:
    helpers = _plugin_helpers()
    helpers._install(
        tmp_path,
        "amplugin_brokenaudit",
        "[authormask.mechanisms]\nbrokenaudit = amplugin_brokenaudit:SPEC\n",
        BROKEN,
    )
    proc = _python("import authormask.audit", tmp_path)  # the import does not break
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    proc = _python(AUDIT_BOTH, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "brokenaudit" not in out["tabled"] and "emp-text" in out["tabled"]
    error = out["error"]
    assert "\n" not in error
    assert "'brokenaudit'" in error and "amplugin_brokenaudit:audit" in error
    assert "ModuleNotFoundError" in error and "amplugin_missing_dependency" in error
    assert out["others"] == [["emp-text"], True]  # the others are audited as before
    # the command line says it in one line, with no traceback
    cli = helpers._run(["audit", "-m", "brokenaudit", "--samples", "1000"], tmp_path)
    assert cli.returncode != 0
    (line,) = [x for x in cli.stderr.splitlines() if x.strip()]
    assert "'brokenaudit'" in line and "ModuleNotFoundError" in line
