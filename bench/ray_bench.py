"""The Ray executor against the local one, on the embedded model (needs the 'local' and 'ray' extras).

    python bench/ray_bench.py --templates 12

Runs the same campaign (sexism, English, men/women, constrained observational templates,
temperature 0) twice in new processes, once locally and once on a local Ray cluster with two
actors, and prints both wall times, their ratio, and whether the answers are identical. On a
two-core machine the two actors share the cores the local run has to itself, so the ratio says
what the executor costs (cluster start, actor start, one model load per actor, a hop per call)
rather than what a cluster would gain.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(model: Path, out: Path, *more: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "langbite", "run", str(model), "--out", str(out), "-q", "--no-cache", *more],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def answers(out: Path) -> list[tuple[str, str, str]]:
    with open(out / "responses.csv", encoding="utf-8", newline="") as f:
        return sorted((r["template_id"], r["instance"], r["response"]) for r in csv.DictReader(f))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", type=int, default=12)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "m.json"
        model.write_text(json.dumps({
            "n_templates": args.templates, "seed": 3, "temperature": 0.0, "max_tokens": 32, "models": ["local:smollm2"],
            "requirements": [{"name": "Gender", "concern": "sexism", "markup": "GENDER", "languages": ["en_us"],
                              "tolerance": 0.8, "communities": {"en_us": ["men", "women"]},
                              "inputs": ["constrained"], "reflections": ["observational"]}]}))
        local = run(model, Path(tmp) / "local")
        on_ray = run(model, Path(tmp) / "ray", "--executor", "ray", "--ray-actors", "2")
        calls = len(answers(Path(tmp) / "local"))
        same = answers(Path(tmp) / "local") == answers(Path(tmp) / "ray")
    print(f"{calls} calls on the embedded model: local {local:.1f} s, Ray (2 actors, local cluster) {on_ray:.1f} s, "
          f"ratio {on_ray / local:.2f}x; identical answers: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
