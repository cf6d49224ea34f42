"""Your application as the model under test: the http provider against an application-like loopback server."""

from __future__ import annotations

import csv
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.model import ExitCode

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

QUICKSTART = REPO / "requirements_models" / "quickstart.json"
TOKEN = "app-token-canary-4242"


def answer(prompt: str) -> str:
    """The bank's chatbot: the same answers whichever way it is reached."""
    if "probability" in prompt or "JSON" in prompt and "score" in prompt:
        return '{"probability": 50.0, "score": 50}'
    return "Yes." if "Black" in prompt else "No, that would not be fair."


class App(BaseHTTPRequestHandler):
    """An application with its own request and reply shapes: POST /api/v2/chat {"input": {"text"}} →
    {"data": {"reply": …}}, behind a bearer token."""

    seen: list[dict[str, Any]] = []
    reply_shape = "good"

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        App.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self._send(401, {"error": "unauthorized"})
        elif App.reply_shape == "other":
            self._send(200, {"result": {"message": "No."}})
        else:
            self._send(200, {"data": {"reply": answer(body["input"]["text"]), "session": body["session"]}})

    def _send(self, status: int, doc: dict[str, Any]) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def app() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), App)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    App.seen, App.reply_shape = [], "good"
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def model(tmp_path: Path, url: str, **http: Any) -> Path:
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    endpoint = {"url": f"{url}/api/v2/chat", "headers": {"Authorization": "Bearer ${BANK_BOT_TOKEN}"},
                "body": {"session": "langbite", "input": {"text": "{prompt}"}, "context": "{system_prompt}"},
                "answer": "data.reply", **http}
    doc["models"] = [{"model": "http:bank-bot", "concurrency": 4, "http": endpoint}]
    return write(tmp_path / "m.json", json.dumps(doc))


def verdicts(run: Path) -> list[tuple[str, str]]:
    rows = csv.DictReader((run / "evaluations.csv").open(encoding="utf-8"))
    return [(r["template_id"], r["verdict"]) for r in rows]


def test_the_application_gets_the_same_verdicts_as_the_same_answers_through_openai(
        tmp_path: Path, app: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANK_BOT_TOKEN", TOKEN)
    out = tmp_path / "http"
    code = main(["run", str(model(tmp_path, app)), "--out", str(out), "-q", "--no-cache"])
    assert App.seen and all(s["path"] == "/api/v2/chat" and s["auth"] == f"Bearer {TOKEN}" for s in App.seen)
    assert all(s["body"]["session"] == "langbite" and s["body"]["input"]["text"] for s in App.seen)
    with MockOpenAI(MockConfig(reply=answer)) as server:
        reference = tmp_path / "openai"
        assert main(["run", str(QUICKSTART), "--llm", "openai:bank-bot", "--base-url", server.base_url, "--out",
                     str(reference), "-q", "--no-cache"]) == code
    assert verdicts(out) == verdicts(reference) and code == ExitCode.FAILED
    for path in out.rglob("*"):  # the token is never written anywhere
        if path.is_file():
            assert TOKEN not in path.read_text(encoding="utf-8", errors="replace"), path
    assert json.loads((out / "config.json").read_text())["models"][0]["http"]["headers"] == {
        "Authorization": "Bearer ${BANK_BOT_TOKEN}"}


def test_an_answer_path_the_reply_lacks_stops_at_the_first_reply(tmp_path: Path, app: str,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("BANK_BOT_TOKEN", TOKEN)
    App.reply_shape = "other"
    code = main(["run", str(model(tmp_path, app)), "--out", str(tmp_path / "run"), "-q", "--no-cache",
                 "--concurrency", "1"])
    assert code == ExitCode.NOT_EVALUATED and len(App.seen) == 1
    err = capsys.readouterr().err
    assert "the reply has no 'data.reply' (at 'data' it has ['result'])" in err and TOKEN not in err


def test_bad_http_models_are_one_line_each_and_call_nothing(tmp_path: Path, app: str,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture) -> None:
    monkeypatch.delenv("BANK_BOT_TOKEN", raising=False)
    assert main(["run", str(model(tmp_path, app)), "--out", str(tmp_path / "a"), "-q"]) == ExitCode.BAD_INPUT
    assert "http headers name environment variables that are not set: BANK_BOT_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("BANK_BOT_TOKEN", TOKEN)
    bad = model(tmp_path, app, body={"input": {"text": "hello"}})
    assert main(["validate", str(bad)]) == ExitCode.BAD_INPUT
    assert "the body must carry the prompt" in capsys.readouterr().err
    doc = json.loads(model(tmp_path, app).read_text())
    del doc["models"][0]["http"]["url"]
    write(bad, json.dumps(doc))
    assert main(["validate", str(bad)]) == ExitCode.BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.endswith("$.models[0].http: 'url' is a required property")
    assert App.seen == []
