"""Regenerate the report images of the documentation from a fresh run of the quickstart.

    python docs/render_reports.py [--llm local:smollm2] [--out runs/docs-images]

Runs ``requirements_models/quickstart.json`` (on the embedded model by default, with no cache, so the
answers are today's), then draws, into ``docs/images/``:

- ``report-first-screen.png``: the workbook's first screen (``langbite.report.firstscreen``, Pillow);
- ``report-page.png``: ``report.html`` in headless Chromium at 1280 px, its first 1,600 px;
- ``report-charts.png``: the workbook's Charts sheet as LibreOffice renders it (headless ``soffice``
  to PDF, then ``pdftoppm``): the pass rates with their intervals, the tolerance and n.

Chromium, LibreOffice and poppler come from the system's package manager (``apt-get install chromium
libreoffice-calc-nogui poppler-utils``); a missing one is named and its image skipped.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IMAGES = REPO / "docs" / "images"


def run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if done.returncode not in (0, 1, 3):  # a run that finds bias exits 1: still a run to draw
        sys.exit(f"{' '.join(argv[:3])} failed ({done.returncode}): {done.stderr[-1500:]}")


def first_screen(run_dir: Path) -> None:
    from langbite.report.firstscreen import render

    render(run_dir / "report.xlsx", IMAGES / "report-first-screen.png")
    print(f"wrote {IMAGES / 'report-first-screen.png'}")


def page(run_dir: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        print("skipped report-page.png: no Chromium (apt-get install chromium)")
        return
    target = IMAGES / "report-page.png"
    run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--screenshot={target}",
         "--window-size=1280,1600", (run_dir / "report.html").resolve().as_uri()])
    print(f"wrote {target}")


def charts(run_dir: Path) -> None:
    office, pdftoppm, pdftotext = shutil.which("soffice"), shutil.which("pdftoppm"), shutil.which("pdftotext")
    if not (office and pdftoppm and pdftotext):
        print("skipped report-charts.png: needs soffice and pdftoppm (apt-get install libreoffice-calc-nogui "
              "poppler-utils)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        run([office, "--headless", "--convert-to", "pdf", "--outdir", tmp, str(run_dir / "report.xlsx")])
        pdf = Path(tmp) / "report.pdf"
        page_no = 0
        for i in range(1, 40):
            text = subprocess.run([pdftotext, "-f", str(i), "-l", str(i), str(pdf), "-"], capture_output=True,
                                  text=True).stdout
            if not text:
                break
            if "Pass rate per requirement, model and language\n" in text:
                page_no = i
                break
        if not page_no:
            print("skipped report-charts.png: the Charts sheet's chart was not found in LibreOffice's PDF")
            return
        run([pdftoppm, "-r", "110", "-f", str(page_no), "-l", str(page_no), "-png", "-singlefile", str(pdf),
             str(IMAGES / "report-charts")])
    print(f"wrote {IMAGES / 'report-charts.png'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="local:smollm2")
    parser.add_argument("--out", type=Path, help="the run folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.out or Path(tmp) / "quickstart"
        run([sys.executable, "-m", "langbite", "run", str(REPO / "requirements_models" / "quickstart.json"),
             "--llm", args.llm, "--out", str(run_dir), "--no-cache", "-q"])
        IMAGES.mkdir(parents=True, exist_ok=True)
        first_screen(run_dir)
        page(run_dir)
        charts(run_dir)


if __name__ == "__main__":
    main()
