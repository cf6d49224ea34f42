"""Batch mode on the loopback mock: requests per prompt and peak memory as the campaign grows.

    python bench/batch_bench.py --repetitions 5      # ~10,000 prompts
    python bench/batch_bench.py --repetitions 100    # ~200,000 prompts (minutes; peak memory is the point)

Runs `langbite run --batch` in a child process on the LangBiTe example campaign in English with
every template (n_templates 0) and the given repetitions, and prints the prompts, the HTTP requests
the run made to the batch API (uploads, batch creations, polls, file downloads) and the child's peak
resident memory. No model is called: the mock answers the batch.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mock_openai import MockConfig, MockOpenAI  # noqa: E402

CAMPAIGN = Path(__file__).resolve().parent / "langbite_example_en.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repetitions", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        doc = json.loads(CAMPAIGN.read_text())
        doc.update(nTemplates=0, n_repetitions=args.repetitions)
        model = Path(tmp) / "campaign.json"
        model.write_text(json.dumps(doc))
        env = {**os.environ, "OPENAI_API_KEY": "sk-bench", "LANGBITE_CACHE_DIR": tmp}
        with MockOpenAI(MockConfig(batch_polls=2)) as server:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "langbite", "run", str(model), "--base-url", server.base_url,
                            "--out", str(Path(tmp) / "run"), "-q", "--no-cache", "--batch", "--batch-poll", "0.2"],
                           env=env, stdout=subprocess.DEVNULL, check=False)
            wall = time.perf_counter() - started
            stats = server.stats
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        lines = sum(1 for _ in open(Path(tmp) / "run" / "answers.jsonl", encoding="utf-8"))
    print(f"prompts answered: {lines:,}; requests: {stats.requests} in all (uploads {stats.uploads}, "
          f"batches {stats.batches_created}, polls {stats.batch_polls}, interactive {stats.chat}); "
          f"child peak memory {peak_mb:,.0f} MB; wall {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
