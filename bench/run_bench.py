"""langbite benchmark: the harness against an OpenAI-compatible mock server on loopback.

    python bench/run_bench.py            # every scenario (about two minutes on two cores)
    python bench/run_bench.py --quick    # small sizes, to check the script works

Scenarios, each printed with its target:

- campaign: the LangBiTe example campaign in English (bench/langbite_example_en.json,
  2,999 calls over langbite's library) at 50 ms latency and concurrency 64: end-to-end
  wall time, execution time against ideal (calls × latency / concurrency), and the call
  rate against a bare ``openai.AsyncOpenAI`` loop and against ``ChatOpenAI.ainvoke``
  at the same concurrency, against the same mock.
- cached: the same campaign again with a warm response cache: calls made and execution
  time as a share of the cold run's.
- latency: 2,000 calls at 200 ms latency, concurrency 32: execution time against ideal.
- zero latency: calls per second of the harness and of the bare client.
- in-process: 100,000 prompt instances on an in-process fake chat model, end to end
  (instantiate, execute, evaluate, write CSVs and reports): instances per second and peak memory.
- help: how long ``langbite --help`` takes.

The mock runs in its own process; the machine's cores are shared by the mock and the
client, so absolute times drift between runs while the ratios hold.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

BENCH = Path(__file__).resolve().parent
CAMPAIGN = BENCH / "langbite_example_en.json"
WORK = Path(tempfile.mkdtemp(prefix="langbite-bench-"))
os.environ["LANGBITE_CACHE_DIR"] = str(WORK / "cache")  # never the user's cache
sys.path.insert(0, str(BENCH))

from synthetic import make_campaign  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def mock(latency: float) -> Iterator[str]:
    """The mock server in a child process; yields its base URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(BENCH / "mock_openai.py"), "--port", str(port),
                             "--latency", str(latency)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


def harness(model_file: Path, base_url: str | None, *, concurrency: int, use_cache: bool = False,
            templates: Path | None = None, lean: bool = True) -> dict[str, Any]:
    """One `langbite run`, in process, end to end (plan, execute, evaluate, every report)."""
    from langbite.execute import services
    from langbite.runner import RunOptions, prepare, run

    options = RunOptions(base_url=base_url, concurrency=concurrency, use_cache=use_cache, progress=False,
                         templates=[templates] if templates else [])
    out = Path(tempfile.mkdtemp(dir=WORK))
    services.ChatModelService.lean = lean  # class default: lean=False measures ChatOpenAI.ainvoke
    started = time.perf_counter()
    try:
        result = run(prepare(model_file, options), out, options)
    finally:
        services.ChatModelService.lean = True
    wall = time.perf_counter() - started
    shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "execution": result.stats.seconds, "calls": result.stats.calls,
            "cache_hits": result.stats.cache_hits, "errors": result.stats.errors,
            "instances": result.plan.n_calls}


def bare_openai(base_url: str, n: int, concurrency: int) -> float:
    """Seconds for n chat completions through a bare openai.AsyncOpenAI with a worker pool."""
    import openai

    async def go() -> float:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
        jobs = iter(range(n))

        async def worker() -> None:
            for i in jobs:
                await client.chat.completions.create(model="mock-gpt", max_tokens=60, temperature=0.0, seed=1,
                                                     messages=[{"role": "user", "content": f"Question {i}? Yes or No."}])

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
        await client.close()
        return elapsed

    return asyncio.run(go())


def row(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    mark = "" if ok is None else ("  ok" if ok else "  MISSED")
    print(f"  {name:<46} {value:>22}   {target}{mark}")


def campaign(quick: bool) -> None:
    latency, conc = 0.05, 64
    model = CAMPAIGN
    if quick:
        model = WORK / "campaign-quick.json"
        doc = json.loads(CAMPAIGN.read_text())
        doc["nTemplates"] = 2
        model.write_text(json.dumps(doc))
    rounds = 1 if quick else 3
    harness_runs, bare_secs, slow_runs = [], [], []
    with mock(latency) as url:
        cold = harness(model, url, concurrency=conc, use_cache=True)  # fills the cache for the re-run below
        n = cold["calls"]
        for _ in range(rounds):  # alternate, so that drift on a shared machine hits every contender alike
            harness_runs.append(harness(model, url, concurrency=conc))
            bare_secs.append(bare_openai(url, n, conc))
            slow_runs.append(harness(model, url, concurrency=conc, lean=False))
        warm = harness(model, url, concurrency=conc, use_cache=True)
    ideal = n * latency / conc
    wall = statistics.median(r["wall"] for r in harness_runs)
    execution = statistics.median(r["execution"] for r in harness_runs)
    rate, bare_rate = n / execution, n / statistics.median(bare_secs)
    slow_rate = n / statistics.median(r["execution"] for r in slow_runs)
    print(f"campaign: {model.name}, {n} calls, {latency * 1000:.0f} ms latency, concurrency {conc}, "
          f"median of {rounds} alternating rounds")
    row("end to end (plan, run, evaluate, reports)", f"{wall:.2f} s", "target < 8 s", wall < 8)
    row("execution phase / ideal", f"{execution:.2f} / {ideal:.2f} s")
    row("harness call rate", f"{rate:.0f} calls/s")
    row("bare openai.AsyncOpenAI call rate", f"{bare_rate:.0f} calls/s")
    row("harness / bare client", f"{rate / bare_rate:.0%}", "target >= 80%", rate / bare_rate >= 0.8)
    row("ChatOpenAI.ainvoke path (lean=False)", f"{slow_rate:.0f} calls/s ({slow_rate / bare_rate:.0%})")
    row("bare client alone for these calls", f"{n / bare_rate:.2f} s")
    print("cached re-run of the same campaign")
    row("calls made", str(warm["calls"]), "target 0", warm["calls"] == 0)
    row("cache hits", str(warm["cache_hits"]))
    share = warm["execution"] / cold["execution"]
    row("execution: cached / cold", f"{warm['execution']:.3f} / {cold['execution']:.2f} s = {share:.1%}",
        "target < 5%", share < 0.05)


def latency_bound(quick: bool) -> None:
    latency, conc, n = 0.2, 32, (200 if quick else 2000)
    library, model = make_campaign(WORK / "latency", templates=n // 20, communities=20, model="openai:mock-gpt",
                                   concurrency=conc)
    with mock(latency) as url:
        result = harness(model, url, concurrency=conc, templates=library)
    ideal = result["calls"] * latency / conc
    print(f"latency-bound: {result['calls']} calls, {latency * 1000:.0f} ms latency, concurrency {conc}")
    row("execution / ideal", f"{result['execution']:.2f} / {ideal:.2f} s = {result['execution'] / ideal:.2f}x",
        "target <= 1.2x", result["execution"] / ideal <= 1.2)


def zero_latency(quick: bool) -> None:
    conc, n = 64, (500 if quick else 3000)
    library, model = make_campaign(WORK / "zero", templates=n // 20, communities=20, model="openai:mock-gpt",
                                   concurrency=conc)
    with mock(0.0) as url:
        result = harness(model, url, concurrency=conc, templates=library)
        bare = bare_openai(url, result["calls"], conc)
    print(f"zero latency: {result['calls']} calls, concurrency {conc}")
    row("harness call rate", f"{result['calls'] / result['execution']:.0f} calls/s")
    row("bare openai.AsyncOpenAI call rate", f"{result['calls'] / bare:.0f} calls/s")


def in_process(quick: bool) -> None:
    templates, communities = (100, 100) if quick else (500, 200)
    library, model = make_campaign(WORK / "inproc", templates=templates, communities=communities)
    out = WORK / "inproc-run"
    cmd = [sys.executable, "-m", "langbite", "run", str(model), "--templates", str(library), "--out", str(out),
           "-q", "--no-cache"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    n = templates * communities
    peak_mb = usage.ru_maxrss / 1024
    print(f"in-process fake model: {n} instances, end to end in a fresh process")
    row("instances per second", f"{n / wall:.0f}  ({wall:.1f} s)", "target >= 2000", n / wall >= 2000)
    row("peak memory", f"{peak_mb:.0f} MB", "target < 300 MB" if not quick else "", peak_mb < 300 if not quick else None)


def help_time() -> None:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "langbite", "--help"], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    print("command line")
    row("langbite --help (median of 5)", f"{median:.3f} s", "target < 0.5 s", median < 0.5)


SCENARIOS = {"campaign": campaign, "latency": latency_bound, "zero": zero_latency, "inprocess": in_process}


def main() -> None:
    parser = argparse.ArgumentParser(description="langbite benchmark (loopback only)")
    parser.add_argument("--quick", action="store_true", help="small sizes: check that the script works")
    parser.add_argument("--only", choices=[*SCENARIOS, "help"], help="one scenario")
    args = parser.parse_args()
    print(f"langbite benchmark on {os.cpu_count()} cores, python {sys.version.split()[0]}"
          + (" (quick)" if args.quick else ""))
    try:
        for name, scenario in SCENARIOS.items():
            if args.only in (None, name):
                scenario(args.quick)
        if args.only in (None, "help"):
            help_time()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
