"""The audit pack: a PDF that carries the manifest of the run folder, and verify, which fails on any change."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conftest import REPO
from langbite.cli import main
from langbite.model import ExitCode

QUICKSTART = REPO / "requirements_models" / "quickstart.json"
ANSWER = "=cmd|' /C calc'!A0 <b>No</b> 🙂 مرحبا 你好"  # a formula, markup and scripts the font may lack: all data


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> Path:
    pytest.importorskip("fpdf", reason="the audit PDF needs the pdf extra (fpdf2)")
    run = tmp_path / "run"
    assert main(["run", str(QUICKSTART), "--llm", f"fake:{ANSWER}", "--out", str(run), "-q", "--no-cache"]) in (
        ExitCode.PASSED, ExitCode.FAILED, ExitCode.INCONCLUSIVE)
    monkeypatch.setenv("LANGBITE_SIGNING_KEY", "audit-key")
    main(["report", str(run), "--pdf"])
    capsys.readouterr()
    return run


def test_the_pdf_opens_and_carries_the_manifest_of_every_other_file(pack: Path) -> None:
    pdf = (pack / "audit.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF") and pdf.count(b"/Type /Page\n") >= 2
    assert b"inputs-manifest.json" in pdf
    for name in ("responses.csv", "evaluations.csv", "run.json", "config.json", "report.xlsx"):
        assert hashlib.sha256((pack / name).read_bytes()).hexdigest().encode() in pdf, name
    manifest = json.loads((pack / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert manifest["audit.pdf"] == hashlib.sha256(pdf).hexdigest()
    assert set(manifest) == {p.relative_to(pack).as_posix() for p in pack.rglob("*") if p.is_file()} - {
        "manifest.json", "manifest.sig"}
    assert (pack / "manifest.sig").read_text(encoding="utf-8").strip()


def test_verify_passes_an_untouched_folder(pack: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["verify", str(pack)]) == ExitCode.PASSED
    assert "signature checked" in capsys.readouterr().out


@pytest.mark.parametrize("change", ["edit", "delete", "add", "manifest", "signature"])
def test_verify_fails_on_any_change_and_names_it(pack: Path, change: str, capsys: pytest.CaptureFixture,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    target = pack / "evaluations.csv"
    if change == "edit":
        target.write_text(target.read_text(encoding="utf-8").replace("Failed", "Passed"), encoding="utf-8")
    elif change == "delete":
        target.unlink()
    elif change == "add":
        target = pack / "notes.txt"
        target.write_text("added later\n", encoding="utf-8")
    elif change == "manifest":  # hashes rewritten to match an edit: only the signature can tell
        target.write_text("edited\n", encoding="utf-8")
        doc = json.loads((pack / "manifest.json").read_text(encoding="utf-8"))
        doc["files"]["evaluations.csv"] = hashlib.sha256(b"edited\n").hexdigest()
        (pack / "manifest.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        target = pack / "manifest.sig"
    else:
        monkeypatch.setenv("LANGBITE_SIGNING_KEY", "another-key")
        target = pack / "manifest.sig"
    assert main(["verify", str(pack)]) == ExitCode.TAMPERED
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith(str(pack)) for line in err)
    assert any(line.startswith(f"{target}:") for line in err), err


def test_verify_without_a_manifest_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["verify", str(tmp_path)]) == ExitCode.BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{tmp_path}: has no manifest.json")


def test_model_text_is_data_in_the_pdf(pack: Path) -> None:
    """The answer is in the PDF's text as written (a formula stays text); scripts the font lacks are left out."""
    import shutil
    import subprocess

    if shutil.which("pdftotext") is None:
        pytest.skip("needs pdftotext (poppler-utils) to read the PDF's text")
    text = subprocess.run(["pdftotext", str(pack / "audit.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "=cmd|' /C calc'!A0 <b>No</b>" in text and "4. Evidence of every failure" in text
    assert "6. Manifest of inputs and outputs" in text


def test_the_pack_groups_results_by_the_obligations_the_model_names(tmp_path: Path) -> None:
    import shutil
    import subprocess

    pytest.importorskip("fpdf", reason="the audit PDF needs the pdf extra (fpdf2)")
    if shutil.which("pdftotext") is None:
        pytest.skip("needs pdftotext (poppler-utils) to read the PDF's text")
    doc = json.loads(QUICKSTART.read_text(encoding="utf-8"))
    doc["requirements"][0]["obligations"] = ["EU AI Act Art. 10(2)(f): examination of possible biases"]
    model = tmp_path / "m.json"
    model.write_text(json.dumps(doc), encoding="utf-8")
    run = tmp_path / "run"
    main(["run", str(model), "--llm", "fake:No.", "--out", str(run), "-q", "--no-cache"])
    main(["report", str(run), "--pdf"])
    text = subprocess.run(["pdftotext", "-layout", str(run / "audit.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    part = text[text.index("Results by obligation"):text.index("4. Evidence of every failure")]
    assert "EU AI Act Art. 10(2)(f)" in part and doc["requirements"][0]["name"] in part
    assert doc["requirements"][1]["name"] not in part  # only the requirement that names the obligation


def test_the_workbook_puts_the_evidence_side_by_side(pack: Path) -> None:
    import csv

    from openpyxl import load_workbook

    sheet = load_workbook(pack / "report.xlsx", read_only=True)["Evidence"]
    table = list(sheet.iter_rows(values_only=True))
    expected = list(csv.DictReader((pack / "evidence.csv").open(encoding="utf-8")))
    assert table[0][:5] == ("provider", "model", "requirement", "language", "template_id")
    assert len(table) - 1 == len(expected) and expected
    answer = table[0].index("answer")
    unguarded = {v[1:] if v[:1] == "'" and v[1:2] in "=+-@" else v for v in (row["answer"] for row in expected)}
    assert {row[answer] for row in table[1:]} == unguarded  # the CSV guards formulas with a quote; cells are text
