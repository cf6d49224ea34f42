"""Batch mode (`langbite run --batch`) against the loopback mock's files and batches endpoints."""

from __future__ import annotations

import asyncio
import csv
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, write
from langbite.cli import main

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch-0000")


def model(tmp_path: Path, **changes: Any) -> Path:
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc.update(changes)
    return write(tmp_path / "m.json", json.dumps(doc))


def rows(run: Path, name: str) -> list[dict[str, str]]:
    with open(run / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def comparable(run: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], list[tuple[str, ...]]]:
    """What a report says, without timings and cache flags."""
    responses = sorted((r["template_id"], r["instance"], r["prompt"], r["response"], r["error"])
                       for r in rows(run, "responses.csv"))
    evaluations = sorted((r["template_id"], r["verdict"], r["reason"]) for r in rows(run, "evaluations.csv"))
    summary = sorted((r["requirement"], r["passed"], r["failed"], r["verdict"])
                     for r in rows(run, "global_evaluation.csv"))
    return responses, evaluations, summary


def run(path: Path, out: Path, url: str, *more: str) -> int:
    return main(["run", str(path), "--llm", "openai:mock-gpt", "--base-url", url, "--out", str(out), "-q",
                 "--no-cache", *more])


def test_a_batch_run_reports_what_an_interactive_run_reports(tmp_path: Path) -> None:
    path = model(tmp_path)
    with MockOpenAI() as server:
        code_i = run(path, tmp_path / "interactive", server.base_url)
        chat_before = server.stats.chat
        code_b = run(path, tmp_path / "batch", server.base_url, "--batch", "--batch-poll", "0.01")
        stats = server.stats
    assert code_b == code_i
    assert comparable(tmp_path / "batch") == comparable(tmp_path / "interactive")
    # one upload and one batch for the whole campaign, no interactive call
    assert (stats.uploads, stats.batches_created, stats.chat - chat_before) == (1, 1, 0)
    assert stats.batch_polls >= 2
    state = json.loads((tmp_path / "batch" / "batches.json").read_text())
    assert [b["status"] for b in state["batches"]] == ["collected"]


def test_requests_a_batch_failed_are_asked_interactively(tmp_path: Path) -> None:
    path = model(tmp_path)
    with MockOpenAI(MockConfig(batch_fail_rate=0.3, seed=3)) as server:
        run(path, tmp_path / "batch", server.base_url, "--batch", "--batch-poll", "0.01")
        failed_in_batch = sum(1 for _ in server.files.values()) and server.stats.chat
    responses = rows(tmp_path / "batch", "responses.csv")
    assert failed_in_batch > 0 and all(r["response"] and not r["error"] for r in responses)


def test_every_answer_s_tokens_are_counted_once(tmp_path: Path) -> None:
    """Batch answers, and the ones a failed batch line got interactively, each count their tokens once."""
    path = model(tmp_path)
    with MockOpenAI(MockConfig(batch_fail_rate=0.3, seed=3)) as server:
        run(path, tmp_path / "batch", server.base_url, "--batch", "--batch-poll", "0.01")
    counts = json.loads((tmp_path / "batch" / "run.json").read_text())["counts"]
    responses = rows(tmp_path / "batch", "responses.csv")
    assert counts["tokens_in"] == sum(int(r["tokens_in"]) for r in responses) > 0
    assert counts["tokens_out"] == sum(int(r["tokens_out"]) for r in responses)


@pytest.mark.parametrize("end", ["expired", "failed"])
def test_an_expired_or_failed_batch_loses_nothing(tmp_path: Path, end: str) -> None:
    path = model(tmp_path)
    with MockOpenAI(MockConfig(batch_end=end)) as server:
        run(path, tmp_path / "batch", server.base_url, "--batch", "--batch-poll", "0.01")
        chat = server.stats.chat
    responses = rows(tmp_path / "batch", "responses.csv")
    assert all(r["response"] and not r["error"] for r in responses)
    # an expired batch answered half; a failed one none: the rest were asked interactively
    assert chat == (len(responses) - len(responses) // 2 if end == "expired" else len(responses))
    state = json.loads((tmp_path / "batch" / "batches.json").read_text())
    assert state["batches"][0]["ended_as"] == end


def test_a_rerun_polls_the_batches_already_submitted(tmp_path: Path) -> None:
    """A crash after submission (here: the submission alone, as a killed run leaves it) is resumed by
    running the same command: the batch is polled, not paid for twice."""
    from langbite.execute.batch import BatchRunner
    from langbite.execute.setup import build_engine
    from langbite.runner import RunOptions, prepare

    path = model(tmp_path)
    out = tmp_path / "batch"
    with MockOpenAI(MockConfig(batch_polls=3)) as server:
        plan = prepare(path, RunOptions(models=["openai:mock-gpt"], base_url=server.base_url))
        spec = plan.models[0].spec
        out.mkdir()
        engine = build_engine(plan.config, {spec: _service(spec, server.base_url)}, None, use_cache=False)
        jobs = [job for suite in plan.suites for job in suite.jobs(spec)]

        async def submit_only() -> None:
            runner = BatchRunner(engine, out, poll_seconds=0.01)
            await runner._submit(spec, engine.services[spec], jobs)
            await engine.services[spec].aclose()

        asyncio.run(submit_only())
        assert server.stats.batches_created == 1 and json.loads((out / "batches.json").read_text())["batches"]
        run(path, out, server.base_url, "--batch", "--batch-poll", "0.01")
        stats = server.stats
    assert (stats.uploads, stats.batches_created, stats.chat) == (1, 1, 0)
    assert len(rows(out, "responses.csv")) == len(jobs)


def test_batch_mode_and_a_budget_are_refused_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = model(tmp_path, prices={"openai:mock-gpt": {"input": 1.0, "output": 1.0}})
    assert run(path, tmp_path / "b", "http://127.0.0.1:9/v1", "--batch", "--budget", "1") == 2
    assert "--batch" in capsys.readouterr().err


def _service(spec: str, base_url: str) -> Any:
    from langbite.execute.providers import build_service
    from langbite.model import ModelSpec

    return build_service(ModelSpec(spec, base_url=base_url))
