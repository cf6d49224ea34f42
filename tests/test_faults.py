"""Faults lose nothing: injected errors and timeouts, SIGKILL mid-run, resume, Ctrl-C."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402
from synthetic import make_campaign  # noqa: E402


def langbite(*args: str, **kw: object) -> subprocess.Popen[bytes]:
    kw.setdefault("cwd", REPO)
    return subprocess.Popen([sys.executable, "-m", "langbite", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)  # type: ignore[call-overload]


def campaign(tmp: Path, templates: int, communities: int, **doc: object) -> tuple[Path, Path]:
    library, model = make_campaign(tmp, templates, communities, model="openai:mock-gpt", concurrency=8)
    data = json.loads(model.read_text())
    data.update(doc)
    model.write_text(json.dumps(data))
    return library, model


def lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def test_run_completes_under_injected_faults_and_counts_reconcile(tmp_path: Path) -> None:
    library, model = campaign(tmp_path, 30, 10, nRetries=4, timeout=0.5)
    out = tmp_path / "run"
    config = MockConfig(latency=0.005, fail_rate=0.2, hang_rate=0.03, hang_seconds=3.0, retry_after=0.01, seed=11)
    with MockOpenAI(config) as server:
        proc = langbite("run", str(model), "--templates", str(library), "--base-url", server.base_url, "--out",
                        str(out), "-q", "--no-cache")
        _, err = proc.communicate(timeout=180)
        injected = server.stats.status[429] + server.stats.status[500]
        hung = server.stats.hung
    assert proc.returncode in (0, 1), err.decode()
    assert injected > 20 and hung > 0
    run = json.loads((out / "run.json").read_text())
    rows = list(csv.DictReader((out / "responses.csv").open(encoding="utf-8")))
    assert len(rows) == run["counts"]["calls_planned"] == 300
    answered = sum(1 for r in rows if r["response"] and not r["error"])
    errors = sum(1 for r in rows if r["error"])
    assert answered + errors == 300 and errors == run["counts"]["failed_calls"]
    assert run["counts"]["retries"] > 0


def test_sigkill_mid_run_then_resume_loses_nothing(tmp_path: Path) -> None:
    library, model = campaign(tmp_path, 60, 10)
    args = ["run", str(model), "--templates", str(library), "-q", "--no-cache", "--concurrency", "8"]
    with MockOpenAI(MockConfig(latency=0.02)) as server:
        reference = tmp_path / "reference"
        ref = langbite(*args, "--base-url", server.base_url, "--out", str(reference))
        ref.communicate(timeout=180)
        before = server.stats.requests

        out = tmp_path / "killed"
        proc = langbite(*args, "--base-url", server.base_url, "--out", str(out))
        deadline = time.monotonic() + 60
        while lines(out / "answers.jsonl") < 150 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        journaled = lines(out / "answers.jsonl")
        assert 0 < journaled < 600, "the kill must land mid-run"
        assert not (out / "responses.csv").exists()

        resumed = langbite(*args, "--base-url", server.base_url, "--out", str(out))
        _, err = resumed.communicate(timeout=180)
        assert resumed.returncode in (0, 1), err.decode()
        sent = server.stats.requests - before
    assert lines(out / "answers.jsonl") >= 600
    # no answer lost, and nothing answered twice beyond the requests in flight at the kill
    assert sent <= 600 + 8
    for name in ("responses.csv", "evaluations.csv", "global_evaluation.csv"):
        assert (out / name).read_text() == (reference / name).read_text(), name


@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path, inherited: str) -> None:
    """Also when langbite starts with SIGINT ignored, as a background job of a non-interactive shell does (CI
    runners): Python then never raises KeyboardInterrupt unless langbite restores the handler itself."""
    library, model = campaign(tmp_path, 60, 10)
    out = tmp_path / "run"
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if inherited == "ignored" else None
    with MockOpenAI(MockConfig(latency=0.05)) as server:
        proc = langbite("run", str(model), "--templates", str(library), "--base-url", server.base_url, "--out",
                        str(out), "-q", "--no-cache", "--concurrency", "4", preexec_fn=ignore)
        deadline = time.monotonic() + 60
        while lines(out / "answers.jsonl") < 20 and time.monotonic() < deadline:
            time.sleep(0.02)
        seen, running = lines(out / "answers.jsonl"), proc.poll() is None
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    # what was seen when the signal went, for a failure that has only shown in whole-suite runs on fresh clones
    assert proc.returncode == 130, (f"answers at the signal {seen}, process running {running}, answers at the end "
                                    f"{lines(out / 'answers.jsonl')}; stderr: {err.decode()[-2000:]}")
    message = err.decode()
    assert "Resume with:" in message and f"--out {out}" in message and "Traceback" not in message
    assert lines(out / "answers.jsonl") >= 20


@pytest.mark.parametrize("spec", ["anthropic:claude-x", "openai:gpt-4o-mini"])
def test_missing_credentials_are_reported_before_any_call(spec: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY")}
    proc = langbite("run", str(REPO / "requirements_models" / "quickstart.json"), "--llm", spec, "--out",
                    str(tmp_path / "run"), env=env, cwd=tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    [line] = err.decode().strip().splitlines()
    assert line.startswith(spec) and ("not installed" in line or "set " in line)
    assert not (tmp_path / "run").exists()
