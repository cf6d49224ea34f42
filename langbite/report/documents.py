"""The documents of a run: ``report.xlsx`` and ``report.html``, from its suites' results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langbite.report.data import gather
from langbite.report.excel_writer import write_excel
from langbite.report.html_writer import write_html


def write_documents(run_dir: Path, plan: Any, results: Sequence[Any]) -> None:
    """Write the workbook and the page of a run folder (``plan`` is kept for writers that need the run's setup)."""
    data = gather(run_dir, results)
    write_excel(run_dir / "report.xlsx", data)
    write_html(run_dir / "report.html", data)
