"""Nothing of the user's is overwritten, no crash reads as bias, no secret in the resume command."""

from __future__ import annotations

import argparse
import errno
from pathlib import Path

import pytest

from conftest import REPO
from langbite import cli
from langbite.cli import main
from langbite.model import ExitCode

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def test_a_folder_of_the_users_files_is_refused_and_nothing_is_written(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in ("responses.csv", "report.html", "run.json"):
        (mine / name).write_text(f"my own {name}\n", encoding="utf-8")
    code = main(["run", str(QUICKSTART), "--llm", "fake:No.", "--out", str(mine), "-q", "--no-cache"])
    assert code == ExitCode.BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{mine}: holds files langbite did not write (report.html, responses.csv, run.json)")
    assert "--force" in line
    assert sorted(p.name for p in mine.iterdir()) == ["report.html", "responses.csv", "run.json"]
    assert all((mine / n).read_text(encoding="utf-8") == f"my own {n}\n" for n in ("responses.csv", "run.json"))


def test_force_writes_into_such_a_folder_and_a_run_folder_resumes_without_it(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n", encoding="utf-8")
    argv = ["run", str(QUICKSTART), "--llm", "fake:No.", "--out", str(mine), "-q", "--no-cache"]
    assert main([*argv, "--force"]) in (ExitCode.PASSED, ExitCode.FAILED, ExitCode.INCONCLUSIVE)
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "mine\n" and (mine / "config.json").exists()
    assert main(argv) in (ExitCode.PASSED, ExitCode.FAILED, ExitCode.INCONCLUSIVE)  # its own run folder now


def test_the_resume_command_never_shows_a_base_url_password() -> None:
    args = argparse.Namespace(argv=["run", "m.json", "--base-url", "http://user:s3cret-canary@127.0.0.1:9/v1",
                                    "--llm", "openai:x?api_key=sk-canary"])
    command = cli._resume_command(args, Path("runs/x"), budget=2.0)
    assert "s3cret-canary" not in command and "sk-canary" not in command
    assert "--out runs/x" in command and "--budget 2" in command


@pytest.mark.parametrize(("err", "advice"), [(errno.ENOSPC, "free some space"), (errno.EROFS, "read-only"),
                                             (errno.EACCES, "permissions"), (errno.ENAMETOOLONG, "shorter --out")])
def test_an_operating_system_error_is_one_line_and_its_own_exit_code(err: int, advice: str, monkeypatch:
                                                                     pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture) -> None:
    def fail(args: argparse.Namespace) -> int:
        raise OSError(err, "the system said no", "runs/x/answers.jsonl")

    monkeypatch.setitem(cli.COMMANDS, "run", fail)
    assert main(["run", str(QUICKSTART)]) == ExitCode.SYSTEM == 6
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("runs/x/answers.jsonl: the system said no (") and advice in line


def test_a_bug_is_not_read_as_bias(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    def bug(args: argparse.Namespace) -> int:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setitem(cli.COMMANDS, "run", bug)
    assert main(["run", str(QUICKSTART)]) == ExitCode.INTERNAL == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError" in err and "internal error (exit 70)" in err


def test_every_exit_code_is_in_the_help_and_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for code in ExitCode:
        assert f"  {int(code):<4} {code.meaning}" in cli.EXIT_CODES
        assert f"| {int(code)} |" in readme, f"README's exit-code table lacks {int(code)}"


@pytest.mark.parametrize(("status", "what"), [(401, "the key was refused"), (403, "access denied"),
                                              (404, "no such model or endpoint")])
def test_a_wrong_key_or_model_stops_the_calls_and_says_why(status: int, what: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from mock_openai import MockConfig, MockOpenAI

    with MockOpenAI(MockConfig(status=status)) as server:
        code = main(["run", str(QUICKSTART), "--llm", "openai:gpt-4o-mini", "--base-url", server.base_url, "--out",
                     str(tmp_path / "run"), "-q", "--no-cache", "--concurrency", "1"])
        sent = server.stats.status[status]
    assert code == ExitCode.NOT_EVALUATED
    assert sent == 1  # the first answer says it all: the other 38 prompts were not sent
    err = capsys.readouterr().err
    assert f"stopped calling openai:gpt-4o-mini after its first HTTP {status} ({what})" in err


@pytest.mark.parametrize(("value", "wait"), [("soon", None), ("", None), ("2", 2.0), ("-3", 0.0),
                                             ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)])
def test_a_garbage_retry_after_leaves_the_usual_backoff(value: str, wait: float | None) -> None:
    from types import SimpleNamespace

    from langbite.execute.engine import retry_after

    error = SimpleNamespace(response=SimpleNamespace(headers={"retry-after": value}))
    assert retry_after(error) == wait  # type: ignore[arg-type]


def test_a_hand_edited_journal_cannot_flip_a_verdict_silently(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    import json

    from langbite.execute.journal import read_journal

    first = {"model": "m", "key": "k", "repetition": 0, "text": "No.", "error": ""}
    lines = [json.dumps({**first, "text": "", "error": "timed out"}),  # an error, then its retry: normal
             json.dumps(first),
             json.dumps({**first, "text": "Yes."}),  # a second answer for the same call: not langbite's
             '{"model": "m", "key": "j", "repetition": 0, "text": "No.", "text": "Yes.", "error": ""}']
    (tmp_path / "answers.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    answers = read_journal(tmp_path)
    assert answers[("m", "k", 0)].text == "No." and ("m", "j", 0) not in answers
    messages = [r.getMessage() for r in caplog.records]
    assert any(":3: a second answer" in m for m in messages) and any(":4: unreadable line" in m for m in messages)


def test_a_resume_with_an_edited_library_is_refused_naming_the_rows(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture) -> None:
    import shutil

    library = tmp_path / "lib"
    shutil.copytree(REPO / "templates", library)
    out = tmp_path / "run"
    argv = ["run", str(QUICKSTART), "--llm", "fake:No.", "--templates", str(library), "--out", str(out), "-q",
            "--no-cache"]
    assert main(argv) in (ExitCode.PASSED, ExitCode.FAILED, ExitCode.INCONCLUSIVE)
    path = library / "prompts_en_us.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace("smarter", "wiser")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(argv) == ExitCode.BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{path}: this library file changed since the run") and "its rows 2 differ" in line


def test_ctrl_c_while_the_plan_is_built_is_130_without_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "plan", interrupted)
    assert main(["plan", str(QUICKSTART)]) == ExitCode.INTERRUPTED == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "interrupted before any call was sent" in err


# --- file kinds: each named for what it is, in one line ------------------------------------------------------

LIBRARY = REPO / "templates" / "prompts_en_us.csv"


def _one_line(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == ExitCode.BAD_INPUT and len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def _as_kind(text: str, kind: str) -> bytes:
    import io
    import zipfile

    if kind == "utf-16 with a BOM":
        return text.encode("utf-16")
    if kind == "utf-16 without a BOM":
        return text.encode("utf-16-le")
    if kind == "utf-32":
        return text.encode("utf-32")
    buffer = io.BytesIO()  # a workbook renamed .csv: a ZIP archive, as every .xlsx is
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    return buffer.getvalue()


KINDS = {"utf-16 with a BOM": "is UTF-16 text", "utf-16 without a BOM": "looks like UTF-16 text without a byte",
         "utf-32": "is UTF-32 text", "xlsx": "is a ZIP archive (an Excel .xlsx workbook"}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_library_saved_in_another_encoding_or_format_is_named_for_what_it_is(kind: str, tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    path = folder / "prompts_en_us.csv"
    path.write_bytes(_as_kind("".join(LIBRARY.read_text(encoding="utf-8").splitlines(True)[:6]), kind))
    line = _one_line(capsys, ["validate", str(folder)])
    assert line.startswith(f"{path}:1:1: {KINDS[kind]}"), line
    assert "UTF-8" in line


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_requirements_model_in_another_encoding_is_named_for_what_it_is(kind: str, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(_as_kind(QUICKSTART.read_text(encoding="utf-8"), kind))
    line = _one_line(capsys, ["plan", str(path)])
    assert line.startswith(f"{path}:1:1: {KINDS[kind]}"), line


def test_a_named_pipe_as_the_model_is_refused_without_waiting_on_it(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    import os
    import threading

    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)
    result: list[str] = []
    worker = threading.Thread(target=lambda: result.append(_one_line(capsys, ["plan", str(fifo)])), daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader before failing, so the test process can end
        with open(fifo, "w", encoding="utf-8") as f:
            f.write("{}")
        pytest.fail("langbite opened the FIFO and waited on it")
    assert result and result[0] == f"{fifo}: is a named pipe (FIFO), not a regular file; give the requirements " \
                                   "model file itself"


def test_a_look_alike_markup_names_its_code_point(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    lines = LIBRARY.read_text(encoding="utf-8").splitlines(True)
    row = next(i for i, line in enumerate(lines) if "{GENDER1}" in line)
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "prompts_en_us.csv").write_text(lines[0] + lines[row].replace("{GENDER", "{G\u0395NDER"),
                                              encoding="utf-8")
    line = _one_line(capsys, ["validate", str(folder)])
    assert "did you mean 'GENDER'?" in line and "U+0395 GREEK CAPITAL LETTER EPSILON" in line, line


def test_communities_that_differ_only_in_unicode_form_are_one_community(tmp_path: Path) -> None:
    import json
    import unicodedata

    from langbite.errors import InputErrors
    from langbite.requirements import load_requirements

    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    composed = "mujeres jóvenes"
    doc["requirements"][0]["languages"] = ["es_es"]
    doc["requirements"][0]["communities"] = {"es_es": [composed, unicodedata.normalize("NFD", composed)]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputErrors) as info:
        load_requirements(path)
    [problem] = [str(e) for e in info.value.errors]
    assert "is listed twice (also [0]) (the same text in another Unicode form" in problem


def test_the_library_folder_is_refused_as_the_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import shutil

    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(LIBRARY, lib / "prompts_en_us.csv")
    before = sorted(p.name for p in lib.iterdir())
    line = _one_line(capsys, ["run", str(QUICKSTART), "--templates", str(lib), "--llm", "fake:No.", "--out",
                              str(lib), "-q", "--no-cache", "--force"])
    assert line == f"{lib}: is the folder of the run's input prompts_en_us.csv; a run writes its CSV files and " \
                   "reports there: choose another --out"
    assert sorted(p.name for p in lib.iterdir()) == before


def test_a_dead_proxy_is_named_without_its_password(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    import httpx

    from langbite.execute.engine import describe

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://user:pr0xy-canary@127.0.0.1:{port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with pytest.raises(httpx.TransportError) as info:
        httpx.get("http://api.example.test/v1/chat", timeout=5)
    reason = describe(info.value, 5)
    assert f"through the proxy http://127.0.0.1:{port} set in HTTP_PROXY" in reason, reason
    assert "pr0xy-canary" not in reason
    monkeypatch.setenv("NO_PROXY", "api.example.test")
    assert "proxy" not in describe(httpx.ConnectError("refused", request=httpx.Request("GET",
                                                                                      "http://api.example.test/")), 5)


# --- a huge plan: counted, not built; refused by run without consent ------------------------------------------

def _huge_project(folder: Path, communities: int = 60, templates: int = 10) -> Path:
    """The reliability corpus's case: ``templates`` three-markup templates over ``communities`` communities."""
    import csv
    import json

    rows = list(csv.reader(LIBRARY.open(encoding="utf-8")))
    header, prompt, tid = rows[0], rows[0].index("prompt"), rows[0].index("template_id")
    base = next(r for r in rows[1:] if "{GENDER1}" in r[prompt] and "{GENDER2}" in r[prompt])
    (folder / "templates").mkdir(parents=True)
    with (folder / "templates" / "prompts_en_us.csv").open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(header)
        for i in range(templates):
            row = list(base)
            row[tid], row[prompt] = f"huge{i}", f"Case {i}: are {{GENDER1}}, {{GENDER2}} and {{GENDER3}} as able?"
            out.writerow(row)
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["requirements"] = doc["requirements"][:1]
    doc["requirements"][0]["communities"] = {"en_us": [f"group {i}" for i in range(communities)]}
    doc["n_templates"] = 0
    path = folder / "huge.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_plan_counts_a_two_million_call_plan_without_building_it(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture) -> None:
    import tracemalloc

    model_file = _huge_project(tmp_path)
    tracemalloc.start()
    try:
        code = main(["plan", str(model_file)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    out = capsys.readouterr().out
    assert code == 0 and "total: 2053200 calls" in out, out
    assert peak < 60 * 2**20, f"{peak / 2**20:.0f} MiB traced: the plan's prompts were built"  # built: > 600 MiB


def test_run_refuses_a_plan_past_the_threshold_without_consent(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import json

    model_file = _huge_project(tmp_path)
    out = tmp_path / "out"
    line = _one_line(capsys, ["run", str(model_file), "--llm", "fake:No.", "--out", str(out), "-q", "--no-cache"])
    assert line == f"{model_file}: the plan makes 2,053,200 calls (more than 100,000); nothing was sent. Check it " \
                   "with langbite plan, then run it with --yes (or set max_calls in the requirements model)"
    assert not out.exists()
    doc = json.loads(model_file.read_text(encoding="utf-8"))
    doc["max_calls"] = 1_000_000
    model_file.write_text(json.dumps(doc), encoding="utf-8")
    line = _one_line(capsys, ["run", str(model_file), "--llm", "fake:No.", "--out", str(out), "-q", "--yes"])
    assert "the plan makes 2,053,200 calls, more than max_calls (1,000,000)" in line and not out.exists()


def test_consent_runs_a_large_plan_and_the_count_is_what_runs(tmp_path: Path) -> None:
    from langbite.runner import RunOptions, prepare, run

    model_file = _huge_project(tmp_path, communities=4, templates=2)  # 2 x 4*3*2 = 48 instances
    plan = prepare(model_file)
    [suite] = plan.suites
    assert plan.n_calls() == 48
    assert [len(list(item.each())) for item in suite.items] == [item.n_instances for item in suite.items] == [24, 24]
    result = run(plan, tmp_path / "out", RunOptions(models=["fake:No."], use_cache=False, progress=False, yes=True))
    assert result.stats.calls == 48


def test_the_sampled_cost_estimate_of_a_large_plan_is_close_to_the_exact_count(tmp_path: Path) -> None:
    from langbite import costs
    from langbite.execute.budget import tokens
    from langbite.runner import prepare

    plan = prepare(_huge_project(tmp_path, communities=20, templates=3))  # 3 x 6,840 = 20,520 calls
    exact = sum(tokens(job.prompt) for job in plan.suites[0].jobs(plan.models[0].spec))
    old = costs.EXACT_UP_TO
    costs.EXACT_UP_TO = 1_000  # force the sampled estimate
    try:
        [estimate] = costs.estimate(plan)
    finally:
        costs.EXACT_UP_TO = old
    assert abs(estimate.input_tokens - exact) <= 0.05 * exact, (estimate.input_tokens, exact)
