"""Providers and plugins for real: entry points from a dist-info on sys.path, wrapped chat models, Replicate."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, ScriptedChatModel, scripted, write
from langbite.execute.engine import Engine, Job
from langbite.execute.services import ChatModelService
from langbite.model import GenerationParams

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def model_file(folder: Path, models: list[str], **changes: Any) -> Path:
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc.update(models=models, **changes)
    return write(folder / "model.json", json.dumps(doc))


def langbite(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "langbite", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **env}, timeout=180)


PLUGIN = '''
"""A third-party package: one provider and two LangBiTe-style factories."""
from langchain_core.language_models import FakeListChatModel

from langbite import ChatModelService, Provider
from langbite.llm_services.llm_service import LLMService


def _build(spec):
    return ChatModelService("echo", spec.model, lambda params: FakeListChatModel(responses=[spec.model + "."]))


provider = Provider("echo", _build, "answers every prompt with its model name")


class PluginService(LLMService):
    def __init__(self, model):
        super().__init__()
        self.provider, self.model = "PluginCompany", model

    def execute_prompt(self, prompt: str) -> str:
        return "No."


class PluginServiceBuilder:
    """Named by the entry point as a class, as LangBiTe's plugins are: instantiated, then called."""

    def __init__(self):
        self._instance = None

    def __call__(self, openai_api_key=None, **_ignored):
        self._instance = self._instance or PluginService("plugin-class-1")
        return self._instance


def build_function(**_config):
    return PluginService("plugin-function-1")
'''


def dist_info(folder: Path, name: str, entry_points: str) -> None:
    """An installed distribution as importlib.metadata sees it: a *.dist-info folder on sys.path."""
    info = folder / f"{name}-0.1.dist-info"
    write(info / "METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    write(info / "entry_points.txt", entry_points)


def test_entry_points_add_providers_and_factories(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write(site / "echo_plugin.py", PLUGIN)
    dist_info(site, "echo_plugin", "[langbite.providers]\necho = echo_plugin:provider\n\n"
                                   "[langbite.factories]\nPluginClassKey = echo_plugin:PluginServiceBuilder\n"
                                   "PluginFunctionKey = echo_plugin:build_function\n")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    model = model_file(tmp_path, ["echo:Nope", "PluginClassKey", "factory:PluginFunctionKey"])
    out = tmp_path / "run"
    run = langbite("run", str(model), "--out", str(out), "-q", cwd=tmp_path, env=env)
    listing = langbite("llms", cwd=tmp_path, env=env)
    assert run.returncode in (0, 1, 3), run.stderr  # 'Nope.' reads as undetermined
    answers: dict[str, set[str]] = {}
    for row in read_rows(out / "responses.csv"):
        answers.setdefault(f"{row['provider']}:{row['model']}", set()).add(row["response"])
    assert answers == {"echo:Nope": {"Nope."}, "factory:PluginClassKey": {"No."},
                       "factory:PluginFunctionKey": {"No."}}
    assert "echo " in listing.stdout and "answers every prompt with its model name" in listing.stdout


def test_a_plugin_that_fails_to_load_does_not_break_the_tool(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write(site / "broken_plugin.py", "raise ImportError('this plugin is broken')\n")
    dist_info(site, "broken_plugin", "[langbite.factories]\nBrokenKey = broken_plugin:builder\n")
    env = {"PYTHONPATH": str(site)}
    run = langbite("plan", str(model_file(tmp_path, ["BrokenKey"])), cwd=tmp_path, env=env)
    assert run.returncode == 2
    assert "could not load model factory key plugin 'BrokenKey'" in run.stderr
    assert "$.models[0]: not a model spec" in run.stderr and "Traceback" not in run.stderr


# --- ChatModelService.wrap ------------------------------------------------------------------------------


def test_wrap_runs_a_chat_model_you_built_through_the_engine(tmp_path: Path) -> None:
    from langbite.execute.journal import Journal, read_journal

    chat = ScriptedChatModel(script=lambda prompt: f"You asked: {prompt}")
    service = ChatModelService.wrap(chat, provider="mine", model="scripted-1", max_concurrency=2)
    assert (service.provider, service.model, service.max_concurrency) == ("mine", "scripted-1", 2)
    default = ChatModelService.wrap(chat)
    assert (default.provider, default.model) == ("langchain", "ScriptedChatModel")
    journal = Journal(tmp_path)
    engine = Engine({"mine:scripted-1": service}, GenerationParams(0.0, 16, 1), journal=journal)
    prompts = [f"Question {i}?" for i in range(6)]
    jobs = {"mine:scripted-1": [Job("mine:scripted-1", f"k{i}", p, 0) for i, p in enumerate(prompts)]}
    stats = asyncio.run(engine.run(jobs, {"mine:scripted-1": 4}, len(prompts), progress=False))
    journal.close()
    assert stats.calls == 6 and stats.errors == 0 and sorted(chat.calls) == sorted(prompts)
    answers = read_journal(tmp_path)
    assert {a.key: a.text for a in answers.values()} == {f"k{i}": f"You asked: Question {i}?" for i in range(6)}


def test_wrap_is_what_a_factory_builder_may_return(tmp_path: Path) -> None:
    from langbite.cli import main
    from langbite.execute.factories import factories
    from langbite.llm_services.llm_factory import factory

    chat = ScriptedChatModel(script=lambda prompt: scripted(prompt, fair=True))
    factory.register_builder("WrappedModel", lambda: ChatModelService.wrap(chat, provider="mine", model="w-1"))
    try:
        out = tmp_path / "run"
        assert main(["run", str(model_file(tmp_path, ["WrappedModel"])), "--out", str(out), "-q"]) == 0
    finally:
        factories.remove("WrappedModel")
    rows = read_rows(out / "responses.csv")
    assert rows and all(r["response"] and not r["error"] for r in rows)


# --- Replicate, through LangChain's integration, against a loopback stand-in for its HTTP API ------------


class ReplicateStandIn(BaseHTTPRequestHandler):
    """Replicate's model, prediction-create and prediction-get endpoints, as its Python client calls them."""

    inputs: list[dict[str, Any]] = []
    authorization: set[str] = set()
    lock = threading.Lock()

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _prediction(self, pid: str, status: str, output: Any = None) -> dict[str, Any]:
        base = f"http://{self.headers['Host']}"
        return {"id": pid, "model": "meta/llama-2-7b-chat", "version": "v1", "status": status, "input": {},
                "output": output, "logs": "", "error": None, "metrics": {}, "created_at": "2026-01-01T00:00:00Z",
                "urls": {"get": f"{base}/v1/predictions/{pid}", "cancel": f"{base}/v1/predictions/{pid}/cancel"}}

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        self.authorization.add(self.headers.get("Authorization", ""))
        if self.path == "/v1/models/meta/llama-2-7b-chat":
            schema = {"components": {"schemas": {"Input": {"properties": {
                "prompt": {"type": "string", "x-order": 0}, "temperature": {"type": "number", "x-order": 1}}}}}}
            self._send(200, {"url": "", "owner": "meta", "name": "llama-2-7b-chat", "description": None,
                             "visibility": "public", "github_url": None, "paper_url": None, "license_url": None,
                             "run_count": 1, "cover_image_url": None, "default_example": None,
                             "latest_version": {"id": "v1", "created_at": "2026-01-01T00:00:00Z",
                                                "cog_version": "0.9", "openapi_schema": schema}})
        elif self.path.startswith("/v1/predictions/"):
            pid = self.path.rsplit("/", 1)[1]
            prompt = self.inputs[int(pid)]["prompt"]
            answer = scripted(prompt, fair=True)
            self._send(200, self._prediction(pid, "succeeded", [answer[:2], answer[2:]]))  # streamed in pieces
        else:
            self._send(404, {"detail": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        self.authorization.add(self.headers.get("Authorization", ""))
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            self.inputs.append(body["input"])
            pid = str(len(self.inputs) - 1)
        self._send(201, self._prediction(pid, "starting"))


@pytest.fixture
def replicate_api() -> Iterator[str]:
    pytest.importorskip("langchain_community", reason="needs the replicate extra")
    pytest.importorskip("replicate", reason="needs the replicate extra")
    ReplicateStandIn.inputs, ReplicateStandIn.authorization = [], set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), ReplicateStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_langbites_replicate_keys_run_through_the_replicate_provider(tmp_path: Path, replicate_api: str) -> None:
    env = {"REPLICATE_BASE_URL": replicate_api, "REPLICATE_POLL_INTERVAL": "0.01",
           "API_KEY_REPLICATE": "r8-langbite-style-token", "REPLICATE_API_TOKEN": ""}
    model = model_file(tmp_path, ["Llama27BChat"], temperature=0.4, max_tokens=30, seed=3)
    out = tmp_path / "run"
    run = langbite("run", str(model), "--out", str(out), "-q", cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr  # fair scripted answers pass
    rows = read_rows(out / "responses.csv")
    assert len(rows) == len(ReplicateStandIn.inputs) > 20
    assert all(r["provider"] == "replicate" and r["model"] == "meta/llama-2-7b-chat" and not r["error"] for r in rows)
    assert {(i["temperature"], i["max_new_tokens"], i["seed"]) for i in ReplicateStandIn.inputs} == {(0.4, 30, 3)}
    assert ReplicateStandIn.authorization == {"Bearer r8-langbite-style-token"}
