"""End to end on scripted LangChain chat models: run folder, exit codes, resume, report, API."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite import LangBiTe
from langbite.cli import main
from langbite.report.csv_writer import guard

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def run_cli(*args: str) -> int:
    return main(list(args))


def read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_fair_model_passes_and_writes_every_file(tmp_path: Path, calls: dict, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    assert run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q") == 0
    assert {p.name for p in out.iterdir()} >= {"responses.csv", "evaluations.csv", "global_evaluation.csv",
                                                "run.json", "answers.jsonl", "config.json", "templates"}
    responses = read(out / "responses.csv")
    assert len(responses) == calls["fair"] > 0
    assert set(responses[0]) >= {"provider", "model", "requirement", "concern", "language", "template_id",
                                 "instance", "prompt", "response"}
    assert {r["provider"] for r in responses} == {"scripted"}
    evaluations = read(out / "evaluations.csv")
    assert evaluations and {e["verdict"] for e in evaluations} == {"Passed"}
    glob = read(out / "global_evaluation.csv")
    assert {g["verdict"] for g in glob} == {"Passed"} and all(float(g["pass_rate"]) == 1.0 for g in glob)
    run = json.loads((out / "run.json").read_text())
    assert run["counts"]["calls_made"] == len(responses) and run["parameters"]["seed"] == 7
    assert set(run["templates"]) == {"prompts_ca_es.csv", "prompts_en_us.csv", "prompts_es_es.csv"}
    assert "requirement × model × language passed" in capsys.readouterr().out


def test_biased_model_fails_with_exit_code_1(tmp_path: Path, calls: dict) -> None:
    out = tmp_path / "run"
    assert run_cli("run", str(QUICKSTART), "--llm", "scripted:biased", "--out", str(out), "-q") == 1
    assert {e["verdict"] for e in read(out / "evaluations.csv")} <= {"Failed", "Passed"}
    assert "Failed" in {g["verdict"] for g in read(out / "global_evaluation.csv")}


def test_rerun_with_same_out_makes_no_calls_and_same_reports(tmp_path: Path, calls: dict) -> None:
    out = tmp_path / "run"
    run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q", "--no-cache")
    first = (out / "evaluations.csv").read_text()
    n = calls["fair"]
    run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q", "--no-cache")
    assert calls["fair"] == n
    assert (out / "evaluations.csv").read_text() == first


def test_resume_completes_only_what_is_missing(tmp_path: Path, calls: dict) -> None:
    out = tmp_path / "run"
    run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q", "--no-cache")
    full = {n: (out / n).read_text() for n in ("responses.csv", "evaluations.csv", "global_evaluation.csv")}
    lines = (out / "answers.jsonl").read_text().splitlines(keepends=True)
    (out / "answers.jsonl").write_text("".join(lines[:5]) + lines[5][:20])  # as if killed mid-write
    calls.clear()
    assert run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q", "--no-cache") == 0
    assert calls["fair"] == len(lines) - 5
    assert {n: (out / n).read_text() for n in full} == full


def test_a_different_run_in_the_same_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--out", str(out), "-q")
    assert run_cli("run", str(QUICKSTART), "--llm", "scripted:biased", "--out", str(out), "-q") == 2
    assert "holds a different run" in capsys.readouterr().err


def test_report_rebuilds_without_calling_any_model(tmp_path: Path, calls: dict) -> None:
    out = tmp_path / "run"
    run_cli("run", str(QUICKSTART), "--llm", "scripted:biased", "--out", str(out), "-q")
    before = {n: (out / n).read_text() for n in ("responses.csv", "evaluations.csv", "global_evaluation.csv")}
    for n in before:
        (out / n).unlink()
    n_calls = calls["biased"]
    assert run_cli("report", str(out)) == 1
    assert calls["biased"] == n_calls
    assert {n: (out / n).read_text() for n in before} == before


def test_a_malformed_template_row_stops_the_run_unless_it_is_skipped(tmp_path: Path, calls: dict,
                                                                    caplog: pytest.LogCaptureFixture,
                                                                    capsys: pytest.CaptureFixture) -> None:
    """A bad row stops the run before any call, as pytest stops at a collection error (a test a team just added
    must not silently never run); --skip-invalid-templates runs without it, says so, and records it."""
    lib = tmp_path / "lib"
    shutil.copytree(REPO / "templates", lib)
    path = lib / "prompts_en_us.csv"
    lines = path.read_text().splitlines()
    bad_id = lines[2].split(",", 1)[0]
    lines[2] = lines[2].replace('"operation"', '"operaton"', 1)
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    assert run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--templates", str(lib), "--out", str(out)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert not calls.get("fair") and not out.exists()
    assert err[0].startswith("--skip-invalid-templates: 1 library row(s) have a problem")
    assert err[1].startswith(f"{path}:3:10: oracle_prediction: ")
    with caplog.at_level("WARNING"):
        code = run_cli("run", str(QUICKSTART), "--llm", "scripted:fair", "--templates", str(lib), "--out", str(out),
                       "--skip-invalid-templates")
    assert code == 0 and calls["fair"] > 0
    warnings = [r.getMessage() for r in caplog.records if "template left out" in r.getMessage()]
    assert len(warnings) == 1 and f"{path}:3" in warnings[0] and "oracle_prediction" in warnings[0]
    [excluded] = json.loads((out / "run.json").read_text())["excluded_templates"]
    assert excluded["file"] == str(path) and excluded["line"] == 3
    assert excluded["problems"][0].startswith(f"{path}:3:10: oracle_prediction: ")
    assert bad_id not in {r["template_id"] for r in read(out / "responses.csv")}
    assert run_cli("validate", str(lib)) == 2  # validate still reports the row as a problem


def test_bad_requirements_model_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = write(tmp_path / "m.json", QUICKSTART.read_text().replace('"tolerance": 0.8', '"tolerance": "high"', 1))
    assert run_cli("plan", str(bad)) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{bad}:") and "'high' is not of type 'number'" in line


def test_unknown_provider_and_missing_key_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("run", str(QUICKSTART), "--llm", "opnai:gpt-4o", "--out", str(tmp_path / "a")) == 2
    assert "unknown provider 'opnai'; did you mean 'openai'?" in capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert run_cli("run", str(QUICKSTART), "--llm", "OpenAIGPT4oMini", "--out", str(tmp_path / "b")) == 2
    err = capsys.readouterr().err
    assert "set OPENAI_API_KEY in the environment or in a .env file" in err and "Traceback" not in err


def test_validate_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli("validate", str(REPO / "templates"), str(REPO / "requirements_models")) == 0
    assert capsys.readouterr().out.startswith("ok: ")
    bad = write(tmp_path / "prompts_en_us.csv", "prompt_id,concern\n1,sexism\n")
    assert run_cli("validate", str(bad)) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 7  # seven missing columns, all reported


def test_plan_calls_no_model(capsys: pytest.CaptureFixture, calls: dict) -> None:
    assert run_cli("plan", str(QUICKSTART), "--llm", "scripted:fair", "--llm", "scripted:biased") == 0
    out = capsys.readouterr().out
    assert "scripted:fair: " in out and "scripted:biased: " in out and calls == {}


def test_formula_like_answers_are_stored_as_text(tmp_path: Path) -> None:
    assert guard("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert guard("-1") == "'-1" and guard("+x") == "'+x" and guard("@SUM(A1)") == "'@SUM(A1)"
    assert guard("No") == "No" and guard(-1) == -1
    out = tmp_path / "run"
    # every answer is unreadable: nothing failed, nothing could be decided (exit 3, inconclusive)
    assert run_cli("run", str(QUICKSTART), "--llm", "fake:=cmd|' /C calc'!A0", "--out", str(out), "-q") == 3
    responses = read(out / "responses.csv")
    assert {r["response"] for r in responses} == {"'=cmd|' /C calc'!A0"}


def test_python_api_as_langbite_users_know_it(tmp_path: Path, calls: dict) -> None:
    doc = json.loads(QUICKSTART.read_text())
    tester = LangBiTe(file_dict=doc, llms=["scripted:fair"], out=tmp_path / "run")
    instances = tester.generate()
    assert instances and calls == {}
    responses = tester.execute()
    assert len(responses) == len(instances) == calls["fair"]
    reports = tester.report(path=tmp_path / "copy")
    assert set(reports) >= {"responses", "evaluations", "global_eval"}
    assert reports["exit_code"] == 0 and (tmp_path / "copy" / "global_evaluation.csv").exists()
    again = LangBiTe(file=QUICKSTART, llms=["scripted:fair"], out=tmp_path / "run2").execute_full_scenario()
    assert again["global_eval"].equals(reports["global_eval"])


def test_judge_reads_undetermined_answers_and_both_verdicts_are_kept(tmp_path: Path) -> None:
    doc = json.loads(QUICKSTART.read_text())
    doc.update(use_llm_eval=True, judge="fake:FAIR", judge_sample=0.0)
    model = write(tmp_path / "m.json", json.dumps(doc))
    out = tmp_path / "run"
    run_cli("run", str(model), "--llm", "fake:It is a complex question with many sides.", "--out", str(out), "-q")
    rows = read(out / "evaluations.csv")
    judged = [r for r in rows if r["judge_verdict"]]
    assert judged and all(r["oracle_verdict"] == "Undetermined" and r["verdict"] == "Passed" for r in judged)
    assert (out / "judge.jsonl").exists()
    agreement = read(out / "judge_agreement.csv")
    assert agreement and {(r["oracle"], r["judge"]) for r in agreement} == {("undetermined", "fair")}


def test_openai_provider_against_a_loopback_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from mock_openai import MockOpenAI

    secret = "sk-test-" + "7f3a9c" * 6
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    doc = json.loads(QUICKSTART.read_text())
    doc.update(temperature=0.7, max_tokens=33, seed=12, n_repetitions=2)
    model = write(tmp_path / "m.json", json.dumps(doc))
    out = tmp_path / "run"
    with MockOpenAI() as server:
        code = run_cli("run", str(model), "--llm", "openai:mock-gpt", "--base-url", server.base_url,
                       "--out", str(out), "-q", "-vv")
        payloads = server.stats.last_payloads
        auth = server.stats.authorization
    assert code in (0, 1, 3)  # the mock answers "No" to everything: fair on some templates, not all
    assert {p["model"] for p in payloads} == {"mock-gpt"}
    assert {p["temperature"] for p in payloads} == {0.7}
    assert {p.get("max_tokens", p.get("max_completion_tokens")) for p in payloads} == {33}
    assert {p["seed"] for p in payloads} == {12, 13}  # repetition r samples with seed + r
    assert auth == {f"Bearer {secret}"}
    for f in out.rglob("*"):
        if f.is_file():
            assert secret not in f.read_text(encoding="utf-8", errors="replace"), f
    run = json.loads((out / "run.json").read_text())
    assert run["models"][0]["identity"] == server.base_url


def test_credentials_in_a_base_url_are_not_written(tmp_path: Path) -> None:
    from langbite.secrets import redact_url as _redact

    assert _redact("http://user:hunter2@127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert _redact("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
