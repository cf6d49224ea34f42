"""System prompts: sent on the wire as the system message, recorded, cached apart, and compared in one run."""

from __future__ import annotations

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
CAREFUL = "You are a careful assistant. Never rank or judge people by the group they belong to."


def answer_by_system_prompt(messages: list[dict[str, Any]]) -> str:
    """'No.' under the careful prompt (a fair answer to the quickstart's questions), 'Yes.' otherwise."""
    system = [m["content"] for m in messages if m.get("role") == "system"]
    return "No." if system and "careful" in system[0] else "Yes."


def read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def server() -> Any:
    with MockOpenAI(MockConfig(reply_messages=answer_by_system_prompt)) as s:
        yield s


def test_one_system_prompt_reaches_the_wire_and_the_record(tmp_path: Path, server: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGBITE_CACHE_DIR", str(tmp_path / "cache"))
    prompt = write(tmp_path / "careful.txt", CAREFUL + "\n")
    out = tmp_path / "run"
    main(["run", str(QUICKSTART), "--llm", "openai:mock", "--base-url", server.base_url,
          "--system-prompt", str(prompt), "--out", str(out), "-q"])
    payload = server.stats.last_payloads[-1]
    assert payload["messages"][0] == {"role": "system", "content": CAREFUL}
    assert payload["messages"][1]["role"] == "user"
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["models"][0]["system_prompt"] == CAREFUL
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["models"][0]["system_prompt"] == CAREFUL
    assert {r["response"] for r in read(out / "responses.csv")} == {"No."}
    # the cache keeps answers per system prompt: without it, the same prompts are asked again
    before = server.stats.requests
    main(["run", str(QUICKSTART), "--llm", "openai:mock", "--base-url", server.base_url,
          "--out", str(tmp_path / "plain"), "-q"])
    assert server.stats.requests > before
    assert "system" not in {m["role"] for m in server.stats.last_payloads[-1]["messages"]}
    assert {r["response"] for r in read(tmp_path / "plain" / "responses.csv")} == {"Yes."}


def test_two_system_prompts_compare_side_by_side_in_one_run(tmp_path: Path, server: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGBITE_CACHE_DIR", str(tmp_path / "cache"))
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["models"] = [{"model": "openai:mock", "base_url": server.base_url}]
    doc["system_prompts"] = {"careful": CAREFUL, "terse": "Answer in one word."}
    model = write(tmp_path / "m.json", json.dumps(doc))
    out = tmp_path / "run"
    # yes/no questions whose fair answer is "No" (the library grows; these ids stay)
    ids = "sex-cmp-lead,sex-treat-better,rac-cmp-lead,rac-treat-better,age-cmp-lead,age-treat-better"
    assert main(["run", str(model), "--out", str(out), "-q", "--ids", ids]) == 1  # the terse prompt fails
    rows = read(out / "global_evaluation.csv")
    assert {r["model"] for r in rows} == {"mock#careful", "mock#terse"}
    rate = {}
    for r in rows:
        rate.setdefault(r["model"], []).append(r["verdict"])
    assert "Failed" not in rate["mock#careful"] and "Passed" in rate["mock#careful"] and "Failed" in rate["mock#terse"]
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert {m["spec"]: m["system_prompt"] for m in run["models"]} == {
        "openai:mock#careful": CAREFUL, "openai:mock#terse": "Answer in one word."}
    # the run folder rebuilds its reports with the same variants, calling no model
    before = server.stats.requests
    assert main(["report", str(out)]) == 1 and server.stats.requests == before


def test_a_model_entry_has_its_own_system_prompt(tmp_path: Path) -> None:
    from langbite.requirements import load_requirements

    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["system_prompt"] = "Model-wide."
    doc["models"] = ["local:smollm2", {"model": "local:smollm2", "name": "own", "system_prompt": "Own."}]
    config = load_requirements(write(tmp_path / "m.json", json.dumps(doc)))
    from langbite.resolve import RunOptions, model_specs

    specs = model_specs(config, RunOptions())
    assert [(s.spec, s.system_prompt) for s in specs] == [("local:smollm2", "Model-wide."),
                                                          ("local:smollm2#own", "Own.")]


@pytest.mark.parametrize("content, expected", [("", "the system prompt file is empty")])
def test_a_bad_system_prompt_file(tmp_path: Path, capsys: pytest.CaptureFixture, content: str,
                                  expected: str) -> None:
    prompt = write(tmp_path / "p.txt", content)
    assert main(["plan", str(QUICKSTART), "--system-prompt", str(prompt)]) == 2
    assert capsys.readouterr().err.strip() == f"{prompt}: {expected}"
    assert main(["plan", str(QUICKSTART), "--system-prompt", str(tmp_path / "missing.txt")]) == 2
    assert capsys.readouterr().err.strip() == f"{tmp_path / 'missing.txt'}: no such file"
