"""Probes and ModelGenerator inside a running event loop, as in a Jupyter notebook.

``await probe.arun(generator)`` runs in the caller's loop; the synchronous ``probe.run`` and
``ModelGenerator.generate`` detect the running loop and run their coroutine on a worker thread,
instead of failing with "asyncio.run() cannot be called from a running event loop".
"""

from __future__ import annotations

import asyncio
import re
import sys

import pytest

from conftest import REPO
from langbite.probes import GestProbe, ModelGenerator

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

SYNTHETIC = REPO / "tests" / "data" / "probes" / "gest_synthetic.csv"


def men(prompt: str) -> str:
    """Always the option worded "Men", wherever it is shown."""
    return "(" + re.search(r"\(([abc])\) Men", prompt).group(1) + ") Men"  # type: ignore[union-attr]


class Men:
    def generate(self, texts: list[str]) -> list[str]:
        return [men(t) for t in texts]


def gest() -> GestProbe:
    return GestProbe(data=SYNTHETIC, num_reorderings=1, sample_k=12, calculate_cis=False)


def test_arun_and_run_inside_a_running_loop_against_a_loopback_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-notebook")
    with MockOpenAI(MockConfig(reply=men)) as server:
        async def notebook_cell() -> tuple[dict[str, float], dict[str, float], list[str | None]]:
            asyncio.get_running_loop()  # we are inside a loop, as a notebook cell is
            awaited = gest()
            await awaited.arun(ModelGenerator("openai:mock-gpt", base_url=server.base_url, progress=False,
                                              use_cache=False))
            blocking = gest()
            blocking.run(ModelGenerator("openai:mock-gpt", base_url=server.base_url, progress=False, use_cache=False))
            direct = ModelGenerator("openai:mock-gpt", base_url=server.base_url, progress=False, use_cache=False)
            return awaited.metrics, blocking.metrics, direct.generate(["(a) Women (b) Men", "(a) Men (b) Women"])

        awaited, blocking, answers = asyncio.run(notebook_cell())
        requests = server.stats.requests
    assert repr(awaited) == repr(blocking) and awaited["frequency_male_option"] == 1.0  # NaN-aware equality
    assert answers == ["(b) Men", "(a) Men"] and requests == 12 + 12 + 2


def test_arun_with_a_plain_generator_runs_it_off_the_loop() -> None:
    async def cell() -> float:
        probe = gest()
        _, metrics = await probe.arun(Men())
        return metrics["frequency_male_option"]

    assert asyncio.run(cell()) == 1.0
