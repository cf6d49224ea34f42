"""The Python API with pandas: DataFrames from the API and from load_run, LangBiTe's columns, async methods."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from conftest import REPO
from langbite import LangBiTe, load_run

pd = pytest.importorskip("pandas")
QUICKSTART = REPO / "requirements_models" / "quickstart.json"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("api") / "run"
    return LangBiTe(file=QUICKSTART, llms=["scripted:biased"], out=out).execute_full_scenario()


def test_report_gives_dataframes_with_both_vocabularies(reports: dict) -> None:
    for key in ("responses", "evaluations", "global_eval"):
        assert isinstance(reports[key], pd.DataFrame) and len(reports[key]) > 0
    g = reports["global_eval"]
    assert {"pass_rate", "verdict", "Passed Pct", "Failed Pct", "Tolerance Evaluation", "Passed Nr", "Error Nr",
            "Total"} <= set(g.columns)
    decided = g["passed"] + g["failed"]
    assert ((g["Passed Pct"] * decided).round(6) == g["passed"].astype(float)).all()
    e = reports["evaluations"]
    assert {"Template", "Oracle Evaluation", "Evaluation"} <= set(e.columns)
    assert e["Template"].str.contains("{", regex=False).any()  # the template text, markups in
    r = reports["responses"]
    assert {"Instance", "Response"} <= set(r.columns) and not r["Instance"].str.contains("{", regex=False).any()


def test_load_run_types_its_columns(reports: dict) -> None:
    frames = load_run(reports["run_dir"])
    g = frames["global_eval"]
    assert isinstance(g["verdict"].dtype, pd.CategoricalDtype) and pd.api.types.is_float_dtype(g["pass_rate"])
    assert pd.api.types.is_integer_dtype(g["passed"]) and isinstance(frames["run"]["started"], pd.Timestamp)
    assert frames["responses"]["cached"].dtype == bool
    assert frames["global_eval"].equals(reports["global_eval"])


def test_async_api_inside_a_running_loop(tmp_path: Path) -> None:
    async def notebook_cell() -> tuple[dict, dict]:
        awaited = await LangBiTe(file=QUICKSTART, llms=["scripted:fair"], out=tmp_path / "a").aexecute_full_scenario()
        synced = LangBiTe(file=QUICKSTART, llms=["scripted:fair"], out=tmp_path / "b").execute_full_scenario()
        return awaited, synced  # the sync call works although a loop is running

    awaited, synced = asyncio.run(notebook_cell())
    assert awaited["exit_code"] == synced["exit_code"] == 0
    assert awaited["global_eval"]["verdict"].tolist() == synced["global_eval"]["verdict"].tolist()


def test_load_run_of_a_folder_that_is_not_a_run_is_bad_input(tmp_path: Path) -> None:
    from langbite.errors import InputErrors

    with pytest.raises(InputErrors, match="not a run folder"):
        load_run(tmp_path)


def test_global_eval_has_one_row_per_requirement_model_and_language_as_every_output(tmp_path: Path) -> None:
    """The Python API counts as the console, run.json and the JSON summary do; the breakdown has its own frame."""
    import json

    from langbite import LangBiTe
    from langbite.cli import main

    tester = LangBiTe(file=str(REPO / "requirements_models" / "quickstart.json"), llms=["fake:No."],
                      out=tmp_path / "api", use_cache=False)
    reports = tester.execute_full_scenario()
    table = reports["global_eval"]
    assert len(table) == 3 and table.groupby(["requirement", "model", "language"]).size().max() == 1
    run = json.loads((tmp_path / "api" / "run.json").read_text())
    assert run["counts"]["groups_total"] == len(table)
    assert run["counts"]["groups_passed"] == int((table["verdict"] == "Passed").sum())
    assert main(["report", str(tmp_path / "api"), "--json", str(tmp_path / "s.json")]) in (0, 1, 3)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert [(r["requirement"], r["verdict"]) for r in summary["requirements"]] == list(
        zip(table["requirement"], table["verdict"]))
    assert len(reports["global_eval_breakdown"]) >= len(table)
