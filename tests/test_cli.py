"""The command line as a user meets it: help with examples and exit codes, the summary table, Ctrl-C."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from langbite import cli

QUICKSTART = REPO / "requirements_models" / "quickstart.json"


def test_help_lists_examples_and_every_exit_code() -> None:
    out = subprocess.run([sys.executable, "-m", "langbite", "--help"], capture_output=True, text=True).stdout
    assert "examples:" in out and "langbite run requirements_models/quickstart.json" in out
    for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "130"):
        assert f"\n  {code}" in out
    run_help = subprocess.run([sys.executable, "-m", "langbite", "run", "--help"], capture_output=True, text=True)
    assert "could not evaluate" in run_help.stdout


def test_ctrl_c_prints_the_exact_resume_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    import langbite.runner

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(langbite.runner, "run", interrupted)
    argv = ["run", str(QUICKSTART), "--llm", "scripted:fair", "--templates", str(REPO / "templates")]
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    command = err.strip().splitlines()[-1].strip()
    words = shlex.split(command)
    assert words[:len(argv) + 1] == ["langbite", *argv] and words[-2] == "--out"
    assert "langbite-runs" in words[-1]
    assert cli.main([*argv, "--out", str(tmp_path / "r one")]) == 130
    command = capsys.readouterr().err.strip().splitlines()[-1].strip()
    assert shlex.split(command) == ["langbite", *argv, "--out", str(tmp_path / "r one")]


def test_summary_counts_the_rows_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    code = cli.main(["run", str(QUICKSTART), "--llm", "scripted:biased", "--out", str(tmp_path / "r"), "-q"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    header = next(i for i, line in enumerate(out) if line.startswith("model "))
    for name in ("passed", "failed", "refused", "undet.", "errors", "pass %"):
        assert name in out[header]
    rows = [line for line in out[header + 1:] if line.startswith("scripted:")]
    count = next(line for line in out if "requirement × model × language passed" in line)
    passed = sum(1 for r in rows if r.rstrip().endswith("Passed"))
    assert count.startswith(f"{passed} of {len(rows)} ")
    assert not any("\033[" in line for line in out)
