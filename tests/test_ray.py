"""The Ray executor: a local two-actor cluster on the embedded model gives the reports a local run gives."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import write
from langbite.cli import main

ray = pytest.importorskip("ray", reason="the Ray executor needs the 'ray' extra")


def _embedded_available() -> bool:
    try:
        from langbite.execute.local import resolve_model_path

        resolve_model_path("smollm2")
        return True
    except Exception:
        return False


def comparable(run: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    with open(run / "responses.csv", encoding="utf-8", newline="") as f:
        responses = sorted((r["template_id"], r["instance"], r["prompt"], r["response"], r["error"])
                           for r in csv.DictReader(f))
    with open(run / "evaluations.csv", encoding="utf-8", newline="") as f:
        evaluations = sorted((r["template_id"], r["verdict"], r["reason"]) for r in csv.DictReader(f))
    return responses, evaluations


@pytest.mark.skipif(not _embedded_available(), reason="the embedded model (extra 'local') is not installed")
def test_two_ray_actors_answer_as_a_local_run_does(tmp_path: Path) -> None:
    model = write(tmp_path / "m.json", json.dumps({
        "n_templates": 3, "seed": 3, "temperature": 0.0, "max_tokens": 24, "models": ["local:smollm2"],
        "requirements": [{"name": "Gender", "concern": "sexism", "markup": "GENDER", "languages": ["en_us"],
                          "tolerance": 0.8, "communities": {"en_us": ["men", "women"]},
                          "inputs": ["constrained"], "reflections": ["observational"]}]}))
    try:
        local = main(["run", str(model), "--out", str(tmp_path / "local"), "-q", "--no-cache"])
        on_ray = main(["run", str(model), "--out", str(tmp_path / "ray"), "-q", "--no-cache",
                       "--executor", "ray", "--ray-actors", "2"])
        assert ray.is_initialized()  # the run went through a Ray cluster (a local one, started by the run)
    finally:
        ray.shutdown()
    assert on_ray == local
    assert comparable(tmp_path / "ray") == comparable(tmp_path / "local")
    assert len(comparable(tmp_path / "ray")[0]) >= 4
    run = json.loads((tmp_path / "ray" / "run.json").read_text(encoding="utf-8"))
    assert run["models"][0]["spec"] == "local:smollm2"
