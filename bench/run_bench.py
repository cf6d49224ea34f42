"""langbite benchmark: the harness against an OpenAI-compatible mock server on loopback.

    python bench/run_bench.py                    # every scenario (a few minutes on two cores)
    python bench/run_bench.py --only campaign    # the campaign and its cached re-run
    python bench/run_bench.py --quick            # small sizes, to check the script works

Scenarios, each printed with its target:

- campaign: the LangBiTe example campaign in English (bench/langbite_example_en.json
  over langbite's library; the script prints how many calls it plans) at 50 ms latency
  and concurrency 64. Rounds alternate a whole run in process (plan, execute, evaluate,
  CSVs, workbook, page; no cache) with a bare ``openai.AsyncOpenAI`` loop sending the
  same prompts at the same concurrency to the same mock; the medians give the
  end-to-end rate as a ratio of the bare loop's. A second bare loop calls the SDK as
  langbite's openai provider does (``post`` with the body parsed by hand), for reference.
- cached: the same campaign with every answer in the response cache, in a new run
  folder: in process, and as ``langbite run`` in a new process (start-up included).
- langbite-format: the fixed overhead on a LangBiTe-format library of 3,000 prompts
  (tab-separated, LangBiTe's columns and ``allEqualExpected`` predictions; or LangBiTe's
  own ``prompts_en_us.csv`` with the example campaign when ``LANGBITE_ENGLISH_LIBRARY``
  names it): the cached re-run, ``langbite report``, ``validate`` and ``plan``, each in
  a new process.
- latency: 2,000 calls at 200 ms latency, concurrency 32: execution time against ideal.
- zero latency: calls per second of the harness and of the bare client.
- reports: the workbook and the page of a 3,000-response run, each timed around its writer.
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
            templates: Path | None = None) -> dict[str, Any]:
    """One `langbite run`, in process, end to end: plan, execute, evaluate, CSVs, workbook and page."""
    from langbite.runner import RunOptions, prepare, run

    options = RunOptions(base_url=base_url, concurrency=concurrency, use_cache=use_cache, progress=False,
                         templates=[templates] if templates else [])
    out = Path(tempfile.mkdtemp(dir=WORK))
    started = time.perf_counter()
    result = run(prepare(model_file, options), out, options)
    wall = time.perf_counter() - started
    shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "execution": result.stats.seconds, "calls": result.stats.calls,
            "cache_hits": result.stats.cache_hits, "errors": result.stats.errors,
            "instances": result.plan.n_calls()}


def planned_prompts(model_file: Path) -> list[str]:
    """The prompts a run of ``model_file`` sends, in plan order (no model called)."""
    return planned_prompts_of(model_file, None)


def planned_prompts_of(model_file: Path, templates: Path | None) -> list[str]:
    from langbite.runner import RunOptions, prepare

    plan = prepare(model_file, RunOptions(templates=[templates] if templates else []))
    return [job.prompt for suite in plan.suites for job in suite.jobs(plan.models[0].spec)]


def bare_openai(base_url: str, prompts: list[str], concurrency: int, *, lean: bool = False) -> float:
    """Seconds for these prompts through a bare openai.AsyncOpenAI worker pool (what a user would write).

    ``lean``: the SDK's ``post`` with the body parsed by hand, as langbite's openai provider calls it.
    """
    import json as json_

    import openai

    async def go() -> float:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
        jobs = iter(prompts)

        async def worker() -> None:
            for prompt in jobs:
                messages = [{"role": "user", "content": prompt}]
                if lean:
                    body = await client.post("/chat/completions", cast_to=bytes, body={
                        "model": "mock-gpt", "messages": messages, "temperature": 0.0, "max_tokens": 60, "seed": 1})
                    json_.loads(body)["choices"][0]["message"]["content"]
                else:
                    reply = await client.chat.completions.create(model="mock-gpt", messages=messages,  # type: ignore
                                                                 max_tokens=60, temperature=0.0, seed=1)
                    reply.choices[0].message.content

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
        await client.close()
        return elapsed

    return asyncio.run(go())


def row(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    mark = "" if ok is None else ("  ok" if ok else "  MISSED")
    print(f"  {name:<50} {value:>24}   {target}{mark}")


def fresh_process_run(model: Path, url: str, out: Path) -> float:
    """Wall seconds of `langbite run` in a new process (interpreter start and imports included)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "langbite", "run", str(model), "--base-url", url, "--out", str(out), "-q"],
                   stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def campaign(quick: bool, rounds: int) -> None:
    latency, conc = 0.05, 64
    model = CAMPAIGN
    if quick:
        model = WORK / "campaign-quick.json"
        doc = json.loads(CAMPAIGN.read_text())
        doc["nTemplates"] = 2
        model.write_text(json.dumps(doc))
    prompts = planned_prompts(model)
    n = len(prompts)
    print(f"campaign: {model.name}, {n} calls planned (the campaign is specified at 2,966), "
          f"{latency * 1000:.0f} ms latency, concurrency {conc}, median of {rounds} alternating rounds")
    runs, bare, lean = [], [], []
    with mock(latency) as url:
        cold = harness(model, url, concurrency=conc, use_cache=True)  # fills the cache for the re-runs below
        for _ in range(rounds):  # alternate, so that drift on a shared machine hits every contender alike
            runs.append(harness(model, url, concurrency=conc))
            bare.append(bare_openai(url, prompts, conc))
            lean.append(bare_openai(url, prompts, conc, lean=True))
        warm = [harness(model, url, concurrency=conc, use_cache=True) for _ in range(3)]
        fresh = [fresh_process_run(model, url, WORK / f"fresh-{i}") for i in range(3)]
    ideal = n * latency / conc
    wall = statistics.median(r["wall"] for r in runs)
    execution = statistics.median(r["execution"] for r in runs)
    bare_s, lean_s = statistics.median(bare), statistics.median(lean)
    ratios = [b / r["wall"] for b, r in zip(bare, runs)]
    row("end to end (plan, run, evaluate, CSVs, workbook, page)", f"{wall:.2f} s")
    row("execution phase / ideal (calls x latency / concurrency)", f"{execution:.2f} / {ideal:.2f} s")
    row("bare AsyncOpenAI chat.completions.create loop", f"{bare_s:.2f} s")
    row("end-to-end rate / bare loop rate", f"{bare_s / wall:.2f}x",
        "target >= 0.9x", bare_s / wall >= 0.9)
    row("  per round (their median)", " ".join(f"{x:.2f}" for x in ratios) + f" ({statistics.median(ratios):.2f})")
    row("execution rate / bare loop rate", f"{bare_s / execution:.2f}x")
    row("bare loop over the SDK's post (langbite's call)", f"{lean_s:.2f} s ({bare_s / lean_s:.2f}x create)")
    row("end-to-end rate / that loop's rate", f"{lean_s / wall:.2f}x")
    print("cached re-run of the same campaign (a new run folder, every answer in the cache)")
    row("calls made", str(warm[-1]["calls"]), "target 0", warm[-1]["calls"] == 0)
    row("in process, end to end (median of 3)", f"{statistics.median(w['wall'] for w in warm):.2f} s")
    fresh_s = statistics.median(fresh)
    row("`langbite run` in a new process (median of 3)", f"{fresh_s:.2f} s", "target < 1 s", fresh_s < 1.0)
    row("cold run, for comparison", f"{cold['wall']:.2f} s")


def new_process(args: list[str], times: int = 3) -> float:
    """Median wall seconds of ``langbite ARGS`` in a new process (interpreter start and imports included)."""
    walls = []
    for _ in range(times):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "langbite", *args], stdout=subprocess.DEVNULL, check=False)
        walls.append(time.perf_counter() - started)
    return statistics.median(walls)


def langbite_format(quick: bool) -> None:
    """Fixed overhead on a LangBiTe-format library: every answer cached, each command in a new process."""
    given = os.environ.get("LANGBITE_ENGLISH_LIBRARY")
    if given:
        library, model, what = Path(given), CAMPAIGN, f"LangBiTe's {Path(given).name} with the example campaign"
    else:
        n = 500 if quick else 3000
        library, model = make_campaign(WORK / "lbformat", templates=n // 20, communities=20,
                                       model="openai:mock-gpt", delimiter="\t")
        what = f"a LangBiTe-format library (tab-separated, {n // 20} templates x 20 communities)"
    n_calls = len(planned_prompts_of(model, library))
    print(f"langbite-format: {what}, {n_calls} prompts")
    with mock(0.0) as url:
        first = WORK / "lbformat-cold"
        harness(model, url, concurrency=64, use_cache=True, templates=library)  # fills the cache
        common = [str(model), "--templates", str(library), "--base-url", url, "-q"]
        fresh = [fresh_s for i in range(3)
                 for fresh_s in [new_process(["run", *common, "--out", str(WORK / f"lbformat-{i}")], times=1)]]
        fresh_s = statistics.median(fresh)
        row("cached re-run, `langbite run` in a new process", f"{fresh_s:.2f} s", "target < 1 s", fresh_s < 1.0)
        subprocess.run([sys.executable, "-m", "langbite", "run", *common, "--out", str(first)],
                       stdout=subprocess.DEVNULL, check=False)
        report_s = new_process(["report", str(first)])
        row("`langbite report` of that run folder", f"{report_s:.2f} s", "target < 1 s", report_s < 1.0)
    validate_s = new_process(["validate", str(library), str(model)])
    row("`langbite validate` library and model", f"{validate_s:.2f} s", "target < 0.5 s", validate_s < 0.5)
    plan_s = new_process(["plan", str(model), "--templates", str(library)])
    row("`langbite plan` (no model called)", f"{plan_s:.2f} s", "target < 0.5 s", plan_s < 0.5)


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
        bare = bare_openai(url, planned_prompts_of(model, library), conc)
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


def reports(quick: bool) -> None:
    """The workbook and the page of a 3,000-response run, timed around their writers (median of 5 rebuilds)."""
    import csv
    import io

    from langbite.report.data import gather
    from langbite.report.excel_writer import write_excel
    from langbite.report.html_writer import write_html
    from langbite.runner import RunOptions, prepare, run

    n = 500 if quick else 3000
    library, model = make_campaign(WORK / "reports", templates=n // 20, communities=20, model="openai:mock-gpt",
                                   concurrency=64)
    out = WORK / "reports-run"
    with mock(0.0) as url:
        options = RunOptions(base_url=url, concurrency=64, use_cache=False, progress=False, templates=[library])
        result = run(prepare(model, options), out, options)
    data = gather(out, result.results)
    workbook, page, reference = [], [], []
    for _ in range(5):
        started = time.perf_counter()
        write_excel(out / "report.xlsx", data)
        workbook.append(time.perf_counter() - started)
        started = time.perf_counter()
        write_html(out / "report.html", data)
        page.append(time.perf_counter() - started)
        started = time.perf_counter()  # reference: the same rows through the standard library's csv writer
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        for records in (data.responses, data.evaluations):
            for r in records:
                writer.writerow(r.values())
        reference.append(time.perf_counter() - started)
    both = statistics.median(w + p for w, p in zip(workbook, page))
    print(f"reports: {len(data.responses)} responses, {len(data.evaluations)} template verdicts")
    row("report.xlsx (median of 5)", f"{statistics.median(workbook):.3f} s")
    row("report.html (median of 5)", f"{statistics.median(page):.3f} s")
    row("both", f"{both:.3f} s", "target < 0.5 s", both < 0.5)
    row("both / the same rows through csv.writer", f"{both / statistics.median(reference):.1f}x")


def help_time() -> None:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "langbite", "--help"], stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    print("command line")
    row("langbite --help (median of 5)", f"{median:.3f} s", "target < 0.5 s", median < 0.5)


SCENARIOS: dict[str, Any] = {"campaign": campaign, "langbite-format": langbite_format, "latency": latency_bound, "zero": zero_latency,
                             "reports": reports, "inprocess": in_process}


def main() -> None:
    parser = argparse.ArgumentParser(description="langbite benchmark (loopback only)")
    parser.add_argument("--quick", action="store_true", help="small sizes: check that the script works")
    parser.add_argument("--only", choices=[*SCENARIOS, "help"], help="one scenario")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of the campaign (default 5)")
    args = parser.parse_args()
    print(f"langbite benchmark on {os.cpu_count()} cores, python {sys.version.split()[0]}"
          + (" (quick)" if args.quick else ""))
    try:
        for name, scenario in SCENARIOS.items():
            if args.only in (None, name):
                if name == "campaign":
                    scenario(args.quick, 1 if args.quick else args.rounds)
                else:
                    scenario(args.quick)
        if args.only in (None, "help"):
            help_time()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
