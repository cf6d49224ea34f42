"""No secret leaks: canaries planted in every source of a base URL or key, then searched for everywhere.

Sources: the environment (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``), a ``.env`` file
(LangBiTe's ``API_KEY_OPENAI`` too), the requirements model, ``--base-url``, and a
server that is down. Places searched: every file of every run folder (the workbook
unzipped), the response cache, and the stdout and stderr of every command, run at
``-v`` and ``-vv`` so that httpx's and openai's own log lines are included.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.secrets import RedactingFilter, redact_text, redact_url, remember

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

CANARY = "CANARY"
API_KEY = "sk-CANARYapikey-0123456789abcdef"
LANGBITE_KEY = "CANARYlangbitekey-0123456789"


def requirements(models: list[object]) -> str:
    return json.dumps({
        "nTemplates": 2, "nRetries": 1, "timeout": 5, "aiModels": models,
        "requirements": [{"name": "Gender", "concern": "sexism", "markup": "GENDER", "languages": ["en_us"],
                          "communities": {"en_us": ["men", "women"]}, "tolerance": 0.5, "delta": 0.1,
                          "inputs": ["constrained"], "reflections": ["observational"]}]})


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Runner:
    """Runs ``python -m langbite`` and keeps every command's output for the search."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.cache = tmp / "cache"
        self.outputs: list[tuple[str, bytes]] = []

    def __call__(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> int:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "API_KEY_"))}
        full = {**base, "LANGBITE_CACHE_DIR": str(self.cache), **(env or {})}
        proc = subprocess.run([sys.executable, "-m", "langbite", *args], capture_output=True, env=full,
                              cwd=cwd or self.tmp, timeout=180)
        self.outputs += [(f"stdout of {args}", proc.stdout), (f"stderr of {args}", proc.stderr)]
        return proc.returncode


def file_texts(folder: Path) -> list[tuple[str, bytes]]:
    """Every file under ``folder`` as bytes; a workbook (a zip) contributes each of its parts."""
    out = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".xlsx":
            with zipfile.ZipFile(path) as z:
                out += [(f"{path}!{name}", z.read(name)) for name in z.namelist()]
        else:
            out.append((str(path), path.read_bytes()))
    return out


def test_canaries_from_every_source_appear_nowhere(tmp_path: Path) -> None:
    run = Runner(tmp_path)
    down = f"http://downuser:CANARYdownpw@127.0.0.1:{closed_port()}/v1?sig=CANARYdownsig"
    with MockOpenAI(MockConfig()) as server:
        host = f"127.0.0.1:{server.port}"
        model = write(tmp_path / "model.json", requirements([
            {"model": "openai:m-req", "base_url": f"http://requser:CANARYreqpw@{host}/v1"},
            {"model": "openai:m-query", "base_url": f"http://{host}/v1?api_key=CANARYqsapikey&key=CANARYqskey"
                                                    "&token=CANARYqstoken&sig=CANARYqssig"},
            "openai:m-env"]))
        env = {"OPENAI_BASE_URL": f"http://envuser:CANARYenvpw@{host}/v1", "OPENAI_API_KEY": API_KEY}
        assert run("-vv", "run", str(model), "--out", "from-model", "-q", env=env) == 3  # m-query: errors only

        plain = write(tmp_path / "plain.json", requirements(["openai:m-dotenv"]))
        for name, dotenv, code in (
                ("from-dotenv", f"OPENAI_BASE_URL=http://dotuser:CANARYdotenvpw@{host}/v1\n", None),
                ("from-dotenv-query", f"OPENAI_BASE_URL=http://{host}/v1?token=CANARYdottoken\n"
                                      f"API_KEY_OPENAI={LANGBITE_KEY}\n", 4)):  # the SDK makes a 404 of the query
            write(tmp_path / f"{name}-cwd" / ".env", dotenv)
            got = run("-v", "run", str(plain), "--out", str(tmp_path / name), "-q", cwd=tmp_path / f"{name}-cwd")
            # None: the calls were answered and judged (the verdict depends on the sampled templates)
            assert got in (0, 1, 3) if code is None else got == code

        cli_url = f"http://cliuser:CANARYclipw@{host}/v1"
        assert run("-vv", "run", str(plain), "--llm", "openai:m-cli", "--base-url", cli_url, "--out", "from-cli", "-q",
                   env={"OPENAI_API_KEY": API_KEY}) in (0, 1, 3)  # answered and judged
        assert run("-vv", "run", str(plain), "--base-url", down, "--out", "server-down", "-q",
                   env={"OPENAI_API_KEY": API_KEY}) == 4  # could not evaluate
        assert run("-vv", "report", "from-model") == 3
        assert run("-vv", "cache", "info") == 0
        assert run("-vv", "run", str(plain), "--base-url", "ftp://u:CANARYbadscheme@127.0.0.1/v1",
                   "--out", "refused") == 2
        auth = server.stats.authorization
        answered = server.stats.status[200]

    # the canaries were real: keys and passwords reached the server (httpx sends a URL's userinfo as Basic
    # credentials), and answers came back through every route that has no query string
    basic = {base64.b64decode(a.split()[1]).decode() for a in auth if a.startswith("Basic ")}
    assert {"requser:CANARYreqpw", "envuser:CANARYenvpw", "dotuser:CANARYdotenvpw", "cliuser:CANARYclipw"} <= basic
    assert {f"Bearer {API_KEY}", f"Bearer {LANGBITE_KEY}"} <= auth
    assert answered >= 12
    for name in ("from-model", "from-dotenv", "from-cli"):
        assert "No, I don't think so." in (tmp_path / name / "responses.csv").read_text(encoding="utf-8")
    assert "timed out" in (tmp_path / "server-down" / "responses.csv").read_text(encoding="utf-8") or \
        "onnect" in (tmp_path / "server-down" / "responses.csv").read_text(encoding="utf-8")
    stderr = b"".join(text for label, text in run.outputs if label.startswith("stderr"))
    assert b"HTTP Request: POST http://" in stderr  # httpx's request lines were logged, and redacted
    assert b"***" in stderr

    searched = [*(item for name in ("from-model", "from-dotenv", "from-dotenv-query", "from-cli", "server-down")
                  for item in file_texts(tmp_path / name)), *file_texts(run.cache), *run.outputs]
    assert len(searched) > 30 and any(label.endswith(".sqlite3") for label, _ in searched)
    leaks = [label for label, data in searched if CANARY.encode() in data or CANARY.lower().encode() in data]
    assert leaks == []


def test_redact_url_removes_userinfo_and_secret_parameters() -> None:
    assert redact_url("http://user:hunter2@127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert redact_url("https://h/v1?api_key=a1&model=x&sig=s2") == "https://h/v1?api_key=***&model=x&sig=***"
    assert redact_url("http://h:1/v1") == "http://h:1/v1"
    # not parseable as a URL (a bad IPv6 literal): credentials go all the same
    assert "pw123" not in redact_url("http://u:pw123@[::1/v1?token=t0k")
    assert "t0k" not in redact_url("http://u:pw123@[::1/v1?token=t0k")


def test_remembered_secrets_are_redacted_from_any_text() -> None:
    remember("http://u:p%40ssw0rd-x@host/v1?key=querysecret9")
    text = "connect failed: password p@ssw0rd-x, encoded p%40ssw0rd-x, key querysecret9"
    clean = redact_text(text)
    assert "ssw0rd" not in clean and "querysecret9" not in clean


def test_the_filter_redacts_third_party_records_and_their_tracebacks() -> None:
    record = logging.LogRecord("httpx", logging.INFO, __file__, 1, 'HTTP Request: POST %s "%s"',
                               ("http://a:SECRETpw1@h/v1/chat/completions", "HTTP/1.1 200 OK"), None)
    try:
        raise ConnectionError("could not reach http://a:SECRETpw2@h/v1")
    except ConnectionError:
        failing = logging.LogRecord("openai", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    for r in (record, failing):
        RedactingFilter().filter(r)
    formatted = logging.Formatter().format(record) + logging.Formatter().format(failing)
    assert "SECRETpw" not in formatted and "http://h/v1/chat/completions" in formatted


@pytest.mark.parametrize("url", ["http://u:CANARYpw@127.0.0.1:1/v1", "http://127.0.0.1:1/v1?api_key=CANARYk"])
def test_a_base_url_problem_never_quotes_the_secret(url: str, tmp_path: Path) -> None:
    from langbite.errors import InputErrors
    from langbite.execute.providers import resolve_spec
    from langbite.model import ModelSpec

    bad = url.replace("http://", "htp://")
    with pytest.raises(InputErrors) as caught:
        resolve_spec(ModelSpec("openai:m", base_url=bad))
    assert CANARY not in str(caught.value)

