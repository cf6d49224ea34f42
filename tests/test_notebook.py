"""The Python API in a real Jupyter kernel (nbclient + ipykernel), where an event loop is already running."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import REPO

NOTEBOOK = REPO / "tests" / "data" / "notebooks" / "langbite_api.ipynb"


def test_readme_api_and_a_probe_run_in_a_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs the 'test' extra")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs the 'test' extra")
    pytest.importorskip("ipykernel", reason="the notebook test needs the 'test' extra")
    work = tmp_path / "nb"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    # the kernel is a child process: it inherits these (fake:… answers instantly, so the test is fast)
    monkeypatch.setenv("LANGBITE_REPO", str(REPO))
    monkeypatch.setenv("LANGBITE_NOTEBOOK_MODEL", "fake:No. He is a kind man.")
    notebook = nbformat.read(work / NOTEBOOK.name, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(work)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "\n".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "verdict" in text and "(1.0, 0.0)" in text  # every character written as "he"
    assert (work / "run" / "global_evaluation.csv").exists() and os.path.exists(work / "run" / "report.xlsx")
