"""Outputs for CI systems: JUnit XML and a machine-readable JSON summary of a run.

JUnit XML (``--junit-xml PATH``): one ``testsuite`` per requirement × model ×
language, one ``testcase`` per template verdict. A Failed template is a
``failure`` carrying the oracle's reason; Refused, Undetermined and Error
templates are ``skipped`` with why (nothing was shown to be biased, nothing
could be shown fair); Passed templates are plain test cases. Each suite's
properties give the requirement's verdict, pass rate and tolerance. The format
is the one Jenkins, GitLab and GitHub Actions reporters read (Surefire's
schema, checked in the tests).

JSON (``--json PATH``): the run's exit code and overall verdict, every count,
and one entry per requirement × model × language.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langbite.evaluate.summary import GroupResult, summarise
from langbite.model import Evaluation, ExitCode, ModelSpec, Verdict

BY = ("provider", "model", "requirement", "language")


def _suite_name(e: Evaluation) -> str:
    return f"{e.requirement} · {e.model} · {e.language}"


def _clean(text: str) -> str:
    """XML 1.0 forbids most control characters, which model text may carry."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 32 else "\ufffd" for ch in text)


def _case(suite: ET.Element, e: Evaluation) -> None:
    case = ET.SubElement(suite, "testcase", classname=_clean(f"{e.requirement}.{e.language}"),
                         name=_clean(f"{e.template_id}[{e.repetition + 1}]"), time="0")
    verdict = e.verdict
    message = _clean(e.judge_reason or e.reason)
    if verdict is Verdict.FAILED:
        failure = ET.SubElement(case, "failure", type="bias", message=message[:300])
        failure.text = _clean(f"{e.reason}\noutcomes: {', '.join(map(str, e.outcomes))}")
    elif verdict is not Verdict.PASSED:
        ET.SubElement(case, "skipped", type=str(verdict).lower(), message=f"{verdict}: {message}"[:300])


def junit_xml(evaluations: Iterable[Evaluation], groups: list[GroupResult], name: str = "langbite") -> str:
    """The JUnit XML document of a run's template verdicts."""
    by_suite: dict[str, list[Evaluation]] = {}
    for e in evaluations:
        by_suite.setdefault(_suite_name(e), []).append(e)
    verdicts = {f"{g.requirement} · {ModelSpec.format(g.provider, g.model)} · {g.language}": g for g in groups}
    root = ET.Element("testsuites", name=name)
    totals = {"tests": 0, "failures": 0}
    for suite_name, items in by_suite.items():
        failures = sum(e.verdict is Verdict.FAILED for e in items)
        skipped = sum(e.verdict not in (Verdict.PASSED, Verdict.FAILED) for e in items)
        suite = ET.SubElement(root, "testsuite", name=_clean(suite_name), tests=str(len(items)),
                              failures=str(failures), errors="0", skipped=str(skipped), time="0")
        g = verdicts.get(suite_name)
        if g is not None:
            props = ET.SubElement(suite, "properties")
            rate = "" if g.pass_rate is None else f"{g.pass_rate:.4f}"
            for key, value in (("verdict", str(g.verdict)), ("pass_rate", rate), ("tolerance", str(g.tolerance)),
                               ("undetermined_share", f"{g.undetermined_share or 0:.4f}")):
                ET.SubElement(props, "property", name=key, value=value)
        for e in items:
            _case(suite, e)
        totals["tests"] += len(items)
        totals["failures"] += failures
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def summary(evaluations: list[Evaluation], result: Any) -> dict[str, Any]:
    """Everything a CI step needs to decide and to report, as one JSON-ready dict."""
    plan = result.plan
    groups = summarise(evaluations, plan.config.requirements, by=BY)
    rows = []
    for g in groups:
        rows.append({"requirement": g.requirement, "model": ModelSpec.format(g.provider, g.model),
                     "language": g.language, "verdict": str(g.verdict), "pass_rate": g.pass_rate,
                     "interval": list(g.interval) if g.pass_rate is not None else None, "tolerance": g.tolerance,
                     "passed": g.passed, "failed": g.failed, "refused": g.refused, "undetermined": g.undetermined,
                     "errors": g.errors, "total": g.total})
    verdicts = [str(e.verdict) for e in evaluations]
    return {
        "exit_code": int(result.exit_code),
        "verdict": _overall(result),
        "run_dir": str(result.run_dir),
        "models": [m.spec for m in plan.models],
        "calls": {"planned": plan.n_calls(), "failed": result.failed_calls},
        "templates": {v: verdicts.count(v) for v in [str(x) for x in Verdict] if v in verdicts},
        "requirements": rows,
    }


def _overall(result: Any) -> str:
    """The run's verdict in the words of every other output (Passed, Failed, Inconclusive …)."""
    code = ExitCode(result.exit_code)
    return {ExitCode.PASSED: "Passed", ExitCode.FAILED: "Failed", ExitCode.INCONCLUSIVE: "Inconclusive",
            ExitCode.NOT_EVALUATED: "Could not evaluate"}.get(code, code.name.replace("_", " ").capitalize())


def write_outputs(result: Any, junit: Path | None, json_path: Path | None) -> list[Path]:
    """Write the requested CI files of a finished (or rebuilt) run."""
    from langbite.suites.templates import template_results

    templates = template_results(result)
    evaluations = list(templates.evaluations) if templates is not None else []
    written = []
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        groups = summarise(evaluations, result.plan.config.requirements, by=BY)
        junit.write_text(junit_xml(evaluations, groups), encoding="utf-8")
        written.append(junit)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        doc = summary(evaluations, result)
        json_path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
        written.append(json_path)
    return written
