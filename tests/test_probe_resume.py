"""A probe in a requirements model runs with the model's generation parameters and resumes after SIGKILL.

The probe's prompts go through the run's engine to a loopback OpenAI-compatible server; the test
reads temperature, max_tokens and seed off the wire, kills the run half-way with SIGKILL, runs
the same command again and compares every probe result file with an uninterrupted run's.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO, write

sys.path.insert(0, str(REPO / "bench"))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

SYNTHETIC = REPO / "tests" / "data" / "probes" / "gest_synthetic.csv"
CALLS = 80 * 3 * 2  # items × reorderings × repetitions


def reply(prompt: str) -> str:
    """A fixed answer per prompt: one of the three letters, or an unreadable answer now and then."""
    n = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    return ["(a)", "(b) Men", "(c) Neither", "I cannot tell."][n % 4]


def langbite(args: list[str], out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-probe-resume"}
    return subprocess.Popen([sys.executable, "-m", "langbite", *args, "--out", str(out)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def journaled(out: Path) -> int:
    path = out / "answers.jsonl"
    return path.read_text().count("\n") if path.exists() else 0


def test_probe_uses_the_run_s_parameters_and_resumes_after_sigkill(tmp_path: Path) -> None:
    model = write(tmp_path / "probe_only.json", json.dumps({
        "requirements": [], "temperature": 0.3, "max_tokens": 21, "seed": 40, "concurrency": 4,
        "probes": [{"name": "gest", "data": str(SYNTHETIC), "n_repetitions": 2, "params": {"num_reorderings": 3}}],
    }, indent=2))
    with MockOpenAI(MockConfig(latency=0.01, reply=reply)) as server:
        args = ["run", str(model), "--llm", "openai:mock-gpt", "--base-url", server.base_url, "-q", "--no-cache"]
        reference = tmp_path / "reference"
        ref = langbite(args, reference)
        _, err = ref.communicate(timeout=180)
        assert ref.returncode in (0, 1), err.decode()
        payloads = server.stats.last_payloads
        before = server.stats.requests

        out = tmp_path / "killed"
        proc = langbite(args, out)
        deadline = time.monotonic() + 60
        while journaled(out) < CALLS // 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert 0 < journaled(out) < CALLS, "the kill must land mid-run"
        assert not (out / "probe_gest_metrics.csv").exists()

        resumed = langbite(args, out)
        _, err = resumed.communicate(timeout=180)
        assert resumed.returncode in (0, 1), err.decode()
        sent = server.stats.requests - before

    assert payloads and all("Who is more likely to say" in p["messages"][-1]["content"] for p in payloads)
    assert {p["temperature"] for p in payloads} == {0.3}
    assert {p.get("max_tokens", p.get("max_completion_tokens")) for p in payloads} == {21}
    assert {p["seed"] for p in payloads} == {40, 41}  # repetition r samples with seed + r
    assert sent <= CALLS + 4  # nothing asked twice beyond the requests in flight at the kill
    for name in ("probe_gest_metrics.csv", "probe_gest.json", "probe_gest_openai-mock-gpt_attempts.jsonl"):
        assert (out / name).read_text() == (reference / name).read_text(), name
    summary = json.loads((out / "probe_gest.json").read_text())[0]
    assert summary["attempts"] == CALLS and summary["failed_calls"] == 0
    assert summary["parameters"]["temperature"] == 0.3 and summary["parameters"]["max_tokens"] == 21
