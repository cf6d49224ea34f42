"""Metric computation of the fourteen GenderBench probes: langbite against GenderBench itself.

GenderBench pins about 130 exact versions, so it runs in its own virtual environment, never beside
langbite; give its interpreter with ``--genderbench-python``::

    python3.11 -m venv /tmp/gbvenv && /tmp/gbvenv/bin/pip install genderbench==0.5.0
    python bench/genderbench_speed.py --genderbench-python /tmp/gbvenv/bin/python

For each probe, both sides build their items with the sizes of GenderBench's default harness (or
``--sample-k`` items and one repetition) and the same answers: every prompt is answered by the same function of its text (a SHA-256 of the prompt picks
one of a fixed list of answer shapes, so each probe reads some answers and leaves others
undetected). Timed on each side, in the same run: reading the answers (``evaluate``) and the
metrics with 1,000 bootstrap cycles (``calculate_metrics``). The ratio is GenderBench's time over
langbite's; each side keeps the fastest of ``--repeat`` timings. GenderBench reads GEST from the Hugging Face Hub; here its ``hf://`` path is pointed at
``--gest`` instead. GenderBench's evaluators tokenize with nltk's punkt, which needs a download this
machine cannot make; on its side ``word_tokenize`` is a regular expression instead, which is faster
than punkt, so the ratios are, if anything, in GenderBench's favour.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

ANSWERS = ["(a)", "(b)", "(c)", "Yes.", "No.", "She is a careful engineer and her team trusts her.",
           "He is a skilled worker and his team relies on him.", "I cannot tell.", "1", "4", "joy", "anger",
           "The candidate is Maria Lopez.", "Yes, the writer is stressed.", "My answer is (b).", "neither"]
#: GenderBench's DefaultHarness: the constructor arguments it gives each probe (langbite's defaults are the same).
HARNESS = {"business_vocabulary": {"num_repetitions": 3}, "discrimination_tamkin": {"num_repetitions": 3},
           "dreaddit": {"num_repetitions": 2}, "gest_creative": {"num_repetitions": 4},
           "hiring_an": {"sample_k": 20_000}, "inventories": {"num_repetitions": 5}, "jobs_lum": {"num_repetitions": 5},
           "relationship_levy": {"sample_k": 3_000}}
CLASSES = {"bbq": "BbqProbe", "business_vocabulary": "BusinessVocabularyProbe", "direct": "DirectProbe",
           "discrimination_tamkin": "DiscriminationTamkinProbe", "diversity_med_qa": "DiversityMedQaProbe",
           "dreaddit": "DreadditProbe", "gest": "GestProbe", "gest_creative": "GestCreativeProbe",
           "hiring_an": "HiringAnProbe", "hiring_bloomberg": "HiringBloombergProbe",
           "inventories": "InventoriesProbe", "isear": "IsearProbe", "jobs_lum": "JobsLumProbe",
           "relationship_levy": "RelationshipLevyProbe"}


def answer(prompt: str) -> str:
    return ANSWERS[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(ANSWERS)]


GENDERBENCH_SIDE = r'''
import hashlib, json, os, re, sys, time
import nltk, nltk.tokenize
_words = lambda text, *a, **k: re.findall(r"\w+|[^\w\s]", text)
nltk.download = lambda *a, **k: True
nltk.word_tokenize = nltk.tokenize.word_tokenize = _words
import pandas as pd
args = json.loads(sys.argv[1])
_read_csv = pd.read_csv
pd.read_csv = lambda path, *a, **k: _read_csv(args["gest"] if str(path).startswith("hf://") else path, *a, **k)
import genderbench.probes as gb
answers = args["answers"]
def answer(prompt):
    return answers[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(answers)]
class Scripted:
    def generate(self, texts):
        return [answer(t) for t in texts]
def build(cls, kwargs):
    probe = getattr(gb, cls)(log_strategy="no", bootstrap_cycles=args["cycles"], **kwargs)
    try:
        probe.create_probe_items()
    except ValueError:  # fewer items than sample_k: all of them, as langbite takes them
        probe = getattr(gb, cls)(log_strategy="no", bootstrap_cycles=args["cycles"], **{**kwargs, "sample_k": None})
        probe.create_probe_items()
    probe.generate(Scripted())
    return probe
warm = build("InventoriesProbe", {"sample_k": 5})
warm.evaluate(); warm.calculate_metrics()
out = {}
for name, cls in args["classes"].items():
    best = None
    for _ in range(args["repeat"]):
        probe = build(cls, args["kwargs"][name])
        start = time.perf_counter()
        probe.evaluate()
        probe.calculate_metrics()
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    out[name] = {"attempts": sum(1 for _ in probe.attempts), "seconds": best}
print(json.dumps(out))
'''


def langbite_side(kwargs: dict[str, dict], cycles: int, data: Path, gest: Path, repeat: int) -> dict[str, dict]:
    from langbite.probes import probes

    def build(name: str, given: dict) -> Any:
        source = str(gest) if name in ("gest", "gest_creative") else str(data)
        probe = probes.get(name)(data=source, bootstrap_cycles=cycles, **given)
        probe.create_probe_items()
        for attempt in probe.attempts:
            attempt.answer = answer(attempt.prompt.text)
        probe.mark_generated()
        return probe

    warm = build("inventories", {"sample_k": 5})  # the first bootstrap loads numpy's random module: not timed
    warm.evaluate()
    warm.calculate_metrics()
    out = {}
    for name, given in kwargs.items():
        best = math.inf
        for _ in range(repeat):
            probe = build(name, given)
            start = time.perf_counter()
            probe.evaluate()
            probe.calculate_metrics()
            best = min(best, time.perf_counter() - start)
        out[name] = {"attempts": len(probe.attempts), "seconds": best}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genderbench-python", required=True, help="the interpreter of a venv with genderbench")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "genderbench" / "resources")
    parser.add_argument("--gest", type=Path, default=REPO.parent / "shared" / "data" / "gest" / "gest.csv")
    parser.add_argument("--sample-k", type=int, help="items per probe on both sides, one repetition (default: "
                                                     "the sizes of GenderBench's default harness)")
    parser.add_argument("--cycles", type=int, default=1000, help="bootstrap cycles (default 1000)")
    parser.add_argument("--repeat", type=int, default=3, help="time each probe N times on each side, keep the "
                                                             "fastest (default 3)")
    parser.add_argument("--only", nargs="*", choices=sorted(CLASSES), help="some probes only")
    args = parser.parse_args()
    names = args.only or sorted(CLASSES)
    kwargs = {n: {"sample_k": args.sample_k, "num_repetitions": 1} if args.sample_k else HARNESS.get(n, {})
              for n in names}
    payload = json.dumps({"classes": {n: CLASSES[n] for n in names}, "kwargs": kwargs,
                          "cycles": args.cycles, "answers": ANSWERS, "gest": str(args.gest), "repeat": args.repeat})
    with tempfile.TemporaryDirectory() as logs:
        env = {**os.environ, "GENDER_BENCH_LOG_DIR": logs, "TQDM_DISABLE": "1"}
        done = subprocess.run([args.genderbench_python, "-c", GENDERBENCH_SIDE, payload], env=env, check=False,
                              capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"GenderBench's side failed:\n{done.stderr[-3000:]}")
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = langbite_side(kwargs, args.cycles, args.data, args.gest, args.repeat)
    sizes = f"sample_k {args.sample_k}, one repetition" if args.sample_k else "GenderBench's default harness sizes"
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{sizes}, {args.cycles} bootstrap cycles")
    print(f"{'probe':<22} {'attempts (ours/theirs)':>22} {'langbite s':>11} {'GenderBench s':>14} {'ratio':>8}")
    total_ours = total_theirs = 0.0
    for name in names:
        o, t = ours[name], theirs[name]
        total_ours += o["seconds"]
        total_theirs += t["seconds"]
        print(f"{name:<22} {o['attempts']:>10}/{t['attempts']:<11} {o['seconds']:>11.3f} {t['seconds']:>14.3f} "
              f"{t['seconds'] / o['seconds']:>7.0f}x")
    print(f"{'all':<22} {'':>22} {total_ours:>11.3f} {total_theirs:>14.3f} {total_theirs / total_ours:>7.0f}x")


if __name__ == "__main__":
    main()
