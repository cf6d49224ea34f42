"""CI outputs: JUnit XML valid against the Surefire schema, a JSON summary, and the pytest plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO
from langbite.cli import main

QUICKSTART = REPO / "requirements_models" / "quickstart.json"
SCHEMA = REPO / "tests" / "data" / "junit" / "junit-10.xsd"
pytest_plugins = ["pytester"]


def test_junit_xml_validates_and_carries_failures(tmp_path: Path) -> None:
    xmlschema = pytest.importorskip("xmlschema", reason="JUnit validation needs the 'test' extra")
    junit, summary = tmp_path / "junit.xml", tmp_path / "summary.json"
    code = main(["run", str(QUICKSTART), "--llm", "scripted:biased", "--out", str(tmp_path / "run"), "-q",
                 "--junit-xml", str(junit), "--json", str(summary)])
    assert code == 1
    xmlschema.XMLSchema(str(SCHEMA)).validate(str(junit))
    import xml.etree.ElementTree as ET

    root = ET.parse(junit).getroot()
    suites = root.findall("testsuite")
    assert len(suites) == 3 and all(s.find("properties") is not None for s in suites)  # 3 requirements × 1 model × en
    failures = root.findall(".//failure")
    assert failures and int(root.get("failures", "0")) == len(failures)
    assert all(f.get("message") for f in failures)
    doc = json.loads(summary.read_text())
    assert doc["exit_code"] == 1 and doc["verdict"] == "Failed" and len(doc["requirements"]) == 3
    assert sum(doc["templates"].values()) == int(root.get("tests", "0"))


def test_report_rebuilds_the_ci_files_calling_no_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    main(["run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q"])
    assert main(["report", str(out), "--json", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["verdict"] == "Passed"


@pytest.mark.parametrize(("model", "outcome"), [("scripted:fair", {"passed": 3}), ("scripted:biased", {"failed": 3})])
def test_pytest_plugin_runs_a_requirements_model_as_tests(pytester: pytest.Pytester, model: str,
                                                          outcome: dict[str, int]) -> None:
    pytester.makepyfile(test_own="def test_project_own_test():\n    assert True\n")
    result = pytester.runpytest_inprocess("--langbite", str(QUICKSTART), "--langbite-llm", model,
                                          "--langbite-out", str(pytester.path / "runs"))
    counts = {"passed": 1, **outcome} if "passed" not in outcome else {"passed": outcome["passed"] + 1}
    result.assert_outcomes(**counts)
    if "failed" in outcome:
        result.stdout.fnmatch_lines(["*Failed: pass rate*"])


def test_pytest_plugin_reports_bad_input_as_a_usage_error(pytester: pytest.Pytester, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"requirements": [}', encoding="utf-8")
    result = pytester.runpytest_inprocess("--langbite", str(bad))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bad.json:1:*invalid JSON*"])
