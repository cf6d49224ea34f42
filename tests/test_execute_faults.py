"""Faults of the server and of the run folder: malformed replies, hangs, two runs at once, corruption."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.execute.cache import ResponseCache
from langbite.execute.engine import Engine, Job
from langbite.execute.journal import Journal, read_journal
from langbite.execute.providers import build_service
from langbite.execute.services import close_services
from langbite.model import Answer, GenerationParams, ModelSpec

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import BAD_REPLIES, MockConfig, MockOpenAI, default_reply  # noqa: E402
from synthetic import make_campaign  # noqa: E402

GOOD = default_reply("")


def run_jobs(base_url: str, n: int, tmp_path: Path, *, retries: int = 2, timeout: float = 5.0,
             cache: ResponseCache | None = None) -> tuple[Engine, dict[tuple[str, str, int], Answer]]:
    spec = ModelSpec("openai:mock-model", base_url=base_url)
    engine = Engine({spec.spec: build_service(spec)}, GenerationParams(0.0, 16, 1), retries=retries,
                    timeout=timeout, cache=cache, journal=Journal(tmp_path))

    async def go() -> None:
        jobs = {spec.spec: [Job(spec.spec, f"k{i}", f"question {i}?", 0) for i in range(n)]}
        try:
            await engine.run(jobs, {spec.spec: 4}, n, progress=False)
        finally:
            await close_services(engine.services.values())

    asyncio.run(go())
    assert engine.journal is not None
    engine.journal.close()
    return engine, read_journal(tmp_path)


READABLE = {
    "null_content": "the model returned no content (null)",
    "no_choices": "the server returned no choices",
    "invalid_json": "the server's reply is not valid JSON",
    "html_200": "the server sent an HTML page (502 Bad Gateway) instead of an answer",
    "html_502": "HTTP 502: the server sent an HTML page (502 Bad Gateway) instead of an answer",
}


@pytest.mark.parametrize("mode", sorted(BAD_REPLIES))
def test_a_malformed_reply_is_an_error_with_a_reason_and_never_an_answer(mode: str, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    with MockOpenAI(MockConfig(bad_reply=mode)) as server:
        engine, answers = run_jobs(server.base_url, 3, tmp_path / "run", retries=1, cache=cache)
        sent = server.stats.bad
    assert sent == 6 and engine.stats.calls == 6 and engine.stats.retries == 3  # retried, as a retry may help
    assert len(answers) == 3
    for a in answers.values():
        assert a.text == "" and a.error.startswith(READABLE[mode]), a.error
        assert "Error" not in a.error.split(":")[0] and "<" not in a.error  # no class name, no markup
    assert cache.count() == 0  # nothing cached: the next run asks again
    cache.close()


@pytest.mark.parametrize("mode", sorted(BAD_REPLIES))
def test_a_malformed_reply_is_retried_until_a_real_answer_comes(mode: str, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    with MockOpenAI(MockConfig(bad_reply=mode, bad_rate=0.5, seed=5)) as server:
        engine, answers = run_jobs(server.base_url, 12, tmp_path / "run", retries=6, cache=cache)
        bad = server.stats.bad
    assert bad > 0 and engine.stats.retries == bad
    assert {a.text for a in answers.values()} == {GOOD} and not any(a.error for a in answers.values())
    assert cache.count() == 12
    cache.close()


def test_a_server_that_never_answers_is_bounded_by_the_timeout(tmp_path: Path) -> None:
    with MockOpenAI(MockConfig(hang_rate=1.0, hang_seconds=30)) as server:
        started = time.monotonic()
        engine, answers = run_jobs(server.base_url, 4, tmp_path, retries=0, timeout=0.3)
    assert time.monotonic() - started < 5
    assert [a.error for a in answers.values()] == ["timed out after 0.3 s"] * 4


# --- the run folder -------------------------------------------------------------------------------------


def langbite(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "langbite", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd)


def campaign(tmp: Path, templates: int = 6, communities: int = 4) -> list[str]:
    library, model = make_campaign(tmp / "campaign", templates, communities, model="openai:mock-gpt", concurrency=2)
    return [str(model), "--templates", str(library), "-q"]


def test_a_second_run_on_the_same_folder_refuses_at_once(tmp_path: Path) -> None:
    args = campaign(tmp_path, templates=10)
    out = tmp_path / "run"
    with MockOpenAI(MockConfig(latency=0.1)) as server:
        first = langbite("run", *args, "--base-url", server.base_url, "--out", str(out), cwd=tmp_path)
        deadline = time.monotonic() + 30
        while not (out / "answers.jsonl").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        started = time.monotonic()
        second = langbite("run", *args, "--base-url", server.base_url, "--out", str(out), cwd=tmp_path)
        _, err = second.communicate(timeout=60)
        refused_in = time.monotonic() - started
        assert first.poll() is None, "the first run must still be running"
        first.communicate(timeout=120)
        requests = server.stats.requests
    assert second.returncode == 2 and refused_in < 10
    [line] = err.strip().splitlines()
    assert f"another langbite process (pid {first.pid})" in line and str(out) in line
    assert first.returncode == 0 and requests == 40  # no call twice
    assert len((out / "answers.jsonl").read_text().splitlines()) == 40
    assert not (out / ".lock").exists()


def test_a_stale_lock_from_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    args = campaign(tmp_path)
    out = tmp_path / "run"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    write(out / ".lock", str(dead.pid))
    with MockOpenAI(MockConfig()) as server:
        proc = langbite("run", *args, "--base-url", server.base_url, "--out", str(out), cwd=tmp_path)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert (out / "responses.csv").exists() and not (out / ".lock").exists()


def _run(args: list[str], out: Path, server: MockOpenAI, tmp: Path, *extra: str) -> tuple[int, str]:
    proc = langbite("run", *args, "--base-url", server.base_url, "--out", str(out), *extra, cwd=tmp)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def test_an_unreadable_journal_line_is_warned_about_and_run_again(tmp_path: Path) -> None:
    args = campaign(tmp_path)
    out = tmp_path / "run"
    with MockOpenAI(MockConfig()) as server:
        code, _ = _run(args, out, server, tmp_path, "--no-cache")
        reference = (out / "responses.csv").read_text(encoding="utf-8")
        lines = (out / "answers.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        lines[5] = '{"model": "openai:mock-gpt", "key": 12, "garbled\n'
        (out / "answers.jsonl").write_text("".join(lines), encoding="utf-8")
        before = server.stats.requests
        code, err = _run(args, out, server, tmp_path, "--no-cache")
        again = server.stats.requests - before
    assert code == 0
    assert f"{out / 'answers.jsonl'}:6: unreadable line ignored; its prompt runs again on resume" in err
    assert again == 1  # only the unreadable answer was asked for again
    assert (out / "responses.csv").read_text(encoding="utf-8") == reference


def _garble(path: Path) -> None:
    """Overwrite the middle of a database file with noise: a valid header, broken pages."""
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 3, len(data)):
        data[i] = (i * 7919) % 251
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["truncated", "garbled", "not a database"])
def test_a_damaged_cache_is_recovered_and_cache_commands_work_on_it(damage: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("LANGBITE_CACHE_DIR", str(cache_dir))
    args = campaign(tmp_path)
    with MockOpenAI(MockConfig()) as server:
        assert _run(args, tmp_path / "first", server, tmp_path)[0] == 0
        db = cache_dir / "responses.sqlite3"
        with sqlite3.connect(db) as c:  # fold the write-ahead log in, so the damage hits the answers
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if damage == "truncated":
            db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
        elif damage == "garbled":
            _garble(db)
        else:
            db.write_text("these are not the answers you are looking for\n" * 50)
        info = subprocess.run([sys.executable, "-m", "langbite", "cache", "info"], capture_output=True, text=True,
                              cwd=tmp_path)
        code, err = _run(args, tmp_path / "second", server, tmp_path)
        clear = subprocess.run([sys.executable, "-m", "langbite", "cache", "clear"], capture_output=True,
                               text=True, cwd=tmp_path)
    assert info.returncode == 0 and "cached answers" in info.stdout and "Traceback" not in info.stderr
    assert code == 0 and "Traceback" not in err, err
    assert (tmp_path / "second" / "responses.csv").read_text() == (tmp_path / "first" / "responses.csv").read_text()
    assert clear.returncode == 0 and "Traceback" not in clear.stderr, clear.stderr
    assert "response cache" in (info.stderr + err + clear.stderr)  # the damage was reported, as a warning
    assert ResponseCache(db).count() == 0  # cleared: a sound, empty cache


def _finished_run(tmp: Path, server: MockOpenAI) -> tuple[list[str], Path]:
    args = campaign(tmp)
    out = tmp / "run"
    assert _run(args, out, server, tmp)[0] == 0
    return args, out


def _report(out: Path, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "langbite", "report", str(out)], capture_output=True, text=True,
                          cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr


def test_report_refuses_a_folder_whose_journal_is_missing_and_keeps_its_csvs(tmp_path: Path) -> None:
    with MockOpenAI(MockConfig()) as server:
        _, out = _finished_run(tmp_path, server)
    csvs = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.glob("*.csv")}
    (out / "answers.jsonl").unlink()
    code, _, err = _report(out, tmp_path)
    assert code == 2
    [line] = err.strip().splitlines()
    assert "answers.jsonl is missing" in line and "left as they are" in line
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.glob("*.csv")} == csvs


def test_a_damaged_config_json_is_one_line_naming_it(tmp_path: Path) -> None:
    with MockOpenAI(MockConfig()) as server:
        args, out = _finished_run(tmp_path, server)
        (out / "config.json").write_text('{"n_templates": 0, "requirements": [', encoding="utf-8")
        report = _report(out, tmp_path)
        code, err = _run(args, out, server, tmp_path)
    assert report[0] == 2
    [line] = report[2].strip().splitlines()
    assert str(out / "config.json") in line and "damaged" in line and "new folder" in line
    assert code == 2
    [line] = err.strip().splitlines()
    assert "config.json" in line and "--out" in line


def test_a_damaged_run_json_is_one_warning_and_the_reports_are_rebuilt(tmp_path: Path) -> None:
    with MockOpenAI(MockConfig()) as server:
        _, out = _finished_run(tmp_path, server)
    csv_before = (out / "responses.csv").read_text(encoding="utf-8")
    (out / "run.json").write_text('{"langbite_run": 2, "started": ', encoding="utf-8")
    (out / "report.html").unlink()
    code, _, err = _report(out, tmp_path)
    assert code == 0 and "Traceback" not in err
    [line] = err.strip().splitlines()
    assert str(out / "run.json") in line and "damaged" in line
    assert (out / "report.html").exists() and (out / "responses.csv").read_text(encoding="utf-8") == csv_before


@pytest.mark.parametrize("bad_line", ['{"key": "k", "rep', '["not", "a", "record"]', '{"reply": "Yes"}'])
def test_a_damaged_judge_memo_line_is_one_warning(bad_line: str, tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    from langbite.evaluate.judge import JudgeMemo

    write(tmp_path / "judge.jsonl", '{"key": "k1", "reply": "Yes"}\n' + bad_line + '\n{"key": "k2", "reply": "No"}\n')
    memo = JudgeMemo(tmp_path)
    assert memo.replies == {"k1": "Yes", "k2": "No"}
    [warning] = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning == f"{tmp_path / 'judge.jsonl'}:2: unreadable line ignored; the judge is asked again for it on " \
                      "the next run"


def test_a_judge_memo_with_bytes_that_are_not_utf8_still_loads(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    from langbite.evaluate.judge import JudgeMemo

    (tmp_path / "judge.jsonl").write_bytes(b'{"key": "k1", "reply": "Yes"}\n\xff\xfe{"key": \n')
    assert JudgeMemo(tmp_path).replies == {"k1": "Yes"}
    assert any("judge.jsonl:2" in r.getMessage() for r in caplog.records)


def test_the_lock_names_the_holder_pid(tmp_path: Path) -> None:
    from langbite.errors import InputErrors
    from langbite.rundir import locked

    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        write(tmp_path / ".lock", str(holder.pid))
        with pytest.raises(InputErrors) as caught:
            with locked(tmp_path):
                pass
        assert f"pid {holder.pid}" in str(caught.value)
    finally:
        holder.kill()
        holder.wait()
    assert (tmp_path / ".lock").read_text() == str(holder.pid)  # the live holder's lock was left alone


@pytest.mark.parametrize(("body", "reason"), [
    (b'{"error": {"message": "model  overloaded", "type": "server_error"}}',
     "the server answered with an error: model overloaded"),
    (b'{"error": "quota exceeded"}', "the server answered with an error: quota exceeded"),
    (b'["a", "list"]', "the server's reply is not a chat completion (it is a JSON list)"),
    (b'{"choices": [{"message": {"content": ["part"]}}]}', "the model's content is a JSON list, not text"),
    (b'{"choices": [{"message": null}]}', "the model returned no content (null)"),
    (b'{"choices": {"0": {}}}', "the server returned no choices"),
    (b"", "the server sent an empty reply"),
    (b"   \n", "the server sent an empty reply"),
    (b"\xff\xfe not text", "the server's reply is not valid JSON"),
    (b"<html><body>Sign in</body></html>", "the server sent an HTML page instead of an answer"),
])
def test_read_completion_says_what_came_instead_of_an_answer(body: bytes, reason: str) -> None:
    from langbite.execute.services import InvalidReply, read_completion

    with pytest.raises(InvalidReply) as caught:
        read_completion(body)
    assert str(caught.value).startswith(reason), str(caught.value)


def test_read_completion_reads_text_and_token_counts() -> None:
    from langbite.execute.services import Generation, read_completion

    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "No."}}],
                       "usage": {"prompt_tokens": 12, "completion_tokens": 2}}).encode()
    assert read_completion(body) == Generation("No.", 12, 2)
    no_usage = b'{"choices": [{"message": {"content": ""}}], "usage": {"prompt_tokens": "x"}}'
    assert read_completion(no_usage) == Generation("", 0, 0)
